import MultitouchCore

/// Gesture thresholds, in mm, ms and degrees, measured in the isotropic millimetre space whatever the
/// published space is. Defaults and their sources are documented in docs/GESTURES.md and
/// config/multitouchd.toml (section [gestures], same names in snake_case).
public struct GestureConfiguration: Hashable, Sendable {
    /// A one-finger pan starts once the finger moved this far from where it landed; a centroid moving
    /// this far also ends a churn debounce early. Between Android's
    /// TOUCH_SLOP (8 dp = 1.3 mm) and Hammer.js Pan `threshold` (10 CSS px = 2.6 mm).
    public var panSlopMillimeters: Double = 2.0
    /// A pinchRotate segment of a session that has not moved yet publishes no change until the mean
    /// spread changed this much... (Android ScaleGestureDetector's span slop is 2 x touch slop, 2.5 mm;
    /// we are less sticky because the angle and the centroid also release it.)
    public var spreadDeadBandMillimeters: Double = 1.0
    /// ...or the mean angle turned this much (ours: above the ~1.4 degree jitter of fingers 20 mm apart
    /// with 0.5 mm of noise; Hammer.js Rotate `threshold` is 0)...
    public var rotationDeadBandDegrees: Double = 3.0
    /// ...or the centroid moved this far.
    public var centroidDeadBandMillimeters: Double = 1.0
    /// After a finger-count decrease the next segment waits this long (or for motion), so fingers that
    /// lift a few ms apart make no spurious segment. libinput waits 100 ms before switching touchpad
    /// gestures on a finger-count change (DEFAULT_GESTURE_SWITCH_TIMEOUT); the design this generalises
    /// debounced at 50 ms, which real two-finger lifts (5-30 ms apart) stay under.
    public var fingerChurnDebounceMilliseconds: Double = 50
    /// Longest session that still counts as a tap: Hammer.js Tap `time` (250 ms).
    public var tapMaximumDurationMilliseconds: Double = 250
    /// Farthest a tapping finger may move: Hammer.js Tap `threshold` (9 px = 2.4 mm), rounded up for
    /// multi-finger taps whose fingers roll while landing. A session that started a pan is no tap either.
    public var tapMaximumMovementMillimeters: Double = 3.0
    /// Longest gap between taps of a multi-tap (from a lift to the next landing): Android
    /// DOUBLE_TAP_TIMEOUT and Hammer.js Tap `interval` (300 ms).
    public var doubleTapIntervalMilliseconds: Double = 300
    /// Farthest the second tap may land from the first: between Hammer.js `posThreshold` (10 px, 2.6
    /// mm) and Android DOUBLE_TAP_SLOP (100 dp, 16 mm).
    public var doubleTapDistanceMillimeters: Double = 10.0
    /// A finger held this long without moving beyond `longPressMovementMillimeters` is a long press:
    /// UIKit UILongPressGestureRecognizer.minimumPressDuration (0.5 s); Android uses 400-500 ms.
    public var longPressDurationMilliseconds: Double = 500
    /// UIKit allowableMovement is 10 pt (1.6 mm on a 163 ppi phone); touchscreens on kiosks are coarser.
    public var longPressMovementMillimeters: Double = 3.0
    /// Cumulative scale limits, applied to the incoming segment at its boundary (ours).
    public var minimumScale: Double = 0.05
    public var maximumScale: Double = 50.0
    /// Double tap zooms the cumulative transform by this factor toward the tap point; 1 disables.
    public var doubleTapZoomFactor: Double = 1.0
    /// A single tap is published only once a double tap can no longer follow (UIKit
    /// `require(toFail:)` between a single- and a double-tap recognizer).
    public var singleTapWaitsForDoubleTap: Bool = false
    /// Velocities are measured over this much of the most recent motion: Android VelocityTracker's
    /// 100 ms horizon.
    public var velocityWindowMilliseconds: Double = 100

    public init() {}
    public static let `default` = GestureConfiguration()

