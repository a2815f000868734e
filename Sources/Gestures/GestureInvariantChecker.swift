import MultitouchCore

/// Checks the DESIGN.md gesture invariants and the feel invariants of docs/GESTURES.md on an engine's
/// output, and collects statistics about it. Feed it, in order, every `(TouchFrame, [GestureEvent])`
/// pair from `GestureEngine.process(_:)` and every `[GestureEvent]` from `GestureEngine.advance(to:)`;
/// call `transformWasSet(_:)` whenever the engine's `setTransform(_:)` is called, and `finish()` at the
/// end of the input. `multitouchctl check` runs it on every recording. Pure: no clock, no I/O.
///
/// Structure: sessions, segments and long presses balanced; finger segments (pan, pinchRotate,
/// quickZoom) inside their session, animation segments (momentum, animatedZoom) after it; `seq`
/// increases by one; time never runs backwards; every number finite.
///
/// Geometry: continuity at every segment change (the began matrix equals the matrix the previous
/// segment ended with, 1e-9 relative); the matrix agrees with the published translation, scale and
/// rotation; pan translation equals the centroid displacement and, when the segment's fingers are
/// exactly the frame's touches, the finger's displacement since the (re)base; the centroid pivot
/// (S maps the start centroid onto the current centroid of the touches, 1e-6 relative) under the same
/// condition; quick zooms and animated zooms keep their pivot fixed; a double-tap zoom keeps the tap
/// point fixed.
///
/// Feel (any recording): in a frame where a touch lands or lifts (or the finger count changes), the
/// scale and rotation the fingers' segments add are at most what the touches that stay explain (their
/// least-squares similarity from the previous frame), times the catch-up gain 2, plus 0.1 degree and
/// 0.002; no rotation is published in a session whose fingers never twisted as far as the rotation
/// threshold (from any reference the engine can have used), nor at all with rotation off or on a
/// semi-mt device; a published velocity is never faster than the fastest finger motion of its window,
/// measured between the event times of the frames that carried it.
///
/// Pinned (DESIGN.md invariant 9, `PinInvariant`): once a finger segment settled (250 ms after it began
/// and after any threshold unlocked), the content under its fingers at its start stays within 0.25 mm
/// of them, beyond the best fit of the unlocked degrees of freedom and a lag up to the pan slop.
public struct GestureInvariantChecker: Sendable {
    /// One broken invariant, with the time of the event that broke it.
    public struct Violation: Hashable, Sendable, CustomStringConvertible {
        public var time: Timestamp
        public var message: String

        public init(time: Timestamp, message: String) {
            self.time = time
            self.message = message
        }

        public var description: String { "\(time): \(message)" }
    }

    /// What the checked output contained.
    public struct Statistics: Hashable, Sendable, CustomStringConvertible {
        public var frames = 0
        public var events = 0
        public var updates = 0
        public var sessions = 0
        public var cancelledSessions = 0
        public var panSegments = 0
        public var pinchRotateSegments = 0
        public var quickZoomSegments = 0
        public var animationSegments = 0
        public var cancelledSegments = 0
        public var taps = 0
        public var doubleTaps = 0
        public var longPresses = 0
        /// sqrt(|det|) and atan2(b, a) of the last cumulative transform seen.
        public var finalScale = 1.0
        public var finalRotation = 0.0
        /// Largest relative matrix difference seen across a segment change (continuity, 1e-9).
        public var largestContinuityError = 0.0
        /// Largest relative distance between the mapped start centroid and the current centroid.
        public var largestPivotError = 0.0
        /// Largest rotation (degrees) and |log scale| a finger-set change frame added beyond what the
        /// touches that stay explain.
        public var largestLiftRotation = 0.0
        public var largestLiftScale = 0.0
        /// Largest pin error (mm, invariant 9, `PinInvariant`) once the grace period passed; finger
        /// segments judged by it and those that broke its tolerance.
        public var largestPinError = 0.0
        public var pinSegments = 0
        public var pinFailedSegments = 0
        /// Largest distance the content under the fingers' centroid moved in one frame (published units).
        public var largestContentStep = 0.0

