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
/// The parts, one file each: `SegmentStateMachine` (what follows what), `FingerTracks` (the touches
/// and their motion), `ThumbDetector` (clickpad exclusions), `SegmentGeometry` (the fit, the
/// thresholds, the limits), `TransformStore` (M and the open segment), `VelocityTracker`,
/// `TapRecognizer`, `LongPressRecognizer`, `TransformAnimator`. This type classifies each frame, feeds
/// the machine and carries out its actions. State diagram: docs/state-machines/gesture.md. Rules,
/// thresholds and sources: docs/GESTURES.md.
public struct GestureEngine: Sendable {
    public private(set) var configuration: GestureConfiguration
    public let surface: GestureSurface
    private var logger: Logger
    private(set) var machine = SegmentStateMachine()
    private(set) var tracks = FingerTracks()
    private let thumbs: ThumbDetector
    private(set) var taps: TapRecognizer
    private(set) var longPress: LongPressRecognizer
    private(set) var animator: TransformAnimator
    private var store = TransformStore()
    /// The segment whose updates are published (finger or animation), nil between segments.
    private var segment: TransformStore.Segment?
    /// The measurement of the fingers: of the possible segment, of the running one, or of the fingers
    /// that stay while a decrease settles.
    private var geometry: SegmentGeometry?
    /// The running session, or the last one (`isActive` false) until the next begins.
    private var session = Session(id: 0, start: Timestamp(microseconds: 0), isActive: false)
    private var sessionCounter: UInt64 = 0
    private var seq: UInt64 = 0
    private let windowMicroseconds: Int64
    private let stopMicroseconds: Int64
    /// Whether the last frame was semi-mt (a timer acts between frames).
    private var lastSemiMT = false
    /// Velocity of the last published finger update, and its speed in mm/s (the release velocity
    /// momentum starts from).
    private var lastVelocity = GestureVelocity.zero
    private var lastSpeedMM = 0.0
    /// The finger segment that ended in the current frame with its release velocity: momentum or a
    /// spring-back start from it when the session ends.
    private var released: (centroid: Point, velocity: Point, speedMM: Double, mode: GestureMode)?

    /// Facts about the running session.
    struct Session: Sendable {
        var id: UInt64
        var start: Timestamp
        /// From the first finger down to the last finger up.
        var isActive = true
        var maxFingers = 0
        /// Farthest any counting finger got from where it landed, mm.
        var maxTravel = 0.0
        /// A segment began (the slop was passed): no tap, no long press, later segments start live.
        var moved = false
        var cancelled = false
        /// A long press began (no tap then).
        var pressed = false
        /// BTN_LEFT was pressed (a clickpad click: no tap).
        var clicked = false
        var landingSum = Point.zero
        var landingSumMM = Point.zero
        var landings = 0
        /// Fingers after the previous frame.
        var lastFingers = 0
        /// Zoom and rotation engaged in an earlier segment: later segments need no threshold.
        var scaleEngaged = false
        var rotationEngaged = false
        /// The first landing continues a one-finger tap: a one-finger drag is a quick zoom about
        /// `quickZoomPivot`.
        var quickZoomPivot: Point?

