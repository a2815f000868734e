/// How many reports a touch's sensor takes per reading (a new position), learnt from the touch's own
/// readings, and what that says about what the device will report next (issue 30). A sensor slower
/// than the report rate holds each reading over several reports: the device's positions are a
/// staircase of the finger's path, sampled when the sensor reads. From the share of readings that
/// came 1, 2, 3... reports after the one before, the chance that the next report brings a reading is
/// known at every report, and so is the expected time of the reading the device will be showing
/// H ms from now. A sensor that reads at every report gives the finger's path itself; the issue's
/// 250 Hz panel, which repeats 61 % of its positions, holds each reading two or three reports.
///
/// Pure value, inline storage (two SIMD8<Float> vectors: probabilities need no more, and the
/// touch's predictor is copied often), no allocation; a sensor that reads at every report costs a
/// multiply-add per reading and nothing per prediction.
struct SensorCadence: Sendable {
    /// Readings that came n reports after the previous one, at index n - 1 (the last: 8 or more),
    /// decayed by `decay` at every reading: the touch's recent cadence. Starts as one reading per
    /// report, which the first held reports of a slow sensor correct.
    private var counts = SIMD8<Float>(1, 0, 0, 0, 0, 0, 0, 0)
    /// The chance, held a reports since the newest reading (at index a), that the next report brings
    /// a reading: counts[a] over the counts from a on (1 at the last index, and where none are left).
    private var hazard = SIMD8<Float>(repeating: 1)

    /// Weight of the older counts at each reading: a memory of about 20 readings, so that a cadence
    /// that changes (another finger lands, the sensor's scan rate changes) is followed.
    static let decay: Float = 0.95
    /// Counts below this share of the whole are dropped: a sensor that read at every report for the
    /// last 130 readings reads at every report.
    static let negligible: Float = 1e-3
    /// The expected reading times are worked out report by report this far ahead; further on the
    /// readings' age no longer depends on the present one's, and the expected age grows with time.
    static let steps = 16

    /// Every report has been a reading (or one in a thousand was not).
    private(set) var readsEveryReport = true

    /// Learns a reading that came `reports` reports after the previous one (1: at the next report).
    mutating func learn(reports: Int) {
        let index = min(max(reports, 1), 8) - 1
        counts *= Self.decay
        counts[index] += 1
        // The common case, a sensor that reads at every report, stays one.
        guard !(readsEveryReport && index == 0) else { return }
        counts.replace(with: 0, where: counts .< Self.negligible * counts.sum())
        var tail: Float = 0
        for a in (0..<7).reversed() {
            tail += counts[a + 1]
            let from = tail + counts[a]
            hazard[a] = from > 0 ? counts[a] / from : 1
        }
        readsEveryReport = hazard[0] == 1
    }

    /// The chance that a reading takes more than `held` reports: that the sensor has merely not read
    /// anew after `held` reports with the same position (0 from 8 on).
    func stillReading(afterHeld held: Int) -> Double {
        guard held > 0 else { return 1 }
        guard held < 8, !readsEveryReport else { return 0 }
        // The counts of the readings that took more than `held` reports, over all.
        var later: Float = 0
        for n in held..<8 { later += counts[n] }
        return Double(later / counts.sum())
    }

    /// The expected age, relative to the newest reading, of the reading the device will be showing
    /// `horizon` seconds from now (s): the newest reading is `held` seconds and `heldReports` reports
    /// old, reports come every `reportInterval`, and the position the device shows between two
    /// reports is taken as the straight line between them (how the truth is scored). The finger's
    /// predicted position is its path this far past the newest reading. When every report is a
    /// reading this is `held + horizon`.
    func expectedAge(held: Double, heldReports: Int, reportInterval: Double, horizon: Double) -> Double {
        guard reportInterval > 0, !(readsEveryReport && heldReports == 0) else { return held + horizon }
        let x = horizon / reportInterval
        let whole = Int(x.rounded(.down))
        let hazard = SIMD8<Double>(self.hazard)
        // Chance and chance-weighted reading age of each state (reports since the newest reading).
        var chance = SIMD8<Double>(repeating: 0)
        chance[min(heldReports, 7)] = 1
        var weighted = SIMD8<Double>(repeating: 0)
        var before = 0.0
        var after = 0.0
        for k in 1...min(whole + 1, Self.steps) {
            let read = chance * hazard
            let reading = read.sum()
            let age = held + Double(k) * reportInterval
            let stay = chance - read
            let stayWeighted = weighted - weighted * hazard
            chance = SIMD8(reading, stay[0], stay[1], stay[2], stay[3], stay[4], stay[5], stay[6])
            weighted = SIMD8(
                reading * age, stayWeighted[0], stayWeighted[1], stayWeighted[2], stayWeighted[3], stayWeighted[4],
                stayWeighted[5], stayWeighted[6])
            before = after
            after = weighted.sum()
        }
        guard whole < Self.steps else { return after + (x - Double(Self.steps)) * reportInterval }
        return before + (after - before) * (x - Double(whole))
    }
}
