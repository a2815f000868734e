import Logging
import MultitouchCore

/// The unified pan/pinch/rotate engine plus tap, double-tap, quick-zoom and long-press recognisers and
/// the momentum and zoom animations of one device. A pure function of (touch frames, virtual time,
/// configuration): no clock reads, no I/O.
///
/// A session runs from the first finger down to the last finger up and is made of segments: `pan`
/// with one finger, `pinchRotate` with two or more, `quickZoom` for a tap-and-drag. A segment begins
/// only once the fingers pass the slop (so a tap never opens one), and every change of the finger set
/// ends it and begins the next, re-based on the fingers, so the cumulative transform never jumps.
/// After the last finger lifts, animation segments (`momentum`, `animatedZoom`) may follow.
///
/// The parts, one file each, each holding its own state: `SegmentStateMachine` (what follows what),
/// `GestureSession` (the session and its facts), `FingerTracks` (the touches and their motion),
/// `ThumbDetector` (clickpad exclusions), `SegmentPublisher` (the published segment, the measurement
/// that drives it, `SegmentGeometry`), `TransformStore` (M), `TapRecognizer` (taps and their zooms),
/// `LongPressRecognizer`, `TransformAnimator` (momentum and animated zooms, and what follows a
/// release). This type is their coordinator and holds no state of its own: it classifies each frame,
/// feeds the machines and carries out their actions. State diagram: docs/state-machines/gesture.md.
/// Rules, thresholds and sources: docs/GESTURES.md.
public struct GestureEngine: Sendable {
    public private(set) var configuration: GestureConfiguration
    public let surface: GestureSurface
    private var logger: Logger
    private(set) var machine = SegmentStateMachine()
    private(set) var session = GestureSession()
    private(set) var tracks = FingerTracks()
    private let thumbs: ThumbDetector
    private(set) var publisher: SegmentPublisher
    private var store = TransformStore()
    private(set) var taps: TapRecognizer
    private(set) var longPress: LongPressRecognizer
    private(set) var animator: TransformAnimator

    /// - Parameters:
    ///   - configuration: thresholds; invalid values (see `GestureConfiguration.problems`) are replaced
    ///     by their defaults, so `configuration` reads back the values in use.
    ///   - surface: the device as data (touchscreen or touchpad, clickpad, semi-mt, height).
    ///   - logger: every state transition is logged at debug (`gesture: transition`).
    public init(
        configuration: GestureConfiguration = .default, surface: GestureSurface = .touchscreen, logger: Logger? = nil
    ) {
        let usable = configuration.sanitized
        self.configuration = usable
        self.surface = surface
        self.logger = logger ?? Logger(label: "multitouchd.gestures", factory: { _ in SwiftLogNoOpLogHandler() })
        thumbs = ThumbDetector(surface: surface, configuration: usable)
        taps = TapRecognizer(configuration: usable)
        longPress = LongPressRecognizer(configuration: usable)
        animator = TransformAnimator(configuration: usable)
        publisher = SegmentPublisher(configuration: usable)
    }

    /// The cumulative transform (M = S_current * M_base) as last published; always finite (a product
    /// that would overflow keeps the previous value, `TransformStore.set`).
    public var transform: AffineTransform { store.current }

    /// Replaces the cumulative transform (a client reset or set). An open segment (or animation)
    /// continues from it without a jump in its own relative values (M_base = S^-1 * T).
    /// - Returns: false, changing nothing, when `transform` is not finite or singular (a client bug
    ///   the caller reports to the client).
    @discardableResult
    public mutating func setTransform(_ transform: AffineTransform) -> Bool {
        publisher.replace(&store, with: transform)
    }

    /// The earliest time a timer is due (debounce, long press, held single tap, animation frame), for
    /// the event loop to arm; nil when none is pending (no idle wake-ups).
    public var nextDeadline: Timestamp? { dueTimer?.deadline }

    /// Advances virtual time to `time`, firing every timer due at or before it, each at its own
    /// deadline and in deadline order.
    public mutating func advance(to time: Timestamp) -> [GestureEvent] {
        var out: [GestureEvent] = []
        advance(to: time, into: &out)
        return out
    }