        public init() {}

        /// One line for `multitouchctl check` (human-readable, not a stable format).
        public var description: String {
            "\(sessions) sessions (\(cancelledSessions) cancelled), segments: \(panSegments) pan, "
                + "\(pinchRotateSegments) pinchRotate, \(quickZoomSegments) quickZoom, \(animationSegments) animation "
                + "(\(cancelledSegments) cancelled), \(updates) updates, \(taps) taps, \(doubleTaps) double taps, "
                + "\(longPresses) long presses, final scale \(finalScale), rotation \(finalRotation) rad, largest "
                + "continuity error \(largestContinuityError), largest pivot error \(largestPivotError)"
        }
    }

    /// Relative tolerance of the continuity and matrix-consistency checks.
    public var continuityTolerance = 1e-9
    /// Relative tolerance of the pivot and pan-displacement checks.
    public var pivotTolerance = 1e-6
    /// Slack of the lift-frame check: degrees and |log scale| (issue 10 target 2).
    public var liftRotationToleranceDegrees = 0.1
    public var liftScaleTolerance = 0.002
    /// At most this many violations are kept (all are counted).
    public var maximumStoredViolations = 1000

    public private(set) var violations: [Violation] = []
    public private(set) var violationCount = 0
    public private(set) var statistics = Statistics()

    private struct OpenSegment: Sendable {
        var mode: GestureMode
        var fingers: Int
        var session: UInt64
        var c0: Point
        var base: AffineTransform
        var baseInverse: AffineTransform?
    }

    private let deviceIsSemiMT: Bool
    private let configuration: GestureConfiguration
    private var session: UInt64?
    private var lastEndedSession: UInt64?
    private var segment: OpenSegment?
    private var longPressOpen = false
    /// The cumulative transform between segments (what the next `began` must carry).
    private var expectedBase = AffineTransform.identity
    private var lastMatrix = AffineTransform.identity
    private var lastSeq: UInt64?
    private var lastTime: Timestamp?
    /// Where the touches of the latest frame are (published space), for the pivot and pan checks.
    private var frameCentroid: Point?
    private var frameSingleTouch: Point?
    private var frameActive = 0
    private var previousFrameCentroid: Point?
    private var previousFrameSingleTouch: Point?
    private var frameTime = Timestamp(microseconds: 0)
    private var frameSemi = false
    /// Positions (published) of the active touches of the latest and the previous frame, by id.
    private var positions: [UInt64: Point] = [:]
    private var previousPositions: [UInt64: Point] = [:]
    private var previousFingerCount = 0
    /// Lift-frame check: the matrix before the frame's first finger-segment update and after its last.
    private var frameFingerStart: AffineTransform?
    private var frameFingerEnd: AffineTransform?
    private var frameIsSetChange = false
    /// Rotation check: references (positions by id) the engine may measure a twist from, the largest
    /// twist seen from any of them in this session (degrees), and whether the check applies.
    private var references: [[UInt64: Point]] = []
    /// Invariant 9: the content under each finger stays under it.
    private var pin: PinInvariant
    /// Where the touches were when the current finger set was last established with no finger segment
    /// open, and the matrix then: a segment that begins at a crossing measures from there.
    private var restPositions: [UInt64: Point] = [:]
    private var restMatrix = AffineTransform.identity
    private var sessionTwist = 0.0
    private var sessionTwistKnown = true
    /// Velocity check: when each touch last moved and where, and recent finger speeds (time, speed).
    private struct Motion: Sendable {
        var time: Timestamp
        var location: Point
        /// The sample before, at an earlier time.
        var before: (time: Timestamp, location: Point)?
    }
    private var lastMove: [UInt64: Motion] = [:]
    private var speeds: [(time: Timestamp, speed: Double)] = []

