import MultitouchCore

/// The long-press recogniser, armed at the first finger down of a session: `began` when the fingers
/// stayed down and still for `longPressDurationMilliseconds` (a timer), `ended` when a finger lifts,
/// `cancelled` when a finger moves too far or a touch is cancelled. A session whose segment began
/// (the fingers passed the slop) is no long press.
struct LongPressRecognizer: Sendable {
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

    mutating func sessionBegan(at time: Timestamp) { state = .armed(deadline: time.adding(milliseconds: duration)) }

    /// The deadline passed with `fingers` down: the press begins (nothing when no finger is down).
    mutating func timeout(
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

    /// After each frame: `lifted` a finger lifted, `travel` the farthest any finger got from its
    /// landing (mm), `moved` a segment began, `cancelled` a touch was cancelled.
    mutating func update(
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

    mutating func sessionEnded() { state = .idle }
}
