import MultitouchCore
import MultitouchTestKit
import Testing

@testable import WireProtocol

@Suite struct JSONWriterTests {
    private func text(_ body: (inout JSONWriter) -> Void) -> String {
        var w = JSONWriter()
        body(&w)
        return String(decoding: w.bytes, as: UTF8.self)
    }

    @Test func escapesStrings() {
        let out = text { $0.string("a\"b\\c\nd\te\u{01}é") }
        #expect(out == #""a\"b\\c\nd\te\u0001é""#)
    }

    @Test func writesTimesWithSixDecimalsExactly() {
        #expect(text { $0.time(Timestamp(microseconds: 1_357_751_031_716_015)) } == "1357751031.716015")
        #expect(text { $0.time(Timestamp(microseconds: 5)) } == "0.000005")
        #expect(text { $0.time(Timestamp(microseconds: -1_500_000)) } == "-1.500000")
    }

    @Test func writesIntegralDoublesWithoutFractionAndOthersRoundTrip() {
        #expect(text { $0.double(2) } == "2")
        #expect(text { $0.double(-0.0) } == "0")
        #expect(text { $0.double(-12) } == "-12")
        let value = 0.1 + 0.2
        #expect(Double(text { $0.double(value) }) == value)
        #expect(Double(text { $0.double(1e-7) }) == 1e-7)
        #expect(text { $0.int(Int64.min + 1) } == "-9223372036854775807")
        #expect(text { $0.int(UInt64.max) } == "18446744073709551615")
    }

    @Test func writesFixedDecimalsRoundedWithoutTrailingZeros() {
        #expect(text { $0.double(0.43833943833943834, .six) } == "0.438339")
        #expect(text { $0.double(0.43833953833943834, .six) } == "0.43834")
        #expect(text { $0.double(123.45678, .three) } == "123.457")
        #expect(text { $0.double(-123.4564, .three) } == "-123.456")
        #expect(text { $0.double(12.5, .three) } == "12.5")
        #expect(text { $0.double(7, .six) } == "7")
        #expect(text { $0.double(0.9999996, .six) } == "1")
        #expect(text { $0.double(0.000125, .six) } == "0.000125")
        #expect(text { $0.double(-0.01, .three) } == "-0.01")
        #expect(text { $0.double(1e-7, .six) } == "0")
        // A negative value that rounds to zero, and a negative zero, print as 0.
        #expect(text { $0.double(-0.0004, .three) } == "0")
        #expect(text { $0.double(-0.0, .six) } == "0")
        #expect(text { $0.point(1.0005, -2.25, .three) } == "[1.001,-2.25]")
    }

