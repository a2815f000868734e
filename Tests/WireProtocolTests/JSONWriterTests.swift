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
