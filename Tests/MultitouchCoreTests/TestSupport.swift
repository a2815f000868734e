import MultitouchCore
import MultitouchTestKit

/// Shorthand for hand-written frames: (type, code, value) triples at `ms` milliseconds.
func rawFrame(_ ms: Double, _ events: [(UInt16, UInt16, Int32)], resync: Bool = false) -> EventFrame {
    let time = Timestamp(microseconds: Int64(ms * 1000))
    return EventFrame(
        events: events.map { InputEvent(time: time, type: $0.0, code: $0.1, value: $0.2) }, time: time, isResync: resync)
}

func absEvent(_ code: UInt16, _ value: Int32) -> (UInt16, UInt16, Int32) { (EventType.abs, code, value) }
func keyEvent(_ code: UInt16, _ value: Int32) -> (UInt16, UInt16, Int32) { (EventType.key, code, value) }
let mtReport: (UInt16, UInt16, Int32) = (EventType.syn, SynCode.mtReport, 0)

func makeTracker(_ device: DeviceDescription, output: OutputMapping? = nil) -> TrackerBox {
    TrackerBox(ContactTracker(description: device, mapper: CoordinateMapper(description: device, output: output)))
}

/// A tracker behind a reference, so tests can call it inside `#expect`/`#require` (the macros do
/// not allow mutating calls).
final class TrackerBox {
    var tracker: ContactTracker
    init(_ tracker: ContactTracker) { self.tracker = tracker }
    func process(_ frame: EventFrame) -> TouchFrame? { tracker.process(frame) }
    func cancelAll(at time: Timestamp) -> TouchFrame? { tracker.cancelAll(at: time) }
    func takeDeferredEnds() -> TouchFrame? { tracker.takeDeferredEnds() }
    var activeTouchCount: Int { tracker.activeTouchCount }
    var hasDeferredEnds: Bool { tracker.hasDeferredEnds }
}

extension TouchFrame {
    func touch(_ id: UInt64) -> Touch? { touches.first { $0.id == id } }
    var phases: [TouchPhase] { touches.map(\.phase) }
}