    @Test func fixedDecimalsStayWithinHalfAUnitAndReadBack() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<2000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let value = (Double(state >> 11) / Double(1 << 53) - 0.5) * 4000
            for (decimals, unit) in [(FixedDecimals.three, 1e-3), (.six, 1e-6)] {
                let written = text { $0.double(value, decimals) }
                guard let read = Double(written) else {
                    Issue.record("\(written) is not a number")
                    continue
                }
                #expect(abs(read - value) <= unit / 2 * (1 + 1e-9) + abs(value) * 1e-15, "\(value) -> \(written)")
            }
        }
    }

    @Test func fixedDecimalsFallBackToTheShortestFormWhenTooLarge() {
        #expect(text { $0.double(2e12, .six) } == "2000000000000")
        #expect(text { $0.double(1.5e300, .three) } == "1.5e+300")
        var w = JSONWriter()
        w.double(.nan, .three)
        w.double(-.infinity, .six)
        #expect(String(decoding: w.bytes, as: UTF8.self) == "null,null")
        #expect(w.nonFiniteCount == 2)
    }

    /// `DecimalPrinter.writeGeneral` as text: the general form the fast paths must match byte for byte.
    private func general(_ value: Double, _ decimals: FixedDecimals) -> String {
        var bytes = [UInt8](repeating: 0, count: 64)
        var nonFinite = false
        let length = bytes.withUnsafeMutableBufferPointer {
            DecimalPrinter.writeGeneral(value, decimals, into: $0.baseAddress!, &nonFinite)
        }
        return String(decoding: bytes[..<length], as: UTF8.self)
    }

    /// A cursor's text for `body` (the path touch and gesture objects take).
    private func cursorText(_ body: (inout JSONCursor) -> Void) -> String {
        var w = JSONWriter()
        w.withCursor(reserving: 256, body)
        return String(decoding: w.bytes, as: UTF8.self)
    }

    @Test func fixedFastPathsMatchTheGeneralForm() {
        var values: [Double] = [
            0, -0.0, 1, -1, 0.5, 0.0005, -0.0005, 0.0004999, 0.001, 0.01, 0.1, 0.25, 0.999_999_5, 9.999_5,
            99.999_5, 999.999_5, 999_999.999_4, 999_999.999_5, -999_999.999_5, 1_000_000, 123_456.7, 0.000_000_5,
            0.000_001, 0.000_01, 0.000_1, 0.120_000_4, 0.100_001, 0.100_010, 0.100_100, 0.101, 0.11, 999.999_999_4,
            -999.999_999_6, 1000, 1e9, 2e12, -3.5e14,
        ]
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        for scale in [1e-3, 1.0, 300.0, 5e4, 2e6] {
            for _ in 0..<2000 {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                values.append((Double(state >> 11) / Double(1 << 53) - 0.5) * scale)
            }
        }
        // Exact thousandths and millionths, where rounding and trailing zeros meet.
        for units in stride(from: -20_000, through: 20_000, by: 7) {
            values.append(Double(units) / 1000)
            values.append(Double(units) / 1_000_000)
        }
        var mismatches = 0
        for value in values {
            for decimals in [FixedDecimals.three, .six] {
                let expected = general(value, decimals)
                let written = text { $0.double(value, decimals) }
                let throughCursor = cursorText { $0.double(value, decimals) }
                if written != expected || throughCursor != expected {
                    mismatches += 1
                    if mismatches < 10 {
                        Issue.record("\(value) \(decimals): \(written) / \(throughCursor), want \(expected)")
                    }
                }
            }
        }
        #expect(mismatches == 0)
    }

    @Test func cursorWritesIntegersAndCountsNonFinite() {
        for value in [0, 7, 10, 99, 100, 999, 1000, 9999, 123_456_789, -1, -999, -1000] {
            #expect(cursorText { $0.int(value) } == String(value))
        }
        #expect(cursorText { $0.int(UInt64.max) } == "18446744073709551615")
        var w = JSONWriter()
        w.withCursor(reserving: 64) { c in
            c.double(.nan, .three)
            c.byte(UInt8(ascii: ","))
            c.double(.infinity, .six)
        }
        #expect(String(decoding: w.bytes, as: UTF8.self) == "null,null")
        #expect(w.nonFiniteCount == 2)
    }

    @Test func nonFiniteNumbersBecomeNullAndAreCounted() {
        var w = JSONWriter()
        w.beginArray()
        w.double(.nan)
        w.double(.infinity)
        w.double(1.5)
        w.endArray()
        #expect(String(decoding: w.bytes, as: UTF8.self) == "[null,null,1.5]")
        #expect(w.nonFiniteCount == 2)
    }

    @Test func encodeAppendsExactlyOneNewline() {
        var bytes: [UInt8] = []
        Message.error(ErrorMessage(.badField, "two\nlines")).encode(into: &bytes)
        #expect(bytes.filter { $0 == UInt8(ascii: "\n") }.count == 1)
        #expect(bytes.last == UInt8(ascii: "\n"))
    }

    /// A double without a fixed precision is Swift's shortest round-trip text (`description`), as
    /// ShortestDouble wrote it before issue 32 (it was checked byte for byte against `description`);
    /// integral values below 1e15 without ".0".
    @Test func doublesAreWrittenAsDescriptionAndIntegersShort() {
        var w = JSONWriter(capacity: 1)  // grows from its minimum while writing
        w.beginArray()
        for value in [-0.5, 1e-7, 2, -0.0, 1e15, 112.1875, 0.43833943833943834, 1e300] { w.double(value) }
        w.time(Timestamp(microseconds: 1_000_000_000_005))
        w.int(-42)
        w.endArray()
        let text = String(decoding: w.bytes, as: UTF8.self)
        #expect(text == "[-0.5,1e-07,2,0,1000000000000000.0,112.1875,0.43833943833943834,1e+300,1000000.000005,-42]")
        #expect(w.count == text.utf8.count)
    }

    /// Every finite double, written without a fixed precision, is a JSON number (RFC 8259's grammar:
    /// no "inf", no leading "+" or ".", digits on both sides of a point) that reads back as the same
    /// double, over random bit patterns (every exponent, subnormals included).
    @Test func doublesAreJSONNumbersThatReadBackExactly() {
        var random = SplitMix64(seed: 0x5EED_D0B1E)
        var failures: [String] = []
        var checked = 0
        // The longest texts (24 bytes) and the smallest subnormal first, then random bit patterns.
        let edges: [Double] = [-.leastNormalMagnitude, -.greatestFiniteMagnitude, -.leastNonzeroMagnitude, 1e23]
        for value in edges + (0..<20_000).map({ _ in Double(bitPattern: random.next()) }) {
            guard value.isFinite else { continue }
            var w = JSONWriter()
            w.double(value)
            let text = String(decoding: w.bytes, as: UTF8.self)
            checked += 1
            if Double(text) != value || !isJSONNumber(text), failures.count < 5 {
                failures.append("\(text) for \(value)")
            }
        }
        #expect(failures.isEmpty, "\(failures)")
        #expect(checked > 19_000)
    }

    /// RFC 8259 section 6: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    private func isJSONNumber(_ text: String) -> Bool {
        var rest = Substring(text)
        func digits() -> Int {
            let run = rest.prefix { $0.isASCII && $0.isNumber }
            rest = rest.dropFirst(run.count)
            return run.count
        }
        if rest.first == "-" { rest = rest.dropFirst() }
        if rest.first == "0" {
            rest = rest.dropFirst()
        } else if digits() == 0 {
            return false
        }
        if rest.first == "." {
            rest = rest.dropFirst()
            if digits() == 0 { return false }
        }
        if rest.first == "e" || rest.first == "E" {
            rest = rest.dropFirst()
            if rest.first == "+" || rest.first == "-" { rest = rest.dropFirst() }
            if digits() == 0 { return false }
        }
        return rest.isEmpty
    }
}
