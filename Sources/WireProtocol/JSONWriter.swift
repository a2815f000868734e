import MultitouchCore

/// Appends JSON text to a byte buffer. The pipeline's one encoder: deterministic (the same values give
/// the same bytes, so replays are byte-identical), allocation-light, and it never writes a non-finite
/// number (it writes `null` and counts it, so checks can flag it).
public struct JSONWriter {
    public private(set) var bytes: [UInt8]
    /// Non-finite numbers replaced by `null` so far (always 0 when the pipeline keeps its invariants).
    public private(set) var nonFiniteCount = 0
    private var needsComma = false

    public init(capacity: Int = 256) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    public mutating func beginObject() {
        separate()
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
    }

    public mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    public mutating func beginArray() {
        separate()
        bytes.append(UInt8(ascii: "["))
        needsComma = false
    }

    public mutating func endArray() {
        bytes.append(UInt8(ascii: "]"))
        needsComma = true
    }

    /// Writes `"name":` inside an object.
    public mutating func key(_ name: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    /// Writes a key that is not known at compile time (escaped).
    public mutating func key(string name: String) {
        string(name)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    public mutating func string(_ value: String) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        for unit in value.utf8 {
            switch unit {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case UInt8(ascii: "\n"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case UInt8(ascii: "\r"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case UInt8(ascii: "\t"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0..<0x20:
                let hex: [UInt8] = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: [
                    UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                    hex[Int(unit >> 4)], hex[Int(unit & 0xf)],
                ])
            default: bytes.append(unit)
            }
        }
        bytes.append(UInt8(ascii: "\""))
        needsComma = true
    }

    /// A static ASCII string that needs no escaping (enum raw values, phase names).
    public mutating func rawString(_ value: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        value.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        needsComma = true
    }

    public mutating func int<T: BinaryInteger>(_ value: T) {
        separate()
        appendDigits(value)
        needsComma = true
    }

    public mutating func bool(_ value: Bool) {
        separate()
        bytes.append(contentsOf: value ? Array("true".utf8) : Array("false".utf8))
        needsComma = true
    }

    public mutating func null() {
        separate()
        bytes.append(contentsOf: [UInt8(ascii: "n"), UInt8(ascii: "u"), UInt8(ascii: "l"), UInt8(ascii: "l")])
        needsComma = true
    }

    /// A number in Swift's shortest round-trip form (valid JSON for every finite value). Integral values
    /// of moderate size are written without a fraction ("2", not "2.0") to keep lines short.
    public mutating func double(_ value: Double) {
        guard value.isFinite else {
            nonFiniteCount += 1
            null()
            return
        }
        separate()
        if value == value.rounded(), abs(value) < 1e15 {
            appendDigits(Int64(value))
            if value == 0 && value.sign == .minus { /* -0 prints as 0: JSON has no negative zero need */ }
        } else {
            bytes.append(contentsOf: value.description.utf8)
        }
        needsComma = true
    }

    /// A kernel timestamp as seconds with exactly six decimals (exact, no float rounding).
    public mutating func time(_ t: Timestamp) {
        separate()
        let micro = t.microseconds
        if micro < 0 { bytes.append(UInt8(ascii: "-")) }
        let magnitude = micro.magnitude
        appendDigits(magnitude / 1_000_000)
        bytes.append(UInt8(ascii: "."))
        var fraction = magnitude % 1_000_000
        var digits = [UInt8](repeating: UInt8(ascii: "0"), count: 6)
        var index = 5
        while fraction > 0 && index >= 0 {
            digits[index] = UInt8(ascii: "0") + UInt8(fraction % 10)
            fraction /= 10
            index -= 1
        }
        bytes.append(contentsOf: digits)
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

    public mutating func point(_ x: Double, _ y: Double) {
        beginArray()
        double(x)
        double(y)
        endArray()
    }

    /// Appends pre-encoded JSON (must be one complete value).
    public mutating func raw(_ json: [UInt8]) {
        separate()
        bytes.append(contentsOf: json)
        needsComma = true
    }

    public mutating func newline() {
        bytes.append(UInt8(ascii: "\n"))
        needsComma = false
    }

    private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
    }

    private mutating func appendDigits<T: BinaryInteger>(_ value: T) {
        if value < 0 {
            bytes.append(UInt8(ascii: "-"))
            appendMagnitude(UInt64(truncatingIfNeeded: (0 - Int64(value)).magnitude))
        } else {
            appendMagnitude(UInt64(value))
        }
    }

    private mutating func appendMagnitude(_ value: UInt64) {
        if value < 10 {
            bytes.append(UInt8(ascii: "0") + UInt8(value))
            return
        }
        var v = value
        var tmp: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                  UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        withUnsafeMutableBytes(of: &tmp) { buffer in
            while v > 0 {
                buffer[count] = UInt8(ascii: "0") + UInt8(v % 10)
                v /= 10
                count += 1
            }
            for i in stride(from: count - 1, through: 0, by: -1) { bytes.append(buffer[i]) }
        }
    }
}