    /// What is wrong with these values, one line per field (empty when they are usable): distances and
    /// durations must be finite and not negative, scale limits finite with 0 < minimum <= 1 <= maximum,
    /// the zoom factor finite and positive. The configuration loader reports these as errors; the engine
    /// replaces each bad value with its default so bad input never traps.
    public var problems: [String] {
        var found: [String] = []
        for (name, value) in nonNegativeFields where !(value.isFinite && value >= 0) {
            found.append("\(name) must be a finite number >= 0, got \(value)")
        }
        if !(minimumScale.isFinite && minimumScale > 0 && minimumScale <= 1) {
            found.append("minimumScale must be in (0, 1], got \(minimumScale)")
        }
        if !(maximumScale.isFinite && maximumScale >= 1) {
            found.append("maximumScale must be a finite number >= 1, got \(maximumScale)")
        }
        if !(doubleTapZoomFactor.isFinite && doubleTapZoomFactor > 0) {
            found.append("doubleTapZoomFactor must be a finite number > 0, got \(doubleTapZoomFactor)")
        }
        return found
    }

    /// These values with every invalid one (see `problems`) replaced by its default.
    public var sanitized: GestureConfiguration {
        var c = self
        let d = GestureConfiguration.default
        func fix(_ v: inout Double, _ fallback: Double) { if !(v.isFinite && v >= 0) { v = fallback } }
        // Durations beyond a day are clamped: they would overflow microsecond deadlines.
        func fixDuration(_ v: inout Double, _ fallback: Double) { fix(&v, fallback); v = min(v, 86_400_000) }
        fix(&c.panSlopMillimeters, d.panSlopMillimeters)
        fix(&c.spreadDeadBandMillimeters, d.spreadDeadBandMillimeters)
        fix(&c.rotationDeadBandDegrees, d.rotationDeadBandDegrees)
        fix(&c.centroidDeadBandMillimeters, d.centroidDeadBandMillimeters)
        fixDuration(&c.fingerChurnDebounceMilliseconds, d.fingerChurnDebounceMilliseconds)
        fixDuration(&c.tapMaximumDurationMilliseconds, d.tapMaximumDurationMilliseconds)
        fix(&c.tapMaximumMovementMillimeters, d.tapMaximumMovementMillimeters)
        fixDuration(&c.doubleTapIntervalMilliseconds, d.doubleTapIntervalMilliseconds)
        fix(&c.doubleTapDistanceMillimeters, d.doubleTapDistanceMillimeters)
        fixDuration(&c.longPressDurationMilliseconds, d.longPressDurationMilliseconds)
        fix(&c.longPressMovementMillimeters, d.longPressMovementMillimeters)
        fixDuration(&c.velocityWindowMilliseconds, d.velocityWindowMilliseconds)
        if !(c.minimumScale.isFinite && c.minimumScale > 0 && c.minimumScale <= 1) { c.minimumScale = d.minimumScale }
        if !(c.maximumScale.isFinite && c.maximumScale >= 1) { c.maximumScale = d.maximumScale }
        if !(c.doubleTapZoomFactor.isFinite && c.doubleTapZoomFactor > 0) { c.doubleTapZoomFactor = d.doubleTapZoomFactor }
        return c
    }

    private var nonNegativeFields: [(String, Double)] {
        [
            ("panSlopMillimeters", panSlopMillimeters), ("spreadDeadBandMillimeters", spreadDeadBandMillimeters),
            ("rotationDeadBandDegrees", rotationDeadBandDegrees),
            ("centroidDeadBandMillimeters", centroidDeadBandMillimeters),
            ("fingerChurnDebounceMilliseconds", fingerChurnDebounceMilliseconds),
            ("tapMaximumDurationMilliseconds", tapMaximumDurationMilliseconds),
            ("tapMaximumMovementMillimeters", tapMaximumMovementMillimeters),
            ("doubleTapIntervalMilliseconds", doubleTapIntervalMilliseconds),
            ("doubleTapDistanceMillimeters", doubleTapDistanceMillimeters),
            ("longPressDurationMilliseconds", longPressDurationMilliseconds),
            ("longPressMovementMillimeters", longPressMovementMillimeters),
            ("velocityWindowMilliseconds", velocityWindowMilliseconds),
        ]
    }
}

/// The unified pan/pinch/rotate state machine plus tap, double-tap and long-press recognizers for one
/// device. A pure function of (touch frames, virtual time, configuration): no clock reads, no I/O.
///
/// A session runs from the first finger down to the last finger up and is made of segments: `pan` with
/// one finger, `pinchRotate` with two or more. Every change of the finger set ends the running segment
/// and the next begins re-based on the current positions, so the cumulative transform never jumps.
/// State diagram: docs/state-machines/gesture.md. Thresholds: docs/GESTURES.md.
public struct GestureEngine: Sendable {
    public private(set) var configuration: GestureConfiguration

    /// Below this spread or radius (mm) fingers count as coincident: scale and angle are held.
    static let coincidentMillimeters = 1e-3