    /// - Parameters:
    ///   - surface: the device the engine serves (as the engine was given it: a semi-mt box's
    ///     corners are not fingers).
    ///   - configuration: the engine's configuration (its rotation threshold and velocity window).
    public init(surface: GestureSurface = .touchscreen, configuration: GestureConfiguration = .default) {
        self.deviceIsSemiMT = surface.isSemiMT
        self.configuration = configuration.sanitized
        pin = PinInvariant(
            slopMillimeters: self.configuration.panSlopMillimeters,
            scaleLimits: self.configuration
                .minimumScale...max(self.configuration.minimumScale, self.configuration.maximumScale))
    }

    /// True when no invariant was broken.
    public var isClean: Bool { violationCount == 0 }

    /// Checks what the engine returned for one frame.
    public mutating func check(frame: TouchFrame, events: [GestureEvent]) {
        // Timers due before the frame come first in `events` and belong to the previous positions;
        // the frame's positions take over at its first event stamped with the frame's time. (A timer
        // due exactly at the frame time is checked against either position set, see `checkGeometry`.)
        statistics.frames += 1
        var adopted = false
        for event in events {
            if !adopted && event.time >= frame.time {
                adopt(frame)
                adopted = true
            }
            check(event)
        }
        if !adopted { adopt(frame) }
        if let start = frameFingerStart, let end = frameFingerEnd, let inverse = start.inverted(), let c = frameCentroid
        {
            // How far the content under the fingers' centroid moved in this frame.
            let step = end.concatenating(after: inverse).apply(c).distance(to: c)
            if step.isFinite { statistics.largestContentStep = max(statistics.largestContentStep, step) }
        }
        checkSetChangeFrame()
    }

    /// Checks what `advance(to:)` returned.
    public mutating func check(timerEvents events: [GestureEvent]) {
        for event in events { check(event) }
    }

    /// The engine's `setTransform(_:)` was called with `transform`: a running segment continues from it.
    public mutating func transformWasSet(_ transform: AffineTransform) {
        // The content was moved under the fingers by the client: the open segment is not judged on.
        pin.ended()
        if var open = segment {
            // Same rule as the engine: M_base = S^-1 * T with S = M * M_base^-1.
            if let inverse = open.baseInverse,
                let sInverse = lastMatrix.concatenating(after: inverse).inverted()
            {
                open.base = sInverse.concatenating(after: transform)
            } else {
                open.base = transform
            }
            open.baseInverse = open.base.inverted()
            segment = open
        } else {
            expectedBase = transform
        }
        lastMatrix = transform
        frameFingerStart = nil
        frameFingerEnd = nil
        noteMatrix(transform)
    }

    /// The input is over: a session or segment still open is reported (a recording that stops
    /// mid-gesture should end with cancelled touches; an animation still running is not an error).
    public mutating func finish() {
        let time = lastTime ?? frameTime
        if let open = segment, open.mode.isFingerDriven { report(time, "input ended inside an open segment") }
        if session != nil { report(time, "input ended inside an open session") }
        if longPressOpen { report(time, "input ended inside a long press") }
    }

    // MARK: - Frames

    private mutating func adopt(_ frame: TouchFrame) {
        frameTime = frame.time
        previousFrameCentroid = frameCentroid
        previousFrameSingleTouch = frameSingleTouch
        let semi = deviceIsSemiMT
        frameSemi = semi
        var count = 0
        var sum = Point.zero
        var minP = Point(x: Double.infinity, y: Double.infinity)
        var maxP = Point(x: -Double.infinity, y: -Double.infinity)
        var single = Point.zero
        previousPositions = positions
        positions.removeAll(keepingCapacity: true)
        var setChange = frame.fingerCount != previousFingerCount
        for t in frame.touches {
            if t.phase == .began || t.phase.isTerminal { setChange = true }
            noteMotion(t, at: frame.time)
            guard !t.phase.isTerminal else {
                lastMove[t.id] = nil
                continue
            }
            count += 1
            pin.note(published: t.location, mm: t.millimeters)
            sum = sum + t.location
            single = t.location
            positions[t.id] = t.location
            minP = Point(x: min(minP.x, t.location.x), y: min(minP.y, t.location.y))
            maxP = Point(x: max(maxP.x, t.location.x), y: max(maxP.y, t.location.y))
        }
        previousFingerCount = frame.fingerCount
        if setChange && !(segment?.mode.isFingerDriven ?? false) {
            restPositions = positions
            restMatrix = lastMatrix
        }
        frameActive = count
        frameIsSetChange = setChange
        frameFingerStart = nil
        frameFingerEnd = nil
        if count == 0 {
            frameCentroid = nil
            frameSingleTouch = nil
        } else {
            frameCentroid = semi ? (minP + maxP) / 2 : sum / Double(count)
            frameSingleTouch = count == 1 ? single : nil
        }
        if setChange {
            // The engine may measure from here, or from where the touches that stay were.
            addReference(positions)
            var stay: [UInt64: Point] = [:]
            for (id, p) in previousPositions where positions[id] != nil { stay[id] = p }
            if stay.count >= 2 { addReference(stay) }
        }
        updateTwist()
    }

