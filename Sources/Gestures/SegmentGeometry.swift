import MultitouchCore

/// The measurement of one set of fingers and the transform it publishes: S_G(p) = c + s R(r) (p - c0'),
/// with c the fingers' centroid, c0' the reference centroid moved by the slop, and s, r the
/// least-squares similarity (`SimilarityFit`) between where the fingers were at the reference and
/// where they are now, passed through the intent thresholds (`IntentThreshold`) and the scale limits.
///
/// - Pan slop (target 1): a segment that begins at the slop crossing keeps the translation of the
///   slop (d * min(1, slop / |d|) of the centroid motion d) out of its reference, so the content moves
///   the fingers' travel minus at most the slop and then stays glued.
/// - Limits (target 6): past a limit the reference moves with the clamp (`limitOffset`), so turning
///   back responds at once; or, with `rubberBand`, the scale stretches past the limit with UIScrollView's
///   rubber-band curve and the engine springs it back on release.
/// - Coincident fingers (spread below 1 µm) hold the last scale and angle; the reference is taken again
///   when they separate, continuing the held values.
/// - Semi-mt: the touches are a bounding box: centroid its centre, scale its half diagonal, no
///   rotation.
/// - Quick zoom: one finger; the scale doubles per `quickZoomMillimetersPerDoubling` of downward drag
///   from the crossing, about the landing point (the published centroid), no translation.
struct SegmentGeometry: Sendable {
    let mode: GestureMode
    /// The finger count the segment publishes (a semi-mt pad counts more fingers than it has touches).
    let fingers: Int
    let semi: Bool
    /// The cumulative transform this geometry builds on: M = S_G * base.
    var base: AffineTransform
    /// Reference centroid (published, mm) and the slop kept out of it.
    private(set) var c0: Point
    private(set) var c0MM: Point
    private(set) var slopOffset = Point.zero
    /// Latest centroid (published, mm).
    private(set) var centroid: Point
    private(set) var centroidMM: Point
    /// Raw (unthresholded, unlimited) log scale and unwrapped rotation.
    private(set) var rawLogScale = 0.0
    private(set) var rawRotation = 0.0
    /// Published log scale and rotation.
    private(set) var logScale = 0.0
    private(set) var rotation = 0.0
    private(set) var scaleIntent: IntentThreshold
    private(set) var rotationIntent: IntentThreshold
    private var referenceLogScale = 0.0
    private var referenceRotation = 0.0
    private var lastFitRotation = 0.0
    private var referenceRadiusMM = 0.0
    /// |spread - reference spread| (mm) of the latest measurement.
    private var spreadChangeMM = 0.0
    private let logLow: Double
    private let logHigh: Double
    private var limitOffset = 0.0
    private let rubberBand: Bool
    /// Quick zoom: the fixed point and the mm per doubling.
    private let pivot: Point?
    private let millimetersPerDoubling: Double
    private var quickZoomStartY = 0.0
    /// (published log scale, published rotation) samples for their velocities.
    private(set) var motion = VelocityTracker()

    /// A new geometry's velocity tracker takes the ring of `spare` (`VelocityTracker.takeRing`).
    mutating func reuseMotionRing(from spare: inout VelocityTracker) { motion.takeRing(from: &spare) }

    /// Below this spread (mm) fingers count as coincident.
    static let coincidentMillimeters = 1e-3

    /// Zoom engages only once the spread (RMS distance from the centroid) also changed this much in mm,
    /// besides `scaleThresholdPercent`: a relative threshold alone is crossed by sensor noise when the
    /// spread is tiny (a semi-mt pad's bounding box collapses to 0.1 mm when three fingers press, as
    /// in the CyPS/2 three-finger-press recording, and zoomed the map 3.4x). Android's
    /// ScaleGestureDetector likewise waits for a span slop of two touch slops (2.5 mm of span, about
    /// 1.25 mm of radius); 1 mm was also the spread dead band this engine used before.
    static let minimumSpreadChangeMillimeters = 1.0

