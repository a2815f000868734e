/// Builds SVG text as UTF-8 bytes with one number format everywhere, so the same drawing gives the same
/// bytes on every run and machine: fixed decimals, rounded half away from zero, trailing zeros
/// trimmed, never an exponent, never "-0". No Foundation formatting, no locale.
struct SVGWriter {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 1 << 16) { bytes.reserveCapacity(capacity) }

    /// Raw text (markup the caller wrote; never input-derived strings: those go through `text`).
    mutating func raw(_ s: String) { bytes.append(contentsOf: s.utf8) }

    /// Character data or attribute values, XML-escaped.
    mutating func text(_ s: String) {
        for byte in s.utf8 {
            switch byte {
            case UInt8(ascii: "&"): raw("&amp;")
            case UInt8(ascii: "<"): raw("&lt;")
            case UInt8(ascii: ">"): raw("&gt;")
            case UInt8(ascii: "\""): raw("&quot;")
            // Control characters are not allowed in XML 1.0 at all; a device name may hold them.
            case 0..<0x20 where byte != 0x09 && byte != 0x0a && byte != 0x0d: bytes.append(UInt8(ascii: "?"))
            default: bytes.append(byte)
            }
        }
    }

    /// A number with at most `digits` decimals (0...4).
    mutating func number(_ value: Double, digits: Int = 1) {
        guard value.isFinite else {
            bytes.append(UInt8(ascii: "0"))
            return
        }
        var scale: Int64 = 1
        for _ in 0..<digits { scale *= 10 }
        // Coordinates stay far below 2^53 / 10^4; clamp anyway so a wild value cannot trap.
        let scaled = min(max(value * Double(scale), -9e15), 9e15)
        var n = Int64(scaled.rounded(.toNearestOrAwayFromZero))
        if n < 0 {
            bytes.append(UInt8(ascii: "-"))
            n = -n
        }
        let whole = n / scale
        var fraction = n % scale
        integer(UInt64(whole))
        guard fraction != 0 else { return }
        var width = digits
        while fraction % 10 == 0 {
            fraction /= 10
            width -= 1
        }
        bytes.append(UInt8(ascii: "."))
        var divisor: Int64 = 1
        for _ in 1..<width { divisor *= 10 }
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8((fraction / divisor) % 10))
            divisor /= 10
        }
    }

    mutating func integer(_ value: Int) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        integer(value.magnitude)
    }

    private mutating func integer<T: UnsignedInteger & FixedWidthInteger>(_ value: T) {
        if value >= 10 { integer(value / 10) }
        bytes.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: value % 10))
    }

    /// ` name="value"` with a number value.
    mutating func attribute(_ name: String, _ value: Double, digits: Int = 1) {
        raw(" \(name)=\"")
        number(value, digits: digits)
        bytes.append(UInt8(ascii: "\""))
    }

    /// ` name="value"` with a text value (escaped).
    mutating func attribute(_ name: String, _ value: String) {
        raw(" \(name)=\"")
        text(value)
        bytes.append(UInt8(ascii: "\""))
    }

    /// `<text ...>content</text>` at (x, y) with the given class and optional anchor.
    mutating func label(_ content: String, x: Double, y: Double, cls: String, anchor: String? = nil) {
        raw("<text class=\"\(cls)\"")
        attribute("x", x)
        attribute("y", y)
        if let anchor { raw(" text-anchor=\"\(anchor)\"") }
        raw(">")
        text(content)
        raw("</text>\n")
    }

    /// A polyline's `points` attribute value from pixel coordinates.
    mutating func points(_ xs: some Sequence<(Double, Double)>) {
        raw(" points=\"")
        var first = true
        for (x, y) in xs {
            if !first { bytes.append(UInt8(ascii: " ")) }
            first = false
            number(x)
            bytes.append(UInt8(ascii: ","))
            number(y)
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