    /// Records the speed of a touch's motion between the frames that carried its positions. Two
    /// frames of one instant are one sample (the later position), as the engine's velocity keeps it.
    private mutating func noteMotion(_ t: Touch, at time: Timestamp) {
        guard var track = lastMove[t.id] else {
            lastMove[t.id] = Motion(time: time, location: t.location, before: nil)
            return
        }
        guard t.location != track.location else { return }
        if track.time == time {
            track.location = t.location
        } else {
            track.before = (track.time, track.location)
            track.time = time
            track.location = t.location
        }
        lastMove[t.id] = track
        if let before = track.before {
            let dt = time.milliseconds(since: before.time) / 1000
            if dt > 0 { speeds.append((time, t.location.distance(to: before.location) / dt)) }
        }
        let horizon = configuration.velocityWindowMilliseconds + configuration.velocityStopMilliseconds
        if let first = speeds.first, time.milliseconds(since: first.time) > horizon * 4 {
            speeds.removeAll(where: { time.milliseconds(since: $0.time) > horizon })
        }
    }

    /// The engine measures from a reference taken at one of the last few finger-set changes (or
    /// segment beginnings); older ones no longer matter once their twist was counted.
    private mutating func addReference(_ reference: [UInt64: Point]) {
        guard reference.count >= 2 else { return }
        references.append(reference)
        if references.count > 8 { references.removeFirst(references.count - 8) }
    }

    /// Largest twist (degrees) of the session's fingers from any reference.
    private mutating func updateTwist() {
        guard !frameSemi, sessionTwist < configuration.rotationThresholdDegrees else { return }
        for reference in references {
            var fit = SimilarityFit()
            for (id, p) in reference { if let q = positions[id] { fit.add(start: p, current: q) } }
            if let solved = fit.solve() { sessionTwist = max(sessionTwist, abs(solved.rotation) * 180 / Double.pi) }
        }
    }

    /// Target 2: a frame in which the finger set changed adds no scale or rotation beyond what the
    /// touches that stay explain (times the catch-up gain).
    private mutating func checkSetChangeFrame() {
        defer {
            frameFingerStart = nil
            frameFingerEnd = nil
        }
        guard frameIsSetChange, let start = frameFingerStart, let end = frameFingerEnd,
            let inverse = start.inverted()
        else { return }
        let d = end.concatenating(after: inverse)
        var fit = SimilarityFit()
        if !frameSemi {
            for (id, q) in positions { if let p = previousPositions[id] { fit.add(start: p, current: q) } }
        }
        // Checked when at most two fingers stay: two fingers give the same similarity from any
        // reference, so the engine's measurement (from its own reference) and this frame-to-frame fit
        // agree exactly; three or more that do not move as one shape may legitimately differ. Fingers
        // that stay but stood on one spot have no direction to measure from.
        guard fit.fingers <= 2 else { return }
        if fit.fingers == 2 && fit.solve() == nil { return }
        let explained = fit.solve() ?? (1, 0)
        let slack = 0.0
        let rotation = abs(d.rotationAngle) * 180 / Double.pi
        let scale = abs(_log(d.scaleFactor))
        let explainedRotation = (2 * abs(explained.rotation) + slack) * 180 / Double.pi
        let explainedScale = 2 * abs(_log(explained.scale)) + slack
        let allowedRotation = explainedRotation + liftRotationToleranceDegrees
        let allowedScale = explainedScale + liftScaleTolerance
        statistics.largestLiftRotation = max(statistics.largestLiftRotation, max(0, rotation - explainedRotation))
        statistics.largestLiftScale = max(statistics.largestLiftScale, max(0, scale - explainedScale))
        if rotation > allowedRotation {
            report(
                frameTime,
                "feel: a finger-set change frame rotates \(rotation) deg, the fingers that stay explain \(explained.rotation * 180 / Double.pi)"
            )
        }
        if scale > allowedScale {
            report(
                frameTime,
                "feel: a finger-set change frame scales by \(d.scaleFactor), the fingers that stay explain \(explained.scale)"
            )
        }
    }

