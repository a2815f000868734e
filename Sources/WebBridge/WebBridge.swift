import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket
import SystemCalls

#if canImport(Glibc)
import Glibc
#endif

/// What a bridge serves and where: the `multitouchctl bridge` and `view` options.
public struct BridgeConfiguration: Sendable {
    /// Where browsers connect.
    public var listen: ListenAddress
    /// Listen on a non-loopback address (`--allow-remote`). Off: such an address is refused.
    public var allowRemote: Bool
    /// The daemon's Unix socket; each browser connection gets its own connection to it.
    public var socketPath: String
    /// Which pages may open a WebSocket.
    public var originPolicy: OriginPolicy
    /// The longest message accepted in either direction (a browser's request, a daemon line).
    public var maximumMessageBytes: Int
    /// The secret a WebSocket request must carry (query `token=` or the bridge's cookie).
    public var token: BridgeToken
    /// How many browsers are relayed at once (`--max-connections`): each holds one of the bridge
    /// user's daemon connections, which the daemon limits per user (`max_clients_per_user`, 16).
    public var maximumBrowsers: Int
    /// Silence after which an HTTP connection is closed, or a WebSocket pinged (and closed after as
    /// much again without an answer).
    public var idleTimeout: TimeAmount

    /// TCP connections held at once (pages, WebSockets, handshakes): the rest of the descriptor
    /// limit after the browsers' daemon connections and a reserve, so accept never fails for lack
    /// of descriptors. Connections beyond it are closed on arrival.
    public var maximumConnections: Int

    /// The connection budget that fits the process's descriptor limit (`RLIMIT_NOFILE`): 32 kept
    /// for the process's own files, one per browser for its daemon connection; at most 256.
    public static func connectionBudget(maximumBrowsers: Int) -> Int {
        // Unlimited counts as the most a process gets; unknown as the usual soft limit.
        let descriptors: Int
        switch Result(catching: { () throws(SystemError) in try Sys.descriptorLimit() }) {
        case .success(let limit): descriptors = limit ?? Int.max
        case .failure: descriptors = 1024
        }
        return max(1, min(256, descriptors - 32 - maximumBrowsers))
    }

    /// The default `maximumBrowsers`: half the daemon's default per-user limit, so a user's own
    /// local clients keep slots however many pages are open.
    public static let defaultMaximumBrowsers = 8

    /// A configuration; the origin policy requires a loopback Host whenever `listen` is loopback.
    public init(
        listen: ListenAddress, socketPath: String, allowRemote: Bool = false, allowedOrigins: [String] = [],
        maximumMessageBytes: Int = 1 << 20, token: BridgeToken = .random(),
        maximumBrowsers: Int = defaultMaximumBrowsers, idleTimeout: TimeAmount = .seconds(30)
    ) {
        self.listen = listen
        self.socketPath = socketPath
        self.allowRemote = allowRemote
        self.originPolicy = OriginPolicy(allowedOrigins: allowedOrigins, requireLoopbackHost: listen.isLoopback)
        self.maximumMessageBytes = maximumMessageBytes
        self.token = token
        self.maximumBrowsers = maximumBrowsers
        self.idleTimeout = idleTimeout
        self.maximumConnections = Self.connectionBudget(maximumBrowsers: maximumBrowsers)
    }
}

/// Why a bridge could not start.
public struct BridgeError: Error, CustomStringConvertible {
    /// The message, naming what to change.
    public let description: String
}

/// The WebSocket bridge: serves the browser pages over HTTP and relays the daemon's protocol between
/// each browser (a WebSocket at `/ws`) and its own connection to the daemon's Unix socket.
///
/// The bridge does not parse the protocol: every daemon line becomes one text message and every text
/// message one request line, so the protocol can change without the bridge changing. Backpressure is
/// end to end: a browser that reads slowly stops the bridge reading that daemon connection, and the
/// daemon then coalesces and reports drops for it exactly as for a slow local client
/// (docs/PROTOCOL.md, "Backpressure").
///
/// Use: `bind` (throws when the address is refused or taken), read `address` for the port a `:0`
/// listen got, then `run` until the task is cancelled. Safe to use from any task.
public final class WebBridge: Sendable {
    /// The result of one accepted TCP connection's HTTP negotiation.
    enum Connection: Sendable {
        /// A WebSocket at `/ws`, accepted by the origin policy.
        case webSocket(NIOAsyncChannel<WebSocketFrame, WebSocketFrame>)
        /// A WebSocket the bridge will not serve (wrong path, refused origin or host): it gets a close
        /// frame with code 1008 and the reason, and no daemon connection is made. (Declining the
        /// upgrade instead would leave the client without any answer.)
        case refusedWebSocket(NIOAsyncChannel<WebSocketFrame, WebSocketFrame>, String)
        /// A plain HTTP connection: page requests (and refused upgrades, answered with their reason).
        case http(NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>)
        /// Closed on arrival (`CloseOnArrival`): the bridge already holds `maximumConnections` connections.
        case rejected
    }