        var tapLocation: Point { landings > 0 ? landingSum / Double(landings) : .zero }
        var tapLocationMM: Point { landings > 0 ? landingSumMM / Double(landings) : .zero }
    }

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
        windowMicroseconds = Int64((usable.velocityWindowMilliseconds * 1000).rounded())
        stopMicroseconds = Int64((usable.velocityStopMilliseconds * 1000).rounded())
    }

    /// A touchscreen engine, semi-mt when `isSemiMT` (also taken per frame from `TouchFrame.isSemiMT`).
    public init(configuration: GestureConfiguration = .default, isSemiMT: Bool) {
        self.init(configuration: configuration, surface: GestureSurface(type: .direct, isSemiMT: isSemiMT))
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
        var bases: [AffineTransform] = []
        if let segment { bases.append(segment.base) }
        if let geometry { bases.append(geometry.base) }
        guard let moved = store.replace(with: transform, bases: bases) else { return false }
        var k = 0
        if segment != nil {
            segment?.base = moved[k]
            k += 1
        }
        if geometry != nil { geometry?.base = moved[k] }
        return true
    }

    /// The earliest time a timer is due (debounce, long press, held single tap, animation frame), for
    /// the event loop to arm; nil when none is pending (no idle wake-ups).
    public var nextDeadline: Timestamp? { dueTimer?.deadline }

    /// Advances virtual time to `time`, firing every timer due at or before it, each at its own
    /// deadline and in deadline order.
    public mutating func advance(to time: Timestamp) -> [GestureEvent] {
        var out: [GestureEvent] = []
        fireTimers(upTo: time, into: &out)
        return out
    }

    /// Feeds one touch frame; returns what it caused, in order: timers due at or before the frame
    /// first, then an interrupted animation's `cancelled`, session began, segment ended/began/changed,
    /// discrete events, session ended, and an animation's `began`.
    public mutating func process(_ frame: TouchFrame) -> [GestureEvent] {
        var out: [GestureEvent] = []
        fireTimers(upTo: frame.time, into: &out)
        let time = frame.time
        let semi = surface.isSemiMT || frame.isSemiMT
        lastSemiMT = semi
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
            return out
        }
        let joined = tracks.joinSession()
        session.landingSum = session.landingSum + joined.location
        session.landingSumMM = session.landingSumMM + joined.mm
        session.landings += joined.count
        session.maxFingers = max(session.maxFingers, fingers, joined.count)
        session.maxTravel = max(session.maxTravel, tracks.largestTravel)
        if frame.isButtonPressed { session.clicked = true }

        // 2. Classify the frame for the segment machine, and carry out what it decides.
        // A decrease settles; a frame in which a finger also landed is a swap (the new finger has no
        // earlier position to measure the fingers that stay against).
        let decreased = fingers < session.lastFingers && !change.landed
        released = nil
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
            dispatch(.allLifted, time: time, semi: semi, fingers: 0, measureEnding: false, into: &out)
        } else if change.landed || change.lifted || fingers != session.lastFingers {
            // The fingers of the ending segment are all current in this frame only when nothing
            // lifted and the device is not semi-mt (a semi-mt box changes meaning with the count).
            let current = !change.lifted && !decreased && !semi
            dispatch(
                .fingersChanged(decreased: decreased, next: fingers >= 2 ? .pinchRotate : .pan), time: time,
                semi: semi, fingers: fingers, measureEnding: current, into: &out)
        } else {
            var event = SegmentStateMachine.Event.moved
            if case .possible = machine.state, var g = geometry {
                g.measure(&tracks, time: time, publish: false)
                geometry = g
                if g.crossed(slopMillimeters: configuration.panSlopMillimeters) { event = .slopCrossed(g.mode) }
            }
            dispatch(event, time: time, semi: semi, fingers: fingers, measureEnding: false, into: &out)
        }

        // 3. Discrete recognisers.
        let lifted = fingers < session.lastFingers || fingers == 0
        longPress.update(
            session: session.id, lifted: lifted, travel: session.maxTravel, moved: session.moved,
            cancelled: session.cancelled, location: tracks.fingerCentroid ?? session.tapLocation, time: time, into: &out
        )
        if longPress.isPressing { session.pressed = true }

        // 4. Session end.
        if fingers == 0 {
            endSession(at: time, into: &out)
        } else {
            session.lastFingers = fingers
        }
        tracks.removeTerminal()
        return out
    }
}

// MARK: - The segment machine's actions

