import MultitouchCore

/// DESIGN.md invariant 9, measured as a user sees it: the content under each finger stays under it.
///
/// For each finger segment (pan, pinchRotate) S = M * M0^-1 carries each finger's position at the
/// segment's start to where its content is drawn now. A segment that began at a crossing (the pan slop,
/// an intent threshold) has two starts with the same M0: the frame it began in, and where its fingers
/// landed (M did not change in between); it is pinned when it is pinned to either. The landing is what
/// a pan's slop lag and a threshold's catch-up are measured from (a 60 mm swipe moves the content 58 mm,
/// a 45 degree twist turns it 45); the frame it began in is what a pan that twisted or pinched a little
/// before its slop crossing is pinned to. The pin error of a frame is the RMS distance (mm)
/// between those points and the fingers, minus the RMS residual of the best transform with only the
/// degrees of freedom unlocked so far (translation; scale once the published scale left 1; rotation
/// once the published rotation left 0), minus a lag of up to the pan slop (the translation part of the
/// error: the slop the content trails the fingers by). Once `grace` has passed since the segment began
/// and since the last unlock it must stay <= `tolerance`. Only the touches the engine uses are judged:
/// when the segment counts fewer fingers than are down (a thumb or palm left out) the subset that fits
/// best is taken. Quick zooms (their pivot is the landing point, not the finger) and semi-mt devices (a
/// bounding box has no fingers to pin) are not judged. When fingers lift inside a segment (a settle),
/// the fingers that stay are judged from where they were then: the engine re-measures them from there.
/// Pure: no clock, no I/O.
struct PinInvariant: Sendable {
    /// Largest pin error (mm) once the grace period passed, over every segment.
    private(set) var largestError = 0.0
    /// Segments judged and segments that broke the tolerance.
    private(set) var segments = 0
    private(set) var failedSegments = 0

    let tolerance: Double
    let graceMicroseconds: Int64
    let slopMillimeters: Double

    private struct Open: Sendable {
        var start: [UInt64: Point]
        /// Where the fingers landed, for a segment that began at a crossing (M unchanged since).
        var landing: [UInt64: Point]?
        var baseInverse: AffineTransform
        var began: Timestamp
        var lastUnlock: Timestamp
        var scaleUnlocked = false
        var rotationUnlocked = false
        var failed = false
        /// The scale reached a limit: the reference moves with the clamp from then on, so the fingers
        /// are no longer pinned in this segment (by design, docs/GESTURES.md "Limits").
        var limited = false
    }

    private var open: Open?
    /// Published-to-mm factors per axis, from the extent of every touch seen (published space is mm
    /// unless an output is mapped).
    private var minPublished = Point(x: Double.infinity, y: Double.infinity)
    private var maxPublished = Point(x: -Double.infinity, y: -Double.infinity)
    private var minMM = Point(x: Double.infinity, y: Double.infinity)
    private var maxMM = Point(x: -Double.infinity, y: -Double.infinity)

    /// The cumulative scale limits (`GestureConfiguration.minimumScale`, `maximumScale`).
    let scaleLimits: ClosedRange<Double>

    init(
        tolerance: Double = 0.25, graceMilliseconds: Double = 250, slopMillimeters: Double,
        scaleLimits: ClosedRange<Double> = 0...Double.infinity
    ) {
        self.scaleLimits = scaleLimits
        self.tolerance = tolerance
        graceMicroseconds = Int64(graceMilliseconds * 1000)
        self.slopMillimeters = slopMillimeters
    }

    /// Notes a touch's two positions (for the published-to-mm factors).
    mutating func note(published p: Point, mm: Point) {
        minPublished = Point(x: min(minPublished.x, p.x), y: min(minPublished.y, p.y))
        maxPublished = Point(x: max(maxPublished.x, p.x), y: max(maxPublished.y, p.y))
        minMM = Point(x: min(minMM.x, mm.x), y: min(minMM.y, mm.y))
        maxMM = Point(x: max(maxMM.x, mm.x), y: max(maxMM.y, mm.y))
    }

    private var millimetersPerUnit: Point {
        func factor(_ publishedSpan: Double, _ mmSpan: Double) -> Double {
            publishedSpan > 1e-9 && mmSpan.isFinite ? mmSpan / publishedSpan : 1
        }
        return Point(
            x: factor(maxPublished.x - minPublished.x, maxMM.x - minMM.x),
            y: factor(maxPublished.y - minPublished.y, maxMM.y - minMM.y))
    }

    /// A finger segment began with the touches at `positions` (published) and matrix `matrix`.
    /// - Parameter landing: where the same fingers were when they landed (or the set last changed),
    ///   when M has not changed since: a segment begun at a crossing may be pinned from there instead.
    mutating func began(
        mode: GestureMode, semi: Bool, positions: [UInt64: Point], landing: [UInt64: Point]?,
        matrix: AffineTransform, time: Timestamp
    ) {
        guard (mode == .pan || mode == .pinchRotate) && !semi, let inverse = matrix.inverted(), !positions.isEmpty
        else {
            open = nil
            return
        }
        segments += 1
        open = Open(start: positions, landing: landing, baseInverse: inverse, began: time, lastUnlock: time)
    }

