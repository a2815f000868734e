import MultitouchCore

/// Scripted recordings of a device class none of the project's real recordings has (issue 30): a
/// touchscreen reporting at uneven 2-8 ms intervals whose position sensor reads only every second or
/// third report, as the 250 Hz panel of the issue does (61 % repeated positions). Made from a real
/// touch path: the reports come at seeded pseudo-random intervals over the path's life, every second
/// or third of them (at random) reads the real path there (interpolated between its samples), and the
/// others repeat the previous reading. Pure and deterministic: the same path and seed give the same
/// samples.
public enum ScriptedSensor {
    /// Report intervals are drawn from this range, µs.
    public static let intervals: ClosedRange<Int64> = 2_000...8_000
    /// A reading comes every this many reports (drawn per reading).
    public static let readEvery: ClosedRange<UInt64> = 2...3

    /// The path as the slow sensor reports it: it starts and ends with the real path's first and
    /// last samples; nil for a path of fewer than two samples.
    public static func slowSensor(_ track: [TrackSample], seed: UInt64) -> [TrackSample]? {
        guard let first = track.first, let last = track.last, track.count > 1, last.time > first.time else {
            return nil
        }
        var random = SplitMix64(seed: seed)
        var samples = [first]
        var held = first.millimeters
        var untilReading = random.next(in: readEvery)
        var time = first.time
        while true {
            time += Int64(random.next(in: UInt64(intervals.lowerBound)...UInt64(intervals.upperBound)))
            guard time < last.time else { break }
            untilReading -= 1
            if untilReading == 0 {
                held = PredictionEvaluation.position(in: track, at: time) ?? held
                untilReading = random.next(in: readEvery)
            }
            samples.append(TrackSample(time: time, millimeters: held))
        }
        samples.append(last)
        return samples
    }
}

/// SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number generators", 2014): a
/// seeded generator whose sequence is the same on every platform and Swift version, unlike the
/// standard library's.
struct SplitMix64 {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A value in `range` (the modulo bias is below 2⁻⁵⁰ for the small ranges used here).
    mutating func next(in range: ClosedRange<UInt64>) -> UInt64 {
        range.lowerBound + next() % (range.upperBound - range.lowerBound + 1)
    }
}