    /// The configuration it was bound with.
    public let configuration: BridgeConfiguration
    /// The address actually bound (with the kernel's port for `:0`).
    public let address: ListenAddress
    private let listener: NIOAsyncChannel<EventLoopFuture<Connection>, Never>
    private let log: @Sendable (String) -> Void

    private init(
        configuration: BridgeConfiguration, address: ListenAddress,
        listener: NIOAsyncChannel<EventLoopFuture<Connection>, Never>, log: @escaping @Sendable (String) -> Void
    ) {
        self.configuration = configuration
        self.address = address
        self.listener = listener
        self.log = log
    }

    /// Binds the listening socket.
    /// - Parameters:
    ///   - configuration: where to listen and which daemon socket to relay.
    ///   - group: the event loops (the process-wide singleton by default).
    ///   - log: receives one line per connection event (stderr in the CLI).
    /// - Throws: `BridgeError` for a non-loopback address without `allowRemote`, or when binding fails.
    public static func bind(
        _ configuration: BridgeConfiguration, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        log: @escaping @Sendable (String) -> Void = { _ in }
    ) async throws -> WebBridge {
        guard configuration.listen.isLoopback || configuration.allowRemote else {
            throw BridgeError(
                description:
                    "refusing to listen on \(configuration.listen): not a loopback address. Anyone who can reach it could read the touches and set the transform; pass --allow-remote to do it anyway"
            )
        }
        let listener: NIOAsyncChannel<EventLoopFuture<Connection>, Never>
        let browsers = Budget(limit: configuration.maximumBrowsers)
        let connections = Budget(limit: configuration.maximumConnections)
        do {
            listener = try await ServerBootstrap(group: group)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .bind(host: configuration.listen.host, port: configuration.listen.port) { channel in
                    // Over the connection budget a socket is closed at once, so the bridge never
                    // runs out of descriptors: at EMFILE the listening socket stays readable and
                    // NIO's accept loop spun (80 % CPU) while serving no one.
                    guard connections.take() else {
                        return channel.eventLoop.makeCompletedFuture {
                            try channel.pipeline.syncOperations.addHandler(CloseOnArrival())
                            return channel.eventLoop.makeSucceededFuture(.rejected)
                        }
                    }
                    channel.closeFuture.whenComplete { _ in connections.give() }
                    return channel.eventLoop.makeCompletedFuture {
                        try Self.configureConnection(
                            channel, configuration: configuration, browsers: browsers, log: log)
                    }
                }
        } catch {
            throw BridgeError(description: "cannot listen on \(configuration.listen): \(error)")
        }
        let port = listener.channel.localAddress?.port ?? configuration.listen.port
        let address = try ListenAddress(parsing: ListenAddress.format(host: configuration.listen.host, port: port))
        return WebBridge(configuration: configuration, address: address, listener: listener, log: log)
    }

    /// Serves connections until the calling task is cancelled (which also closes every connection).
    public func run() async throws {
        try await withThrowingDiscardingTaskGroup { group in
            try await listener.executeThenClose { connections in
                for try await negotiated in connections {
                    group.addTask { await self.serve(negotiated) }
                }
            }
        }
    }

