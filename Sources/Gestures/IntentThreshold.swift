/// The intent hysteresis of one segment quantity (its rotation in radians, or its log scale), the way
/// map apps separate a two-finger pan from a pinch or a twist: the published value stays 0 until the
/// raw value passes `threshold`, and from then on the content catches up with the fingers.
///
/// Crossed inside a running segment, nothing jumps: what the raw value did before the crossing frame
/// stays hidden (the lag, about `threshold`), the crossing frame's own motion is followed. The lag is
/// then spent in every frame in which the fingers move, by the larger of their motion (in either
/// direction, one for one) and the share a 50 ms time constant gives: going on the way it engaged, the
/// content moves the fingers' step plus the part of the lag spent; coming back, it holds still (or
/// moves on toward the fingers) while the fingers come back to it. Either way the distance between the
/// published value and the fingers' value only shrinks, the published value only ever moves toward the
/// fingers' value and never past it, and within a quarter second of moving fingers (or one lag's worth
/// of motion) the content follows them exactly again. Still fingers never see the content move by
/// itself. A segment that begins at the crossing has published nothing before (its first `publish`
/// has no earlier value to hide): it shows the threshold in that frame, toward the fingers. A
/// deliberate 45 degree twist thus rotates the content 45 degrees; a two-finger pan whose finger line
/// drifts less than the threshold never rotates it; a twist that turns back (a circle on a tablet) is
/// pinned again as soon as it turned back by the lag.
///
/// Round 2's rule let the lag wait while the fingers moved back, so a reversing twist never paid it
/// (the Wacom ISDv4 E6 and Intuos5 double-circle recordings stayed 6 and 12.9 degrees off a quarter
/// second after rotation unlocked). Mapbox's handlers re-base at the crossing and lose the threshold
/// for good (a 45 degree twist turns the map 30); the catch-up is ours.
struct IntentThreshold: Sendable {
    /// The raw value at which the quantity engages (>= 0).
    let threshold: Double
    /// Engaged from the start (an earlier segment of the session engaged it, or threshold 0).
    private(set) var engaged: Bool
    /// Signed amount the published value trails the raw value by.
    private(set) var lag = 0.0
    private var lastRaw = 0.0
    /// The raw value this quantity is measured from (`rebase`).
    private var origin = 0.0
    /// Time (microseconds) of the last `publish`.
    private var lastTime: Int64?

    init(threshold: Double, engaged: Bool) {
        self.threshold = max(0, threshold)
        self.engaged = engaged || self.threshold == 0
    }

    /// Disabled: the published value stays 0 whatever the raw value (rotation = false, semi-mt).
    static let off = IntentThreshold(threshold: .infinity, engagedNever: ())

    private init(threshold: Double, engagedNever: Void) {
        self.threshold = threshold
        self.engaged = false
    }

    /// True when the raw value is past the threshold but the quantity has not engaged yet (the caller
    /// decides whether this frame engages it, e.g. when the segment begins).
    func crosses(_ raw: Double) -> Bool { !engaged && threshold.isFinite && abs(raw - origin) >= threshold }

    /// True when `raw` asks for motion: past the threshold, or any change once engaged (a threshold
    /// of 0: a pinch about a still centroid begins a segment at its first change).
    func passes(_ raw: Double) -> Bool {
        guard threshold.isFinite else { return false }
        return engaged ? raw != origin : abs(raw - origin) >= threshold
    }

    /// A quantity that has not engaged is measured from `raw` on: what the fingers did before (below
    /// the threshold, while a pan began at the slop) stays hidden for good and is never caught up.
    mutating func rebase(at raw: Double) {
        guard !engaged else { return }
        origin = raw
        lastRaw = raw
    }

    /// The published value for `raw`, engaging when it passes the threshold.
    /// - Parameters:
    ///   - mayEngage: false holds a quantity that has not engaged at 0 whatever `raw` says (the
    ///     caller's own condition, e.g. a spread change too small in mm).
    ///   - time: the frame's time in microseconds (the catch-up's time constant runs on it).
    ///   - catchUpByTime: false spends the lag by the fingers' motion only (a frame whose finger set
    ///     changes adds no more than twice what the fingers explain).
    mutating func publish(
        _ raw: Double, mayEngage: Bool = true, time: Int64? = nil, catchUpByTime: Bool = true
    )
        -> Double
    {
        let value = raw - origin
        let last = lastRaw - origin
        let elapsed = time.flatMap { now in lastTime.map { Double(now - $0) } } ?? 0
        if let time { lastTime = time }
        var engaging = false
        if !engaged {
            guard mayEngage && crosses(raw) else {
                lastRaw = raw
                return 0
            }
            // What the fingers did before this frame stays hidden (the lag; at most `value`, on its
            // side): this frame's own motion is followed, so nothing jumps even when the caller held
            // the engagement back while the raw value went on.
            engaged = true
            engaging = true
            lag = last * value > 0 ? (value < 0 ? -1 : 1) * min(abs(last), abs(value)) : 0
        }
        let step = value - last
        lastRaw = raw
        if lag != 0 {
            // Spend the lag by this frame's motion, whichever way, and while the fingers move by the
            // time constant too (so a slow hand is pinned again within a quarter second of the
            // unlock); never past 0, so the published value moves toward the fingers' value and never
            // beyond it.
            var paid = abs(step)
            if catchUpByTime && !engaging && step != 0 && elapsed > 0 {
                paid = max(paid, abs(lag) * (1 - SegmentGeometry.exp(-elapsed / Self.timeConstantMicroseconds)))
            }
            paid = min(abs(lag), paid)
            lag -= lag > 0 ? paid : -paid
        }
        return value - lag
    }

    /// The catch-up's time constant while the fingers move: 250 ms after an unlock at most e^-5 (0.7 %)
    /// of the lag is left (0.08 degree of a 12 degree lag, 0.04 mm at 50 mm from the centroid).
    static let timeConstantMicroseconds = 50_000.0
}
