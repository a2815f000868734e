/// A point in time taken from kernel event timestamps (CLOCK_MONOTONIC live, whatever the recording
/// holds in a replay), in whole microseconds. The pure pipeline never reads a clock: every time it
/// knows arrives in one of these.
public struct Timestamp: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Microseconds since the source's epoch (boot for live devices).
    public var microseconds: Int64

    public init(microseconds: Int64) { self.microseconds = microseconds }

    public init(seconds: Int64, microseconds: Int64) {
        self.microseconds = seconds &* 1_000_000 &+ microseconds
    }

    /// Seconds as a floating-point number, for velocities and for display.
    public var seconds: Double { Double(microseconds) / 1_000_000 }

    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool { lhs.microseconds < rhs.microseconds }

    /// The time `milliseconds` after this one.
    public func adding(milliseconds: Double) -> Timestamp {
        Timestamp(microseconds: microseconds &+ Int64((milliseconds * 1000).rounded()))
    }

    /// Milliseconds from `earlier` to this time (negative when `earlier` is later).
    public func milliseconds(since earlier: Timestamp) -> Double {
        Double(microseconds &- earlier.microseconds) / 1000
    }

    /// `sec.usec` with six digits, the form evemu and the wire protocol print.
    public var description: String {
        let sign = microseconds < 0 ? "-" : ""
        let magnitude = microseconds.magnitude
        let whole = magnitude / 1_000_000
        let fraction = magnitude % 1_000_000
        let digits = String(fraction)
        return sign + String(whole) + "." + String(repeating: "0", count: 6 - digits.count) + digits
    }
}
