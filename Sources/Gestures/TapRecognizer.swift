import MultitouchCore

/// The multi-tap recogniser: counts taps (UITouch.tapCount semantics for whole multi-finger taps),
/// publishes `tap`, asks for the double-tap and two-finger-tap zooms, holds a single tap while a
/// double tap can still follow (`singleTapWaitsForDoubleTap`), and tells the engine when a landing
/// continues a one-finger tap (the start of a quick zoom). It decides, from the facts of the session
/// that ended, whether it was a tap (no segment began, short, still, not pressed, no clickpad click, not
/// cancelled).
struct TapRecognizer: Sendable {
    /// A finished tap that a following tap may continue, or that is held.
    struct LastTap: Sendable {
        var session: UInt64
        /// When its last finger lifted.
        var time: Timestamp
        var location: Point
        var mm: Point
        var count: Int
        var fingers: Int
    }

    enum State: Sendable {
        /// No earlier tap to continue.
        case ready
        /// A tap was published; the next one within the interval and distance continues its count.
        case tapped(LastTap)
        /// singleTapWaitsForDoubleTap: a first tap is held until `deadline`, when a second tap can no
        /// longer complete.
        case waiting(LastTap, deadline: Timestamp)

        enum Name: String, CaseIterable, Sendable { case ready, tapped, waiting }

        var name: Name {
            switch self {
            case .ready: return .ready
            case .tapped: return .tapped
            case .waiting: return .waiting
            }
        }
    }

    /// A zoom a tap asks for.
    struct Zoom: Sendable {
        var session: UInt64
        var time: Timestamp
        var location: Point
        var factor: Double
        /// True for a double tap (published as `doubleTap`), false for a two-finger tap.
        var isDoubleTap: Bool
    }

    private(set) var state: State = .ready
    private let configuration: GestureConfiguration

    init(configuration: GestureConfiguration) { self.configuration = configuration }

    var nextDeadline: Timestamp? {
        switch state {
        case .waiting(_, let deadline): return deadline
        case .ready, .tapped: return nil
        }
    }

    /// The held tap's deadline passed: it is published.
    mutating func timeout(into out: inout [GestureEvent]) {
        switch state {
        case .waiting(let held, let deadline):
            emit(held, time: deadline, into: &out)
            state = .tapped(held)
        case .ready, .tapped:
            break
        }
    }

    /// A new session lands at `mm`: a held tap that this landing can no longer complete is published;
    /// one it may still complete waits until the landing can no longer be a tap.
    mutating func landing(at mm: Point, time: Timestamp, into out: inout [GestureEvent]) {
        switch state {
        case .ready, .tapped:
            break
        case .waiting(let held, let deadline):
            if continues(held, landingAt: mm, time: time) {
                let lastChance = time.adding(milliseconds: configuration.tapMaximumDurationMilliseconds)
                state = .waiting(held, deadline: max(deadline, lastChance))
            } else {
                emit(held, time: time, into: &out)
                state = .tapped(held)
            }
        }
    }

    /// True when a one-finger session landing at `mm` at `time` follows a one-finger tap closely
    /// enough to be its second tap (a drag from here is a quick zoom).
    func continuesOneFingerTap(landingAt mm: Point, time: Timestamp) -> Bool {
        switch state {
        case .ready: return false
        case .tapped(let last), .waiting(let last, _):
            return last.fingers == 1 && continues(last, landingAt: mm, time: time)
        }
    }

    /// A quick zoom used the tap: a held tap is published (it stands), and the count starts over.
    mutating func quickZoomBegan(at time: Timestamp, into out: inout [GestureEvent]) {
        if case .waiting(let held, _) = state { emit(held, time: time, into: &out) }
        state = .ready
    }

    /// The session ended at `time`: a tap when a finger landed, no segment began, no long press, no
    /// clickpad click, not cancelled, within the tap's duration and movement. Returns the zoom the tap
    /// asks for: always for a double tap (the caller publishes `doubleTap`, zooming when the factor is
    /// not 1), for a two-finger tap when its factor is not 1.
    mutating func sessionEnded(
        _ session: GestureEngine.Session, time: Timestamp, into out: inout [GestureEvent]
    ) -> Zoom? {
        let isTap =
            !session.cancelled && !session.moved && !session.pressed && !session.clicked && session.landings > 0
            && time.milliseconds(since: session.start) <= configuration.tapMaximumDurationMilliseconds
            && session.maxTravel <= configuration.tapMaximumMovementMillimeters
        let landed = session.start
        guard isTap else {
            if case .waiting(let held, _) = state {
                // The session that could have been the second tap was not one: the single tap stands.
                emit(held, time: time, into: &out)
                state = .tapped(held)
            }
            return nil
        }
        var this = LastTap(
            session: session.id, time: time, location: session.tapLocation, mm: session.tapLocationMM, count: 1,
            fingers: session.maxFingers)
        var previous: LastTap?
        switch state {
        case .ready: previous = nil
        case .tapped(let last), .waiting(let last, _): previous = last
        }
        if let p = previous, p.fingers == this.fingers, continues(p, landingAt: this.mm, time: landed) {
            this.count = p.count + 1
        }
        if this.count == 1, case .waiting(let held, _) = state {
            emit(held, time: time, into: &out)  // the held tap was not followed by its double
        }
        if configuration.singleTapWaitsForDoubleTap && this.count == 1 {
            state = .waiting(this, deadline: time.adding(milliseconds: configuration.doubleTapIntervalMilliseconds))
            return nil
        }
        emit(this, time: time, into: &out)
        state = .tapped(this)
        // The double-tap zoom is a one-finger gesture: a two-finger double tap is two two-finger taps
        // (map apps zoom out at a two-finger tap, never in at its double), and of those only the
        // first zooms, so a pair zooms out once.
        if this.count == 2 && this.fingers == 1 {
            return Zoom(
                session: this.session, time: time, location: this.location, factor: configuration.doubleTapZoomFactor,
                isDoubleTap: true)
        }
        if this.fingers == 2, this.count == 1, configuration.twoFingerTapZoomFactor != 1 {
            return Zoom(
                session: this.session, time: time, location: this.location,
                factor: configuration.twoFingerTapZoomFactor, isDoubleTap: false)
        }
        return nil
    }

    private func continues(_ last: LastTap, landingAt mm: Point, time: Timestamp) -> Bool {
        time.milliseconds(since: last.time) <= configuration.doubleTapIntervalMilliseconds
            && mm.distance(to: last.mm) <= configuration.doubleTapDistanceMillimeters
    }

    private func emit(_ t: LastTap, time: Timestamp, into out: inout [GestureEvent]) {
        out.append(.tap(session: t.session, time: time, location: t.location, tapCount: t.count, fingers: t.fingers))
    }
}
