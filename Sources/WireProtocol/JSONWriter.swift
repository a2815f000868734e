/// Appends JSON text to a byte buffer. The pipeline's one encoder: deterministic (the same values give
/// the same bytes, so replays are byte-identical), allocation-light, and it never writes a non-finite
/// number (it writes `null` and counts it, so checks can flag it). Its job is JSON's grammar (commas,
/// keys, strings, values); the bytes live in a `JSONBuffer`, the hot objects are written through a
/// `JSONCursor`, and the numbers' text comes from `DecimalPrinter`.
public struct JSONWriter {
    /// The text written so far.
    public var bytes: [UInt8] { buffer.bytes }
    /// Bytes written so far.
    public var count: Int { buffer.count }
    /// Non-finite numbers replaced by `null` so far (always 0 when the pipeline keeps its invariants).
    public private(set) var nonFiniteCount = 0
    private var needsComma = false
    private var buffer: JSONBuffer

    public init(capacity: Int = 256) {
        buffer = JSONBuffer(capacity: capacity)
    }

    /// Writes at most `maximumCount` bytes at the end through `body`, which returns how many it wrote.
    @inline(__always)
    private mutating func append(reserving maximumCount: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Int) {
        buffer.append(reserving: maximumCount, body)
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

    /// A number in Swift's shortest round-trip form (`description`'s text, one String per call: the
    /// cold fields only; valid JSON for every finite value). Integral values of moderate size are
    /// written without a fraction ("2", not "2.0") to keep lines short.
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
            append(reserving: DecimalPrinter.maximumNumberLength) { DecimalPrinter.writeDescription(value, into: $0) }
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
        append(reserving: DecimalPrinter.maximumNumberLength) {
            let length = DecimalPrinter.writeFixed(value, decimals, into: $0)
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
            DecimalPrinter.writeDigits(fraction, count: 6, endingAt: p + 7)  // leading zeros included
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
        try buffer.withBytes(body)
    }

    /// Forgets the text written so far but keeps the storage and `nonFiniteCount`, so a consumer can
    /// take the output batch by batch in bounded memory.
    public mutating func removeAll() {
        buffer.removeAll()
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
        let length = DecimalPrinter.digitCount(value)
        append(reserving: length) { p in
            DecimalPrinter.writeDigits(value, count: length, endingAt: p + length)
            return length
        }
    }
}
