import Foundation
import Glibc
import MultitouchClient
import Testing

/// The Swift client library on its own: a socket pair plays the daemon, writing the protocol's golden
/// lines (checks/protocol/golden, the same bytes the Python client's tests read).
@Suite("MultitouchClient decoding")
struct ClientDecodingTests {
    static let golden: String = {
        var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        return parts.joined(separator: "/") + "/checks/protocol/golden"
    }()

    static func lines(_ kind: String, _ name: String) throws -> [String] {
        try String(contentsOfFile: "\(golden)/\(kind)/\(name).jsonl", encoding: .utf8)
            .split(separator: "\n").map(String.init)
    }

    /// A client on one end of a socket pair; the test writes to and reads from the other end.
    static func pair() throws -> (MultitouchClient, Int32) {
        var fds: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0 else { throw POSIXError(.EIO) }
        return (MultitouchClient(connectedSocket: fds[0]), fds[1])
    }

    static func write(_ fd: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    @Test(arguments: MessageKind.allCases)
    func everyGoldenMessageArrivesTyped(kind: MessageKind) throws {
        let (client, server) = try Self.pair()
        defer { close(server) }
        let lines = try Self.lines("messages", kind.rawValue)
        #expect(!lines.isEmpty)
        Self.write(server, lines.map { $0 + "\n" }.joined())
        shutdown(server, Int32(SHUT_WR))
        var received: [Message] = []
        while let message = try client.nextMessage() { received.append(message) }
        #expect(received.count == lines.count)
        #expect(received.allSatisfy { $0.kind == kind })
        #expect(received.map { $0.jsonLine() } == lines)
    }

    @Test func messagesOfATypeFromANewerDaemonAreSkippedAndCounted() throws {
        let (client, server) = try Self.pair()
        defer { close(server) }
        Self.write(server, #"{"type":"hologram","x":1}"# + "\n" + #"{"type":"pong","id":1}"# + "\n")
        shutdown(server, Int32(SHUT_WR))
        #expect(try client.nextMessage() == .pong(PongMessage(id: 1)))
        #expect(client.skippedUnknownMessages == 1)
        #expect(try client.nextMessage() == nil)
    }

    @Test func anInvalidLineIsAnErrorNotASkip() throws {
        let (client, server) = try Self.pair()
        defer { close(server) }
        Self.write(server, #"{"type":"touches","device":1}"# + "\n")
        #expect(throws: MessageDecodingError.self) { try client.nextMessage() }
    }

    /// The request helpers write exactly the golden request lines.
    @Test func requestsAreWrittenAsTheGoldenLines() throws {
        let (client, server) = try Self.pair()
        defer { close(server) }
        try client.subscribe()
        try client.subscribe(streams: [.touches, .gestures], devices: [2, 1], id: 7)
        try client.subscribe(streams: [.touches, .gestures], id: 2, predictMilliseconds: 16)
        try client.ping(id: "a")
        try client.ping(id: 3)
        try client.requestStats(id: 3)
        try client.resetTransform(device: 1)
        try client.setTransform(device: 1, matrix: AffineTransform(a: 2, b: 0, c: 0, d: 2, tx: 10.5, ty: -3))
        try client.unsubscribe()
        client.close()
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(server, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            bytes.append(contentsOf: chunk[0..<n])
        }
        let sent = String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init)
        let subscribe = try Self.lines("requests", "subscribe")
        let ping = try Self.lines("requests", "ping")
        let expected =
            [subscribe[0], subscribe[1], subscribe[3]] + ping + (try Self.lines("requests", "stats"))
            + (try Self.lines("requests", "resetTransform")) + (try Self.lines("requests", "setTransform"))
            + (try Self.lines("requests", "unsubscribe"))
        #expect(sent == expected)
    }
}