    // MARK: - Events

    private mutating func check(_ event: GestureEvent) {
        statistics.events += 1
        let time = event.time
        if let last = lastTime, time < last { report(time, "time runs backwards (after \(last))") }
        lastTime = time
        switch event {
        case .sessionBegan(let id, _):
            if let open = session { report(time, "session \(id) began inside open session \(open)") }
            if segment != nil { report(time, "session \(id) began with a segment still open") }
            session = id
            statistics.sessions += 1
            sessionTwist = 0
            sessionTwistKnown = true
            references.removeAll()
            addReference(positions)
            restPositions = positions
            restMatrix = lastMatrix
        case .sessionEnded(let id, _, let cancelled):
            if session != id { report(time, "session \(id) ended but \(session.map(String.init) ?? "none") is open") }
            if segment != nil { report(time, "session \(id) ended with a segment still open") }
            if longPressOpen { report(time, "session \(id) ended with a long press still open") }
            if cancelled { statistics.cancelledSessions += 1 }
            session = nil
            lastEndedSession = id
            segment = nil
            longPressOpen = false
            references.removeAll()
        case .update(let u):
            checkUpdate(u)
        case .tap(let id, _, let location, let tapCount, let fingers):
            statistics.taps += 1
            if !location.isFinite { report(time, "tap location not finite") }
            if tapCount < 1 || fingers < 1 {
                report(time, "tap of session \(id) with tapCount \(tapCount), fingers \(fingers)")
            }
        case .doubleTap(let id, _, let location, let matrix):
            statistics.doubleTaps += 1
            if !location.isFinite || !matrix.isFinite { report(time, "double tap of session \(id) not finite") }
            if segment != nil { report(time, "double tap inside an open segment") }
            // The zoom keeps the tap point fixed.
            if let inverse = expectedBase.inverted() {
                let zoom = matrix.concatenating(after: inverse)
                let error = zoom.apply(location).distance(to: location) / max(1, location.length)
                if error > pivotTolerance { report(time, "double-tap zoom moves the tap point by \(error)") }
            }
            expectedBase = matrix
            noteMatrix(matrix)
        case .longPress(let id, _, let phase, let location, let fingers):
            if !location.isFinite { report(time, "long press location not finite") }
            if fingers < 1 { report(time, "long press of session \(id) with \(fingers) fingers") }
            switch phase {
            case .began:
                if longPressOpen { report(time, "long press began twice") }
                if session != id { report(time, "long press began outside its session") }
                longPressOpen = true
                statistics.longPresses += 1
            case .ended, .cancelled:
                if !longPressOpen { report(time, "long press \(phase.rawValue) without began") }
                longPressOpen = false
            }
        }
    }