    /// `advance(to:)` appending to `out` (a reused buffer: firing timers allocates nothing).
    public mutating func advance(to time: Timestamp, into out: inout [GestureEvent]) {
        fireTimers(upTo: time, into: &out)
    }

    /// Feeds one touch frame; returns what it caused, in order: timers due at or before the frame
    /// first, then an interrupted animation's `cancelled`, session began, segment ended/began/changed,
    /// discrete events, session ended, and an animation's `began`.
    public mutating func process(_ frame: TouchFrame) -> [GestureEvent] {
        var out: [GestureEvent] = []
        process(frame, into: &out)
        return out
    }

    /// `process(_:)` appending to `out`: a caller that reuses its buffer (the daemon's pipeline)
    /// allocates nothing per frame.
    public mutating func process(_ frame: TouchFrame, into out: inout [GestureEvent]) {
        fireTimers(upTo: frame.time, into: &out)
        let time = frame.time
        let semi = surface.isSemiMT
        let change = tracks.update(frame, thumbs: thumbs)
        // A device that counts more fingers than its slots carry (BTN_TOOL_TRIPLETAP on two slots)
        // adds them; the tracker already keeps the count to the touches elsewhere.
        let fingers = change.fingers == 0 ? 0 : max(change.fingers, frame.fingerCount - change.excluded)

        // 1. Session start: the first finger down (even one that lands and lifts in this frame).
        var began = false
        if !session.isActive && (fingers > 0 || change.touchedDown) && !change.cancelled {
            beginSession(at: time, fingers: fingers, into: &out)
            began = true
        }
        guard session.isActive else {
            tracks.removeTerminal()
            return
        }
        let joined = tracks.joinSession()
        session.handle(
            .frame(fingers: fingers, joined: joined, travel: tracks.largestTravel, buttonPressed: frame.isButtonPressed)
        )
        let lastFingers = session.facts.lastFingers

        // 2. Classify the frame for the segment machine, and carry out what it decides.
        // A decrease settles; a frame in which a finger also landed is a swap (the new finger has no
        // earlier position to measure the fingers that stay against).
        let decreased = fingers < lastFingers && !change.landed
        var release: TransformAnimator.Release?
        if change.cancelled {
            dispatch(.cancelled, time: time, semi: semi, fingers: fingers, measureEnding: false, into: &out)
            if fingers == 0 {
                dispatch(.allLifted, time: time, semi: semi, fingers: 0, measureEnding: false, into: &out)
            }
        } else if began {
            dispatch(.landed, time: time, semi: semi, fingers: fingers, measureEnding: false, into: &out)
            if fingers == 0 {
                dispatch(.allLifted, time: time, semi: semi, fingers: 0, measureEnding: false, into: &out)
            }
        } else if fingers == 0 {
            release = dispatch(.allLifted, time: time, semi: semi, fingers: 0, measureEnding: false, into: &out)
        } else if change.landed || change.lifted || fingers != lastFingers {
            // The fingers of the ending segment are all current in this frame only when nothing
            // lifted and the device is not semi-mt (a semi-mt box changes meaning with the count).
            let current = !change.lifted && !decreased && !semi
            dispatch(
                .fingersChanged(decreased: decreased, next: fingers >= 2 ? .pinchRotate : .pan), time: time,
                semi: semi, fingers: fingers, measureEnding: current, into: &out)
        } else {
            var event = SegmentStateMachine.Event.moved
            if case .possible = machine.state,
                let mode = publisher.measurePossible(
                    &tracks, time: time, slopMillimeters: configuration.panSlopMillimeters)
            {
                event = .slopCrossed(mode)
            }
            dispatch(event, time: time, semi: semi, fingers: fingers, measureEnding: false, into: &out)
        }

        // 3. Discrete recognisers.
        let lifted = fingers < lastFingers || fingers == 0
        let facts = session.facts
        longPress.handle(
            .frame(
                session: facts.id, lifted: lifted, travel: facts.maxTravel, moved: facts.moved,
                cancelled: facts.cancelled, location: tracks.fingerCentroid ?? facts.tapLocation, time: time),
            into: &out)
        if longPress.isPressing { session.handle(.pressed) }

        // 4. Session end.
        if fingers == 0 {
            endSession(at: time, release: release, into: &out)
        } else {
            session.handle(.counted(fingers: fingers))
        }
        tracks.removeTerminal()
    }
}