    /// The segment ended (its last update was judged by `update`).
    mutating func ended() { open = nil }

    /// Judges one update of the open segment against the touches of its frame.
    /// - Returns: the pin error when it broke the tolerance for the first time in this segment.
    mutating func update(
        fingers: Int, scale: Double, rotation: Double, matrix: AffineTransform, positions: [UInt64: Point],
        time: Timestamp
    ) -> Double? {
        guard var o = open else { return nil }
        defer { open = o }
        let cumulative = matrix.scaleFactor
        if cumulative <= scaleLimits.lowerBound * (1 + 1e-9) || cumulative >= scaleLimits.upperBound * (1 - 1e-9) {
            o.limited = true
        }
        guard !o.limited else { return nil }
        if !o.scaleUnlocked && scale != 1 {
            o.scaleUnlocked = true
            o.lastUnlock = time
        }
        if !o.rotationUnlocked && rotation != 0 {
            o.rotationUnlocked = true
            o.lastUnlock = time
        }
        let staying = o.start.keys.filter { positions[$0] != nil }.sorted()
        if staying.count < o.start.count {
            // Fingers lifted: the engine re-measures those that stay from here.
            guard let inverse = matrix.inverted() else { return nil }
            o.start = positions.filter { o.start[$0.key] != nil }
            o.landing = nil
            o.baseInverse = inverse
            return nil
        }
        guard time.microseconds - o.began.microseconds >= graceMicroseconds,
            time.microseconds - o.lastUnlock.microseconds >= graceMicroseconds
        else { return nil }
        let s = matrix.concatenating(after: o.baseInverse)
        let k = millimetersPerUnit
        func mm(_ p: Point) -> Point { Point(x: p.x * k.x, y: p.y * k.y) }
        var error = Double.infinity
        for start in [o.start, o.landing].compactMap({ $0 }) {
            var pairs: [(start: Point, drawn: Point, finger: Point)] = []
            for id in staying {
                guard let p0 = start[id], let p = positions[id] else { continue }
                pairs.append((mm(p0), mm(s.apply(p0)), mm(p)))
            }
            guard !pairs.isEmpty else { continue }
            if fingers < pairs.count && pairs.count <= 6 && fingers >= 1 {
                // The engine left touches out: judge the subset it can have used that fits best.
                for mask in 1..<(1 << pairs.count) where mask.nonzeroBitCount == fingers {
                    let subset = pairs.indices.filter { mask & (1 << $0) != 0 }.map { pairs[$0] }
                    error = min(error, Self.error(subset, o, slop: slopMillimeters))
                }
            } else {
                error = min(error, Self.error(pairs, o, slop: slopMillimeters))
            }
        }
        guard error.isFinite else { return nil }
        largestError = max(largestError, error)
        if error > tolerance && !o.failed {
            o.failed = true
            failedSegments += 1
            return error
        }
        return nil
    }

    /// RMS distance between drawn and finger positions after the best translation lag of at most the
    /// slop, minus the best unlocked fit's residual.
    private static func error(_ pairs: [(start: Point, drawn: Point, finger: Point)], _ o: Open, slop: Double) -> Double
    {
        let n = Double(pairs.count)
        var meanError = Point.zero
        var sumSquared = 0.0
        var c0 = Point.zero
        var c = Point.zero
        for p in pairs {
            let e = p.drawn - p.finger
            meanError = meanError + e
            sumSquared += e.x * e.x + e.y * e.y
            c0 = c0 + p.start
            c = c + p.finger
        }
        meanError = meanError / n
        c0 = c0 / n
        c = c / n
        let rms = (sumSquared / n).squareRoot()
        // Best transform with the unlocked degrees of freedom, centred: q = s R a with a = p0 - c0.
        var aa = 0.0
        var dot = 0.0
        var cross = 0.0
        for p in pairs {
            let a = p.start - c0
            let b = p.finger - c
            aa += a.x * a.x + a.y * a.y
            dot += a.x * b.x + a.y * b.y
            cross += a.x * b.y - a.y * b.x
        }
        var scale = 1.0
        var cosR = 1.0
        var sinR = 0.0
        if aa > 1e-12 {
            switch (o.scaleUnlocked, o.rotationUnlocked) {
            case (false, false):
                break
            case (true, false):
                scale = max(0, dot / aa)
            case (false, true):
                let length = (dot * dot + cross * cross).squareRoot()
                if length > 0 {
                    cosR = dot / length
                    sinR = cross / length
                }
            case (true, true):
                let length = (dot * dot + cross * cross).squareRoot()
                scale = length / aa
                if length > 0 {
                    cosR = dot / length
                    sinR = cross / length
                }
            }
        }
        var residual = 0.0
        for p in pairs {
            let a = p.start - c0
            let b = p.finger - c
            let fitted = Point(x: scale * (cosR * a.x - sinR * a.y), y: scale * (sinR * a.x + cosR * a.y))
            let r = fitted - b
            residual += r.x * r.x + r.y * r.y
        }
        residual = (residual / n).squareRoot()
        // The lag: a translation of up to the slop taken off every finger's error alike.
        let variance = max(0, rms * rms - meanError.length * meanError.length)
        let beyond = max(0, meanError.length - slop)
        return (variance + beyond * beyond).squareRoot() - residual
    }
}
