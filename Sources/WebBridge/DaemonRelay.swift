import NIOCore
import NIOPosix
import NIOWebSocket

/// One browser's WebSocket relayed to its own connection to the daemon, so subscriptions, request ids
/// and queues stay per browser exactly as for a local client.
///
/// Daemon → browser: each protocol line (without its `\n`) is one text message. Browser → daemon: each
/// text message is one request line (a `\n` is added). Nothing is parsed; what the daemon says about a
/// bad request reaches the browser as the daemon's own `error` line.
enum DaemonRelay {
    /// How a relay ended (logged; the browser gets the matching close frame).
    enum End: Sendable, CustomStringConvertible {
        /// The browser sent a close frame or dropped the TCP connection.
        case browserClosed
        /// The daemon closed its side (shut down, or a fatal error it sent as the last line).
        case daemonClosed
        /// The daemon socket could not be reached.
        case daemonUnreachable(String)
        /// The browser sent a binary message, which the text protocol has no use for.
        case browserSentBinary
        /// The browser broke RFC 6455 or sent a message over the size limit.
        case protocolViolation(ProtocolViolation)
        /// The browser answered no ping (idle or half-open connection).
        case timedOut(String)
        /// Something else ended it: an overlong daemon line, an I/O error.
        case failed(String)

        var description: String {
            switch self {
            case .browserClosed: return "browser closed"
            case .daemonClosed: return "daemon closed the connection"
            case .daemonUnreachable(let why): return "daemon unreachable: \(why)"
            case .browserSentBinary: return "the browser sent a binary message"
            case .protocolViolation(let violation): return violation.description
            case .timedOut(let why): return why
            case .failed(let why): return why
            }
        }

        /// The close frame that tells the browser about this ending.
        var closeFrame: WebSocketFrame {
            switch self {
            case .browserClosed: return DaemonRelay.closeFrame(.normalClosure, reason: "")
            case .daemonClosed: return DaemonRelay.closeFrame(.goingAway, reason: "the daemon closed the connection")
            case .daemonUnreachable(let why), .failed(let why):
                return DaemonRelay.closeFrame(.unexpectedServerError, reason: why)
            case .protocolViolation(let violation):
                return DaemonRelay.closeFrame(violation.code, reason: violation.reason)
            case .timedOut(let why):
                return DaemonRelay.closeFrame(.goingAway, reason: why)
            case .browserSentBinary:
                return DaemonRelay.closeFrame(
                    .unacceptableData, reason: "binary messages are not part of the protocol; send JSON as text")
            }
        }
    }

    /// Connects to the daemon and relays until either side ends. Never throws: every ending becomes a
    /// close frame for the browser (with a reason it can show) and an `End` for the log.
    static func run(
        browser: NIOAsyncChannel<WebSocketFrame, WebSocketFrame>, configuration: BridgeConfiguration
    ) async -> End {
        let daemon: NIOAsyncChannel<ByteBuffer, ByteBuffer>
        do {
            daemon = try await ClientBootstrap(group: browser.channel.eventLoop)
                .connect(unixDomainSocketPath: configuration.socketPath) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(
                            ByteToMessageHandler(LineFrameDecoder(maximumLineBytes: configuration.maximumMessageBytes)))
                        return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                    }
                }
        } catch {
            let why = "cannot connect to the daemon at \(configuration.socketPath): \(Self.describe(error))"
            let end = End.daemonUnreachable(why)
            try? await browser.executeThenClose { _, _ in await sendLast(end.closeFrame, on: browser.channel) }
            return end
        }
        do {
            return try await browser.executeThenClose { fromBrowser, toBrowser in
                try await daemon.executeThenClose { fromDaemon, toDaemon in
                    try await withThrowingTaskGroup(of: End.self) { group in
                        group.addTask {
                            do {
                                return try await relayBrowser(fromBrowser, toDaemon: toDaemon, toBrowser: toBrowser)
                            } catch {
                                if let violation = ProtocolViolation.from(error) {
                                    return .protocolViolation(violation)
                                }
                                if let timedOut = error as? IdleTimeout.TimedOut {
                                    return .timedOut(timedOut.description)
                                }
                                throw error
                            }
                        }
                        group.addTask {
                            do {
                                for try await line in fromDaemon {
                                    try await toBrowser.write(WebSocketFrame(fin: true, opcode: .text, data: line))
                                }
                            } catch let error as LineFrameDecoder.LineTooLong {
                                return .failed(error.description)
                            }
                            return .daemonClosed
                        }
                        let end = try await group.next() ?? .browserClosed
                        group.cancelAll()
                        await sendLast(end.closeFrame, on: browser.channel)
                        return end
                    }
                }
            }
        } catch {
            return .failed("relay failed: \(Self.describe(error))")
        }
    }

    /// Browser -> daemon until the browser closes: each text message one request line.
    private static func relayBrowser(
        _ fromBrowser: NIOAsyncChannelInboundStream<WebSocketFrame>,
        toDaemon: NIOAsyncChannelOutboundWriter<ByteBuffer>,
        toBrowser: NIOAsyncChannelOutboundWriter<WebSocketFrame>
    ) async throws -> End {
        for try await frame in fromBrowser {
            switch frame.opcode {
            case .text:
                var line = frame.unmaskedData
                if let violation = ProtocolViolation.checkText(line) { return .protocolViolation(violation) }
                if line.readableBytesView.last != UInt8(ascii: "\n") {
                    line.writeInteger(UInt8(ascii: "\n"))
                }
                try await toDaemon.write(line)
            case .binary:
                return .browserSentBinary
            case .connectionClose:
                return .browserClosed
            case .ping:
                try await toBrowser.write(WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData))
            case .pong, .continuation:
                continue
            default:
                // BrowserFrameValidator stops reserved opcodes before they get here.
                return .protocolViolation(ProtocolViolation(code: .protocolError, reason: "reserved opcode"))
            }
        }
        return .browserClosed
    }

    /// Writes the close frame after every message already handed to the async writer, and returns
    /// once it is in the kernel: `executeThenClose` closes the channel right after, which would drop
    /// writes still queued. The writer hands each write to the event loop with `execute`, so a task
    /// submitted now runs after them, and the close frame queues behind them in the channel.
    static func sendLast(_ frame: WebSocketFrame, on channel: any Channel) async {
        _ = try? await channel.eventLoop.submit {}.get()
        try? await channel.writeAndFlush(frame)
    }

    /// A close frame; the reason is cut to the 123 bytes a control frame allows (RFC 6455 5.5).
    static func closeFrame(_ code: WebSocketErrorCode, reason: String) -> WebSocketFrame {
        var data = ByteBuffer()
        data.write(webSocketErrorCode: code)
        var bytes = 0
        var cut = ""
        for character in reason {
            let size = character.utf8.count
            if bytes + size > 123 { break }
            bytes += size
            cut.append(character)
        }
        data.writeString(cut)
        return WebSocketFrame(fin: true, opcode: .connectionClose, data: data)
    }

    /// An error in one line, without NIO's type names where the errno says it better.
    static func describe(_ error: any Error) -> String {
        if let io = error as? IOError { return io.description }
        return "\(error)"
    }
}