    let deviceIsSemiMT: Bool
    private(set) var state: State = .idle
    /// The running segment (panning, pinchRotating) or the prepared one (settling). Kept out of the
    /// state's payload so the hot path mutates it in place instead of copying it in and out.
    private(set) var segment = Segment(
        mode: .pan, fingers: 0, c0: .zero, c0MM: .zero, spread0: 0, spread0MM: 0, scaleLow: 1, scaleHigh: 1,
        centroid: .zero, centroidMM: .zero, spreadMM: 0, live: false)
    private let velocityWindowMicroseconds: Int64
    private(set) var longPress: LongPressState = .idle
    private(set) var tap: TapState = .ready
    private var session = Session(id: 0, start: Timestamp(microseconds: 0))
    private var sessionCounter: UInt64 = 0
    private var seq: UInt64 = 0
    private var frameStamp: UInt64 = 0
    private var tracks: [FingerTrack] = []
    private var velocity = VelocityTracker()
    /// M_base: the cumulative transform before the running segment.
    private var base: AffineTransform = .identity
    /// The last published cumulative transform M = S * M_base.
    private var current: AffineTransform = .identity
    /// Whether the last frame was semi-mt, for a timer that starts a segment between frames.
    private var lastSemiMT = false
    /// The last frame's `fingerCount`, so membership checks count fingers like `process` did.
    private var frameFingerCount = 0

    /// - Parameters:
    ///   - configuration: thresholds; invalid values (see `GestureConfiguration.problems`) are replaced
    ///     by their defaults, so `configuration` reads back the values in use.
    ///   - isSemiMT: the device is semi-mt (also taken per frame from `TouchFrame.isSemiMT`).
    public init(configuration: GestureConfiguration = .default, isSemiMT: Bool = false) {
        let usable = configuration.sanitized
        self.configuration = usable
        self.deviceIsSemiMT = isSemiMT
        self.velocityWindowMicroseconds = Int64((usable.velocityWindowMilliseconds * 1000).rounded())
        tracks.reserveCapacity(16)
    }

    /// The cumulative transform (M = S_current * M_base) as last published; always finite (a product
    /// that would overflow keeps the previous value).
    public var transform: AffineTransform { current }

    /// Replaces the cumulative transform (a client reset or set). Takes effect as the new base: an active
    /// segment continues from it without a jump in its own relative values (M_base = S^-1 * T).
    /// - Returns: false, changing nothing, when `transform` is not finite or singular (a client bug
    ///   the caller reports to the client).
    @discardableResult
    public mutating func setTransform(_ transform: AffineTransform) -> Bool {
        guard transform.isFinite, transform.inverted() != nil else { return false }
        defer { current = transform }
        switch state {
        case .panning, .pinchRotating:
            base = segment.transform.inverted()?.concatenating(after: transform) ?? transform
        case .idle, .panPossible, .settling, .draining:
            base = transform
        }
        return true
    }

    /// The earliest time a timer is due (churn debounce, long press, held single tap), for the event loop
    /// to arm; nil when no timer is pending.
    public var nextDeadline: Timestamp? {
        var earliest: Timestamp?
        func consider(_ t: Timestamp) { if earliest.map({ t < $0 }) ?? true { earliest = t } }
        switch state {
        case .settling(let deadline): consider(deadline)
        case .idle, .panPossible, .panning, .pinchRotating, .draining: break
        }
        switch longPress {
        case .armed(let deadline): consider(deadline)
        case .idle, .pressing: break
        }
        switch tap {
        case .waiting(_, let deadline): consider(deadline)
        case .ready, .tapped: break
        }
        return earliest
    }

    /// Advances virtual time to `time`, firing every timer (long press, tap-failure, debounce) due at or
    /// before it, each at its own deadline and in deadline order.
    public mutating func advance(to time: Timestamp) -> [GestureEvent] {
        var out: [GestureEvent] = []
        fireTimers(upTo: time, into: &out)
        return out
    }

