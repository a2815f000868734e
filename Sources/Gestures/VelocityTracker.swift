/// Velocity of up to four quantities from their recent samples, each stamped with the event time of
/// the frame that carried it: the least-squares slope over the samples of the last `window` (Android
/// VelocityTracker's 100 ms horizon, linear instead of its quadratic fit), and zero once the newest
/// sample is `stop` old (Android's ASSUME_POINTER_STOPPED_TIME). A finger tracks (x, y, x mm, y mm);
/// a segment tracks (log scale, rotation).
///
/// Only real motion is added: a frame in which a finger did not move (including the frame in which
/// it lifts, which carries no new position) adds no sample, so a lift never reads as a stop and a
/// finger that rested reads as stopped. A fixed ring of 32 samples, allocated once at the first
/// sample (at 320 Hz and above the window holds the last 32 samples). The ring lives on the heap
/// rather than inline: trackers sit inside values that are copied every frame, and an inline ring
/// made those copies over a kilobyte each (a third of the pipeline's time in profiles).
struct VelocityTracker: Sendable {
    struct Sample: Sendable {
        var time: Int64
        var values: SIMD4<Double>
    }

    static let capacity = 32
    private var samples: [Sample] = []
    private var head = 0
    private var count = 0

    init() {}

    mutating func reset() {
        head = 0
        count = 0
    }

    /// Whether the tracker has no ring (it never took a sample, or gave its ring away).
    var isEmptyRing: Bool { samples.isEmpty }

    /// An empty tracker takes `spare`'s ring (`spare` is left with none), so that starting to track
    /// again allocates nothing; the ring's old samples are not read (`count` is 0).
    mutating func takeRing(from spare: inout VelocityTracker) {
        guard count == 0, samples.isEmpty else { return }
        swap(&samples, &spare.samples)
        spare.reset()
    }

    /// Time of the newest sample, nil when there is none.
    var newestTime: Int64? {
        count > 0 ? samples[(head - 1 + Self.capacity) % Self.capacity].time : nil
    }

    /// Adds a sample; one at the same time as the newest replaces it (several frames of one instant).
    mutating func add(time: Int64, _ values: SIMD4<Double>) {
        if count > 0 {
            let newest = (head - 1 + Self.capacity) % Self.capacity
            if samples[newest].time == time {
                samples[newest].values = values
                return
            }
            // Time never runs backwards in a replay; a sample from the past would corrupt the fit.
            if samples[newest].time > time { return }
        }
        if samples.isEmpty { samples = Array(repeating: Sample(time: 0, values: .zero), count: Self.capacity) }
        samples[head] = Sample(time: time, values: values)
        head = (head + 1) % Self.capacity
        count = min(count + 1, Self.capacity)
    }

    /// Units per second of each quantity at `now`: zero with fewer than two samples inside the window,
    /// or when the newest is `stopMicroseconds` or more older than `now`.
    func velocity(now: Int64, windowMicroseconds: Int64, stopMicroseconds: Int64) -> SIMD4<Double> {
        guard count >= 2 else { return .zero }
        let newestIndex = (head - 1 + Self.capacity) % Self.capacity
        let newest = samples[newestIndex]
        guard now &- newest.time < stopMicroseconds else { return .zero }
        var n = 0.0
        var sumT = 0.0
        var sumV = SIMD4<Double>.zero
        var k = 0
        while k < count {
            let s = samples[(newestIndex - k + Self.capacity) % Self.capacity]
            if newest.time &- s.time > windowMicroseconds { break }
            let t = Double(s.time &- newest.time) / 1_000_000
            n += 1
            sumT += t
            sumV += s.values
            k += 1
        }
        guard n >= 2 else { return .zero }
        let meanT = sumT / n
        let meanV = sumV / n
        var stt = 0.0
        var stv = SIMD4<Double>.zero
        for j in 0..<k {
            let s = samples[(newestIndex - j + Self.capacity) % Self.capacity]
            let t = Double(s.time &- newest.time) / 1_000_000 - meanT
            stt += t * t
            stv += t * (s.values - meanV)
        }
        guard stt > 0 else { return .zero }
        let v = stv / stt
        return v.x.isFinite && v.y.isFinite && v.z.isFinite && v.w.isFinite ? v : .zero
    }
}