    /// The HTTP pipeline with the WebSocket upgrader for one accepted connection.
    private static func configureConnection(
        _ channel: any Channel, configuration: BridgeConfiguration, browsers: Budget,
        log: @escaping @Sendable (String) -> Void
    ) throws -> EventLoopFuture<Connection> {
        let maximum = configuration.maximumMessageBytes
        let upgrader = NIOTypedWebSocketServerUpgrader<Connection>(
            maxFrameSize: maximum,
            shouldUpgrade: { channel, _ in channel.eventLoop.makeSucceededFuture(HTTPHeaders()) },
            upgradePipelineHandler: { channel, head in
                channel.eventLoop.makeCompletedFuture {
                    let operations = channel.pipeline.syncOperations
                    // The HTTP handlers of ours go too; the idle timer gives way to the ping timer.
                    operations.removeHandler(name: IdleTimeout.httpName, promise: nil)
                    operations.removeHandler(name: AdmissionGate.name, promise: nil)
                    try ProtocolViolation.addBrowserFrameHandlers(to: operations, maximumMessageBytes: maximum)
                    try operations.addHandler(IdleTimeout(kind: .pingThenClose, timeout: configuration.idleTimeout))
                    let webSocket = try NIOAsyncChannel<WebSocketFrame, WebSocketFrame>(
                        wrappingChannelSynchronously: channel)
                    let path = HTTPRoutes.path(of: head.uri)
                    guard path == HTTPRoutes.webSocketPath else {
                        return .refusedWebSocket(webSocket, "no WebSocket at \(path); use \(HTTPRoutes.webSocketPath)")
                    }
                    switch configuration.originPolicy.decide(
                        host: head.headers.first(name: "host"), origin: head.headers.first(name: "origin"))
                    {
                    case .accept: return .webSocket(webSocket)
                    case .refuse(let reason): return .refusedWebSocket(webSocket, reason)
                    }
                }
            })
        let upgrade = NIOTypedHTTPServerUpgradeConfiguration<Connection>(
            upgraders: [upgrader],
            notUpgradingCompletionHandler: { channel in
                channel.eventLoop.makeCompletedFuture {
                    Connection.http(
                        try NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>(
                            wrappingChannelSynchronously: channel))
                }
            })
        try channel.pipeline.syncOperations.addHandler(
            IdleTimeout(kind: .close, timeout: configuration.idleTimeout), name: IdleTimeout.httpName)
        let negotiated = try channel.pipeline.syncOperations.configureUpgradableHTTPServerPipeline(
            configuration: .init(upgradeConfiguration: upgrade))
        let upgradeHandler = try channel.pipeline.syncOperations.handler(
            type: NIOTypedHTTPServerUpgradeHandler<Connection>.self)
        try channel.pipeline.syncOperations.addHandler(
            AdmissionGate(token: configuration.token, browsers: browsers, log: log), name: AdmissionGate.name,
            position: .before(upgradeHandler))
        return negotiated
    }

    /// One connection, start to end; errors end only this connection.
    private func serve(_ negotiated: EventLoopFuture<Connection>) async {
        do {
            switch try await negotiated.get() {
            case .webSocket(let browser):
                let peer = browser.channel.remoteAddress.map { "\($0)" } ?? "?"
                log("bridge: browser \(peer) connected; relaying to \(configuration.socketPath)")
                let end = await DaemonRelay.run(browser: browser, configuration: configuration)
                log("bridge: browser \(peer) disconnected (\(end))")
            case .refusedWebSocket(let browser, let reason):
                log("bridge: WebSocket refused: \(reason)")
                try await browser.executeThenClose { _, _ in
                    await DaemonRelay.sendLast(
                        DaemonRelay.closeFrame(.policyViolation, reason: reason), on: browser.channel)
                }
            case .rejected:
                log("bridge: connection closed on arrival: \(configuration.maximumConnections) connections open")
            case .http(let channel):
                try await HTTPRoutes.serve(channel, configuration: configuration)
            }
        } catch {
            if !Self.isOrdinaryEnd(error) { log("bridge: connection error: \(error)") }
        }
    }

    /// A connection closed before it sent a request (a probe, one the idle timeout ended) or reset by
    /// a client that went away: ordinary, and frequent, so not logged.
    static func isOrdinaryEnd(_ error: any Error) -> Bool {
        if let error = error as? ChannelError {
            return error == .inappropriateOperationForState || error == .ioOnClosedChannel || error == .eof
        }
        if let error = error as? IOError { return error.errnoCode == ECONNRESET || error.errnoCode == EPIPE }
        return false
    }
}

extension ListenAddress {
    /// `HOST:PORT`, with an IPv6 host in brackets.
    static func format(host: String, port: Int) -> String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}
