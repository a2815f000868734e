import Gestures
import MultitouchCore
import Testing

@testable import WireProtocol

/// Every message and request the protocol defines goes through the one encoder and back through the one
/// decoder unchanged, and the golden files (checks/protocol/golden/) hold exactly what the encoder
/// writes: a change to a field, its name, order or number format shows up here and in the Python
/// client's tests, which read the same files.
@Suite("Protocol round trip")
struct ProtocolRoundTripTests {
    @Test func samplesCoverEveryMessageAndRequestType() {
        #expect(Set(ProtocolSamples.messages.map(\.kind)) == Set(MessageKind.allCases))
        #expect(Set(ProtocolSamples.requests.map(\.action.kind)) == Set(RequestKind.allCases))
    }

    @Test(arguments: ProtocolSamples.messages)
    func messageSurvivesEncodeAndDecode(message: Message) throws {
        let line = message.jsonLine()
        let decoded = try Message(decoding: Array(line.utf8))
        #expect(decoded == message)
        #expect(decoded.jsonLine() == line)
    }

    @Test(arguments: ProtocolSamples.requests)
    func requestSurvivesEncodeAndDecode(request: ClientRequest) throws {
        let line = request.jsonLine()
        let decoded = try ClientRequest(decoding: Array(line.utf8))
        #expect(decoded == request)
        #expect(decoded.jsonLine() == line)
    }

    @Test func aMessageTypeFromANewerDaemonIsReportedAsUnknownNotInvalid() {
        #expect(throws: MessageDecodingError.unknownType("hologram")) {
            try Message(decoding: Array(#"{"type":"hologram","device":1}"#.utf8))
        }
    }

    @Test(arguments: [
        #"{"type":"touches","device":1}"#,
        #"{"type":"gesture","device":1,"time":1.5}"#,
        #"{"type":"session","device":1,"time":1.0,"session":1,"phase":"changed"}"#,
        #"{"type":"deviceRemoved","device":"one","reason":"x"}"#,
        #"{"type":"touches","device":1,"time":1.0000001,"fingers":0,"touches":[]}"#,
        #"[1,2]"#, #"{"device":1}"#, "not json",
    ])
    func invalidMessagesAreRefusedWithAReason(line: String) {
        do {
            _ = try Message(decoding: Array(line.utf8))
            Issue.record("accepted \(line)")
        } catch {
            guard case .invalid(let why) = error else {
                Issue.record("expected .invalid, got \(error)")
                return
            }
            #expect(!why.message.isEmpty)
        }
    }

    @Test func fieldsAClientDoesNotKnowAreIgnored() throws {
        let line = #"{"type":"pong","id":1,"futureField":{"x":[1,2]}}"#
        #expect(try Message(decoding: Array(line.utf8)) == .pong(PongMessage(id: 1)))
    }
}

/// The golden files: one per message and request type, read here and by clients/python.
@Suite("Protocol golden files")
struct ProtocolGoldenTests {
    static let directory = URLPath.repositoryRoot + "/checks/protocol/golden"

    static func expected(_ lines: [String]) -> String { lines.map { $0 + "\n" }.joined() }

    @Test(arguments: MessageKind.allCases)
    func messageGoldenFileIsWhatTheEncoderWrites(kind: MessageKind) throws {
        let lines = ProtocolSamples.messages.filter { $0.kind == kind }.map { $0.jsonLine() }
        let path = "\(Self.directory)/messages/\(kind.rawValue).jsonl"
        try GoldenFile.check(path: path, expected: Self.expected(lines))
        for line in try GoldenFile.lines(path) {
            let message = try Message(decoding: Array(line.utf8))
            #expect(message.kind == kind)
            #expect(message.jsonLine() == line)
        }
    }

    @Test(arguments: RequestKind.allCases)
    func requestGoldenFileIsWhatTheEncoderWrites(kind: RequestKind) throws {
        let lines = ProtocolSamples.requests.filter { $0.action.kind == kind }.map { $0.jsonLine() }
        let path = "\(Self.directory)/requests/\(kind.rawValue).jsonl"
        try GoldenFile.check(path: path, expected: Self.expected(lines))
        for line in try GoldenFile.lines(path) {
            let request = try ClientRequest(decoding: Array(line.utf8))
            #expect(request.action.kind == kind)
            #expect(request.jsonLine() == line)
        }
    }

    @Test func noGoldenFileIsLeftOverFromARemovedType() throws {
        let messages = Set(MessageKind.allCases.map { "\($0.rawValue).jsonl" })
        let requests = Set(RequestKind.allCases.map { "\($0.rawValue).jsonl" })
        #expect(Set(try GoldenFile.list("\(Self.directory)/messages")) == messages)
        #expect(Set(try GoldenFile.list("\(Self.directory)/requests")) == requests)
    }
}
