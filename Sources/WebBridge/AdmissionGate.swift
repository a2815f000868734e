import NIOCore
import NIOHTTP1
import Synchronization

/// Admission of a WebSocket request, before the upgrader sees it. Without the bridge's token the
/// request becomes a plain one, so no socket is made and `HTTPRoutes` answers it in words (401
/// without a token, 403 with a wrong one). With the token it takes a place in the browser budget
/// for the connection's lifetime, or, when none is left, is answered 503 here and closed: a browser
/// beyond `--max-connections` never costs a daemon connection. Sits between the HTTP decoder and
/// the upgrade handler.
final class AdmissionGate: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    /// Its pipeline name, to remove it when the connection becomes a WebSocket.
    static let name = "bridge-admission"

    private let token: BridgeToken
    private let browsers: Budget
    private let log: @Sendable (String) -> Void
    private var refusing = false

    init(token: BridgeToken, browsers: Budget, log: @escaping @Sendable (String) -> Void) {
        self.token = token
        self.browsers = browsers
        self.log = log
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if refusing { return }  // the rest of a refused request
        guard case .head(var head) = unwrapInboundIn(data), head.headers.contains(name: "upgrade") else {
            context.fireChannelRead(data)
            return
        }
        let carried = BridgeToken.carried(uri: head.uri)
        guard token.matches(carried) else {
            head.headers.remove(name: "upgrade")
            head.headers.replaceOrAdd(name: "connection", value: "close")
            context.fireChannelRead(wrapInboundOut(.head(head)))
            return
        }
        guard browsers.take() else {
            refusing = true
            refuse(context: context, version: head.version)
            return
        }
        let browsers = browsers
        context.channel.closeFuture.whenComplete { _ in browsers.give() }
        context.fireChannelRead(data)
    }

    private func refuse(context: ChannelHandlerContext, version: HTTPVersion) {
        let reason =
            "the bridge already relays \(browsers.limit) browsers (--max-connections); close a page or try later"
        log("bridge: browser \(context.channel.remoteAddress.map { "\($0)" } ?? "?") refused: \(reason)")
        let message = "multitouchctl bridge: WebSocket refused: \(reason)\n"
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
        headers.add(name: "Content-Length", value: String(message.utf8.count))
        headers.add(name: "Connection", value: "close")
        headers.add(name: "Retry-After", value: "5")
        context.write(
            wrapOutboundOut(.head(HTTPResponseHead(version: version, status: .serviceUnavailable, headers: headers))),
            promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: message)))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in
            context.close(promise: nil)
        }
    }
}

/// Closes a connection as soon as it is active (it arrived over the connection budget). Closing it
/// from the accept path instead raced its registration and left it open.
final class CloseOnArrival: ChannelInboundHandler {
    typealias InboundIn = NIOAny

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { context.close(promise: nil) }
    }

    func channelActive(context: ChannelHandlerContext) {
        context.close(promise: nil)
    }

    func channelRegistered(context: ChannelHandlerContext) {
        if context.channel.isActive { context.close(promise: nil) }
        context.fireChannelRegistered()
    }
}

/// A count of things in use against a limit, taken and given back from any task.
final class Budget: Sendable {
    private let used = Mutex(0)
    let limit: Int

    init(limit: Int) { self.limit = limit }

    /// Takes one if any is left.
    func take() -> Bool {
        used.withLock { used in
            guard used < limit else { return false }
            used += 1
            return true
        }
    }

    /// Gives one back.
    func give() { used.withLock { $0 -= 1 } }
}
