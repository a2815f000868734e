import MultitouchCore

/// The multi-tap recogniser: counts taps (UITouch.tapCount semantics for whole multi-finger taps),
/// publishes `tap`, decides the double-tap and two-finger-tap zooms, holds a single tap while a double
/// tap can still follow (`singleTapWaitsForDoubleTap`), and tells the engine when a landing continues a
/// one-finger tap (the start of a quick zoom). It decides, from the facts of the session that ended,
/// whether it was a tap (no segment began, short, still, not pressed, no clickpad click, not
/// cancelled) and what the tap does to the transform.
///
/// NIO style: one `Event` in through one exhaustive `handle`, `Action`s out for the engine to carry
/// out in order, no I/O, no clock (the held tap's deadline is data; its expiry comes back as
/// `.timeout`).
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

    /// What the engine reports.
    enum Event: Sendable {
        /// A new session's first finger landed at `mm` (millimetres) at `time`.
        case landed(mm: Point, time: Timestamp)
        /// A quick zoom began at `time`: the tap before it was its first half.
        case quickZoomBegan(time: Timestamp)
        /// The session of `facts` ended at `time`; `cumulativeScale` is the scale of M now (a tap's
        /// zoom is limited so that M stays within the configured scale limits).
        case sessionEnded(GestureSession.Facts, time: Timestamp, cumulativeScale: Double)
        /// The held tap's deadline (`nextDeadline`) passed.
        case timeout
    }

    /// What the engine does, in order.
    enum Action: Sendable, Equatable {
        /// Publish this `tap`.
        case publish(GestureEvent)
        /// Zoom M by `factor` about `location` at once, without a segment (a double tap with no zoom
        /// animation).
        case zoom(factor: Double, about: Point)
        /// Publish `doubleTap` of `session` at `location` with M as it is now.
        case doubleTap(session: UInt64, location: Point)
        /// Open an `animatedZoom` segment by `factor` about `pivot`, after `sessionEnded`.
        case animateZoom(factor: Double, about: Point)
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

    /// The actions of the last event (see `handle`).
    private var actions: [Action] = []

    /// Handles one event; the engine carries out the returned actions in order. They are returned in
    /// the recognizer's own buffer, whose storage the next event reuses once the engine has let the
    /// actions go (a tap allocates nothing).
    mutating func handle(_ event: Event) -> [Action] {
        var out: [Action] = []
        swap(&out, &actions)
        out.removeAll(keepingCapacity: true)
        defer { actions = out }
        switch event {
        case .landed(let mm, let time): landed(at: mm, time: time, into: &out)
        case .quickZoomBegan(let time): quickZoomBegan(at: time, into: &out)
        case .sessionEnded(let facts, let time, let scale):
            sessionEnded(facts, time: time, cumulativeScale: scale, into: &out)
        case .timeout: timeout(into: &out)
        }
        return out
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

    /// The held tap's deadline passed: it is published.
    private mutating func timeout(into out: inout [Action]) {
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
    private mutating func landed(at mm: Point, time: Timestamp, into out: inout [Action]) {
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

    /// A quick zoom used the tap: a held tap is published (it stands), and the count starts over.
    private mutating func quickZoomBegan(at time: Timestamp, into out: inout [Action]) {
        if case .waiting(let held, _) = state { emit(held, time: time, into: &out) }
        state = .ready
    }

    /// The session ended at `time`: a tap when a finger landed, no segment began, no long press, no
    /// clickpad click, not cancelled, within the tap's duration and movement. A double tap publishes
    /// `doubleTap` and zooms by `doubleTapZoomFactor` (at once, or animated after `sessionEnded`); a
    /// two-finger tap zooms by `twoFingerTapZoomFactor` (animated) when that is not 1.
    private mutating func sessionEnded(
        _ session: GestureSession.Facts, time: Timestamp, cumulativeScale: Double, into out: inout [Action]
    ) {
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
            return
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
            return
        }
        emit(this, time: time, into: &out)
        state = .tapped(this)
        // The double-tap zoom is a one-finger gesture: a two-finger double tap is two two-finger taps
        // (map apps zoom out at a two-finger tap, never in at its double), and of those only the
        // first zooms, so a pair zooms out once.
        if this.count == 2 && this.fingers == 1 {
            let factor = TransformStore.limitedFactor(
                configuration.doubleTapZoomFactor, cumulativeScale: cumulativeScale, configuration: configuration)
            if factor == 1 || configuration.zoomAnimationMilliseconds == 0 {
                // No animation: M zooms at once and `doubleTap` carries the zoomed M.
                if factor != 1 { out.append(.zoom(factor: factor, about: this.location)) }
                out.append(.doubleTap(session: this.session, location: this.location))
            } else {
                out.append(.doubleTap(session: this.session, location: this.location))
                out.append(.animateZoom(factor: factor, about: this.location))
            }
        } else if this.fingers == 2, this.count == 1, configuration.twoFingerTapZoomFactor != 1 {
            let factor = TransformStore.limitedFactor(
                configuration.twoFingerTapZoomFactor, cumulativeScale: cumulativeScale, configuration: configuration)
            if factor != 1 { out.append(.animateZoom(factor: factor, about: this.location)) }
        }
    }

    private func continues(_ last: LastTap, landingAt mm: Point, time: Timestamp) -> Bool {
        time.milliseconds(since: last.time) <= configuration.doubleTapIntervalMilliseconds
            && mm.distance(to: last.mm) <= configuration.doubleTapDistanceMillimeters
    }

    private func emit(_ t: LastTap, time: Timestamp, into out: inout [Action]) {
        out.append(
            .publish(.tap(session: t.session, time: time, location: t.location, tapCount: t.count, fingers: t.fingers)))
    }
}
