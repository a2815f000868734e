/// Appends JSON text to a byte buffer. The pipeline's one encoder: deterministic (the same values give
/// the same bytes, so replays are byte-identical), allocation-light, and it never writes a non-finite
/// number (it writes `null` and counts it, so checks can flag it).
public struct JSONWriter {
    /// The text written so far.
    public var bytes: [UInt8] { Array(storage[..<count]) }
    /// Bytes written so far.
    public private(set) var count = 0
    /// Non-finite numbers replaced by `null` so far (always 0 when the pipeline keeps its invariants).
    public private(set) var nonFiniteCount = 0
    private var needsComma = false
    /// The text in `storage[..<count]`; the rest is room to write into through a pointer. One
    /// bounds-and-uniqueness check per value instead of Array.append's per byte (those were half of
    /// the encoder's instructions).
    private var storage: [UInt8]

    public init(capacity: Int = 256) {
        storage = Array(repeating: 0, count: max(64, capacity))
    }

    /// Writes at most `maximumCount` bytes at the end through `body`, which returns how many it wrote.
    @inline(__always)
    private mutating func append(reserving maximumCount: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Int) {
        if storage.count - count < maximumCount { grow(maximumCount) }
        let start = count
        count = start + storage.withUnsafeMutableBufferPointer { body($0.baseAddress! + start) }
    }

    private mutating func grow(_ needed: Int) {
        storage.append(contentsOf: repeatElement(0, count: max(storage.count, needed)))
    }

    @inline(__always)
    private mutating func append(_ byte: UInt8) {
        append(reserving: 1) {
            $0.pointee = byte
            return 1
        }
    }

    /// A comma when one is due, then `text` verbatim.
    @inline(__always)
    private mutating func appendSeparated(_ text: StaticString, quoted: Bool, colon: Bool = false) {
        let comma = needsComma
        let length = text.utf8CodeUnitCount
        append(reserving: length + 4) { p in
            var i = 0
            if comma {
                p[0] = UInt8(ascii: ",")
                i = 1
            }
            if quoted {
                p[i] = UInt8(ascii: "\"")
                i += 1
            }
            p.advanced(by: i).update(from: text.utf8Start, count: length)
            i += length
            if quoted {
                p[i] = UInt8(ascii: "\"")
                i += 1
            }
            if colon {
                p[i] = UInt8(ascii: ":")
                i += 1
            }
            return i
        }
    }

    public mutating func beginObject() {
        appendSeparated("{", quoted: false)
        needsComma = false
    }

    public mutating func endObject() {
        append(UInt8(ascii: "}"))
        needsComma = true
    }

    public mutating func beginArray() {
        appendSeparated("[", quoted: false)
        needsComma = false
    }

    public mutating func endArray() {
        append(UInt8(ascii: "]"))
        needsComma = true
    }

    /// Writes `"name":` inside an object.
    public mutating func key(_ name: StaticString) {
        appendSeparated(name, quoted: true, colon: true)
        needsComma = false
    }

    /// Writes a key that is not known at compile time (escaped).
    public mutating func key(string name: String) {
        string(name)
        append(UInt8(ascii: ":"))
        needsComma = false
    }

    public mutating func string(_ value: String) {
        separate()
        append(UInt8(ascii: "\""))
        for unit in value.utf8 {
            switch unit {
            case UInt8(ascii: "\""): appendEscaped(UInt8(ascii: "\""))
            case UInt8(ascii: "\\"): appendEscaped(UInt8(ascii: "\\"))
            case UInt8(ascii: "\n"): appendEscaped(UInt8(ascii: "n"))
            case UInt8(ascii: "\r"): appendEscaped(UInt8(ascii: "r"))
            case UInt8(ascii: "\t"): appendEscaped(UInt8(ascii: "t"))
            case 0..<0x20:
                append(reserving: 6) { p in
                    let hex: StaticString = "0123456789abcdef"
                    p[0] = UInt8(ascii: "\\")
                    p[1] = UInt8(ascii: "u")
                    p[2] = UInt8(ascii: "0")
                    p[3] = UInt8(ascii: "0")
                    p[4] = hex.utf8Start[Int(unit >> 4)]
                    p[5] = hex.utf8Start[Int(unit & 0xf)]
                    return 6
                }
            default: append(unit)
            }
        }
        append(UInt8(ascii: "\""))
        needsComma = true
    }

