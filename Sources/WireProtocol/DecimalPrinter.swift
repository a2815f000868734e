/// Decimal text of numbers, written straight into room a writer reserved: integers (`digitCount`,
/// `writeDigits`, `writeSmall`) and doubles to a field's fixed precision (`writeThree`, `writeSix`,
/// and `writeGeneral`, the general form the fast paths match), as docs/PROTOCOL.md "Number
/// precision" gives them. Printing only: the growing buffer is `JSONBuffer`'s job and the writing
/// into reserved room `JSONCursor`'s. A double without a fixed precision (the cold fields: stats,
/// device sizes, region rectangles) is written as Swift's `description` spells it, the shortest text
/// that reads back as the same double (`writeDescription`).
enum DecimalPrinter {
    /// The longest number written: a double's `description` (at most 24 bytes,
    /// "-2.2250738585072014e-308"), or "null".
    static let maximumNumberLength = 32

    /// Decimal digits of `value`, counted by comparison (the values here are small: no table, so no
    /// lazy global to check on every call).
    @inline(__always)
    static func digitCount(_ value: UInt64) -> Int {
        var digits = 1
        var rest = value
        while rest >= 10_000 {
            rest /= 10_000
            digits += 4
        }
        if rest >= 10 { digits += 1 }
        if rest >= 100 { digits += 1 }
        if rest >= 1000 { digits += 1 }
        return digits
    }

    /// Two ASCII digits per entry, "00" to "99" (a literal, so no lazy global to check).
    @inline(__always)
    static var digitPairs: UnsafePointer<UInt8> {
        let pairs: StaticString = """
            00010203040506070809101112131415161718192021222324252627282930313233343536373839\
            40414243444546474849505152535455565758596061626364656667686970717273747576777879\
            8081828384858687888990919293949596979899
            """
        return pairs.utf8Start
    }