extension GestureEngine {
    /// Feeds one event to the machine, logs the transition, and carries out the action.
    private mutating func dispatch(
        _ event: SegmentStateMachine.Event, time: Timestamp, semi: Bool, fingers: Int, measureEnding: Bool,
        into out: inout [GestureEvent]
    ) {
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
        switch action {
        case .none:
            break
        case .measureNew:
            tracks.takeMembers(previous: false)
            let pivot = fingers == 1 ? session.quickZoomPivot : nil
            if fingers != 1 { session.quickZoomPivot = nil }
            geometry = makeGeometry(
                mode: pivot != nil ? .quickZoom : (fingers >= 2 ? .pinchRotate : .pan), fingers: fingers, semi: semi,
                pivot: pivot)
        case .beginAtCrossing:
            guard var g = geometry else { return bug(event, from, time) }
            g.beginAtCrossing(slopMillimeters: configuration.panSlopMillimeters)
            geometry = g
            session.moved = true
            if g.mode == .quickZoom { taps.quickZoomBegan(at: time, into: &out) }
            begin(mode: g.mode, fingers: g.fingers, c0: g.referencePoint, time: time, into: &out)
            follow(time: time, into: &out)
        case .follow:
            follow(time: time, into: &out)
        case .settle:
            guard segment != nil else { return bug(event, from, time) }
            freezeSegment()
            // The fingers that stay drive the open segment from where they were in the last frame in
            // which every finger of it was current: their motion in this frame is not lost.
            tracks.takeMembers(previous: !semi)
            geometry = makeGeometry(mode: fingers >= 2 ? .pinchRotate : .pan, fingers: fingers, semi: semi, pivot: nil)
            follow(time: time, into: &out)
        case .endAndBegin:
            if measureEnding { follow(time: time, publishChange: false, into: &out) }
            end(phase: .ended, time: time, into: &out)
            tracks.takeMembers(previous: false)
            let g = makeGeometry(mode: fingers >= 2 ? .pinchRotate : .pan, fingers: fingers, semi: semi, pivot: nil)
            geometry = g
            begin(mode: g.mode, fingers: g.fingers, c0: g.referencePoint, time: time, into: &out)
        case .end:
            end(phase: .ended, time: time, into: &out)
        case .cancel:
            session.cancelled = true
            if segment != nil { end(phase: .cancelled, time: time, into: &out) }
            geometry = nil
        case .invalid:
            bug(event, from, time)
        }
        if case .draining = machine.state { session.cancelled = true }
    }

    private func bug(_ event: SegmentStateMachine.Event, _ state: SegmentStateMachine.State.Name, _ time: Timestamp) {
        logger.error(
            "multitouchd bug: invalid gesture event",
            metadata: [
                "gesture.event": "\(event.name)", "gesture.state": "\(state.rawValue)", "gesture.time": "\(time)",
            ])
    }

    private func makeGeometry(mode: GestureMode, fingers: Int, semi: Bool, pivot: Point?) -> SegmentGeometry {
        SegmentGeometry(
            mode: mode, fingers: fingers, semi: semi, base: store.current, tracks: tracks, configuration: configuration,
            scaleEngaged: session.moved && session.scaleEngaged || mode == .quickZoom,
            rotationEngaged: session.moved && session.rotationEngaged, pivot: pivot)
    }

    /// Opens the published segment at identity: M stays, and `began` is always published (a missing
    /// `began` is the classic cause of a jump).
    private mutating func begin(
        mode: GestureMode, fingers: Int, c0: Point, time: Timestamp, into out: inout [GestureEvent]
    ) {
        segment = TransformStore.Segment(mode: mode, fingers: fingers, session: session.id, c0: c0, base: store.current)
        publish(.began, time: time, scale: 1, rotation: 0, velocity: .zero, into: &out)
    }

    /// Measures the driving fingers, sets M = S_G * base and publishes `changed` when M changed.
    private mutating func follow(time: Timestamp, publishChange: Bool = true, into out: inout [GestureEvent]) {
        // Measured in place through the optional (no copy of the geometry out and back).
        guard geometry != nil, segment != nil else { return }
        geometry?.measure(&tracks, time: time, publish: true, catchUpByTime: publishChange)
        guard let engaged = geometry?.engaged, let next = geometry?.cumulative else { return }
        if engaged.scale { session.scaleEngaged = true }
        if engaged.rotation { session.rotationEngaged = true }
        let before = store.current
        store.set(next)
        if publishChange && store.current != before {
            publish(.changed, time: time, into: &out)
        }
    }

    /// The driving part so far becomes the frozen part of the open segment (a decrease settles).
    private mutating func freezeSegment() {
        guard var s = segment, let g = geometry else { return }
        s.scaleFactor *= g.scale
        s.rotationOffset += g.rotation
        segment = s
    }