    /// A geometry over the members of `tracks` (already referenced by `FingerTracks.takeMembers`).
    init(
        mode: GestureMode, fingers: Int, semi: Bool, base: AffineTransform, tracks: FingerTracks,
        configuration c: GestureConfiguration, scaleEngaged: Bool, rotationEngaged: Bool, pivot: Point? = nil
    ) {
        self.mode = mode
        self.fingers = fingers
        self.semi = semi
        self.base = base
        self.pivot = pivot
        millimetersPerDoubling = c.quickZoomMillimetersPerDoubling
        rubberBand = c.rubberBand
        let k = base.scaleFactor
        let low = k > 0 && k.isFinite ? min(1, c.minimumScale / k) : 1
        let high = k > 0 && k.isFinite ? max(1, c.maximumScale / k) : 1
        logLow = Self.log(low)
        logHigh = Self.log(high)
        switch mode {
        case .pinchRotate:
            scaleIntent = IntentThreshold(threshold: Self.log(1 + c.scaleThresholdPercent / 100), engaged: scaleEngaged)
            rotationIntent =
                c.rotation && !semi
                ? IntentThreshold(threshold: c.rotationThresholdDegrees * Double.pi / 180, engaged: rotationEngaged)
                : .off
        case .quickZoom:
            scaleIntent = IntentThreshold(threshold: 0, engaged: true)
            rotationIntent = .off
        case .pan, .momentum, .animatedZoom:
            scaleIntent = .off
            rotationIntent = .off
        }
        let reference = Self.references(tracks, semi: semi)
        c0 = reference.centroid
        c0MM = reference.centroidMM
        referenceRadiusMM = reference.referenceRadiusMM
        centroid = reference.current
        centroidMM = reference.currentMM
        if let pivot {
            c0 = pivot
            centroid = pivot
            quickZoomStartY = reference.currentMM.y
        }
    }

    /// The published reference point c0' (where the segment's `began` puts the centroid).
    var referencePoint: Point { c0 + slopOffset }

    /// Distance (mm) the centroid moved from the reference.
    var travelMM: Double { centroidMM.distance(to: c0MM) }

    /// S_G: the transform the fingers ask for, relative to `base`.
    var transform: AffineTransform {
        switch mode {
        case .pan:
            return .translation(centroid - referencePoint)
        case .pinchRotate, .quickZoom:
            return .pivot(from: referencePoint, to: centroid, scale: Self.exp(logScale), rotation: rotation)
        case .momentum, .animatedZoom:
            return .identity
        }
    }

    /// Whether zoom (of a pinch) and rotation engaged.
    var engaged: (scale: Bool, rotation: Bool) { (scaleIntent.engaged && mode == .pinchRotate, rotationIntent.engaged) }

    /// M = S_G * base.
    var cumulative: AffineTransform { transform.concatenating(after: base) }

    /// The published scale (s of S_G).
    var scale: Double { Self.exp(logScale) }

    /// True when the measurement passed one of the thresholds a segment begins at: the centroid moved
    /// `slop` mm, or the scale or the angle passed its intent threshold.
    func crossed(slopMillimeters slop: Double) -> Bool {
        guard travelMM < slop else { return true }
        // Quick zoom begins at the slop only (its scale has no threshold of its own).
        guard mode == .pinchRotate else { return false }
        return scaleIntent.passes(rawLogScale) && (scaleIntent.engaged || spreadPassed)
            || rotationIntent.passes(rawRotation)
    }

    /// The segment begins here: the slop part of the centroid motion stays out of the reference.
    mutating func beginAtCrossing(slopMillimeters slop: Double) {
        let d = centroid - c0
        let dMM = travelMM
        slopOffset = dMM > 0 ? d * min(1, slop / dMM) : .zero
        if mode == .quickZoom {
            // Re-based at the crossing: the drag zooms from here.
            let offsetMM = dMM > 0 ? (centroidMM - c0MM) * min(1, slop / dMM) : .zero
            quickZoomStartY = c0MM.y + offsetMM.y
            slopOffset = .zero
        }
        if mode == .pinchRotate && dMM >= slop {
            // Begun at the pan slop: the twist and spread change the fingers made before (below their
            // thresholds, while the content did not move) stay hidden for good. Caught up later, they
            // would carry the content past the fingers' motion since the segment began and keep it
            // there (the Intuos5 double circle ended 2.7 degrees off: its -2.7 degrees before the pan).
            if !(scaleIntent.passes(rawLogScale) && spreadPassed) { scaleIntent.rebase(at: rawLogScale) }
            if !rotationIntent.passes(rawRotation) { rotationIntent.rebase(at: rawRotation) }
        }
    }

