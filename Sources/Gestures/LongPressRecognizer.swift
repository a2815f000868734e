import MultitouchCore

/// The long-press recogniser, armed at the first finger down of a session: `began` when the fingers
/// stayed down and still for `longPressDurationMilliseconds` (a timer), `ended` when a finger lifts,
/// `cancelled` when a finger moves too far or a touch is cancelled. A session whose segment began
/// (the fingers passed the slop) is no long press.
///
/// NIO style: one `Event` in through one exhaustive `handle`, the `longPress` events it causes out, no
/// I/O, no clock (the deadline is data in `armed`; its expiry comes back as `.timeout`).
struct LongPressRecognizer: Sendable {
    /// What the engine reports.
    enum Event: Sendable {
        /// The first finger of a session went down at `time`: the press is armed.
        case sessionBegan(time: Timestamp)
        /// The deadline (`nextDeadline`) passed at `time` with `fingers` down about `location`.
        case timeout(session: UInt64, fingers: Int, location: Point, time: Timestamp)
        /// After each frame: `lifted` a finger lifted, `travel` the farthest any finger got from its
        /// landing (mm), `moved` a segment began, `cancelled` a touch was cancelled.
        case frame(
            session: UInt64, lifted: Bool, travel: Double, moved: Bool, cancelled: Bool, location: Point,
            time: Timestamp)
        /// The last finger lifted.
        case sessionEnded
    }

    enum State: Sendable {
        /// No session, or the press already failed or finished in this one.
        case idle
        /// Waiting for `deadline` with the fingers still and all down.
        case armed(deadline: Timestamp)
        /// Began; ends when a finger lifts, is cancelled by movement or a cancelled touch.
        case pressing(fingers: Int)

        enum Name: String, CaseIterable, Sendable { case idle, armed, pressing }

        var name: Name {
            switch self {
            case .idle: return .idle
            case .armed: return .armed
            case .pressing: return .pressing
            }
        }
    }

    private(set) var state: State = .idle
    private let duration: Double
    private let movement: Double

    init(configuration: GestureConfiguration) {
        duration = configuration.longPressDurationMilliseconds
        movement = configuration.longPressMovementMillimeters
    }

    var nextDeadline: Timestamp? {
        switch state {
        case .armed(let deadline): return deadline
        case .idle, .pressing: return nil
        }
    }

    var isPressing: Bool {
        switch state {
        case .pressing: return true
        case .idle, .armed: return false
        }
    }

    /// Handles one event, appending the `longPress` events it causes to `out`.
    mutating func handle(_ event: Event, into out: inout [GestureEvent]) {
        switch event {
        case .sessionBegan(let time):
            state = .armed(deadline: time.adding(milliseconds: duration))
        case .timeout(let session, let fingers, let location, let time):
            timeout(session: session, fingers: fingers, location: location, time: time, into: &out)
        case .frame(let session, let lifted, let travel, let moved, let cancelled, let location, let time):
            update(
                session: session, lifted: lifted, travel: travel, moved: moved, cancelled: cancelled,
                location: location, time: time, into: &out)
        case .sessionEnded:
            state = .idle
        }
    }

    /// The deadline passed with `fingers` down: the press begins (nothing when no finger is down).
    private mutating func timeout(
        session: UInt64, fingers: Int, location: Point, time: Timestamp, into out: inout [GestureEvent]
    ) {
        guard case .armed = state else { return }
        guard fingers > 0 else {
            state = .idle
            return
        }
        state = .pressing(fingers: fingers)
        out.append(.longPress(session: session, time: time, phase: .began, location: location, fingers: fingers))
    }

    /// After each frame: the press fails (armed) or ends or is cancelled (pressing).
    private mutating func update(
        session: UInt64, lifted: Bool, travel: Double, moved: Bool, cancelled: Bool, location: Point, time: Timestamp,
        into out: inout [GestureEvent]
    ) {
        let tooFar = travel > movement
        switch state {
        case .idle:
            break
        case .armed:
            if moved || cancelled || tooFar || lifted { state = .idle }
        case .pressing(let fingers):
            if cancelled || tooFar {
                out.append(
                    .longPress(session: session, time: time, phase: .cancelled, location: location, fingers: fingers))
                state = .idle
            } else if lifted {
                out.append(
                    .longPress(session: session, time: time, phase: .ended, location: location, fingers: fingers))
                state = .idle
            }
        }
    }

}
