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
    /// The longest number a cursor writes (`DecimalPrinter.maximumNumberLength`).
    static let maximumNumberLength = DecimalPrinter.maximumNumberLength
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
            count &+= DecimalPrinter.writeSmall(UInt32(truncatingIfNeeded: magnitude), into: start + count)
            return
        }
        let digits = DecimalPrinter.digitCount(magnitude)
        count &+= digits
        DecimalPrinter.writeDigits(magnitude, count: digits, endingAt: start + count)
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
        advance(overNumber: DecimalPrinter.writeThree(value, into: start + count))
    }

    /// `value` to six decimals (`writeFixed`'s text).
    @inline(__always)
    mutating func double6(_ value: Double) {
        advance(overNumber: DecimalPrinter.writeSix(value, into: start + count))
    }

    /// Moves past a number `DecimalPrinter` wrote, whose length is negated when it wrote "null" for
    /// a non-finite value (then counted).
    @inline(__always)
    private mutating func advance(overNumber length: Int) {
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
        DecimalPrinter.writeDigits(magnitude &- seconds &* 1_000_000, count: 6, endingAt: start + count)
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
}
