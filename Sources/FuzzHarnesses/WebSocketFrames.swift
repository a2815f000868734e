import NIOCore
import NIOEmbedded
import NIOWebSocket
import WebBridge

/// Issue 28: what a browser sends the bridge, from raw bytes: NIO's frame decoder, then the bridge's
/// own rules (masking, reserved bits and opcodes, close bodies and codes), the fragment aggregator
/// and the UTF-8 check of whole text messages, in the order the bridge's pipeline has them. The
/// input is fed in two reads. A violation must carry a close code the bridge sends (1002, 1007 or
/// 1009); anything else, or a trap, is a bug.
enum WebSocketFrames {
    /// The bridge's largest message in the harness: small, so the size limits are reached.
    static let maximumMessageBytes = 4096

    @Sendable static func run(_ input: [UInt8]) -> FuzzHarness.Outcome {
        let channel = EmbeddedChannel()
        defer { _ = try? channel.finish() }
        do {
            try channel.pipeline.syncOperations.addHandler(
                ByteToMessageHandler(WebSocketFrameDecoder(maxFrameSize: maximumMessageBytes)))
            try ProtocolViolation.addBrowserFrameHandlers(
                to: channel.pipeline.syncOperations, maximumMessageBytes: maximumMessageBytes)
        } catch {
            fatalError("cannot build the pipeline: \(error)")
        }
        var refused = false
        let middle = input.count / 2
        for chunk in [input[..<middle], input[middle...]] where !refused {
            do {
                try channel.writeInbound(ByteBuffer(bytes: chunk))
                try channel.throwIfErrorCaught()
            } catch {
                // The relay closes with the violation's code, or 1011 for an error it cannot name.
                if let violation = ProtocolViolation.from(error) {
                    let code = WebSocketErrorCode.number(violation.code)
                    if ![1002, 1007, 1009].contains(code) { fatalError("a violation closes with \(code)") }
                }
                refused = true
            }
            while !refused, let frame = try? channel.readInbound(as: WebSocketFrame.self) {
                if frame.opcode == .text, ProtocolViolation.checkText(frame.unmaskedData) != nil { refused = true }
            }
        }
        return refused ? .rejected : .accepted
    }
}