// MARK: - The segment machine's actions

extension GestureEngine {
    /// Feeds one event to the machine, logs the transition, and carries out the action. Returns the
    /// release of a finger segment that the last finger up ended.
    @discardableResult
    private mutating func dispatch(
        _ event: SegmentStateMachine.Event, time: Timestamp, semi: Bool, fingers: Int, measureEnding: Bool,
        into out: inout [GestureEvent]
    ) -> TransformAnimator.Release? {
        let from = machine.state.name
        let deadline = time.adding(milliseconds: configuration.fingerChurnDebounceMilliseconds)
        let action = machine.handle(event, settleDeadline: deadline)
        logger.debug(
            "gesture: transition",
            metadata: [
                "gesture.from": "\(from.rawValue)", "gesture.event": "\(event.name)",
                "gesture.to": "\(machine.state.name.rawValue)", "gesture.action": "\(action)",
                "gesture.fingers": "\(fingers)", "gesture.session": "\(session.id)",
            ])
        var release: TransformAnimator.Release?
        switch action {
        case .none:
            break
        case .measureNew:
            tracks.takeMembers(previous: false)
            let pivot = fingers == 1 ? session.facts.quickZoomPivot : nil
            if fingers != 1 { session.handle(.quickZoomDeclined) }
            publisher.measure(
                with: makeGeometry(
                    mode: pivot != nil ? .quickZoom : (fingers >= 2 ? .pinchRotate : .pan), fingers: fingers,
                    semi: semi, pivot: pivot))
        case .beginAtCrossing:
            guard let g = publisher.beginAtCrossing(slopMillimeters: configuration.panSlopMillimeters) else {
                bug(event, from, time)
                return nil
            }
            session.handle(.segmentBegan)
            if g.mode == .quickZoom { carryOut(taps.handle(.quickZoomBegan(time: time)), time: time, into: &out) }
            begin(mode: g.mode, fingers: g.fingers, c0: g.referencePoint, time: time, into: &out)
            follow(time: time, into: &out)
        case .follow:
            follow(time: time, into: &out)
        case .settle:
            guard publisher.segment != nil else {
                bug(event, from, time)
                return nil
            }
            publisher.freeze()
            // The fingers that stay drive the open segment from where they were in the last frame in
            // which every finger of it was current: their motion in this frame is not lost.
            tracks.takeMembers(previous: !semi)
            publisher.measure(
                with: makeGeometry(mode: fingers >= 2 ? .pinchRotate : .pan, fingers: fingers, semi: semi, pivot: nil))
            follow(time: time, into: &out)
        case .endAndBegin:
            if measureEnding { follow(time: time, publishChange: false, into: &out) }
            _ = publisher.end(.ended, tracks: tracks, store: store, time: time, into: &out)
            tracks.takeMembers(previous: false)
            let g = makeGeometry(mode: fingers >= 2 ? .pinchRotate : .pan, fingers: fingers, semi: semi, pivot: nil)
            publisher.measure(with: g)
            begin(mode: g.mode, fingers: g.fingers, c0: g.referencePoint, time: time, into: &out)
        case .end:
            release = publisher.end(.ended, tracks: tracks, store: store, time: time, into: &out)
        case .cancel:
            session.handle(.cancelled)
            _ = publisher.end(.cancelled, tracks: tracks, store: store, time: time, into: &out)
            publisher.measure(with: nil)
        case .invalid:
            bug(event, from, time)
        }
        if case .draining = machine.state { session.handle(.cancelled) }
        return release
    }

    private func bug(_ event: SegmentStateMachine.Event, _ state: SegmentStateMachine.State.Name, _ time: Timestamp) {
        logger.error(
            "multitouchd bug: invalid gesture event",
            metadata: [
                "gesture.event": "\(event.name)", "gesture.state": "\(state.rawValue)", "gesture.time": "\(time)",
            ])
    }