    private mutating func checkUpdate(_ u: GestureUpdate) {
        let time = u.time
        statistics.updates += 1
        if let last = lastSeq, u.seq != last &+ 1 { report(time, "seq \(u.seq) follows \(last)") }
        lastSeq = u.seq
        if u.mode.isFingerDriven {
            if session != u.session { report(time, "update of session \(u.session) outside it") }
            if u.fingers < 1 { report(time, "update \(u.seq) with \(u.fingers) fingers") }
            if (u.mode == .pan || u.mode == .quickZoom) != (u.fingers == 1) {
                report(time, "\(u.mode.rawValue) segment with \(u.fingers) fingers")
            }
        } else {
            if session != nil { report(time, "\(u.mode.rawValue) update inside a session") }
            if lastEndedSession != u.session {
                report(time, "\(u.mode.rawValue) update of session \(u.session) that did not just end")
            }
            if u.fingers != 0 { report(time, "\(u.mode.rawValue) update with \(u.fingers) fingers") }
        }
        let finite =
            u.centroid.isFinite && u.translation.isFinite && u.scale.isFinite && u.rotation.isFinite
            && u.velocity.translation.isFinite && u.velocity.scale.isFinite && u.velocity.rotation.isFinite
            && u.matrix.isFinite
        if !finite { report(time, "update \(u.seq) has a NaN or infinite number") }
        if u.mode.isFingerDriven && time >= frameTime {
            if frameFingerStart == nil { frameFingerStart = lastMatrix }
            frameFingerEnd = u.matrix
        }
        checkFeel(u)

        switch u.phase {
        case .began:
            if segment != nil { report(time, "segment began inside an open segment") }
            let error = u.matrix.relativeDifference(to: expectedBase)
            statistics.largestContinuityError = max(statistics.largestContinuityError, error)
            if !(error <= continuityTolerance) {
                report(time, "continuity: began matrix differs from the previous cumulative transform by \(error)")
            }
            if u.scale != 1 || u.rotation != 0 || u.translation != .zero {
                report(time, "segment began with non-identity values")
            }
            switch u.mode {
            case .pan: statistics.panSegments += 1
            case .pinchRotate: statistics.pinchRotateSegments += 1
            case .quickZoom: statistics.quickZoomSegments += 1
            case .momentum, .animatedZoom: statistics.animationSegments += 1
            }
            if u.mode.isFingerDriven { addReference(positions) }
            // A segment that begins at a crossing (slop, threshold) may be pinned from where its
            // fingers were when they last landed or lifted: M has not changed since.
            var landing: [UInt64: Point]?
            if !restPositions.isEmpty, positions.keys.allSatisfy({ restPositions[$0] != nil }),
                u.matrix.relativeDifference(to: restMatrix) <= continuityTolerance
            {
                landing = restPositions.filter { positions[$0.key] != nil }
            }
            pin.began(
                mode: u.mode, semi: frameSemi, positions: positions, landing: landing, matrix: u.matrix, time: time)
            segment = OpenSegment(
                mode: u.mode, fingers: u.fingers, session: u.session, c0: u.centroid, base: u.matrix,
                baseInverse: u.matrix.inverted())
        case .changed, .ended, .cancelled:
            guard let open = segment else {
                report(time, "segment \(u.phase.rawValue) without began")
                break
            }
            if open.mode != u.mode || open.fingers != u.fingers || open.session != u.session {
                report(time, "segment changed mode, fingers or session without a new began")
            }
            checkGeometry(u, open, againstFrame: u.phase == .changed && u.fingers == frameActive)
            if u.mode.isFingerDriven && time >= frameTime && !frameSemi,
                let error = pin.update(
                    fingers: u.fingers, scale: u.scale, rotation: u.rotation, matrix: u.matrix, positions: positions,
                    time: time)
            {
                report(time, "pin: the content drawn under the fingers is \(error) mm off (above 0.25 mm)")
            }
            statistics.largestPinError = pin.largestError
            statistics.pinSegments = pin.segments
            statistics.pinFailedSegments = pin.failedSegments
            if u.phase != .changed {
                pin.ended()
                if u.phase == .cancelled { statistics.cancelledSegments += 1 }
                expectedBase = u.matrix
                segment = nil
            }
        }
        noteMatrix(u.matrix)
    }

