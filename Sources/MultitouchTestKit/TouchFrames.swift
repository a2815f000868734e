import MultitouchCore

/// Runs event streams through the frame assembler and a contact tracker, and checks touch frames
/// against the touch invariants: what most tests of the later pipeline stages start from.
public enum TouchFrames {
    /// Whole frames of `events`, recorded resyncs included (a trailing partial frame is left out; drops are
    /// skipped).
    public static func frames(of events: [InputEvent]) -> [EventFrame] {
        var assembler = FrameAssembler()
        var frames: [EventFrame] = []
        for event in events {
            switch assembler.push(event) {
            case .frame(let frame)?, .resync(let frame, _)?: frames.append(frame)
            case .dropped?, nil: break
            }
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

    /// Every way `frames` break the touch rules (`TouchInvariantChecker`, the checker `multitouchctl
    /// check` uses); empty when they are well formed. Nothing is left out: every violation is listed.
    /// `timeOrdered: false` skips the one rule garbage timestamps break on purpose.
    public static func problems(in frames: [TouchFrame], timeOrdered: Bool = true) -> [String] {
        var checker = TouchInvariantChecker(maximumViolations: .max, checksTimeOrder: timeOrdered)
        for frame in frames { checker.observe(frame) }
        checker.finish()
        return checker.violations
    }
}
