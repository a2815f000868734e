import NIOCore
import NIOEmbedded
import Testing

@testable import WebBridge

/// The bridge's daemon-side framing: `LineFramer` behind NIO, with the bridge's limit (newline not
/// counted) applied the same whether a line arrives in one read or in pieces.
struct LineFrameDecoderTests {
    private func channel(limit: Int) -> EmbeddedChannel {
        EmbeddedChannel(handler: ByteToMessageHandler(LineFrameDecoder(maximumLineBytes: limit)))
    }

    private func lines(_ channel: EmbeddedChannel) throws -> [String] {
        var result: [String] = []
        while let line = try channel.readInbound(as: ByteBuffer.self) { result.append(String(buffer: line)) }
        return result
    }

    @Test func linesAcrossReadsArriveWholeWithoutTheirNewline() throws {
        let channel = channel(limit: 16)
        try channel.writeInbound(ByteBuffer(string: "{\"a\":1}\n{\"b\""))
        #expect(try lines(channel) == ["{\"a\":1}"])
        try channel.writeInbound(ByteBuffer(string: ":2}\n"))
        #expect(try lines(channel) == ["{\"b\":2}"])
    }

    @Test(arguments: [false, true])
    func aLineAtTheLimitPassesAndOneByteMoreCloses(split: Bool) throws {
        let atLimit = channel(limit: 8)
        if split {
            try atLimit.writeInbound(ByteBuffer(string: "12345678"))
            try atLimit.writeInbound(ByteBuffer(string: "\n"))
        } else {
            try atLimit.writeInbound(ByteBuffer(string: "12345678\n"))
        }
        #expect(try lines(atLimit) == ["12345678"])

        let over = channel(limit: 8)
        #expect(throws: LineFrameDecoder.LineTooLong.self) {
            if split {
                try over.writeInbound(ByteBuffer(string: "12345678"))
                try over.writeInbound(ByteBuffer(string: "9\n"))
            } else {
                try over.writeInbound(ByteBuffer(string: "123456789\n"))
            }
        }
    }

    @Test func aLastLineWithoutNewlineIsDropped() throws {
        let channel = channel(limit: 16)
        try channel.writeInbound(ByteBuffer(string: "{\"a\":1}\n{\"b\""))
        _ = try channel.finish()
        #expect(try lines(channel) == ["{\"a\":1}"])
    }
}