    /// Feeds one touch frame; returns what it caused, in order: timers due at or before the frame first
    /// (so a caller that skipped `advance(to:)` loses nothing), then session began, segment
    /// ended/began/changed, discrete events, session ended.
    public mutating func process(_ frame: TouchFrame) -> [GestureEvent] {
        var out: [GestureEvent] = []
        fireTimers(upTo: frame.time, into: &out)
        let time = frame.time
        let semi = deviceIsSemiMT || frame.isSemiMT
        lastSemiMT = semi
        frameStamp &+= 1

        // 1. Session start: the first touch of a frame while idle (even one that lands and lifts in it).
        let startsSession = isIdle && !frame.touches.isEmpty
        if startsSession {
            sessionCounter &+= 1
            if let first = frame.touches.first { resolveHeldTap(landingAt: first.millimeters, time: time, into: &out) }
            session = Session(id: sessionCounter, start: time)
            out.append(.sessionBegan(session: session.id, time: time))
            longPress = .armed(deadline: time.adding(milliseconds: configuration.longPressDurationMilliseconds))
        }

        // 2. Follow the touches. Frames are ordered by id, so the search usually hits at once.
        var anyCancelled = false
        var active = 0
        var searchStart = 0
        let touches = frame.touches
        for k in touches.indices {
            // Field by field: a Touch is large, and copying each one whole shows up in profiles.
            let id = touches[k].id
            let phase = touches[k].phase
            let location = touches[k].location
            let mm = touches[k].millimeters
            let terminal = phase.isTerminal
            if phase == .cancelled { anyCancelled = true }
            if !terminal { active += 1 }
            var index = -1
            var i = searchStart
            while i < tracks.count {
                if tracks[i].id == id { index = i; break }
                i += 1
            }
            if index < 0 {
                i = 0
                while i < min(searchStart, tracks.count) {
                    if tracks[i].id == id { index = i; break }
                    i += 1
                }
            }
            if index >= 0 {
                tracks[index].location = location
                tracks[index].mm = mm
                tracks[index].seen = frameStamp
                tracks[index].terminal = terminal
                searchStart = index + 1
            } else {
                tracks.append(FingerTrack(
                    id: id, location: location, mm: mm, landingMM: mm, seen: frameStamp, terminal: terminal))
                session.landingSum = session.landingSum + location
                session.landingSumMM = session.landingSumMM + mm
                session.landings += 1
                searchStart = tracks.count
            }
        }
        // A touch the frame no longer carries left without an `ended`: treat it as lifted.
        for i in tracks.indices where tracks[i].seen != frameStamp { tracks[i].terminal = true }
        guard !tracks.isEmpty else { return out }
        let fingers = active == 0 ? 0 : max(frame.fingerCount, active)
        frameFingerCount = frame.fingerCount
        session.maxFingers = max(session.maxFingers, fingers, frame.touches.count)
        for t in tracks {
            let d = t.mm.distance(to: t.landingMM)
            if d > session.maxMovementMM { session.maxMovementMM = d }
        }

        // 3. The segment state machine.
        if anyCancelled {
            cancelSegment(at: time, semi: semi, into: &out)
        } else {
            step(fingers: fingers, time: time, semi: semi, into: &out)
        }

        // 4. Discrete recognizers.
        updateLongPress(fingers: fingers, time: time, into: &out)

        // 5. Session end.
        if fingers == 0 {
            endSession(at: time, into: &out)
        } else {
            session.lastFingers = fingers
        }
        tracks.removeAll(where: { $0.terminal })
        return out
    }

    private var isIdle: Bool {
        switch state {
        case .idle: return true
        case .panPossible, .settling, .panning, .pinchRotating, .draining: return false
        }
    }
}

// MARK: - Segment state machine

extension GestureEngine {
    /// One frame of the segment machine; every state handles every situation (no `default:`).
    private mutating func step(fingers: Int, time: Timestamp, semi: Bool, into out: inout [GestureEvent]) {
        switch state {
        case .idle:
            // The session began in this frame (or fingers landed and lifted within it).
            startFromRest(fingers: fingers, time: time, semi: semi, into: &out)

        case .panPossible(let originMM):
            if membershipChanged(fingers: 1) {
                // No segment ran, so there is nothing to end and nothing to debounce.
                startFromRest(fingers: fingers, time: time, semi: semi, into: &out)
            } else if let t = tracks.first(where: { $0.inSegment }),
                t.mm.distance(to: originMM) >= configuration.panSlopMillimeters
            {
                // Re-based where the pan starts: the slop itself never moves the content.
                session.moved = true
                makeSegment(fingers: 1, semi: semi)
                begin(time: time, into: &out)
            }

        case .settling:
            if membershipChanged(fingers: segment.fingers) {
                if fingers == 0 {
                    state = .idle
                } else if fingers < segment.fingers {
                    // Another finger lifted: debounce again from here.
                    prepareSettling(fingers: fingers, time: time, semi: semi)
                } else {
                    startFromRest(fingers: fingers, time: time, semi: semi, into: &out)
                }
            } else {
                measure(semi: semi)
                if settlingMotion() {
                    startSettled(motion: true, time: time, into: &out)
                }
            }

        case .panning, .pinchRotating:
            measure(semi: semi)
            if membershipChanged(fingers: segment.fingers) {
                let previousFingers = segment.fingers
                end(phase: .ended, time: time, into: &out)
                if fingers == 0 {
                    state = .idle
                } else if fingers < previousFingers {
                    prepareSettling(fingers: fingers, time: time, semi: semi)
                } else {
                    startFromRest(fingers: fingers, time: time, semi: semi, into: &out)
                }
            } else {
                if !segment.live && leftDeadBands() {
                    segment.live = true
                    session.moved = true
                }
                if segment.live {
                    let before = current
                    updateCurrent()
                    if current != before {
                        publish(phase: .changed, time: time, into: &out)
                    }
                }
            }

        case .draining:
            if fingers == 0 { state = .idle }
        }
    }

