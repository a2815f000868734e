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
    /// Saturating: a delay past what Int64 microseconds hold (or NaN, read as 0) ends at the far end of
    /// the clock instead of trapping, since delays come from configurations and requests (issue 28).
    public func adding(milliseconds: Double) -> Timestamp {
        let delta = Timestamp.clampedMicroseconds(milliseconds * 1000)
        let (sum, overflow) = microseconds.addingReportingOverflow(delta)
        guard !overflow else { return Timestamp(microseconds: delta < 0 ? .min : .max) }
        return Timestamp(microseconds: sum)
    }

    /// `value` rounded to whole microseconds and clamped to Int64's range (NaN is 0): the one
    /// conversion of a floating-point time that cannot trap.
    public static func clampedMicroseconds(_ value: Double) -> Int64 {
        guard !value.isNaN else { return 0 }
        let rounded = value.rounded()
        // 2^63 is exactly representable; every double below it converts.
        if rounded >= 9_223_372_036_854_775_808.0 { return .max }
        if rounded < -9_223_372_036_854_775_808.0 { return .min }
        return Int64(rounded)
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