    /// Rotation below the threshold and velocity bounds (finger segments).
    private mutating func checkFeel(_ u: GestureUpdate) {
        guard u.mode.isFingerDriven else { return }
        let time = u.time
        if u.fingers != frameActive { sessionTwistKnown = false }
        if u.rotation != 0 {
            if frameSemi {
                report(time, "feel: rotation \(u.rotation) on a semi-mt device")
            } else if !configuration.rotation {
                report(time, "feel: rotation \(u.rotation) with rotation off")
            } else if sessionTwistKnown && sessionTwist < configuration.rotationThresholdDegrees - 1e-6 {
                report(time, "feel: rotation \(u.rotation) rad while the fingers twisted at most \(sessionTwist) deg")
            }
        }
        guard u.phase == .changed || u.phase == .ended else { return }
        let horizon = configuration.velocityWindowMilliseconds + configuration.velocityStopMilliseconds
        var fastest = 0.0
        for s in speeds where s.time <= time && time.milliseconds(since: s.time) <= horizon {
            fastest = max(fastest, s.speed)
        }
        let v = u.velocity.translation.length
        if v > fastest * (1 + 1e-6) + 1e-9 {
            report(time, "feel: velocity \(v) faster than any finger motion of its window (\(fastest))")
        }
    }

    /// Pivot, pan displacement and matrix consistency of one segment update.
    private mutating func checkGeometry(_ u: GestureUpdate, _ open: OpenSegment, againstFrame: Bool) {
        let time = u.time
        let expectedS: AffineTransform
        switch open.mode {
        case .pan, .momentum:
            expectedS = .translation(u.translation)
            let displacement = u.centroid - open.c0
            let error = (displacement - u.translation).length / max(1, displacement.length)
            if error > continuityTolerance {
                report(time, "pan translation differs from centroid displacement by \(error)")
            }
            if againstFrame, open.mode == .pan, let finger = frameSingleTouch {
                var fingerError = (finger - open.c0 - u.translation).length / max(1, finger.length)
                if let previous = previousFrameSingleTouch {
                    fingerError = min(
                        fingerError, (previous - open.c0 - u.translation).length / max(1, previous.length))
                }
                if fingerError > pivotTolerance {
                    report(time, "pan translation differs from the finger displacement by \(fingerError)")
                }
            }
            if u.scale != 1 || u.rotation != 0 { report(time, "\(open.mode.rawValue) with scale or rotation") }
        case .quickZoom, .animatedZoom:
            expectedS = .pivot(from: open.c0, to: u.centroid, scale: u.scale, rotation: u.rotation)
            let drift = u.centroid.distance(to: open.c0) / max(1, open.c0.length)
            if drift > pivotTolerance { report(time, "\(open.mode.rawValue) moves its pivot by \(drift)") }
            if u.rotation != 0 { report(time, "\(open.mode.rawValue) with rotation") }
        case .pinchRotate:
            expectedS = .pivot(from: open.c0, to: u.centroid, scale: u.scale, rotation: u.rotation)
            if let inverse = open.baseInverse {
                let s = u.matrix.concatenating(after: inverse)
                let mapped = s.apply(open.c0)
                func distance(_ target: Point) -> Double { mapped.distance(to: target) / max(1, target.length) }
                var error = distance(u.centroid)
                if againstFrame, let c = frameCentroid {
                    error = max(error, min(distance(c), previousFrameCentroid.map(distance) ?? .infinity))
                }
                statistics.largestPivotError = max(statistics.largestPivotError, error)
                if !(error <= pivotTolerance) { report(time, "pivot: start centroid lands \(error) from the centroid") }
            }
        }
        let expected = expectedS.concatenating(after: open.base)
        let error = u.matrix.relativeDifference(to: expected)
        if !(error <= continuityTolerance * 10) {
            report(time, "matrix disagrees with translation/scale/rotation by \(error)")
        }
    }

    private mutating func noteMatrix(_ m: AffineTransform) {
        lastMatrix = m
        statistics.finalScale = m.scaleFactor
        statistics.finalRotation = m.rotationAngle
    }

    private mutating func report(_ time: Timestamp, _ message: String) {
        violationCount += 1
        if violations.count < maximumStoredViolations { violations.append(Violation(time: time, message: message)) }
    }
}
