/// The intent hysteresis of one segment quantity (its rotation in radians, or its log scale), the way
/// map apps separate a two-finger pan from a pinch or a twist: the published value stays 0 until the
/// raw value passes `threshold`, and from then on the content catches up with the fingers.
///
/// At the crossing nothing jumps: what the raw value did before the crossing frame stays hidden (the
/// lag, about `threshold`), the crossing frame's own motion is followed. The lag is paid back while
/// the fingers keep going the same way: each frame it shrinks by as much as the fingers moved on, so
/// the content moves at most twice as fast as the fingers, and after another `threshold` of motion it
/// follows them exactly. Moving back follows
/// exactly too (the lag waits). A deliberate 45 degree twist thus rotates the content 45 degrees; a
/// two-finger pan whose finger line drifts less than the threshold never rotates it.
///
/// Mapbox's handlers re-base at the crossing and lose the threshold for good (a 45 degree twist turns
/// the map 30); the catch-up is ours.
struct IntentThreshold: Sendable {
    /// The raw value at which the quantity engages (>= 0).
    let threshold: Double
    /// Engaged from the start (an earlier segment of the session engaged it, or threshold 0).
    private(set) var engaged: Bool
    /// Signed amount the published value trails the raw value by.
    private var lag = 0.0
    private var lastRaw = 0.0

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
    func crosses(_ raw: Double) -> Bool { !engaged && threshold.isFinite && abs(raw) >= threshold }

    /// True when `raw` asks for motion: past the threshold, or any change once engaged (a threshold
    /// of 0: a pinch about a still centroid begins a segment at its first change).
    func passes(_ raw: Double) -> Bool {
        guard threshold.isFinite else { return false }
        return engaged ? raw != 0 : abs(raw) >= threshold
    }

    /// The published value for `raw`, engaging when it passes the threshold.
    /// - Parameter mayEngage: false holds a quantity that has not engaged at 0 whatever `raw` says
    ///   (the caller's own condition, e.g. a spread change too small in mm).
    mutating func publish(_ raw: Double, mayEngage: Bool = true) -> Double {
        if !engaged {
            guard mayEngage && crosses(raw) else {
                lastRaw = raw
                return 0
            }
            // What the fingers did before this frame stays hidden (the lag; at most `raw`, on its
            // side): this frame's own motion is followed, so nothing jumps even when the caller held
            // the engagement back while the raw value went on.
            engaged = true
            lag = lastRaw * raw > 0 ? (raw < 0 ? -1 : 1) * min(abs(lastRaw), abs(raw)) : 0
        }
        let step = raw - lastRaw
        lastRaw = raw
        if lag != 0, step != 0, (step > 0) == (lag > 0) {
            // Going on the way it engaged: pay the lag back by up to this frame's motion.
            let paid = min(abs(lag), abs(step))
            lag -= lag > 0 ? paid : -paid
        }
        return raw - lag
    }
}
