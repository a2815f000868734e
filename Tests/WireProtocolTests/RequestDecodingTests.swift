import Gestures
import MultitouchCore
import Testing
import TouchRouting

@testable import WireProtocol

/// The daemon's side of requests: validation, error codes and ids echoed byte for byte.
@Suite("Request decoding")
struct RequestDecodingTests {
    func decode(_ text: String) throws(RequestError) -> ClientRequest {
        try ClientRequest(decoding: Array(text.utf8))
    }

    @Test func subscribeWithoutFieldsMeansEverything() throws {
        #expect(try decode(#"{"type":"subscribe"}"#) == ClientRequest(.subscribe(streams: nil, devices: nil)))
    }

    @Test func subscribeWithStreamsAndDevices() throws {
        let request = try decode(#"{"type":"subscribe","streams":["gestures"],"devices":[2,3],"id":"s"}"#)
        #expect(request == ClientRequest(.subscribe(streams: [.gestures], devices: .ids([2, 3])), id: "s"))
    }

    @Test func setTransformNeedsSixNumbersAndAnInvertibleMatrix() throws {
        #expect(throws: RequestError.self) { try decode(#"{"type":"setTransform","device":1,"matrix":[0,0,0,0,1,1]}"#) }
        #expect(throws: RequestError.self) { try decode(#"{"type":"setTransform","device":1,"matrix":[1,0,0,1]}"#) }
        let ok = try decode(#"{"type":"setTransform","device":1,"matrix":[2,0,0,2,5,-5.5]}"#)
        #expect(
            ok
                == ClientRequest(
                    .setTransform(device: 1, matrix: AffineTransform(a: 2, b: 0, c: 0, d: 2, tx: 5, ty: -5.5))))
    }

    /// Issue 11: a finite, invertible but enormous matrix made every later gesture matrix of the device
    /// overflow. The decoder refuses it with `bad-field` and the bound in words, keeping the id.
    @Test(arguments: [
        (
            #"[1,0,0,1,1.7e308,1.7e308]"#,
            #""matrix" entry tx = 1.7e+308 is out of range; |tx| and |ty| must be at most 1e9"#
        ),
        (
            #"[1e7,0,0,1,0,0]"#,
            #""matrix" entry a = 10000000.0 is out of range; |a|, |b|, |c| and |d| must be at most 1e6"#
        ),
        (
            #"[1e-7,0,0,1e-7,0,0]"#,
            #""matrix" has a*d - b*c = 9.999999999999998e-15; |a*d - b*c| must be between 1e-12 and 1e12"#
        ),
        (
            #"[1,0,-2e6,1,0,0]"#,
            #""matrix" entry c = -2000000.0 is out of range; |a|, |b|, |c| and |d| must be at most 1e6"#
        ),
        (#"[0,0,0,0,1,1]"#, #""matrix" is not invertible (a*d - b*c = 0); |a*d - b*c| must be between 1e-12 and 1e12"#),
    ])
    func setTransformOutsideTheBoundsIsABadField(matrix: String, message: String) {
        do {
            _ = try decode(#"{"type":"setTransform","device":1,"matrix":\#(matrix),"id":9}"#)
            Issue.record("\(matrix) was accepted")
        } catch {
            #expect(error.code == .badField)
            #expect(error.message == message)
            #expect(error.id == RequestID(9))
        }
    }

    @Test func setTransformAtTheBoundsIsAccepted() throws {
        let request = try decode(#"{"type":"setTransform","device":1,"matrix":[1e6,0,0,1e6,1e9,-1e9]}"#)
        #expect(
            request
                == ClientRequest(
                    .setTransform(device: 1, matrix: AffineTransform(a: 1e6, b: 0, c: 0, d: 1e6, tx: 1e9, ty: -1e9))))
    }

    @Test(arguments: [
        (#"{"type":"ping","extra":1,"id":4}"#, ErrorCode.badField),
        (#"{"type":"warp","id":4}"#, .unknownType),
        (#"{"id":4}"#, .unknownType),
        (#"{"type":"resetTransform","device":-1,"id":4}"#, .badField),
        (#"{"type":"subscribe","streams":["sound"],"id":4}"#, .badField),
        (#"{"type":"subscribe","predictMs":51,"id":4}"#, .badField),
        (#"{"type":"subscribe","predictMs":-1,"id":4}"#, .badField),
        (#"{"type":"subscribe","predictMs":16.5,"id":4}"#, .badField),
        (#"{"type":"ping","predictMs":16,"id":4}"#, .badField),
        ("[1]", .invalidJSON),
        (#"{"type":"ping","id":[1]}"#, .badField),
    ])
    func refusalsCarryTheirCode(line: String, code: ErrorCode) {
        do {
            _ = try decode(line)
            Issue.record("accepted \(line)")
        } catch {
            #expect(error.code == code)
            #expect(!error.message.isEmpty)
        }
    }

    @Test func declareRegionsReadsTheDocumentedExample() throws {
        let request = try decode(
            #"{"type":"declareRegions","device":1,"id":1,"regions":["#
                + #"{"id":"toolbar","rect":[0,0,1920,96],"mode":"passthrough","z":2,"#
                + #""mask":{"columns":20,"rows":1,"bits":"/4AA"}},"#
                + #"{"id":"map","rect":[0,0,1920,1080],"z":1,"exclusive":true}]}"#)
        guard case .declareRegions(let device, let regions) = request.action else {
            Issue.record("decoded as \(request.action.kind)")
            return
        }
        #expect(device == 1)
        #expect(regions.map(\.id) == ["toolbar", "map"])
        // "/4AA" is 0xFF 0x80 0x00: the first 9 of 20 cells solid, most significant bit first.
        #expect(regions[0].mask?.solid == (0..<20).map { $0 < 9 })
        #expect(regions[0].mode == .passthrough && regions[0].z == 2)
        #expect(regions[1].options == RegionOptions(exclusive: true))
        #expect(regions[1].mode == .opaque && regions[1].mask == nil)
    }

    @Test func anObserverHasNoGesturesUnlessItAsks() throws {
        let plain = try decode(
            #"{"type":"declareRegions","device":1,"regions":[{"id":"o","rect":[0,0,1,1],"mode":"observer"}]}"#)
        let asks = try decode(
            #"{"type":"declareRegions","device":1,"regions":[{"id":"o","rect":[0,0,1,1],"mode":"observer","gestures":true}]}"#
        )
        guard case .declareRegions(_, let a) = plain.action, case .declareRegions(_, let b) = asks.action else {
            Issue.record("not declareRegions")
            return
        }
        #expect(a[0].options.gestures == false)
        #expect(b[0].options.gestures == true)
    }

    @Test func updateRegionsMayOnlyRemove() throws {
        let request = try decode(#"{"type":"updateRegions","device":3,"remove":["map"],"id":2}"#)
        #expect(request == ClientRequest(.updateRegions(device: 3, regions: [], remove: ["map"]), id: 2))
    }

    /// One refusal names every problem of every region, with its index, so a client fixes all at once.
    @Test func aBadDeclarationIsOneBadFieldErrorListingEveryProblem() {
        let line =
            #"{"type":"declareRegions","device":1,"id":"d","regions":["#
            + #"{"id":"a","rect":[0,0,10,10],"mask":{"columns":1,"rows":1,"bits":"gA=="}},"#
            + #"{"id":"b","rect":[0,0,10,10],"mode":"passthrough"},"#
            + #"{"id":"c","rect":[0,0,0,10]},"#
            + #"{"id":"d","polygon":[[0,0],[1,1]]},"#
            + #"{"id":"e","rect":[0,0,1,1],"colour":"red"},"#
            + #"{"id":"f","rect":[0,0,1,1],"mask":{"columns":2,"rows":2,"bits":"gAAA"}},"#
            + #"{"id":"g","rect":[0,0,1,1],"mode":"sticky"},"#
            + #"{"rect":[0,0,1,1]},"#
            + #"{"id":"h","rect":[0,0,1,1]},{"id":"h","rect":[0,0,1,1]}]}"#
        do {
            _ = try decode(line)
            Issue.record("accepted \(line)")
        } catch {
            #expect(error.code == .badField)
            #expect(error.id == RequestID("d"))
            for needle in [
                "regions[0]: region \"a\": an opaque region owns its whole shape",
                "regions[1]: region \"b\": a passthrough region needs a mask",
                "regions[2]: region \"c\": rectangle must be finite with width and height > 0",
                "regions[3]: region \"d\": polygon needs 3 to 256 vertices, got 2",
                "regions[4]: region \"e\": unknown field \"colour\" in a region",
                "regions[5]: region \"f\": mask \"bits\" holds 3 bytes, expected 1 for 2 x 2 cells",
                "regions[6]: region \"g\": \"mode\" must be one of opaque, passthrough, observer",
                "regions[7]: missing \"id\"",
                "duplicate region id \"h\"",
            ] {
                #expect(error.message.contains(needle), "missing \(needle) in \(error.message)")
            }
        }
    }

    @Test(arguments: [
        #"{"type":"declareRegions","device":1}"#,
        #"{"type":"declareRegions","regions":[]}"#,
        #"{"type":"declareRegions","device":1,"regions":{}}"#,
        #"{"type":"declareRegions","device":1,"regions":[],"remove":[]}"#,
        #"{"type":"updateRegions","device":1,"remove":"map"}"#,
        #"{"type":"updateRegions","device":1,"remove":[1]}"#,
        #"{"type":"declareRegions","device":1,"regions":[{"id":"m","rect":[0,0,1,1],"mode":"passthrough","mask":{"columns":1,"rows":1,"bits":"g=A="}}]}"#,
        #"{"type":"declareRegions","device":1,"regions":[{"id":"m","rect":[0,0,1,1],"mode":"passthrough","mask":{"columns":0,"rows":1,"bits":""}}]}"#,
        #"{"type":"declareRegions","device":1,"regions":[{"id":"m","rect":[0,0,1,1],"polygon":[[0,0],[1,0],[0,1]]}]}"#,
        #"{"type":"declareRegions","device":1,"regions":[{"id":"m","rect":[0,0,1,1],"hidden":1}]}"#,
        #"{"type":"declareRegions","device":1,"regions":[{"id":"m","rect":[0,0,1,1],"z":1.5}]}"#,
        #"{"type":"declareRegions","device":1,"regions":[{"id":"","rect":[0,0,1,1]}]}"#,
        #"{"type":"declareRegions","device":1,"regions":[{"id":"o","rect":[0,0,1,1],"mode":"observer","exclusive":true}]}"#,
    ])
    func badRegionRequestsAreBadFields(line: String) {
        do {
            _ = try decode(line)
            Issue.record("accepted \(line)")
        } catch {
            #expect(error.code == .badField, "\(error.message)")
        }
    }

    @Test func base64RoundTripsEveryLength() {
        for n in 0..<10 {
            let bytes = (0..<n).map { UInt8(truncatingIfNeeded: $0 * 37 + 200) }
            #expect(Base64.decode(Base64.encode(bytes)) == bytes)
        }
        #expect(Base64.encode([0xFF, 0x80, 0x00]) == "/4AA")
        #expect(Base64.decode("gA==") == [0x80])
        #expect(Base64.decode("gA=") == nil)
        #expect(Base64.decode("g===") == nil)
        #expect(Base64.decode("gA==gA==") == nil)
    }

    @Test func invalidUTF8IsItsOwnError() {
        #expect(throws: RequestError(.invalidUTF8, "request is not valid UTF-8")) {
            try ClientRequest(decoding: [UInt8(ascii: "{"), 0xFF, UInt8(ascii: "}")])
        }
    }

    @Test func aRefusalEchoesTheIdOfTheRequest() {
        do {
            _ = try decode(#"{"type":"ping","extra":1,"id":"x\u0041"}"#)
        } catch {
            #expect(error.id?.json == #""x\u0041""#)
            #expect(Message.error(error.errorMessage).jsonLine().hasSuffix(#","id":"x\u0041"}"#))
        }
    }

    /// Issue 11 item 8: ids came back re-encoded (`9007199254740993` as `9007199254740992.0`, `-0` as
    /// `0`). Every reply now carries the id's own bytes.
    @Test(arguments: [
        "9007199254740993", "-0", "1.50", "1e2", "-12345678901234567890123", "\"\\u00e9\\/\"", "\"é\"", "null", "0",
    ])
    func idsAreEchoedByteForByte(id: String) throws {
        let request = try decode(#"{"type":"ping","id":\#(id)}"#)
        #expect(request.id?.json == id)
        #expect(Message.pong(PongMessage(id: request.id)).jsonLine() == #"{"type":"pong","id":\#(id)}"#)
        let transform = Message.transform(TransformMessage(id: request.id, device: 1, matrix: .identity))
        #expect(transform.jsonLine() == #"{"type":"transform","id":\#(id),"device":1,"matrix":[1,0,0,1,0,0]}"#)
    }

    @Test(arguments: [
        #"{"a":1,"a":2}"#, #"{"a":"\ud800"}"#, #"{"a":01}"#, #"{"a":1,}"#, #"{"a":tru}"#, #"{"a":"x"} x"#, "1e999",
    ])
    func malformedJSONIsRejected(text: String) {
        #expect(throws: JSONParseError.self) { try JSONReader.parse(Array(text.utf8)) }
    }

    @Test func escapesDecode() throws {
        let value = try JSONReader.parse(Array(#"{"s":"a\"b\\c\u00e9\ud83d\ude00\n"}"#.utf8))
        guard case .object(let object) = value else {
            Issue.record("not an object")
            return
        }
        #expect(object["s"] == .string("a\"b\\cé😀\n"))
    }

    @Test func nestingIsBoundedSoALineOfBracketsCannotExhaustTheStack() {
        let deep = String(repeating: "[", count: 60_000)
        #expect(throws: JSONParseError.self) { try JSONReader.parse(Array(deep.utf8)) }
    }
}

/// Request framing (issue 11 item 8): the documented limit counts the newline, exactly.
@Suite("Line framing")
struct LineFramerTests {
    let limit = 65_536

    func bytes(_ count: Int) -> [UInt8] { [UInt8](repeating: UInt8(ascii: "x"), count: count) }

    @Test func aLineOfTheLimitMinusOnePlusNewlineIsAccepted() {
        var framer = LineFramer()
        #expect(framer.append(bytes(limit - 1) + [0x0A], maximumLineBytes: limit) == .lines([bytes(limit - 1)]))
    }

    @Test func aLineOfTheLimitPlusNewlineIsRefused() {
        var framer = LineFramer()
        #expect(framer.append(bytes(limit) + [0x0A], maximumLineBytes: limit) == .lineTooLong)
    }

    @Test func theLimitHoldsAcrossReads() {
        var framer = LineFramer()
        #expect(framer.append(bytes(40_000), maximumLineBytes: limit) == .lines([]))
        #expect(framer.append(bytes(25_535), maximumLineBytes: limit) == .lines([]))
        #expect(framer.partialCount == limit - 1)
        #expect(framer.append([0x0A], maximumLineBytes: limit) == .lines([bytes(limit - 1)]))
        #expect(framer.partialCount == 0)
        #expect(framer.append(bytes(limit - 1), maximumLineBytes: limit) == .lines([]))
        // One more byte and even the newline could not bring it under the limit: refused at once.
        #expect(framer.append(bytes(1), maximumLineBytes: limit) == .lineTooLong)
    }

    @Test func crlfAndEmptyLinesAndSeveralLinesPerRead() {
        var framer = LineFramer()
        let input = Array("a\r\n\n\nbc\nd".utf8)
        #expect(framer.append(input, maximumLineBytes: limit) == .lines([Array("a".utf8), Array("bc".utf8)]))
        #expect(framer.append(Array("e\n".utf8), maximumLineBytes: limit) == .lines([Array("de".utf8)]))
    }
}

/// Issue 19: a request whose JSON fails on a non-finite number still names its id in the error.
@Suite("Request decoding: invalid JSON keeps the id")
struct InvalidJSONIDTests {
    @Test(arguments: [
        (#"{"type":"setTransform","device":1,"matrix":[NaN,0,0,0,1,0],"id":7}"#, "7"),
        (#"{"type":"setTransform","device":1,"matrix":[1e999,0,0,0,1,0],"id":"a,b}"}"#, #""a,b}""#),
        (#"{"id":[1],"type":"ping","x":NaN}"#, nil),
        (#"{"type":"ping","nested":{"id":3},"x":-Infinity}"#, nil),
        (#"{"type":"ping","id":-0,"x":1e999}"#, "-0"),
    ])
    func theIDIsEchoed(line: String, id: String?) {
        do {
            _ = try ClientRequest(decoding: Array(line.utf8))
            Issue.record("decoded \(line)")
        } catch {
            #expect(error.code == .invalidJSON)
            #expect(error.id?.json == id, "\(line)")
        }
    }
}

/// Issue 28 item 1: one `frame` line with a time one microsecond past Int64.max stopped the daemon with
/// an overflow trap in `Timestamp(exactDecimal:)`. Every time a client can write decodes or is refused.
@Suite("Request decoding: extreme numbers")
struct ExtremeNumberTests {
    func decode(_ text: String) throws(RequestError) -> ClientRequest {
        try ClientRequest(decoding: Array(text.utf8))
    }

    @Test(arguments: [
        "9223372036854.775808", "9223372036854.775809", "9223372036854.999999", "9223372036855",
        "-9223372036854.775808", "-9223372036854.775809", "99999999999999999999.999999", "1e308",
        "-1e308", "4.9e-324", "-0", "-0.0", "9223372036854775807", "-9223372036854775808",
        "184467440737095516160000000000.5",
    ])
    func aFrameTimeOutOfRangeIsRefusedNotATrap(time: String) {
        let line = #"{"type":"frame","time":\#(time),"id":7}"#
        do {
            let request = try decode(line)
            // What decodes is a time the clock can hold, non-negative, and survives encoding.
            guard case .frame(let decoded) = request.action else {
                Issue.record("\(line) decoded as \(request)")
                return
            }
            #expect(decoded.microseconds >= 0)
            #expect(try decode(request.jsonLine()) == request)
        } catch {
            #expect(error.code == .badField, "\(error)")
            #expect(error.message.contains("\"time\""), "\(error.message)")
        }
    }

    /// The largest time a frame request can name is Int64.max microseconds, exactly.
    @Test func theLastMicrosecondOfTheClockDecodesExactly() throws {
        let request = try decode(#"{"type":"frame","time":9223372036854.775807}"#)
        #expect(request.action == .frame(time: Timestamp(microseconds: .max)))
    }

    @Test func exactDecimalRefusesWhatInt64CannotHold() {
        #expect(Timestamp(exactDecimal: "9223372036854.775807")?.microseconds == .max)
        #expect(Timestamp(exactDecimal: "9223372036854.775808") == nil)
        #expect(Timestamp(exactDecimal: "-9223372036854.775807")?.microseconds == -.max)
        #expect(Timestamp(exactDecimal: "-9223372036854.775808") == nil)
    }

    /// Delays come from configurations and requests: past the clock's end they saturate, never trap.
    @Test func addingMillisecondsSaturates() {
        let t = Timestamp(microseconds: .max - 10)
        #expect(t.adding(milliseconds: 1).microseconds == .max)
        #expect(Timestamp(microseconds: 0).adding(milliseconds: 1e308).microseconds == .max)
        #expect(Timestamp(microseconds: 0).adding(milliseconds: -1e308).microseconds == .min)
        #expect(Timestamp(microseconds: 5).adding(milliseconds: .nan).microseconds == 5)
        #expect(Timestamp(microseconds: .min + 1).adding(milliseconds: -1).microseconds == .min)
    }
}