    /// Writes `value` < 1000 without leading zeros; returns the length.
    @inline(__always)
    static func writeSmall(_ value: UInt32, into p: UnsafeMutablePointer<UInt8>) -> Int {
        if value < 10 {
            p[0] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value)
            return 1
        }
        let pairs = digitPairs
        if value < 100 {
            let i = Int(value) &* 2
            p[0] = pairs[i]
            p[1] = pairs[i &+ 1]
            return 2
        }
        writeThreeDigits(value, into: p)
        return 3
    }

    /// Writes `value` < 1000 as exactly three digits (leading zeros included).
    @inline(__always)
    private static func writeThreeDigits(_ value: UInt32, into p: UnsafeMutablePointer<UInt8>) {
        let hundreds = value / 100
        let i = Int(value &- hundreds &* 100) &* 2
        let pairs = digitPairs
        p[0] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: hundreds)
        p[1] = pairs[i]
        p[2] = pairs[i &+ 1]
    }

    /// Writes `fraction` (1...999, thousandths) as "." and its digits without trailing zeros;
    /// returns the length.
    @inline(__always)
    private static func writeThousandths(_ fraction: UInt32, into p: UnsafeMutablePointer<UInt8>) -> Int {
        p[0] = UInt8(ascii: ".")
        writeThreeDigits(fraction, into: p + 1)
        return 1 &+ significantDigits(fraction)
    }

    /// The integral part of a fixed number (below 10^6 on the fast path).
    @inline(__always)
    private static func writeWhole(_ whole: UInt32, into p: UnsafeMutablePointer<UInt8>) -> Int {
        if whole < 1000 { return writeSmall(whole, into: p) }
        let digits = digitCount(UInt64(whole))
        writeDigits(UInt64(whole), count: digits, endingAt: p + digits)
        return digits
    }

    /// `value` to three decimals into `p`; returns the length, negated when `value` is not finite
    /// (then "null" is written). The usual magnitudes (|value| < 10^6) take a 32-bit path with no
    /// digit count and no loop; the rest go to `writeFixed`.
    @inline(never)
    static func writeThree(_ value: Double, into p: UnsafeMutablePointer<UInt8>) -> Int {
        let scaled = value * 1e3
        guard abs(scaled) < 1e9 else { return writeFixedChecked(value, .three, into: p) }
        // To nearest, ties away from zero, as `writeFixed`.
        let units = Int64(scaled < 0 ? scaled - 0.5 : scaled + 0.5)
        var i = 0
        if units < 0 {
            p[0] = UInt8(ascii: "-")
            i = 1
        }
        let magnitude = UInt32(truncatingIfNeeded: units.magnitude)
        let whole = magnitude / 1000
        let fraction = magnitude &- whole &* 1000
        i &+= writeWhole(whole, into: p + i)
        if fraction != 0 { i &+= writeThousandths(fraction, into: p + i) }
        return i
    }

    /// `value` to six decimals into `p`, as `writeThree` (fast path for |value| < 1000).
    @inline(never)
    static func writeSix(_ value: Double, into p: UnsafeMutablePointer<UInt8>) -> Int {
        let scaled = value * 1e6
        guard abs(scaled) < 1e9 else { return writeFixedChecked(value, .six, into: p) }
        let units = Int64(scaled < 0 ? scaled - 0.5 : scaled + 0.5)
        var i = 0
        if units < 0 {
            p[0] = UInt8(ascii: "-")
            i = 1
        }
        let magnitude = UInt32(truncatingIfNeeded: units.magnitude)
        let whole = magnitude / 1_000_000
        let fraction = magnitude &- whole &* 1_000_000
        i &+= writeWhole(whole, into: p + i)
        guard fraction != 0 else { return i }
        let high = fraction / 1000
        let low = fraction &- high &* 1000
        if low == 0 { return i &+ writeThousandths(high, into: p + i) }
        p[i] = UInt8(ascii: ".")
        writeThreeDigits(high, into: p + i + 1)
        writeThreeDigits(low, into: p + i + 4)
        return i &+ 4 &+ significantDigits(low)
    }

    /// Digits of `fraction` (1...999, written as three) up to its last nonzero one.
    @inline(__always)
    private static func significantDigits(_ fraction: UInt32) -> Int {
        let tens = fraction / 10
        if fraction &- tens &* 10 != 0 { return 3 }
        return tens % 10 != 0 ? 2 : 1
    }

    /// `writeGeneral` with its non-finite flag folded into the sign of the length.
    private static func writeFixedChecked(
        _ value: Double, _ decimals: FixedDecimals, into p: UnsafeMutablePointer<UInt8>
    )
        -> Int
    {
        var nonFinite = false
        let length = writeGeneral(value, decimals, into: p, &nonFinite)
        return nonFinite ? -length : length
    }

    /// Writes `value` rounded to `decimals` without trailing zeros and returns the length (at most
    /// `maximumNumberLength`), negated when `value` is not finite and "null" was written; see
    /// `JSONWriter.double(_:_:)`.
    @inline(__always)
    static func writeFixed(_ value: Double, _ decimals: FixedDecimals, into p: UnsafeMutablePointer<UInt8>) -> Int {
        switch decimals {
        case .three: return writeThree(value, into: p)
        case .six: return writeSix(value, into: p)
        }
    }

    /// The general form of `writeFixed` for any magnitude (the fast paths handle below 10^9 units);
    /// also the reference the tests compare the fast paths with.
    static func writeGeneral(
        _ value: Double, _ decimals: FixedDecimals, into p: UnsafeMutablePointer<UInt8>, _ nonFinite: inout Bool
    ) -> Int {
        // A switch over constants, so that each case divides by a literal (a multiply, not a division).
        switch decimals {
        case .three: return writeFixed(value, scale: 1e3, divisor: 1_000, digits: 3, into: p, &nonFinite)
        case .six: return writeFixed(value, scale: 1e6, divisor: 1_000_000, digits: 6, into: p, &nonFinite)
        }
    }

    @inline(__always)
    private static func writeFixed(
        _ value: Double, scale: Double, divisor: UInt64, digits: Int, into p: UnsafeMutablePointer<UInt8>,
        _ nonFinite: inout Bool
    ) -> Int {
        let scaled = value * scale
        guard abs(scaled) < 1e15 else {  // huge or non-finite (NaN fails every comparison)
            guard value.isFinite else {
                nonFinite = true
                let null: StaticString = "null"
                p.update(from: null.utf8Start, count: 4)
                return 4
            }
            // As `JSONWriter.double(_:)` writes it: integral values below 10^15 without a fraction.
            if abs(value) < 1e15, Double(Int64(value)) == value {
                var cursor = JSONCursor(p)
                cursor.int(Int64(value))
                return cursor.count
            }
            return writeDescription(value, into: p)
        }
        // To nearest, ties away from zero: truncating x + 0.5 (x - 0.5 below zero) inlines, unlike
        // rounded()'s call into libm.
        let units = Int64(scaled < 0 ? scaled - 0.5 : scaled + 0.5)
        let magnitude = units.magnitude
        let whole = magnitude / divisor
        let fraction = magnitude &- whole &* divisor
        // -0.0004 rounds to 0 units and prints as 0: JSON readers have no use for a negative zero.
        var i = 0
        if units < 0 {
            p[0] = UInt8(ascii: "-")
            i = 1
        }
        let wholeDigits = digitCount(whole)
        i += wholeDigits
        writeDigits(whole, count: wholeDigits, endingAt: p + i)
        if fraction != 0 {
            p[i] = UInt8(ascii: ".")
            i += 1 + digits
            writeDigits(fraction, count: digits, endingAt: p + i)  // leading zeros included
            // Trailing zeros dropped by looking at the bytes (a nonzero digit ends the loop), cheaper
            // than dividing by ten for each.
            while p[i - 1] == UInt8(ascii: "0") { i -= 1 }
        }
        return i
    }

    /// Writes the last `count` decimal digits of `value` (leading zeros included) so that the last
    /// lands just before `end`: two digits per step from a 200-byte table, eight-digit blocks in
    /// 32-bit arithmetic.
    @inline(__always)
    static func writeDigits(_ value: UInt64, count: Int, endingAt end: UnsafeMutablePointer<UInt8>) {
        let table = digitPairs
        var p = end
        var left = count
        var rest = value
        while left > 8 {
            var block = UInt32(truncatingIfNeeded: rest % 100_000_000)
            rest /= 100_000_000
            for _ in 0..<4 {
                let pair = Int(block % 100)
                block /= 100
                p -= 2
                p[0] = table[2 * pair]
                p[1] = table[2 * pair + 1]
            }
            left -= 8
        }
        var small = UInt32(truncatingIfNeeded: rest)
        while left >= 2 {
            let pair = Int(small % 100)
            small /= 100
            p -= 2
            p[0] = table[2 * pair]
            p[1] = table[2 * pair + 1]
            left -= 2
        }
        if left == 1 { (p - 1).pointee = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: small) }
    }

    /// `value.description` (the shortest round-trip text) into `p`, which has room for
    /// `maximumNumberLength` bytes; returns its length.
    static func writeDescription(_ value: Double, into p: UnsafeMutablePointer<UInt8>) -> Int {
        var text = value.description
        return text.withUTF8 { utf8 in
            assert(utf8.count <= maximumNumberLength, "a double's description is at most 24 bytes")
            let n = min(utf8.count, maximumNumberLength)
            if let base = utf8.baseAddress { p.update(from: base, count: n) }
            return n
        }
    }
}

/// How many decimals a fixed-precision field is written with (docs/PROTOCOL.md "Number precision").
/// Far below any sensor's resolution, so rounding loses nothing a device measured.
public enum FixedDecimals: Sendable {
    /// 0.001: positions, sizes and distances in millimetres (1 um) or pixels, their velocities.
    case three
    /// 0.000001: normalized positions (0...1), force, angles in radians, scales and the linear part
    /// of matrices, their velocities.
    case six
}