    private func makeGeometry(mode: GestureMode, fingers: Int, semi: Bool, pivot: Point?) -> SegmentGeometry {
        let facts = session.facts
        return SegmentGeometry(
            mode: mode, fingers: fingers, semi: semi, base: store.current, tracks: tracks, configuration: configuration,
            scaleEngaged: facts.moved && facts.scaleEngaged || mode == .quickZoom,
            rotationEngaged: facts.moved && facts.rotationEngaged, pivot: pivot)
    }

    /// Opens a segment of the session at identity (`began` at `c0`).
    private mutating func begin(
        mode: GestureMode, fingers: Int, c0: Point, time: Timestamp, into out: inout [GestureEvent]
    ) {
        let segment = TransformStore.Segment(
            mode: mode, fingers: fingers, session: session.id, c0: c0, base: store.current)
        publisher.begin(segment, store: store, time: time, into: &out)
    }

    /// Follows the fingers of the open segment; zoom or rotation engaged stays engaged for the session.
    private mutating func follow(time: Timestamp, publishChange: Bool = true, into out: inout [GestureEvent]) {
        guard
            let engaged = publisher.follow(
                &tracks, store: &store, time: time, publishChange: publishChange, into: &out)
        else { return }
        if engaged.scale || engaged.rotation {
            session.handle(.engaged(scale: engaged.scale, rotation: engaged.rotation))
        }
    }
}

// MARK: - Sessions, timers and animations

extension GestureEngine {
    /// The first finger is down: an animation stops where it is, a held tap is resolved, the session
    /// and the long press start.
    private mutating func beginSession(at time: Timestamp, fingers: Int, into out: inout [GestureEvent]) {
        interruptAnimation(at: time, into: &out)
        var first: FingerTracks.Track?
        for i in tracks.indices where tracks[i].began && tracks[i].exclusion == nil {
            first = tracks[i]
            break
        }
        let quickZoom =
            configuration.quickZoom && fingers == 1
            && first.map { taps.continuesOneFingerTap(landingAt: $0.mm, time: time) } ?? false
        if let first { carryOut(taps.handle(.landed(mm: first.mm, time: time)), time: time, into: &out) }
        session.handle(.began(time: time, quickZoomPivot: quickZoom ? first?.location : nil))
        out.append(.sessionBegan(session: session.id, time: time))
        longPress.handle(.sessionBegan(time: time), into: &out)
    }

    /// The last finger lifted: the tap recogniser judges the session, `sessionEnded`, then the
    /// animation that follows: a tap's zoom, or what the animator makes of the `release` (a
    /// spring-back, momentum).
    private mutating func endSession(
        at time: Timestamp, release: TransformAnimator.Release?, into out: inout [GestureEvent]
    ) {
        longPress.handle(.sessionEnded, into: &out)
        session.handle(.ended)
        publisher.measure(with: nil)
        let facts = session.facts
        let zoom = carryOut(
            taps.handle(.sessionEnded(facts, time: time, cumulativeScale: store.current.scaleFactor)), time: time,
            into: &out)
        out.append(.sessionEnded(session: facts.id, time: time, cancelled: facts.cancelled))
        if let zoom {
            startZoom(factor: zoom.factor, about: zoom.pivot, time: time, into: &out)
        } else if let release, !facts.cancelled {
            let spring = store.springBackFactor(configuration: configuration)
            switch animator.released(release, springBackFactor: spring, at: time) {
            case .none:
                break
            case .springBack(let factor, let pivot):
                startZoom(factor: factor, about: pivot, time: time, into: &out)
            case .momentum(let centroid):
                let segment = TransformStore.Segment(
                    mode: .momentum, fingers: 0, session: facts.id, c0: centroid, base: store.current)
                publisher.begin(segment, store: store, time: time, into: &out)
            }
        }
    }

    /// Carries out the tap recogniser's actions in order; returns the animated zoom it asks for, which
    /// opens after `sessionEnded`.
    @discardableResult
    private mutating func carryOut(
        _ actions: [TapRecognizer.Action], time: Timestamp, into out: inout [GestureEvent]
    ) -> (factor: Double, pivot: Point)? {
        var zoom: (factor: Double, pivot: Point)?
        for action in actions {
            switch action {
            case .publish(let event):
                out.append(event)
            case .zoom(let factor, let pivot):
                _ = store.zoom(by: factor, about: pivot, configuration: configuration)
            case .doubleTap(let id, let location):
                out.append(.doubleTap(session: id, time: time, location: location, matrix: store.current))
            case .animateZoom(let factor, let pivot):
                zoom = (factor, pivot)
            }
        }
        return zoom
    }