    /// Starts whatever the current fingers call for, with no debounce: after a landing, an increase or
    /// a swap of fingers.
    private mutating func startFromRest(fingers: Int, time: Timestamp, semi: Bool, into out: inout [GestureEvent]) {
        if fingers == 0 {
            state = .idle
        } else if fingers == 1 && !session.moved {
            markMembers()
            let origin = tracks.first(where: { $0.inSegment })?.mm ?? .zero
            state = .panPossible(originMM: origin)
        } else {
            makeSegment(fingers: fingers, semi: semi)
            begin(time: time, into: &out)
        }
    }

    private mutating func prepareSettling(fingers: Int, time: Timestamp, semi: Bool) {
        makeSegment(fingers: fingers, semi: semi)
        state = .settling(deadline: time.adding(milliseconds: configuration.fingerChurnDebounceMilliseconds))
    }

    /// Ends a debounce: the prepared segment begins at its references (identity), then publishes the
    /// motion made since, so the content stays glued to the fingers.
    private mutating func startSettled(motion: Bool, time: Timestamp, into out: inout [GestureEvent]) {
        if segment.fingers == 1 && !session.moved {
            let originMM = segment.c0MM
            state = .panPossible(originMM: originMM)
            if let t = tracks.first(where: { $0.inSegment && !$0.terminal }),
                t.mm.distance(to: originMM) >= configuration.panSlopMillimeters
            {
                session.moved = true
                makeSegment(fingers: 1, semi: lastSemiMT)
                begin(time: time, into: &out)
            }
            return
        }
        if motion && !segment.live {
            segment.live = true
            session.moved = true
        }
        let measured = segment
        segment.centroid = segment.c0
        segment.centroidMM = segment.c0MM
        segment.rawScale = 1
        segment.rotation = 0
        begin(time: time, into: &out)
        segment = measured
        let before = current
        updateCurrent()
        if measured.live && current != before {
            publish(phase: .changed, time: time, into: &out)
        }
    }

    /// A cancelled touch ends the running segment as `cancelled` and drains the session.
    private mutating func cancelSegment(at time: Timestamp, semi: Bool, into out: inout [GestureEvent]) {
        switch state {
        case .panning, .pinchRotating:
            measure(semi: semi)
            end(phase: .cancelled, time: time, into: &out)
        case .idle, .panPossible, .settling, .draining:
            break
        }
        session.cancelled = true
        state = .draining
    }

    /// Marks the active tracks as the segment's finger set and resets their angle accumulators.
    private mutating func markMembers() {
        for i in tracks.indices {
            tracks[i].inSegment = !tracks[i].terminal
            tracks[i].angleValid = false
            tracks[i].turned = 0
        }
    }

    private func membershipChanged(fingers segmentFingers: Int) -> Bool {
        var active = 0
        for t in tracks {
            if t.inSegment == t.terminal { return true }  // a member left or a newcomer arrived
            if !t.terminal { active += 1 }
        }
        let fingers = active == 0 ? 0 : max(frameFingerCount, active)
        return fingers != segmentFingers
    }

