/// Latency from a device read to the last socket write of the messages it produced, in log2 microsecond
/// buckets: bucket k counts latencies in [2^(k-1), 2^k) µs (bucket 0: under 1 µs). Fixed size, no
/// allocation on the hot path.
public struct LatencyHistogram: Hashable, Sendable {
    public static let bucketCount = 32
    public private(set) var buckets = [UInt64](repeating: 0, count: LatencyHistogram.bucketCount)
    public private(set) var count: UInt64 = 0
    public private(set) var maximumNanoseconds: UInt64 = 0

    public init() {}

    public mutating func record(nanoseconds: UInt64) {
        let micros = nanoseconds / 1000
        let bucket = micros == 0 ? 0 : Swift.min(LatencyHistogram.bucketCount - 1, 64 - micros.leadingZeroBitCount)
        buckets[bucket] &+= 1
        count &+= 1
        maximumNanoseconds = Swift.max(maximumNanoseconds, nanoseconds)
    }

    /// Upper bound in µs of bucket `k` (exclusive): 2^k.
    public static func upperBoundMicroseconds(_ bucket: Int) -> UInt64 { UInt64(1) << UInt64(bucket) }
}

/// The most recent latency samples (ns), for exact percentiles in `stats` next to the coarse histogram.
public struct LatencySamples: Sendable {
    public static let capacity = 16_384
    private var samples = [UInt32](repeating: 0, count: LatencySamples.capacity)
    private var next = 0
    public private(set) var count = 0

    public init() {}

    public mutating func record(nanoseconds: UInt64) {
        samples[next] = UInt32(clamping: nanoseconds)
        next = (next + 1) % LatencySamples.capacity
        count = Swift.min(count + 1, LatencySamples.capacity)
    }

    /// Nearest-rank percentiles in µs (with 0.1 µs precision) over the kept samples.
    public func percentilesMicroseconds(_ qs: [Double]) -> [Double]? {
        guard count > 0 else { return nil }
        let sorted = samples[0..<count].sorted()
        return qs.map { q in
            let rank = Swift.min(count - 1, Swift.max(0, Int((Double(count) * q).rounded(.up)) - 1))
            return (Double(sorted[rank]) / 100).rounded() / 10
        }
    }
}
