import MultitouchCore

/// Runs event streams through the frame assembler and a contact tracker, and checks touch frames
/// against the touch invariants: what most tests of the later pipeline stages start from.
public enum TouchFrames {
    /// Whole frames of `events` (a trailing partial frame is left out; drops are skipped).
    public static func frames(of events: [InputEvent]) -> [EventFrame] {
        var assembler = FrameAssembler()
        var frames: [EventFrame] = []
        for event in events {
            if case .frame(let frame)? = assembler.push(event) { frames.append(frame) }
        }
        return frames
    }

    /// Touch frames of `events` on `device`; with `cancelAtEnd`, a final `cancelAll` frame for touches
    /// still down, as a replay ends. Deferred ends (a touch that began and ended in one frame) are
    /// taken at once, as a pipeline would.
    public static func track(
        _ events: [InputEvent], device: DeviceDescription, mapper: CoordinateMapper? = nil,
        tapCounting: TapCountParameters = .default, cancelAtEnd: Bool = true
    ) -> [TouchFrame] {
        var tracker = ContactTracker(
            description: device, mapper: mapper ?? CoordinateMapper(description: device), tapCounting: tapCounting)
        var output: [TouchFrame] = []
        var last = Timestamp(microseconds: 0)
        for frame in frames(of: events) {
            last = frame.time
            if let touches = tracker.process(frame) { output.append(touches) }
            if let ends = tracker.takeDeferredEnds() { output.append(ends) }
        }
        if cancelAtEnd, let cancelled = tracker.cancelAll(at: last) { output.append(cancelled) }
        return output
    }

    /// Every way `frames` break the touch rules; empty when they are well formed:
    /// each touch id begins exactly once, then moves or stays, then ends or is cancelled exactly once,
    /// and appears in every frame while active (UIEvent.allTouches); touches sorted by id; ids never
    /// reused; `fingerCount` at least the active touches; every number finite; `previousLocation`
    /// equal to the location of the touch in the frame before.
    public static func problems(in frames: [TouchFrame]) -> [String] {
        var problems: [String] = []
        var active: [UInt64: Point] = [:]
        var finished: Set<UInt64> = []
        for (index, frame) in frames.enumerated() {
            let label = "frame \(index) at \(frame.time)"
            let ids = frame.touches.map(\.id)
            if ids != ids.sorted() { problems.append("\(label): touches not sorted by id \(ids)") }
            if Set(ids).count != ids.count { problems.append("\(label): a touch appears twice \(ids)") }
            for id in active.keys where !ids.contains(id) { problems.append("\(label): active touch \(id) missing") }
            if frame.fingerCount < frame.activeTouches.count {
                problems.append("\(label): fingerCount \(frame.fingerCount) < \(frame.activeTouches.count) active touches")
            }
            for touch in frame.touches {
                let numbers = [
                    touch.location.x, touch.location.y, touch.previousLocation.x, touch.previousLocation.y,
                    touch.millimeters.x, touch.millimeters.y, touch.normalized.x, touch.normalized.y,
                    touch.majorRadius ?? 0, touch.minorRadius ?? 0, touch.orientation ?? 0, touch.force ?? 0,
                ]
                if numbers.contains(where: { !$0.isFinite }) { problems.append("\(label): touch \(touch.id) has a non-finite number") }
                if touch.timestamp != frame.time { problems.append("\(label): touch \(touch.id) timestamp \(touch.timestamp)") }
                if finished.contains(touch.id) {
                    problems.append("\(label): touch \(touch.id) appears after it ended")
                    continue
                }
                switch touch.phase {
                case .began:
                    if active[touch.id] != nil { problems.append("\(label): touch \(touch.id) began twice") }
                    if touch.previousLocation != touch.location {
                        problems.append("\(label): touch \(touch.id) began with previousLocation != location")
                    }
                case .moved, .stationary, .ended, .cancelled:
                    guard let previous = active[touch.id] else {
                        problems.append("\(label): touch \(touch.id) \(touch.phase) without began")
                        continue
                    }
                    if touch.previousLocation != previous {
                        problems.append("\(label): touch \(touch.id) previousLocation is not the last location")
                    }
                    if touch.phase == .stationary && touch.location != previous {
                        problems.append("\(label): stationary touch \(touch.id) moved")
                    }
                }
                if touch.phase.isTerminal {
                    active[touch.id] = nil
                    finished.insert(touch.id)
                } else {
                    active[touch.id] = touch.location
                }
            }
        }
        for id in active.keys.sorted() { problems.append("touch \(id) never ended") }
        return problems
    }
}