    /// Replaces `segment` with one over the current members, references at their current positions.
    private mutating func makeSegment(fingers: Int, semi: Bool) {
        markMembers()
        let k = base.scaleFactor
        let low = k > 0 && k.isFinite ? min(1, configuration.minimumScale / k) : 1
        let high = k > 0 && k.isFinite ? max(1, configuration.maximumScale / k) : 1
        segment = Segment(
            mode: fingers >= 2 ? .pinchRotate : .pan, fingers: fingers, c0: .zero, c0MM: .zero,
            spread0: 0, spread0MM: 0, scaleLow: low, scaleHigh: high, centroid: .zero, centroidMM: .zero,
            spreadMM: 0, live: fingers == 1 || session.moved)
        measure(semi: semi)
        segment.c0 = segment.centroid
        segment.c0MM = segment.centroidMM
        segment.rawScale = 1
        segment.rotation = 0
        if segment.spreadMM > Self.coincidentMillimeters {
            segment.spread0 = segment.spread
            segment.spread0MM = segment.spreadMM
        }
        for i in tracks.indices { tracks[i].turned = 0 }
    }

    /// Motion that ends a churn debounce early: the centroid moved a pan slop (a finger that keeps
    /// moving while its neighbour lifts is not yet a pan of its own) or the spread or angle left its
    /// dead band. The motion is not lost: the segment's references were taken at the decrease.
    private func settlingMotion() -> Bool { moved(centroidMillimeters: configuration.panSlopMillimeters) }

    /// Leaves the hysteresis: centroid, spread or angle beyond its dead band (mm and degrees).
    private func leftDeadBands() -> Bool { moved(centroidMillimeters: configuration.centroidDeadBandMillimeters) }

    /// True when the segment's centroid moved `centroidMillimeters` from its start, or (pinchRotate)
    /// its spread or angle left the configured dead band.
    private func moved(centroidMillimeters: Double) -> Bool {
        if segment.centroidMM.distance(to: segment.c0MM) >= centroidMillimeters { return true }
        switch segment.mode {
        case .pan:
            return false
        case .pinchRotate:
            if segment.spread0MM > 0,
                abs(segment.spreadMM - segment.spread0MM) >= configuration.spreadDeadBandMillimeters
            {
                return true
            }
            return abs(segment.rotation) * 180 / Double.pi >= configuration.rotationDeadBandDegrees
        }
    }
}

// MARK: - Measurement and publishing

extension GestureEngine {
    /// Measures the segment's members: centroid, spread, scale, unwrapped rotation. Coincident fingers
    /// hold the last scale and angle; semi-mt devices use the bounding box and never rotate.
    private mutating func measure(semi: Bool) {
        var count = 0
        var sum = Point.zero, sumMM = Point.zero
        var minP = Point(x: .infinity, y: .infinity), maxP = Point(x: -.infinity, y: -.infinity)
        var minM = minP, maxM = maxP
        for t in tracks where t.inSegment {
            count += 1
            sum = sum + t.location
            sumMM = sumMM + t.mm
            if semi {
                minP = Point(x: min(minP.x, t.location.x), y: min(minP.y, t.location.y))
                maxP = Point(x: max(maxP.x, t.location.x), y: max(maxP.y, t.location.y))
                minM = Point(x: min(minM.x, t.mm.x), y: min(minM.y, t.mm.y))
                maxM = Point(x: max(maxM.x, t.mm.x), y: max(maxM.y, t.mm.y))
            }
        }
        guard count > 0 else { return }  // no positions (fingerCount only): hold everything
        let c: Point, cMM: Point, spread: Double, spreadMM: Double
        if semi {
            // The touches are the corners of a bounding box: its centre and half diagonal.
            c = (minP + maxP) / 2
            cMM = (minM + maxM) / 2
            spread = (maxP - minP).length / 2
            spreadMM = (maxM - minM).length / 2
        } else {
            let n = Double(count)
            c = sum / n
            cMM = sumMM / n
            var s = 0.0, sMM = 0.0
            if segment.mode == .pinchRotate {
                for t in tracks where t.inSegment {
                    s += t.location.distance(to: c)
                    sMM += t.mm.distance(to: cMM)
                }
            }
            spread = s / n
            spreadMM = sMM / n
        }
        guard c.isFinite, cMM.isFinite, spread.isFinite, spreadMM.isFinite else { return }
        segment.centroid = c
        segment.centroidMM = cMM
        guard segment.mode == .pinchRotate, spreadMM > Self.coincidentMillimeters, spread > 0 else { return }
        segment.spread = spread
        segment.spreadMM = spreadMM
        if segment.spread0 > 0 {
            segment.rawScale = spread / segment.spread0
        } else {
            // The segment started coincident: take the reference now so the held scale continues.
            segment.spread0 = spread / segment.rawScale
            segment.spread0MM = spreadMM / segment.rawScale
        }
        guard !semi else { return }
        var turned = 0.0
        for i in tracks.indices where tracks[i].inSegment {
            let r = tracks[i].location - c
            if (tracks[i].mm - cMM).length > Self.coincidentMillimeters {
                let angle = _atan2(r.y, r.x)
                if tracks[i].angleValid {
                    // Unwrap: the turn since the last frame is the short way round.
                    var delta = angle - tracks[i].lastAngle
                    if delta > Double.pi { delta -= 2 * Double.pi } else if delta < -Double.pi { delta += 2 * Double.pi }
                    tracks[i].turned += delta
                } else {
                    tracks[i].angleValid = true
                }
                tracks[i].lastAngle = angle
            }
            turned += tracks[i].turned
        }
        segment.rotation = turned / Double(count)
    }

