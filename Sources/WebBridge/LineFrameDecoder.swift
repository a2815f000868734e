import NIOCore
import WireProtocol

/// Splits the daemon's byte stream into protocol lines (without the `\n`), the only framing the bridge
/// knows: each line becomes one WebSocket text message, and its content stays opaque. The splitting is
/// WireProtocol's `LineFramer`, the one the daemon uses for requests; this type only adapts it to NIO.
///
/// A line longer than `maximumLineBytes` (newline not counted) is a daemon bug or not a multitouchd
/// socket at all; the decoder then throws `LineTooLong`, which closes the browser's connection with a
/// reason instead of buffering without bound.
struct LineFrameDecoder: ByteToMessageDecoder {
    typealias InboundOut = ByteBuffer

    /// The longest line accepted, newline not counted.
    let maximumLineBytes: Int

    /// Thrown for a line longer than `maximumLineBytes`.
    struct LineTooLong: Error, CustomStringConvertible {
        let limit: Int
        var description: String { "the daemon sent a line longer than \(limit) bytes" }
    }

    /// The partial line carried between reads.
    private var framer = LineFramer()

    init(maximumLineBytes: Int) { self.maximumLineBytes = maximumLineBytes }

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard buffer.readableBytes > 0 else { return .needMoreData }
        // +1: LineFramer's limit counts the newline, this decoder's does not.
        let limit = maximumLineBytes < .max ? maximumLineBytes + 1 : .max
        let result = framer.append(buffer.readableBytesView, maximumLineBytes: limit)
        buffer.moveReaderIndex(forwardBy: buffer.readableBytes)
        switch result {
        case .lineTooLong:
            throw LineTooLong(limit: maximumLineBytes)
        case .lines(let lines):
            for line in lines {
                context.fireChannelRead(wrapInboundOut(context.channel.allocator.buffer(bytes: line)))
            }
        }
        return .needMoreData
    }

    mutating func decodeLast(
        context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool
    ) throws -> DecodingState {
        // A last line without its newline (the daemon died mid-write) is incomplete JSON: the framer keeps
        // it, and it is dropped rather than handed to a browser as half a message; the close that follows
        // says the daemon went away.
        _ = try decode(context: context, buffer: &buffer)
        return .needMoreData
    }
}