    /// Measures the members of `tracks` at `time` and updates the published values.
    /// - Parameter publish: false while the segment has not begun (raw values only).
    /// - Parameter catchUpByTime: false when the measurement ends the segment at a finger-set change
    ///   (the catch-up then goes by the fingers' motion only, `IntentThreshold.publish`).
    mutating func measure(_ tracks: inout FingerTracks, time: Timestamp, publish: Bool, catchUpByTime: Bool = true) {
        let now = Self.references(tracks, semi: semi)
        guard now.count > 0, now.current.isFinite, now.currentMM.isFinite else { return }
        if mode == .quickZoom {
            centroidMM = now.currentMM
            if let pivot { centroid = pivot }
            rawLogScale = Self.ln2 * (now.currentMM.y - quickZoomStartY) / millimetersPerDoubling
        } else {
            centroid = now.current
            centroidMM = now.currentMM
        }
        if mode == .pinchRotate { measureSimilarity(&tracks, now: now) }
        guard publish else { return }
        let caught = scaleIntent.publish(
            rawLogScale, mayEngage: spreadPassed, time: time.microseconds, catchUpByTime: catchUpByTime)
        logScale = limit(caught)
        rotation = rotationIntent.publish(rawRotation, time: time.microseconds, catchUpByTime: catchUpByTime)
        motion.add(time: time.microseconds, SIMD4(logScale, rotation, 0, 0))
    }

    /// Scale velocity (per second of the published scale) and rotation velocity (rad/s).
    func scaleAndRotationVelocity(
        now: Timestamp, windowMicroseconds: Int64, stopMicroseconds: Int64
    ) -> (scale: Double, rotation: Double) {
        let v = motion.velocity(
            now: now.microseconds, windowMicroseconds: windowMicroseconds, stopMicroseconds: stopMicroseconds)
        return (scale * v.x, v.y)
    }

    /// The spread changed enough in mm for zoom to engage.
    private var spreadPassed: Bool { spreadChangeMM >= Self.minimumSpreadChangeMillimeters }

    private mutating func measureSimilarity(_ tracks: inout FingerTracks, now: References) {
        guard now.radiusMM > Self.coincidentMillimeters, now.radius > 0 else { return }  // hold scale and angle
        if referenceRadiusMM <= Self.coincidentMillimeters || now.referenceRadius <= 0 {
            // Started coincident: take the reference now, continuing the held values.
            tracks.rereferenceMembers()
            referenceLogScale = rawLogScale
            referenceRotation = rawRotation
            accumulatedRotation = 0
            lastFitRotation = 0
            referenceRadiusMM = now.radiusMM
            return
        }
        spreadChangeMM = abs(now.radiusMM - now.referenceRadiusMM)
        if semi {
            // A bounding box has a size but no direction of its own.
            rawLogScale = referenceLogScale + Self.log(now.radius / now.referenceRadius)
            return
        }
        var fit = SimilarityFit()
        for t in tracks.tracks where t.member { fit.add(start: t.reference, current: t.location) }
        guard let solved = fit.solve() else { return }
        var delta = solved.rotation - lastFitRotation
        if delta > Double.pi { delta -= 2 * Double.pi } else if delta < -Double.pi { delta += 2 * Double.pi }
        lastFitRotation = solved.rotation
        accumulatedRotation += delta
        rawRotation = referenceRotation + accumulatedRotation
        rawLogScale = referenceLogScale + Self.log(solved.scale)
    }

    private var accumulatedRotation = 0.0

    /// The scale limits, in log: past a limit the reference moves with it, or the rubber band stretches.
    private mutating func limit(_ value: Double) -> Double {
        let y = value - limitOffset
        if y > logHigh {
            if rubberBand { return logHigh + Self.band(y - logHigh) }
            limitOffset += y - logHigh
            return logHigh
        }
        if y < logLow {
            if rubberBand { return logLow - Self.band(logLow - y) }
            limitOffset += y - logLow
            return logLow
        }
        return y
    }

    /// UIScrollView's rubber-band curve d (1 - 1 / (c x / d + 1)), c = 0.55, on the log scale with
    /// d = ln 2: the content follows at 55 % past the limit and never stretches beyond twice it.
    static func band(_ excess: Double) -> Double {
        let d = ln2
        return d * (1 - 1 / (0.55 * excess / d + 1))
    }

    // MARK: Reference measurement

