import NIOCore
import NIOWebSocket

/// A browser broke RFC 6455 (or the bridge's size limit): the connection closes with `code` and
/// `reason`, and nothing more of it reaches the daemon.
public struct ProtocolViolation: Error, Equatable, CustomStringConvertible {
    /// The close code: 1002 protocol error, 1007 invalid UTF-8, 1009 too large.
    public let code: WebSocketErrorCode
    /// The close reason, shown to the browser and logged.
    public let reason: String

    /// The handlers a browser's frames pass after NIO's frame decoder, in order: the RFC 6455 rules of
    /// `check`, then the aggregator that makes fragmented messages whole (at most
    /// `maximumMessageBytes`). The bridge's pipeline and the `websocket` fuzz harness add the same.
    public static func addBrowserFrameHandlers(
        to operations: ChannelPipeline.SynchronousOperations, maximumMessageBytes: Int
    ) throws {
        try operations.addHandler(BrowserFrameValidator())
        // Browsers may fragment a message; the relay wants whole ones.
        try operations.addHandler(
            NIOWebSocketFrameAggregator(
                minNonFinalFragmentSize: 0, maxAccumulatedFrameCount: 1024, maxAccumulatedFrameSize: maximumMessageBytes
            ))
    }

    public var description: String { "\(reason) (close \(WebSocketErrorCode.number(code)))" }

    /// The rule a single frame from a browser breaks, or nil. NIO's decoder leaves these to the
    /// application ("limited enforcement", to allow extensions), and the bridge negotiates none.
    static func check(_ frame: WebSocketFrame) -> ProtocolViolation? {
        if frame.maskKey == nil {
            return ProtocolViolation(code: .protocolError, reason: "a browser's frames must be masked (RFC 6455 5.1)")
        }
        if frame.rsv1 || frame.rsv2 || frame.rsv3 {
            return ProtocolViolation(
                code: .protocolError, reason: "RSV bits set without a negotiated extension (RFC 6455 5.2)")
        }
        switch frame.opcode {
        case .continuation, .text, .binary, .ping, .pong: return nil
        case .connectionClose: return checkClose(frame.unmaskedData)
        default:
            return ProtocolViolation(code: .protocolError, reason: "reserved opcode \(frame.opcode) (RFC 6455 5.2)")
        }
    }

    /// The rule a close frame's body breaks (RFC 6455 5.5.1, 7.4): a body of one byte (a code is two),
    /// a code no endpoint may send (below 1000, 1004-1006, 1015, 1016-2999, 5000 and up), or a reason
    /// that is not UTF-8 (1007). Autobahn|Testsuite's cases 7.3-7.9 check the same.
    static func checkClose(_ payload: ByteBuffer) -> ProtocolViolation? {
        if payload.readableBytes == 0 { return nil }
        var body = payload
        guard let code = body.readInteger(as: UInt16.self) else {
            return ProtocolViolation(code: .protocolError, reason: "a close frame's body of one byte (RFC 6455 5.5.1)")
        }
        switch code {
        case 1000...1003, 1007...1014, 3000...4999: break
        default:
            return ProtocolViolation(code: .protocolError, reason: "close code \(code) may not be sent (RFC 6455 7.4)")
        }
        if String(validating: body.readableBytesView, as: UTF8.self) == nil {
            return ProtocolViolation(
                code: .dataInconsistentWithMessage, reason: "close reason is not UTF-8 (RFC 6455 5.5.1)")
        }
        return nil
    }

    /// The violation an error from NIO's WebSocket handlers stands for, or nil for other errors.
    public static func from(_ error: any Error) -> ProtocolViolation? {
        if let violation = error as? ProtocolViolation { return violation }
        if let error = error as? NIOWebSocketError {
            switch error {
            case .invalidFrameLength:
                return ProtocolViolation(code: .messageTooLarge, reason: "frame larger than the bridge accepts")
            case .fragmentedControlFrame, .multiByteControlFrameLength:
                return ProtocolViolation(code: .protocolError, reason: "malformed control frame (RFC 6455 5.5)")
            }
        }
        if let error = error as? NIOWebSocketFrameAggregator.Error {
            switch error {
            case .accumulatedFrameSizeIsTooLarge, .tooManyFragments:
                return ProtocolViolation(code: .messageTooLarge, reason: "message larger than the bridge accepts")
            case .nonFinalFragmentSizeIsTooSmall, .receivedNewFrameWithoutFinishingPrevious,
                .didReceiveFragmentBeforeReceivingTextOrBinaryFrame:
                return ProtocolViolation(code: .protocolError, reason: "badly fragmented message (RFC 6455 5.4)")
            }
        }
        return nil
    }

