import NIOCore

/// Splits the daemon's byte stream into protocol lines (without the `\n`), the only framing the bridge
/// knows: each line becomes one WebSocket text message, and its content stays opaque.
///
/// A line longer than `maximumLineBytes` is a daemon bug or not a multitouchd socket at all; the decoder
/// then throws `LineTooLong`, which closes the browser's connection with a reason instead of buffering
/// without bound.
struct LineFrameDecoder: ByteToMessageDecoder {
    typealias InboundOut = ByteBuffer

    /// The longest line accepted.
    let maximumLineBytes: Int

    /// Thrown for a line longer than `maximumLineBytes`.
    struct LineTooLong: Error, CustomStringConvertible {
        let limit: Int
        var description: String { "the daemon sent a line longer than \(limit) bytes" }
    }

    /// Bytes of the buffer already searched for a newline, so a long line is scanned only once.
    private var searched = 0

    init(maximumLineBytes: Int) { self.maximumLineBytes = maximumLineBytes }

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        let view = buffer.readableBytesView
        if let newline = view.dropFirst(searched).firstIndex(of: UInt8(ascii: "\n")) {
            let length = newline - view.startIndex
            guard let line = buffer.readSlice(length: length) else { return .needMoreData }
            buffer.moveReaderIndex(forwardBy: 1)
            searched = 0
            context.fireChannelRead(wrapInboundOut(line))
            return .continue
        }
        searched = view.count
        if searched > maximumLineBytes { throw LineTooLong(limit: maximumLineBytes) }
        return .needMoreData
    }

    mutating func decodeLast(
        context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool
    ) throws -> DecodingState {
        // A last line without its newline (the daemon died mid-write) is incomplete JSON: drop it rather
        // than hand a browser half a message; the close that follows says the daemon went away.
        while try decode(context: context, buffer: &buffer) == .continue {}
        buffer.moveReaderIndex(forwardBy: buffer.readableBytes)
        return .needMoreData
    }
}