    /// Publishes the open segment's end (`ended` or `cancelled`) with its current values.
    private mutating func end(phase: GesturePhase, time: Timestamp, into out: inout [GestureEvent]) {
        guard segment != nil else { return }
        publish(phase, time: time, into: &out)
        if let s = segment, phase == .ended {
            released = (store.centroid(of: s), lastVelocity.translation, lastSpeedMM, s.mode)
        }
        segment = nil
    }

    /// Publishes an update of the open finger segment with its values read back from M.
    private mutating func publish(_ phase: GesturePhase, time: Timestamp, into out: inout [GestureEvent]) {
        let scale = (segment?.scaleFactor ?? 1) * (geometry?.scale ?? 1)
        let rotation = (segment?.rotationOffset ?? 0) + (geometry?.rotation ?? 0)
        var velocity = GestureVelocity.zero
        if geometry != nil {
            let v = tracks.memberVelocity(
                now: time, windowMicroseconds: windowMicroseconds, stopMicroseconds: stopMicroseconds)
            let sr =
                geometry?.scaleAndRotationVelocity(
                    now: time, windowMicroseconds: windowMicroseconds, stopMicroseconds: stopMicroseconds)
                ?? (scale: 0, rotation: 0)
            let translation: Point
            switch segment?.mode ?? .pan {
            case .quickZoom, .animatedZoom: translation = .zero
            case .pan, .pinchRotate, .momentum: translation = v.published
            }
            velocity = GestureVelocity(
                translation: translation, scale: sr.scale * (segment?.scaleFactor ?? 1), rotation: sr.rotation)
            lastSpeedMM = v.mm.length
        }
        publish(phase, time: time, scale: scale, rotation: rotation, velocity: velocity, into: &out)
    }

    private mutating func publish(
        _ phase: GesturePhase, time: Timestamp, scale: Double, rotation: Double, velocity: GestureVelocity,
        into out: inout [GestureEvent]
    ) {
        guard let s = segment else { return }
        let centroid = phase == .began ? s.c0 : store.centroid(of: s)
        seq &+= 1
        lastVelocity = velocity
        out.append(
            .update(
                GestureUpdate(
                    session: s.session, seq: seq, time: time, phase: phase, mode: s.mode, fingers: s.fingers,
                    centroid: centroid, translation: centroid - s.c0, scale: scale, rotation: rotation,
                    velocity: velocity,
                    matrix: store.current)))
    }
}

// MARK: - Sessions, timers and animations

extension GestureEngine {
    /// The first finger is down: an animation stops where it is, a held tap is resolved, the session
    /// and the long press start.
    private mutating func beginSession(at time: Timestamp, fingers: Int, into out: inout [GestureEvent]) {
        interruptAnimation(at: time, into: &out)
        sessionCounter &+= 1
        var first: FingerTracks.Track?
        for i in tracks.indices where tracks[i].began && tracks[i].exclusion == nil {
            first = tracks[i]
            break
        }
        let quickZoom =
            configuration.quickZoom && fingers == 1
            && first.map { taps.continuesOneFingerTap(landingAt: $0.mm, time: time) } ?? false
        if let first { taps.landing(at: first.mm, time: time, into: &out) }
        session = Session(id: sessionCounter, start: time)
        session.quickZoomPivot = quickZoom ? first?.location : nil
        out.append(.sessionBegan(session: session.id, time: time))
        longPress.sessionBegan(at: time)
    }

