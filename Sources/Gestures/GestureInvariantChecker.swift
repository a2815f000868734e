import MultitouchCore

/// Checks the DESIGN.md gesture invariants on an engine's output and collects statistics about it.
/// Feed it, in order, every `(TouchFrame, [GestureEvent])` pair from `GestureEngine.process(_:)` and
/// every `[GestureEvent]` from `GestureEngine.advance(to:)`; call `transformWasSet(_:)` whenever the
/// engine's `setTransform(_:)` is called, and `finish()` at the end of the input.
/// `multitouchctl check` runs it on every recording. Pure: no clock, no I/O.
///
/// It checks: session and segment began/ended (or cancelled) balanced; continuity at every segment
/// change (the began matrix equals the matrix the previous segment ended with, 1e-9 relative); the
/// centroid pivot (a pinchRotate segment maps its start centroid onto the current centroid of the
/// touches, 1e-6 relative); a pan's translation equals the finger's displacement since the segment
/// (re)base; the published matrix agrees with the published translation, scale and rotation; `seq`
/// increases by one per update; time never runs backwards; every number is finite.
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

        public init() {}

        /// One line for `multitouchctl check` (human-readable, not a stable format).
        public var description: String {
            "\(sessions) sessions (\(cancelledSessions) cancelled), segments: \(panSegments) pan, "
                + "\(pinchRotateSegments) pinchRotate (\(cancelledSegments) cancelled), \(updates) updates, "
                + "\(taps) taps, \(doubleTaps) double taps, \(longPresses) long presses, final scale "
                + "\(finalScale), rotation \(finalRotation) rad, largest continuity error "
                + "\(largestContinuityError), largest pivot error \(largestPivotError)"
        }
    }

    /// Relative tolerance of the continuity and matrix-consistency checks.
    public var continuityTolerance = 1e-9
    /// Relative tolerance of the pivot and pan-displacement checks.
    public var pivotTolerance = 1e-6
    /// At most this many violations are kept (all are counted).
    public var maximumStoredViolations = 1000

    public private(set) var violations: [Violation] = []
    public private(set) var violationCount = 0
    public private(set) var statistics = Statistics()

    private struct OpenSegment: Sendable {
        var mode: GestureMode
        var fingers: Int
        var c0: Point
        var base: AffineTransform
        var baseInverse: AffineTransform?
    }

    private let deviceIsSemiMT: Bool
    private var session: UInt64?
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
    private var previousFrameCentroid: Point?
    private var previousFrameSingleTouch: Point?
    private var frameTime = Timestamp(microseconds: 0)

    public init(isSemiMT: Bool = false) {
        self.deviceIsSemiMT = isSemiMT
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
    }

    /// Checks what `advance(to:)` returned.
    public mutating func check(timerEvents events: [GestureEvent]) {
        for event in events { check(event) }
    }

    /// The engine's `setTransform(_:)` was called with `transform`: a running segment continues from it.
    public mutating func transformWasSet(_ transform: AffineTransform) {
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
        noteMatrix(transform)
    }

    /// The input is over: a session or segment still open is reported (a recording that stops
    /// mid-gesture should end with cancelled touches).
    public mutating func finish() {
        let time = lastTime ?? frameTime
        if segment != nil { report(time, "input ended inside an open segment") }
        if session != nil { report(time, "input ended inside an open session") }
        if longPressOpen { report(time, "input ended inside a long press") }
    }

    // MARK: - One event

    private mutating func adopt(_ frame: TouchFrame) {
        frameTime = frame.time
        previousFrameCentroid = frameCentroid
        previousFrameSingleTouch = frameSingleTouch
        let semi = deviceIsSemiMT || frame.isSemiMT
        var count = 0
        var sum = Point.zero
        var minP = Point(x: Double.infinity, y: Double.infinity)
        var maxP = Point(x: -Double.infinity, y: -Double.infinity)
        var single = Point.zero
        for t in frame.touches where !t.phase.isTerminal {
            count += 1
            sum = sum + t.location
            single = t.location
            minP = Point(x: min(minP.x, t.location.x), y: min(minP.y, t.location.y))
            maxP = Point(x: max(maxP.x, t.location.x), y: max(maxP.y, t.location.y))
        }
        if count == 0 {
            frameCentroid = nil
            frameSingleTouch = nil
        } else {
            frameCentroid = semi ? (minP + maxP) / 2 : sum / Double(count)
            frameSingleTouch = count == 1 ? single : nil
        }
    }

    private mutating func check(_ event: GestureEvent) {
        statistics.events += 1
        let time = event.time
        if let last = lastTime, time < last { report(time, "time runs backwards (after \(last))") }
        lastTime = time
        switch event {
        case .sessionBegan(let id, _):
            if let open = session { report(time, "session \(id) began inside open session \(open)") }
            session = id
            statistics.sessions += 1
        case .sessionEnded(let id, _, let cancelled):
            if session != id { report(time, "session \(id) ended but \(session.map(String.init) ?? "none") is open") }
            if segment != nil { report(time, "session \(id) ended with a segment still open") }
            if longPressOpen { report(time, "session \(id) ended with a long press still open") }
            if cancelled { statistics.cancelledSessions += 1 }
            session = nil
            segment = nil
            longPressOpen = false
        case .update(let u):
            checkUpdate(u)
        case .tap(let id, _, let location, let tapCount, let fingers):
            statistics.taps += 1
            if !location.isFinite { report(time, "tap location not finite") }
            if tapCount < 1 || fingers < 1 { report(time, "tap of session \(id) with tapCount \(tapCount), fingers \(fingers)") }
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
        if session != u.session { report(time, "update of session \(u.session) outside it") }
        let finite = u.centroid.isFinite && u.translation.isFinite && u.scale.isFinite && u.rotation.isFinite
            && u.velocity.translation.isFinite && u.velocity.scale.isFinite && u.velocity.rotation.isFinite
            && u.matrix.isFinite
        if !finite { report(time, "update \(u.seq) has a NaN or infinite number") }
        if u.fingers < 1 { report(time, "update \(u.seq) with \(u.fingers) fingers") }
        if (u.mode == .pan) != (u.fingers == 1) { report(time, "\(u.mode.rawValue) segment with \(u.fingers) fingers") }

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
            }
            segment = OpenSegment(
                mode: u.mode, fingers: u.fingers, c0: u.centroid, base: u.matrix, baseInverse: u.matrix.inverted())
        case .changed, .ended, .cancelled:
            guard let open = segment else {
                report(time, "segment \(u.phase.rawValue) without began")
                break
            }
            if open.mode != u.mode || open.fingers != u.fingers {
                report(time, "segment changed mode or fingers without a new began")
            }
            checkGeometry(u, open, againstFrame: u.phase == .changed)
            if u.phase != .changed {
                if u.phase == .cancelled { statistics.cancelledSegments += 1 }
                expectedBase = u.matrix
                segment = nil
            }
        }
        noteMatrix(u.matrix)
    }

    /// Pivot, pan displacement and matrix consistency of one segment update.
    private mutating func checkGeometry(_ u: GestureUpdate, _ open: OpenSegment, againstFrame: Bool) {
        let time = u.time
        let expectedS: AffineTransform
        switch open.mode {
        case .pan:
            expectedS = .translation(u.translation)
            let displacement = u.centroid - open.c0
            let error = (displacement - u.translation).length / max(1, displacement.length)
            if error > continuityTolerance { report(time, "pan translation differs from centroid displacement by \(error)") }
            if againstFrame, let finger = frameSingleTouch {
                var fingerError = (finger - open.c0 - u.translation).length / max(1, finger.length)
                if let previous = previousFrameSingleTouch {
                    fingerError = min(fingerError, (previous - open.c0 - u.translation).length / max(1, previous.length))
                }
                if fingerError > pivotTolerance {
                    report(time, "pan translation differs from the finger displacement by \(fingerError)")
                }
            }
            if u.scale != 1 || u.rotation != 0 { report(time, "pan with scale or rotation") }
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