    /// Sets the state to the segment's mode and recomputes M = S * M_base. When the product overflows
    /// (a client set an enormous but finite base, such as tx = 1.7e308 in issue 11, and a pinch scaled
    /// it), M keeps its last finite value rather than publishing an infinity or NaN, which JSON cannot
    /// carry. The segment's own translation, scale and rotation do not depend on the base and go on.
    private mutating func updateCurrent() {
        switch segment.mode {
        case .pan: state = .panning
        case .pinchRotate: state = .pinchRotating
        }
        let composed = segment.transform.concatenating(after: base)
        if composed.isFinite { current = composed }
    }

    /// Begins `segment` at identity: M stays M_base, and the `began` is always published.
    private mutating func begin(time: Timestamp, into out: inout [GestureEvent]) {
        updateCurrent()
        velocity.reset()
        publish(phase: .began, time: time, into: &out)
    }

    /// Ends (or cancels) `segment` with its final values; M_base takes the cumulative transform.
    private mutating func end(phase: GesturePhase, time: Timestamp, into out: inout [GestureEvent]) {
        updateCurrent()
        publish(phase: phase, time: time, into: &out)
        base = current
    }

    private mutating func publish(phase: GesturePhase, time: Timestamp, into out: inout [GestureEvent]) {
        let translation = segment.effectiveTranslation
        let scale = segment.effectiveScale
        let rotation = segment.effectiveRotation
        velocity.add(time: time, translation: translation, scale: scale, rotation: rotation)
        let v: GestureVelocity
        switch phase {
        case .began: v = .zero
        case .changed, .ended, .cancelled:
            v = velocity.velocity(windowMicroseconds: velocityWindowMicroseconds)
        }
        seq &+= 1
        out.append(.update(GestureUpdate(
            session: session.id, seq: seq, time: time, phase: phase, mode: segment.mode, fingers: segment.fingers,
            centroid: segment.effectiveCentroid, translation: translation, scale: scale, rotation: rotation,
            velocity: v, matrix: current)))
    }
}

// MARK: - Timers and discrete recognizers

extension GestureEngine {
    /// Fires every timer due at or before `time`, earliest first, each at its own deadline.
    private mutating func fireTimers(upTo time: Timestamp, into out: inout [GestureEvent]) {
        while let due = nextDeadline, due <= time {
            if case .settling(let deadline) = state, deadline == due {
                startSettled(motion: false, time: due, into: &out)
                continue
            }
            if case .armed(let deadline) = longPress, deadline == due {
                let fingers = session.lastFingers
                if fingers > 0 {
                    longPress = .pressing(fingers: fingers)
                    session.pressed = true
                    out.append(.longPress(
                        session: session.id, time: due, phase: .began, location: trackCentroid(), fingers: fingers))
                } else {
                    longPress = .idle
                }
                continue
            }
            if case .waiting(let held, let deadline) = tap, deadline == due {
                emitTap(held, time: due, into: &out)
                tap = .tapped(held)
                continue
            }
            break  // unreachable: nextDeadline only reports the timers above
        }
    }

    /// Mean position of the fingers the engine follows (published space).
    private func trackCentroid() -> Point {
        guard !tracks.isEmpty else { return .zero }
        var sum = Point.zero
        for t in tracks { sum = sum + t.location }
        return sum / Double(tracks.count)
    }

