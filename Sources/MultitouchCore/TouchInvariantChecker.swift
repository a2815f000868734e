/// The one checker of the touch-level invariants (DESIGN.md invariants 1 and 5), used by `multitouchctl
/// check` (through `RecordingCheck`) and by the tests (`TouchFrames.problems(in:)`), frame by frame:
///
/// - every touch has exactly one `began` first, then only `moved`/`stationary`, then exactly one
///   `ended` or `cancelled`, and is never seen again; ids of new touches increase;
/// - every active touch is in every frame (UIEvent.allTouches), touches are sorted by id, none twice;
/// - `fingerCount` is at least the active touches; frame times never go backwards; every touch carries
///   its frame's time;
/// - `previousLocation` is the touch's location in the frame before (its own location at `began`), and a
///   `stationary` touch has not moved;
/// - every number is finite.
///
/// Also gathers the per-recording statistics `multitouchctl check` prints.
public struct TouchInvariantChecker: Sendable {
    /// An active touch's last location; finished touches are kept (as nil) so a reappearance is caught.
    private var active: [UInt64: Point] = [:]
    private var finished: Set<UInt64> = []
    private var lastBeganID: UInt64 = 0
    private var lastTime: Timestamp?
    /// What broke, in order (at most `maximumViolations`).
    public private(set) var violations: [String] = []
    /// Violations beyond `maximumViolations` are counted, not kept.
    public private(set) var violationCount = 0
    public let maximumViolations: Int
    /// False for input whose timestamps are garbage on purpose (fuzzing): every rule but the time order.
    public let checksTimeOrder: Bool

    /// Touch frames seen.
    public private(set) var touchFrames = 0
    /// Touches that began.
    public private(set) var touchesBegun = 0
    /// The most touches down at once, and the most fingers the device counted at once.
    public private(set) var maximumTouchesDown = 0
    public private(set) var maximumFingers = 0
    public private(set) var cancelledTouches = 0

    public init(maximumViolations: Int = 50, checksTimeOrder: Bool = true) {
        self.maximumViolations = maximumViolations
        self.checksTimeOrder = checksTimeOrder
    }

    public mutating func observe(_ frame: TouchFrame) {
        let label = "frame \(touchFrames) at \(frame.time)"
        touchFrames += 1
        if checksTimeOrder, let last = lastTime, frame.time < last {
            violation("\(label): goes back in time from \(last)")
        }
        lastTime = frame.time
        var seen = Set<UInt64>()
        var down = 0
        var previousID: UInt64 = 0
        for touch in frame.touches {
            if touch.id <= previousID { violation("\(label): touches not sorted by id") }
            previousID = touch.id
            if !seen.insert(touch.id).inserted { violation("\(label): touch \(touch.id) appears twice") }
            checkFinite(touch, label)
            if touch.timestamp != frame.time {
                violation("\(label): touch \(touch.id) has timestamp \(touch.timestamp)")
            }
            if !touch.phase.isTerminal { down += 1 }
            if finished.contains(touch.id) {
                violation("\(label): touch \(touch.id) seen again (\(touch.phase.rawValue)) after it ended")
                continue
            }
            switch touch.phase {
            case .began:
                if active[touch.id] != nil {
                    violation("\(label): touch \(touch.id) began twice")
                } else {
                    if touch.id <= lastBeganID { violation("\(label): touch id \(touch.id) not increasing") }
                    lastBeganID = touch.id
                    touchesBegun += 1
                }
                if touch.previousLocation != touch.location {
                    violation("\(label): touch \(touch.id) began with previousLocation != location")
                }
            case .moved, .stationary, .ended, .cancelled:
                guard let previous = active[touch.id] else {
                    violation("\(label): touch \(touch.id) is \(touch.phase.rawValue) without began")
                    continue
                }
                if touch.previousLocation != previous {
                    violation("\(label): touch \(touch.id) previousLocation is not its last location")
                }
                if touch.phase == .stationary && touch.location != previous {
                    violation("\(label): stationary touch \(touch.id) moved")
                }
            }
            if touch.phase.isTerminal {
                if touch.phase == .cancelled { cancelledTouches += 1 }
                active[touch.id] = nil
                finished.insert(touch.id)
            } else {
                active[touch.id] = touch.location
            }
        }
        for id in active.keys.sorted() where !seen.contains(id) {
            violation("\(label): active touch \(id) missing")
            active[id] = nil
            finished.insert(id)
        }
        maximumTouchesDown = max(maximumTouchesDown, down)
        maximumFingers = max(maximumFingers, frame.fingerCount)
        if frame.fingerCount < down {
            violation("\(label): counts \(frame.fingerCount) fingers for \(down) active touches")
        }
        // Ids increase, so a finished id below every active one and below the last began can only come
        // back as a violation already caught by "not increasing": keep the set small.
        if finished.count > 256 {
            let floor = active.keys.min() ?? lastBeganID
            finished = finished.filter { $0 >= floor }
        }
    }

    /// Call after the last frame: a touch still active means the stream ended without cancelling it.
    public mutating func finish() {
        for id in active.keys.sorted() { violation("touch \(id) never ended") }
        active = [:]
    }

    /// True when no frame broke a rule.
    public var isClean: Bool { violationCount == 0 }

    private mutating func checkFinite(_ t: Touch, _ label: String) {
        let values = [
            t.location.x, t.location.y, t.previousLocation.x, t.previousLocation.y, t.millimeters.x, t.millimeters.y,
            t.normalized.x, t.normalized.y, t.majorRadius ?? 0, t.minorRadius ?? 0, t.orientation ?? 0, t.force ?? 0,
        ]
        if !values.allSatisfy(\.isFinite) { violation("\(label): touch \(t.id) has a non-finite number") }
    }

    private mutating func violation(_ text: String) {
        violationCount += 1
        if violations.count < maximumViolations { violations.append(text) }
    }
}