    /// The last finger lifted: the tap recogniser judges the session (and asks for a zoom), `sessionEnded`, then the
    /// animation that follows a release (spring-back, momentum) or a tap zoom.
    private mutating func endSession(at time: Timestamp, into out: inout [GestureEvent]) {
        longPress.sessionEnded()
        session.isActive = false
        geometry = nil
        var zoom: (factor: Double, pivot: Point)?
        if let request = taps.sessionEnded(session, time: time, into: &out) {
            let factor = store.limitedFactor(request.factor, configuration: configuration)
            if request.isDoubleTap && (factor == 1 || configuration.zoomAnimationMilliseconds == 0) {
                _ = store.zoom(by: factor, about: request.location, configuration: configuration)
                out.append(
                    .doubleTap(session: request.session, time: time, location: request.location, matrix: store.current))
            } else {
                if request.isDoubleTap {
                    out.append(
                        .doubleTap(
                            session: request.session, time: time, location: request.location, matrix: store.current))
                }
                if factor != 1 { zoom = (factor, request.location) }
            }
        }
        out.append(.sessionEnded(session: session.id, time: time, cancelled: session.cancelled))
        if let zoom {
            startZoom(factor: zoom.factor, about: zoom.pivot, time: time, into: &out)
        } else if let release = released, !session.cancelled {
            let spring = store.springBackFactor(configuration: configuration)
            if configuration.rubberBand && spring != 1 {
                startZoom(factor: spring, about: release.centroid, time: time, into: &out)
            } else if configuration.momentum, release.mode == .pan || release.mode == .pinchRotate,
                animator.flings(speedMillimetersPerSecond: release.speedMM)
            {
                segment = TransformStore.Segment(
                    mode: .momentum, fingers: 0, session: session.id, c0: release.centroid, base: store.current)
                publish(.began, time: time, scale: 1, rotation: 0, velocity: .zero, into: &out)
                animator.startMomentum(at: time, velocity: release.velocity, speedMM: release.speedMM)
            }
        }
        released = nil
    }

    /// Opens an `animatedZoom` segment by `factor` about `pivot`; with no animation time it begins and
    /// ends in this instant.
    private mutating func startZoom(factor: Double, about pivot: Point, time: Timestamp, into out: inout [GestureEvent])
    {
        segment = TransformStore.Segment(
            mode: .animatedZoom, fingers: 0, session: session.id, c0: pivot, base: store.current)
        publish(.began, time: time, scale: 1, rotation: 0, velocity: .zero, into: &out)
        if configuration.zoomAnimationMilliseconds > 0 {
            animator.startZoom(
                at: time, factor: factor, about: pivot, durationMilliseconds: configuration.zoomAnimationMilliseconds)
        } else {
            guard let s = segment else { return }
            store.set(AffineTransform.scaling(by: factor, about: pivot).concatenating(after: s.base))
            publish(.ended, time: time, scale: factor, rotation: 0, velocity: .zero, into: &out)
            segment = nil
        }
    }

    /// Publishes the animation frame that is due.
    private mutating func animationFrame(into out: inout [GestureEvent]) {
        guard let frame = animator.nextFrame() else { return }
        guard let s = segment else { return }
        let transform: AffineTransform
        switch s.mode {
        case .momentum: transform = .translation(frame.translation)
        case .animatedZoom: transform = .scaling(by: frame.scale, about: s.c0)
        case .pan, .pinchRotate, .quickZoom: return
        }
        store.set(transform.concatenating(after: s.base))
        publish(
            frame.finished ? .ended : .changed, time: frame.time, scale: frame.scale, rotation: 0,
            velocity: frame.velocity, into: &out)
        if frame.finished { segment = nil }
    }

    /// A finger landed during an animation: it stops where it is (`cancelled`, M kept).
    private mutating func interruptAnimation(at time: Timestamp, into out: inout [GestureEvent]) {
        guard animator.state.name != .idle else { return }
        animator.stop()
        guard let s = segment else { return }
        let scale = s.mode == .animatedZoom ? store.relative(to: s.base).scaleFactor : 1
        publish(.cancelled, time: time, scale: scale, rotation: 0, velocity: .zero, into: &out)
        segment = nil
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
                let fingers = session.lastFingers
                dispatch(
                    .settleTimeout(next: fingers >= 2 ? .pinchRotate : .pan), time: due.deadline, semi: lastSemiMT,
                    fingers: fingers, measureEnding: false, into: &out)
            case .longPress:
                longPress.timeout(
                    session: session.id, fingers: session.isActive ? session.lastFingers : 0,
                    location: tracks.fingerCentroid ?? session.tapLocation, time: due.deadline, into: &out)
                if longPress.isPressing { session.pressed = true }
            case .tap:
                taps.timeout(into: &out)
            case .animation:
                animationFrame(into: &out)
            }
        }
    }
}
