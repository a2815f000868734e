import Gestures
import MultitouchCore

/// Checks the touch-level invariants on a stream of touch frames (DESIGN.md invariants 1 and 5): every
/// touch has exactly one `began` first, then only `moved`/`stationary`, then exactly one `ended` or
/// `cancelled`, and is never seen again; ids are unique and increasing; every number is finite; frame
/// times never go backwards. Also gathers the per-recording statistics `multitouchctl check` prints.
public struct TouchInvariantChecker: Sendable {
    private enum State { case active, finished }
    private var states: [UInt64: State] = [:]
    private var lastBeganID: UInt64 = 0
    private var lastTime: Timestamp?
    public private(set) var violations: [String] = []

    /// Touch frames seen.
    public private(set) var touchFrames = 0
    /// Touches that began.
    public private(set) var touchesBegun = 0
    /// The most touches down at once, and the most fingers the device counted at once.
    public private(set) var maximumTouchesDown = 0
    public private(set) var maximumFingers = 0
    public private(set) var cancelledTouches = 0

    public init() {}

    public mutating func observe(_ frame: TouchFrame) {
        touchFrames += 1
        if let last = lastTime, frame.time < last {
            violation("frame at \(frame.time) goes back in time from \(last)")
        }
        lastTime = frame.time
        var seen = Set<UInt64>()
        var down = 0
        var previousID: UInt64 = 0
        for touch in frame.touches {
            if touch.id <= previousID { violation("touches of frame \(frame.time) not sorted by id") }
            previousID = touch.id
            if !seen.insert(touch.id).inserted { violation("touch \(touch.id) twice in frame \(frame.time)") }
            checkFinite(touch, at: frame.time)
            let state = states[touch.id]
            switch (touch.phase, state) {
            case (.began, nil):
                if touch.id <= lastBeganID { violation("touch id \(touch.id) not increasing") }
                lastBeganID = touch.id
                touchesBegun += 1
                states[touch.id] = .active
            case (.began, .some):
                violation("touch \(touch.id) began twice (at \(frame.time))")
            case (.moved, .active), (.stationary, .active):
                break
            case (.ended, .active), (.cancelled, .active):
                if touch.phase == .cancelled { cancelledTouches += 1 }
                states[touch.id] = .finished
            case (.moved, nil), (.stationary, nil), (.ended, nil), (.cancelled, nil):
                violation("touch \(touch.id) is \(touch.phase.rawValue) at \(frame.time) without began")
            case (_, .finished):
                violation("touch \(touch.id) seen again (\(touch.phase.rawValue)) after it ended, at \(frame.time)")
            }
            if !touch.phase.isTerminal { down += 1 }
        }
        // Every active touch must be in every frame (UIEvent.allTouches).
        for (id, state) in states where state == .active && !seen.contains(id) {
            violation("active touch \(id) missing from frame \(frame.time)")
            states[id] = .finished
        }
        maximumTouchesDown = max(maximumTouchesDown, down)
        maximumFingers = max(maximumFingers, frame.fingerCount)
        if frame.fingerCount < down { violation("frame \(frame.time) counts \(frame.fingerCount) fingers for \(down) touches") }
        // Keep the table small: finished touches cannot come back.
        if states.count > 256 { states = states.filter { $0.value == .active } }
    }

    /// Call after the last frame: a touch still active means the stream ended without cancelling it.
    public mutating func finish() {
        for (id, state) in states.sorted(by: { $0.key < $1.key }) where state == .active {
            violation("touch \(id) never ended")
        }
    }

    private mutating func checkFinite(_ t: Touch, at time: Timestamp) {
        let values = [t.location.x, t.location.y, t.previousLocation.x, t.previousLocation.y, t.millimeters.x,
                      t.millimeters.y, t.normalized.x, t.normalized.y, t.majorRadius ?? 0, t.minorRadius ?? 0,
                      t.orientation ?? 0, t.force ?? 0]
        if !values.allSatisfy(\.isFinite) { violation("touch \(t.id) has a non-finite number at \(time)") }
    }

    private mutating func violation(_ text: String) {
        if violations.count < 50 { violations.append(text) }
    }
}