    /// The violation of a text message that is not UTF-8 (RFC 6455 8.1), checked on the whole
    /// message: a character may be split between fragments.
    public static func checkText(_ payload: ByteBuffer) -> ProtocolViolation? {
        if String(validating: payload.readableBytesView, as: UTF8.self) != nil { return nil }
        return ProtocolViolation(code: .dataInconsistentWithMessage, reason: "text message is not UTF-8 (RFC 6455 8.1)")
    }
}

extension WebSocketErrorCode {
    /// The code's number on the wire.
    public static func number(_ code: WebSocketErrorCode) -> UInt16 {
        var buffer = ByteBuffer()
        buffer.write(webSocketErrorCode: code)
        return buffer.readInteger(as: UInt16.self) ?? 0
    }
}

/// Passes a browser's frames on until one breaks a rule of `ProtocolViolation.check`; then reports
/// the violation as an error (the relay closes with its code) and drops everything after it.
/// Sits between NIO's frame decoder and the fragment aggregator, where the frames are still as sent.
final class BrowserFrameValidator: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias InboundOut = WebSocketFrame

    private var broken = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !broken else { return }
        if let violation = ProtocolViolation.check(unwrapInboundIn(data)) {
            broken = true
            context.fireErrorCaught(violation)
            return
        }
        context.fireChannelRead(data)
    }
}

/// Closes connections that stay silent: an HTTP connection (a keep-alive one, or one that never sent
/// a request) after `timeout` without a byte; a WebSocket is pinged after `timeout` without a frame
/// and closed when another `timeout` passes without one (a half-open connection, a suspended laptop).
/// Browsers answer pings by themselves, so an open page that only listens stays connected.
///
/// Any inbound data counts as life. The timers run on the channel's event loop (virtual time in tests).
final class IdleTimeout: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    /// What silence leads to.
    enum Kind {
        /// Close the connection (HTTP).
        case close
        /// Ping first, close if the silence lasts (WebSocket; the handler sits after the frame encoder).
        case pingThenClose
    }

    /// Reported through the pipeline before a WebSocket is closed, so the relay can name the cause.
    struct TimedOut: Error, CustomStringConvertible {
        let silence: TimeAmount
        var description: String {
            "no answer to a ping for \(silence.nanoseconds / 1_000_000_000) s (idle or half-open connection)"
        }
    }

    /// The pipeline name of the HTTP-phase handler, removed when the connection becomes a WebSocket.
    static let httpName = "bridge-http-idle"

    private let kind: Kind
    private let timeout: TimeAmount
    private var timer: Scheduled<Void>?
    private var sawData = false
    private var pinged = false

    init(kind: Kind, timeout: TimeAmount) {
        self.kind = kind
        self.timeout = timeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { arm(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        arm(context: context)
        context.fireChannelActive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        sawData = true
        context.fireChannelRead(data)
    }

    private func arm(context: ChannelHandlerContext) {
        timer?.cancel()
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleTask(in: timeout) {
            let (handler, context) = loopBound.value
            handler.expired(context: context)
        }
    }

    private func expired(context: ChannelHandlerContext) {
        timer = nil
        guard context.channel.isActive else { return }
        if sawData {
            sawData = false
            pinged = false
            arm(context: context)
            return
        }
        switch kind {
        case .close:
            context.close(promise: nil)
        case .pingThenClose where !pinged:
            pinged = true
            let ping = WebSocketFrame(fin: true, opcode: .ping, data: ByteBuffer(string: "multitouchctl bridge"))
            context.writeAndFlush(NIOAny(ping), promise: nil)
            arm(context: context)
        case .pingThenClose:
            let timedOut = TimedOut(silence: timeout)
            context.fireErrorCaught(timedOut)
            let close = DaemonRelay.closeFrame(.goingAway, reason: timedOut.description)
            // At once, not after the write completes: a half-open peer's full buffer would hold it forever.
            context.writeAndFlush(NIOAny(close), promise: nil)
            context.close(promise: nil)
        }
    }
}