    private mutating func appendEscaped(_ letter: UInt8) {
        append(reserving: 2) { p in
            p[0] = UInt8(ascii: "\\")
            p[1] = letter
            return 2
        }
    }

    /// A static ASCII string that needs no escaping (enum raw values, phase names).
    public mutating func rawString(_ value: StaticString) {
        appendSeparated(value, quoted: true)
        needsComma = true
    }

    public mutating func int<T: BinaryInteger>(_ value: T) {
        separate()
        appendDigits(value)
        needsComma = true
    }

    public mutating func bool(_ value: Bool) {
        appendSeparated(value ? "true" : "false", quoted: false)
        needsComma = true
    }

    public mutating func null() {
        appendSeparated("null", quoted: false)
        needsComma = true
    }

    /// A number in Swift's shortest round-trip form (`description`'s text, written by `ShortestDouble`
    /// without a String; valid JSON for every finite value). Integral values
    /// of moderate size are written without a fraction ("2", not "2.0") to keep lines short.
    public mutating func double(_ value: Double) {
        guard value.isFinite else {
            nonFiniteCount += 1
            null()
            return
        }
        separate()
        if abs(value) < 1e15, Double(Int64(value)) == value {  // integral (cheaper than rounded())
            appendDigits(Int64(value))
            // -0 prints as 0 here: JSON readers have no use for a negative zero.
        } else {
            append(reserving: ShortestDouble.maximumLength) { ShortestDouble.write(value, into: $0) }
        }
        needsComma = true
    }

    /// A number rounded to `decimals` (docs/PROTOCOL.md "Number precision" gives each field's), with
    /// trailing zeros dropped ("12.5", "3", "-0.000125"). Integer arithmetic straight into the buffer:
    /// a fraction of the shortest printer's cost, and shorter lines. A value too large for the fixed
    /// form (|value| * 10^decimals >= 1e15, never a position or a matrix) is written in the shortest
    /// exact form, so nothing is ever written less exactly than the field's precision; non-finite
    /// values are written as `null` and counted, as by `double(_:)`.
    @inline(__always)
    public mutating func double(_ value: Double, _ decimals: FixedDecimals) {
        separate()
        var nonFinite = false
        append(reserving: JSONCursor.maximumNumberLength) {
            let length = JSONCursor.writeFixed(value, decimals, into: $0)
            nonFinite = length < 0
            return abs(length)
        }
        if nonFinite { nonFiniteCount += 1 }
        needsComma = true
    }

    /// Reserves `maximumCount` bytes once and lets `body` write several members or values into them
    /// through a `JSONCursor` (a comma first when one is due): one bounds-and-uniqueness check for a
    /// whole touch instead of one per key and value. `body` must stay within `maximumCount`.
    /// `thenComma`: whether a value written after it needs a comma first (false when `body` ends by
    /// opening an array or object).
    @inline(__always)
    mutating func withCursor(reserving maximumCount: Int, thenComma: Bool = true, _ body: (inout JSONCursor) -> Void) {
        let comma = needsComma
        var nonFinite = 0
        append(reserving: maximumCount + 1) { p in
            var cursor = JSONCursor(p)
            if comma { cursor.byte(UInt8(ascii: ",")) }
            body(&cursor)
            nonFinite = cursor.nonFiniteCount
            return cursor.count
        }
        nonFiniteCount += nonFinite
        needsComma = thenComma
    }

    /// A kernel timestamp as seconds with exactly six decimals (exact, no float rounding).
    public mutating func time(_ t: Timestamp) {
        separate()
        let micro = t.microseconds
        if micro < 0 { append(UInt8(ascii: "-")) }
        let magnitude = micro.magnitude
        appendMagnitude(magnitude / 1_000_000)
        let fraction = magnitude % 1_000_000
        append(reserving: 7) { p in
            p[0] = UInt8(ascii: ".")
            ShortestDouble.writeDigits(fraction, count: 6, endingAt: p + 7)  // leading zeros included
            return 7
        }
        needsComma = true
    }