    struct References {
        var count = 0
        /// Centroid of the members' references and current positions (published, mm).
        var centroid = Point.zero
        var centroidMM = Point.zero
        var current = Point.zero
        var currentMM = Point.zero
        /// Current and reference spread: RMS distance from the centroid (semi-mt: half diagonal of
        /// the box).
        var radius = 0.0
        var radiusMM = 0.0
        var referenceRadius = 0.0
        var referenceRadiusMM = 0.0
    }

    /// Reference and current centroids of the members; for semi-mt the centres of their boxes.
    static func references(_ tracks: FingerTracks, semi: Bool) -> References {
        var r = References()
        var minRef = Point(x: .infinity, y: .infinity)
        var maxRef = Point(x: -.infinity, y: -.infinity)
        var minRefMM = minRef
        var maxRefMM = maxRef
        var minCur = minRef
        var maxCur = maxRef
        var minCurMM = minRef
        var maxCurMM = maxRef
        for t in tracks.tracks where t.member {
            r.count += 1
            r.centroid = r.centroid + t.reference
            r.centroidMM = r.centroidMM + t.referenceMM
            r.current = r.current + t.location
            r.currentMM = r.currentMM + t.mm
            if semi {
                minRef = lower(minRef, t.reference)
                maxRef = upper(maxRef, t.reference)
                minRefMM = lower(minRefMM, t.referenceMM)
                maxRefMM = upper(maxRefMM, t.referenceMM)
                minCur = lower(minCur, t.location)
                maxCur = upper(maxCur, t.location)
                minCurMM = lower(minCurMM, t.mm)
                maxCurMM = upper(maxCurMM, t.mm)
            }
        }
        guard r.count > 0 else { return r }
        if semi {
            // Halves first: a box of finite corners near the double's limit (garbage input) then has
            // a finite centre; for any other box the result is the same to the bit (halving is exact).
            r.centroid = minRef * 0.5 + maxRef * 0.5
            r.centroidMM = minRefMM * 0.5 + maxRefMM * 0.5
            r.current = minCur * 0.5 + maxCur * 0.5
            r.currentMM = minCurMM * 0.5 + maxCurMM * 0.5
            r.radius = (maxCur * 0.5 - minCur * 0.5).length
            r.radiusMM = (maxCurMM * 0.5 - minCurMM * 0.5).length
            r.referenceRadius = (maxRef * 0.5 - minRef * 0.5).length
            r.referenceRadiusMM = (maxRefMM * 0.5 - minRefMM * 0.5).length
            return r
        }
        let n = Double(r.count)
        r.centroid = r.centroid / n
        r.centroidMM = r.centroidMM / n
        r.current = r.current / n
        r.currentMM = r.currentMM / n
        var sum = 0.0
        var sumMM = 0.0
        var sumRef = 0.0
        var sumRefMM = 0.0
        for t in tracks.tracks where t.member {
            sum += squared(t.location - r.current)
            sumMM += squared(t.mm - r.currentMM)
            sumRef += squared(t.reference - r.centroid)
            sumRefMM += squared(t.referenceMM - r.centroidMM)
        }
        r.radius = (sum / n).squareRoot()
        r.radiusMM = (sumMM / n).squareRoot()
        r.referenceRadius = (sumRef / n).squareRoot()
        r.referenceRadiusMM = (sumRefMM / n).squareRoot()
        return r
    }

    private static func squared(_ p: Point) -> Double { p.x * p.x + p.y * p.y }
    private static func lower(_ a: Point, _ b: Point) -> Point { Point(x: Swift.min(a.x, b.x), y: Swift.min(a.y, b.y)) }
    private static func upper(_ a: Point, _ b: Point) -> Point { Point(x: Swift.max(a.x, b.x), y: Swift.max(a.y, b.y)) }

    static let ln2 = 0.693_147_180_559_945_3
    static func log(_ x: Double) -> Double { _log(x) }
    static func exp(_ x: Double) -> Double { _exp(x) }
}

#if canImport(Glibc)
import Glibc
func _log(_ x: Double) -> Double { Glibc.log(x) }
func _exp(_ x: Double) -> Double { Glibc.exp(x) }
#elseif canImport(Darwin)
import Darwin
func _log(_ x: Double) -> Double { Darwin.log(x) }
func _exp(_ x: Double) -> Double { Darwin.exp(x) }
#endif