    private mutating func updateLongPress(fingers: Int, time: Timestamp, into out: inout [GestureEvent]) {
        let lifted = fingers < session.lastFingers || fingers == 0
        let tooFar = session.maxMovementMM > configuration.longPressMovementMillimeters
        switch longPress {
        case .idle:
            break
        case .armed:
            if session.moved || session.cancelled || tooFar || lifted { longPress = .idle }
        case .pressing(let pressFingers):
            if session.cancelled || tooFar {
                out.append(.longPress(
                    session: session.id, time: time, phase: .cancelled, location: trackCentroid(),
                    fingers: pressFingers))
                longPress = .idle
            } else if lifted {
                out.append(.longPress(
                    session: session.id, time: time, phase: .ended, location: trackCentroid(), fingers: pressFingers))
                longPress = .idle
            }
        }
    }

    /// A new session landed while a single tap is held for a possible double tap: a landing that may
    /// still complete the double tap extends the hold until it can no longer be a tap; any other
    /// landing releases the held tap now.
    private mutating func resolveHeldTap(landingAt mm: Point, time: Timestamp, into out: inout [GestureEvent]) {
        switch tap {
        case .ready, .tapped:
            break
        case .waiting(let held, let deadline):
            if time.milliseconds(since: held.time) <= configuration.doubleTapIntervalMilliseconds,
                mm.distance(to: held.mm) <= configuration.doubleTapDistanceMillimeters
            {
                let lastChance = time.adding(milliseconds: configuration.tapMaximumDurationMilliseconds)
                tap = .waiting(held, deadline: max(deadline, lastChance))
            } else {
                emitTap(held, time: time, into: &out)
                tap = .tapped(held)
            }
        }
    }

    private mutating func endSession(at time: Timestamp, into out: inout [GestureEvent]) {
        state = .idle
        longPress = .idle
        let isTap = !session.cancelled && !session.moved && !session.pressed
            && time.milliseconds(since: session.start) <= configuration.tapMaximumDurationMilliseconds
            && session.maxMovementMM <= configuration.tapMaximumMovementMillimeters
        if isTap {
            recognizeTap(at: time, into: &out)
        } else if case .waiting(let held, _) = tap {
            // The session that could have been the second tap was not one: the single tap stands.
            emitTap(held, time: time, into: &out)
            tap = .tapped(held)
        }
        out.append(.sessionEnded(session: session.id, time: time, cancelled: session.cancelled))
    }

    private mutating func recognizeTap(at time: Timestamp, into out: inout [GestureEvent]) {
        let fingers = session.maxFingers
        let location = session.tapLocation
        let mm = session.tapLocationMM
        var previous: LastTap?
        switch tap {
        case .ready: previous = nil
        case .tapped(let last): previous = last
        case .waiting(let last, _): previous = last
        }
        var count = 1
        if let p = previous, p.fingers == fingers,
            session.start.milliseconds(since: p.time) <= configuration.doubleTapIntervalMilliseconds,
            mm.distance(to: p.mm) <= configuration.doubleTapDistanceMillimeters
        {
            count = p.count + 1
        }
        if count == 1, case .waiting(let held, _) = tap {
            emitTap(held, time: time, into: &out)  // the held tap was not followed by its double
        }
        let this = LastTap(session: session.id, time: time, location: location, mm: mm, count: count, fingers: fingers)
        if configuration.singleTapWaitsForDoubleTap && count == 1 {
            tap = .waiting(this, deadline: time.adding(milliseconds: configuration.doubleTapIntervalMilliseconds))
            return
        }
        emitTap(this, time: time, into: &out)
        tap = .tapped(this)
        if count == 2 {
            zoom(about: location)
            out.append(.doubleTap(session: session.id, time: time, location: location, matrix: current))
        }
    }

    private func emitTap(_ t: LastTap, time: Timestamp, into out: inout [GestureEvent]) {
        out.append(.tap(session: t.session, time: time, location: t.location, tapCount: t.count, fingers: t.fingers))
    }

    /// Double-tap zoom: M = (scale about the tap point) * M, the factor limited like a segment's.
    private mutating func zoom(about point: Point) {
        var factor = configuration.doubleTapZoomFactor
        guard factor != 1, factor > 0, factor.isFinite else { return }
        let k = base.scaleFactor
        if k > 0 && k.isFinite {
            factor = min(max(factor, min(1, configuration.minimumScale / k)), max(1, configuration.maximumScale / k))
        }
        let zoomed = AffineTransform.scaling(by: factor, about: point).concatenating(after: base)
        guard zoomed.isFinite else { return }
        base = zoomed
        current = zoomed
    }
}
