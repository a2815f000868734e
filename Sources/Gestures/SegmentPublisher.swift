import MultitouchCore

/// The segment whose updates are published (a finger segment or an animation), the measurement of the
/// fingers that drives a finger segment, and the update sequence number of the device.
///
/// It carries out what `SegmentStateMachine` decided and the engine asked for: open a segment at
/// identity, follow the fingers into M (`TransformStore`), freeze the finished part while a decrease
/// settles, end. Every update is built here, so the matrix, centroid, translation, scale, rotation
/// and velocity of an update always agree. No I/O, no clock: times come with the calls.
struct SegmentPublisher: Sendable {
    /// The open segment, nil between segments.
    private(set) var segment: TransformStore.Segment?
    /// The measurement of the fingers: of the possible segment, of the running one, or of the fingers
    /// that stay while a decrease settles (it knows whether they are a semi-mt box).
    private(set) var geometry: SegmentGeometry?
    /// The velocity ring of the geometry measured before, for the next one (a segment that begins
    /// allocates nothing).
    private var spareMotion = VelocityTracker()
    private var seq: UInt64 = 0
    private let windowMicroseconds: Int64
    private let stopMicroseconds: Int64

    init(configuration: GestureConfiguration) {
        windowMicroseconds = Int64((configuration.velocityWindowMilliseconds * 1000).rounded())
        stopMicroseconds = Int64((configuration.velocityStopMilliseconds * 1000).rounded())
    }

    /// The fingers are measured from now on by `geometry` (nil: no fingers drive a segment).
    mutating func measure(with geometry: SegmentGeometry?) {
        var next = geometry
        // The ring of the geometry that goes is kept when the next has none of its own (a new
        // measurement, or none at all), and a new measurement takes the kept ring.
        if spareMotion.isEmptyRing, let old = self.geometry, next?.motion.isEmptyRing ?? true {
            spareMotion = old.motion
        }
        if next?.motion.isEmptyRing == true { next?.reuseMotionRing(from: &spareMotion) }
        self.geometry = next
    }

    /// Measures the fingers of a possible segment without publishing. Returns the mode of the segment
    /// that begins when they passed the slop or a threshold, else nil.
    mutating func measurePossible(
        _ tracks: inout FingerTracks, time: Timestamp, slopMillimeters: Double
    ) -> GestureMode? {
        guard geometry != nil else { return nil }
        geometry?.measure(&tracks, time: time, publish: false)
        guard geometry?.crossed(slopMillimeters: slopMillimeters) == true else { return nil }
        return geometry?.mode
    }

    /// The possible segment begins at the slop crossing, re-based so the content moves the fingers'
    /// travel minus the slop. Returns the geometry that begins, nil when none was measured.
    mutating func beginAtCrossing(slopMillimeters: Double) -> SegmentGeometry? {
        geometry?.beginAtCrossing(slopMillimeters: slopMillimeters)
        return geometry
    }

    /// Opens `segment` at identity: M stays, and `began` is always published (a missing `began` is the
    /// classic cause of a jump).
    mutating func begin(
        _ segment: TransformStore.Segment, store: TransformStore, time: Timestamp, into out: inout [GestureEvent]
    ) {
        self.segment = segment
        publish(.began, time: time, scale: 1, rotation: 0, velocity: .zero, store: store, into: &out)
    }

    /// Measures the driving fingers, sets M = S_G * base and publishes `changed` when M changed.
    /// Returns the zoom and rotation the measurement engaged (nil when no finger segment is open).
    mutating func follow(
        _ tracks: inout FingerTracks, store: inout TransformStore, time: Timestamp, publishChange: Bool = true,
        into out: inout [GestureEvent]
    ) -> (scale: Bool, rotation: Bool)? {
        // Measured in place through the optional (no copy of the geometry out and back).
        guard geometry != nil, segment != nil else { return nil }
        geometry?.measure(&tracks, time: time, publish: true, catchUpByTime: publishChange)
        guard let engaged = geometry?.engaged, let next = geometry?.cumulative else { return nil }
        let before = store.current
        store.set(next)
        if publishChange && store.current != before {
            _ = publishFingers(.changed, tracks: tracks, store: store, time: time, into: &out)
        }
        return engaged
    }

    /// The driving part so far becomes the frozen part of the open segment (a decrease settles).
    mutating func freeze() {
        guard var s = segment, let g = geometry else { return }
        s.scaleFactor *= g.scale
        s.rotationOffset += g.rotation
        segment = s
    }

    /// Publishes the open finger segment's end (`ended` or `cancelled`) with its current values and
    /// closes it. Returns, for `ended`, where and how fast the fingers left (what momentum or a
    /// spring-back start from).
    mutating func end(
        _ phase: GesturePhase, tracks: FingerTracks, store: TransformStore, time: Timestamp,
        into out: inout [GestureEvent]
    ) -> TransformAnimator.Release? {
        guard let s = segment else { return nil }
        let (velocity, speedMM) = publishFingers(phase, tracks: tracks, store: store, time: time, into: &out)
        segment = nil
        guard phase == .ended else { return nil }
        return TransformAnimator.Release(
            centroid: store.centroid(of: s), velocity: velocity.translation, speedMM: speedMM, mode: s.mode)
    }

    /// Publishes an update of the open animation segment (M already set by the caller) and closes the
    /// segment when `phase` ends it.
    mutating func publishAnimation(
        _ phase: GesturePhase, time: Timestamp, scale: Double, velocity: GestureVelocity, store: TransformStore,
        into out: inout [GestureEvent]
    ) {
        publish(phase, time: time, scale: scale, rotation: 0, velocity: velocity, store: store, into: &out)
        switch phase {
        case .ended, .cancelled: segment = nil
        case .began, .changed: break
        }
    }

    /// A client replaced M with `transform`: the open segment and the measurement continue from it
    /// without a jump in their own relative values (M_base = S^-1 * T). False, changing nothing, when
    /// `transform` is not finite or singular.
    mutating func replace(_ store: inout TransformStore, with transform: AffineTransform) -> Bool {
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

    /// Publishes an update of the open finger segment with its values read back from M; returns its
    /// velocity and the fingers' speed in mm/s (zero without a measurement).
    private mutating func publishFingers(
        _ phase: GesturePhase, tracks: FingerTracks, store: TransformStore, time: Timestamp,
        into out: inout [GestureEvent]
    ) -> (GestureVelocity, Double) {
        let scale = (segment?.scaleFactor ?? 1) * (geometry?.scale ?? 1)
        let rotation = (segment?.rotationOffset ?? 0) + (geometry?.rotation ?? 0)
        var velocity = GestureVelocity.zero
        var speedMM = 0.0
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
            speedMM = v.mm.length
        }
        publish(phase, time: time, scale: scale, rotation: rotation, velocity: velocity, store: store, into: &out)
        return (velocity, speedMM)
    }

    private mutating func publish(
        _ phase: GesturePhase, time: Timestamp, scale: Double, rotation: Double, velocity: GestureVelocity,
        store: TransformStore, into out: inout [GestureEvent]
    ) {
        guard let s = segment else { return }
        let centroid = phase == .began ? s.c0 : store.centroid(of: s)
        seq &+= 1
        out.append(
            .update(
                GestureUpdate(
                    session: s.session, seq: seq, time: time, phase: phase, mode: s.mode, fingers: s.fingers,
                    centroid: centroid, translation: centroid - s.c0, scale: scale, rotation: rotation,
                    velocity: velocity, matrix: store.current)))
    }
}