    /// `"name":value` when `value` is present; nothing when it is nil (optional touch fields, an
    /// optional device or time).
    public mutating func optionalField(_ name: StaticString, _ value: Double?) {
        guard let value else { return }
        key(name)
        double(value)
    }

    public mutating func optionalField(_ name: StaticString, _ value: Int?) {
        guard let value else { return }
        key(name)
        int(value)
    }

    public mutating func optionalField(_ name: StaticString, _ value: Timestamp?) {
        guard let value else { return }
        key(name)
        time(value)
    }

    /// `"key":value` to `decimals` when `value` is present; nothing when it is nil.
    public mutating func optionalField(_ key: FieldKey, _ value: Double?, _ decimals: FixedDecimals) {
        guard let value else { return }
        self.key(key)
        double(value, decimals)
    }

    /// `[x, y]`, each to `decimals`.
    public mutating func point(_ x: Double, _ y: Double, _ decimals: FixedDecimals) {
        beginArray()
        double(x, decimals)
        double(y, decimals)
        endArray()
    }

    public mutating func point(_ x: Double, _ y: Double) {
        beginArray()
        double(x)
        double(y)
        endArray()
    }

    /// Appends pre-encoded JSON (must be one complete value).
    public mutating func raw(_ json: [UInt8]) {
        separate()
        append(reserving: json.count) { p in
            json.withUnsafeBufferPointer { p.update(from: $0.baseAddress!, count: $0.count) }
            return json.count
        }
        needsComma = true
    }

    public mutating func newline() {
        append(UInt8(ascii: "\n"))
        needsComma = false
    }

    /// Calls `body` with the text written so far, without copying it.
    public func withBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try storage.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
    }

    /// Forgets the text written so far but keeps the storage and `nonFiniteCount`, so a consumer can
    /// take the output batch by batch in bounded memory.
    public mutating func removeAll() {
        count = 0
        needsComma = false
    }

    private mutating func separate() {
        if needsComma { append(UInt8(ascii: ",")) }
    }

    private mutating func appendDigits<T: BinaryInteger>(_ value: T) {
        // Through the magnitude: negating `Int64.min` would trap.
        if value < 0 {
            append(UInt8(ascii: "-"))
            appendMagnitude(UInt64(truncatingIfNeeded: Int64(truncatingIfNeeded: value).magnitude))
        } else {
            appendMagnitude(UInt64(truncatingIfNeeded: value))
        }
    }

    private mutating func appendMagnitude(_ value: UInt64) {
        let length = ShortestDouble.digitCount(value)
        append(reserving: length) { p in
            ShortestDouble.writeDigits(value, count: length, endingAt: p + length)
            return length
        }
    }
}

/// Writes members and values into room a `JSONWriter` reserved (`withCursor`): the hot objects'
/// keys and numbers without a bounds or uniqueness check each. The caller writes the punctuation it
/// knows statically (`key(_:first:)` writes the comma before every member but the first).
///
/// Hot writers copy the cursor into a local variable (`var c = cursor`) and write through that: a
/// local whose address never escapes lives in registers, so the compiler merges a key's constant
/// bytes into a few wide stores. Written through an `inout` parameter instead, every byte stored
/// into the buffer might alias `count`, which then went back to memory after each byte (about four
/// instructions a byte, a third of a touch's cost). For the same reason the arithmetic here wraps
/// (`&+`): the room was reserved, and an overflow check per byte keeps stores from merging.
struct JSONCursor {
    /// The longest number `writeFixed` writes: the shortest form's 32 bytes, or "null".
    static let maximumNumberLength = ShortestDouble.maximumLength
    private let start: UnsafeMutablePointer<UInt8>
    private(set) var count = 0
    private(set) var nonFiniteCount = 0

    init(_ start: UnsafeMutablePointer<UInt8>) { self.start = start }

