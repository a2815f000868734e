import Gestures
import Testing

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

    @Test(arguments: [
        (#"{"type":"ping","extra":1,"id":4}"#, ErrorCode.badField),
        (#"{"type":"warp","id":4}"#, .unknownType),
        (#"{"id":4}"#, .unknownType),
        (#"{"type":"resetTransform","device":-1,"id":4}"#, .badField),
        (#"{"type":"subscribe","streams":["sound"],"id":4}"#, .badField),
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