    /// Opens an `animatedZoom` segment by `factor` about `pivot`; with no animation time it begins and
    /// ends in this instant.
    private mutating func startZoom(factor: Double, about pivot: Point, time: Timestamp, into out: inout [GestureEvent])
    {
        let segment = TransformStore.Segment(
            mode: .animatedZoom, fingers: 0, session: session.id, c0: pivot, base: store.current)
        publisher.begin(segment, store: store, time: time, into: &out)
        if configuration.zoomAnimationMilliseconds > 0 {
            animator.startZoom(
                at: time, factor: factor, about: pivot, durationMilliseconds: configuration.zoomAnimationMilliseconds)
        } else {
            store.set(AffineTransform.scaling(by: factor, about: pivot).concatenating(after: segment.base))
            publisher.publishAnimation(.ended, time: time, scale: factor, velocity: .zero, store: store, into: &out)
        }
    }

    /// Publishes the animation frame that is due.
    private mutating func animationFrame(into out: inout [GestureEvent]) {
        guard let frame = animator.nextFrame() else { return }
        guard let s = publisher.segment else { return }
        let transform: AffineTransform
        switch s.mode {
        case .momentum: transform = .translation(frame.translation)
        case .animatedZoom: transform = .scaling(by: frame.scale, about: s.c0)
        case .pan, .pinchRotate, .quickZoom: return
        }
        store.set(transform.concatenating(after: s.base))
        publisher.publishAnimation(
            frame.finished ? .ended : .changed, time: frame.time, scale: frame.scale, velocity: frame.velocity,
            store: store, into: &out)
    }

    /// A finger landed during an animation: it stops where it is (`cancelled`, M kept).
    private mutating func interruptAnimation(at time: Timestamp, into out: inout [GestureEvent]) {
        guard animator.state.name != .idle else { return }
        animator.stop()
        guard let s = publisher.segment else { return }
        let scale = s.mode == .animatedZoom ? store.relative(to: s.base).scaleFactor : 1
        publisher.publishAnimation(.cancelled, time: time, scale: scale, velocity: .zero, store: store, into: &out)
    }

    private enum Timer { case settle, longPress, tap, animation }

    /// The earliest pending timer.
    private var dueTimer: (timer: Timer, deadline: Timestamp)? {
        var best: (timer: Timer, deadline: Timestamp)?
        func consider(_ timer: Timer, _ deadline: Timestamp?) {
            guard let deadline else { return }
            if best.map({ deadline < $0.deadline }) ?? true { best = (timer, deadline) }
        }
        if case .settling(let deadline) = machine.state { consider(.settle, deadline) }
        consider(.longPress, longPress.nextDeadline)
        consider(.tap, taps.nextDeadline)
        consider(.animation, animator.nextDeadline)
        return best
    }

    /// Fires every timer due at or before `time`, earliest first, each at its own deadline.
    private mutating func fireTimers(upTo time: Timestamp, into out: inout [GestureEvent]) {
        while let due = dueTimer, due.deadline <= time {
            switch due.timer {
            case .settle:
                let fingers = session.facts.lastFingers
                // The fingers that stay were measured when the decrease began: the geometry knows
                // whether they are a semi-mt box.
                dispatch(
                    .settleTimeout(next: fingers >= 2 ? .pinchRotate : .pan), time: due.deadline,
                    semi: publisher.geometry?.semi ?? surface.isSemiMT, fingers: fingers, measureEnding: false,
                    into: &out)
            case .longPress:
                let facts = session.facts
                longPress.handle(
                    .timeout(
                        session: facts.id, fingers: session.isActive ? facts.lastFingers : 0,
                        location: tracks.fingerCentroid ?? facts.tapLocation, time: due.deadline),
                    into: &out)
                if longPress.isPressing { session.handle(.pressed) }
            case .tap:
                carryOut(taps.handle(.timeout), time: due.deadline, into: &out)
            case .animation:
                animationFrame(into: &out)
            }
        }
    }
}