    @inline(__always)
    mutating func byte(_ byte: UInt8) {
        start[count] = byte
        count &+= 1
    }

    /// Short static text, copied byte by byte (cheaper than a memcpy call for a key's few bytes).
    @inline(__always)
    mutating func text(_ text: StaticString) {
        let source = text.utf8Start
        let p = start + count
        for i in 0..<text.utf8CodeUnitCount { p[i] = source[i] }
        count &+= text.utf8CodeUnitCount
    }

    /// `,"key":`, or `"key":` for an object's first member.
    @inline(__always)
    mutating func key(_ key: FieldKey, first: Bool = false) {
        if !first { byte(UInt8(ascii: ",")) }
        byte(UInt8(ascii: "\""))
        text(key.text)
        byte(UInt8(ascii: "\""))
        byte(UInt8(ascii: ":"))
    }

    /// A static string value that needs no escaping.
    @inline(__always)
    mutating func rawString(_ value: StaticString) {
        byte(UInt8(ascii: "\""))
        text(value)
        byte(UInt8(ascii: "\""))
    }

    @inline(__always)
    mutating func int<T: BinaryInteger>(_ value: T) {
        if value < 0 { byte(UInt8(ascii: "-")) }
        let magnitude = UInt64(value.magnitude)
        if magnitude < 1000 {  // ids, slots, tap counts, finger counts: no digit count, no loop
            count &+= Self.writeSmall(UInt32(truncatingIfNeeded: magnitude), into: start + count)
            return
        }
        let digits = Self.digitCount(magnitude)
        count &+= digits
        ShortestDouble.writeDigits(magnitude, count: digits, endingAt: start + count)
    }

    @inline(__always)
    mutating func double(_ value: Double, _ decimals: FixedDecimals) {
        switch decimals {
        case .three: double3(value)
        case .six: double6(value)
        }
    }

    /// `value` to three decimals (`writeFixed`'s text).
    @inline(__always)
    mutating func double3(_ value: Double) {
        let length = Self.writeThree(value, into: start + count)
        if length < 0 {
            count &+= -length
            nonFiniteCount &+= 1
        } else {
            count &+= length
        }
    }

    /// `value` to six decimals (`writeFixed`'s text).
    @inline(__always)
    mutating func double6(_ value: Double) {
        let length = Self.writeSix(value, into: start + count)
        if length < 0 {
            count &+= -length
            nonFiniteCount &+= 1
        } else {
            count &+= length
        }
    }

    /// A kernel timestamp as `JSONWriter.time(_:)` writes it: seconds with exactly six decimals.
    @inline(__always)
    mutating func time(_ t: Timestamp) {
        let micro = t.microseconds
        if micro < 0 { byte(UInt8(ascii: "-")) }
        let magnitude = micro.magnitude
        let seconds = magnitude / 1_000_000
        int(seconds)
        byte(UInt8(ascii: "."))
        count &+= 6
        ShortestDouble.writeDigits(magnitude &- seconds &* 1_000_000, count: 6, endingAt: start + count)
    }

    /// `[x, y]`, each to `decimals`.
    @inline(__always)
    mutating func point(_ x: Double, _ y: Double, _ decimals: FixedDecimals) {
        byte(UInt8(ascii: "["))
        double(x, decimals)
        byte(UInt8(ascii: ","))
        double(y, decimals)
        byte(UInt8(ascii: "]"))
    }

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
    private static var digitPairs: UnsafePointer<UInt8> {
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
        ShortestDouble.writeDigits(UInt64(whole), count: digits, endingAt: p + digits)
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
            return ShortestDouble.write(value, into: p)
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
        ShortestDouble.writeDigits(whole, count: wholeDigits, endingAt: p + i)
        if fraction != 0 {
            p[i] = UInt8(ascii: ".")
            i += 1 + digits
            ShortestDouble.writeDigits(fraction, count: digits, endingAt: p + i)  // leading zeros included
            // Trailing zeros dropped by looking at the bytes (a nonzero digit ends the loop), cheaper
            // than dividing by ten for each.
            while p[i - 1] == UInt8(ascii: "0") { i -= 1 }
        }
        return i
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
