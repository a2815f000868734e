import MultitouchCore
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
}
