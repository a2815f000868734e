import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket
import Synchronization
import Testing

@testable import WebBridge

#if canImport(Glibc)
import Foundation
import Glibc
#endif

/// A stand-in for multitouchd on a Unix socket: greets each connection with a line, records what
/// every connection sends and when it closes, and sends lines on request. The bridge must not care
/// what the lines say, so a fake is enough (and lets a test see each daemon-side connection).
final class FakeDaemon: Sendable {
    /// What happened on the daemon side, in order.
    enum Event: Sendable, Equatable {
        case connected(Int)
        case line(Int, String)
        case closed(Int)
    }

    let path: String
    let events: AsyncStream<Event>
    private let continuation: AsyncStream<Event>.Continuation
    private let writers = WriterTable()
    private let task: Task<Void, any Error>

    /// Listens on a fresh socket path; each connection first gets `greeting` (plus `\n`).
    init(greeting: String = #"{"type":"hello","protocol":1}"#) async throws {
        let directory = FakeDaemon.makeDirectory()
        path = directory + "/fake.sock"
        (events, continuation) = AsyncStream.makeStream(of: Event.self)
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(unixDomainSocketPath: path, cleanupExistingSocketFile: true) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        ByteToMessageHandler(LineFrameDecoder(maximumLineBytes: 1 << 20)))
                    return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        let continuation = continuation
        let writers = writers
        task = Task {
            try await withThrowingDiscardingTaskGroup { group in
                try await server.executeThenClose { connections in
                    var next = 0
                    for try await connection in connections {
                        next += 1
                        let id = next
                        group.addTask {
                            try? await connection.executeThenClose { inbound, outbound in
                                writers.withLock {
                                    $0[id] = WriterTable.Entry(writer: outbound, channel: connection.channel)
                                }
                                continuation.yield(.connected(id))
                                try await outbound.write(ByteBuffer(string: greeting + "\n"))
                                for try await line in inbound {
                                    continuation.yield(.line(id, String(buffer: line)))
                                }
                            }
                            writers.withLock { _ = $0.removeValue(forKey: id) }
                            continuation.yield(.closed(id))
                        }
                    }
                }
            }
        }
    }

    /// Sends `line` (plus `\n`) on daemon-side connection `id`.
    func send(_ line: String, to id: Int) async throws {
        let entry = writers.withLock { $0[id] }
        try #require(entry != nil, "no daemon-side connection \(id)")
        try await entry?.writer.write(ByteBuffer(string: line + "\n"))
    }

    /// Closes daemon-side connection `id` (as the daemon does after a fatal error).
    func disconnect(_ id: Int) async {
        let entry = writers.withLock { $0.removeValue(forKey: id) }
        // Through the event loop after the writes already queued, so the last line goes out first.
        _ = try? await entry?.channel.eventLoop.submit {}.get()
        try? await entry?.channel.close()
    }

    /// Stops listening and closes every connection.
    func stop() {
        task.cancel()
        continuation.finish()
    }

    static func makeDirectory() -> String {
        var template = Array("/tmp/mtd-bridge-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        return made.map { String(cString: $0) } ?? "/tmp"
    }
}

/// The fake daemon's open connections' writers, by connection number.
final class WriterTable: Sendable {
    /// One daemon-side connection: its writer, and its channel (to close it).
    struct Entry: Sendable {
        let writer: NIOAsyncChannelOutboundWriter<ByteBuffer>
        let channel: any Channel
    }

    private let table = Mutex<[Int: Entry]>([:])

    func withLock<T: Sendable>(_ body: (inout [Int: Entry]) -> T) -> T {
        table.withLock { body(&$0) }
    }
}

/// A bridge on 127.0.0.1 with a kernel-chosen port, running until `stop`.
struct RunningBridge {
    let bridge: WebBridge
    let task: Task<Void, any Error>
    var port: Int { bridge.address.port }

    var token: String { bridge.configuration.token.value }

    init(
        socketPath: String, allowedOrigins: [String] = [], maximumMessageBytes: Int = 1 << 20,
        maximumBrowsers: Int = 8, idleTimeout: TimeAmount = .seconds(30), maximumConnections: Int? = nil
    ) async throws {
        var configuration = BridgeConfiguration(
            listen: try ListenAddress(parsing: "127.0.0.1:0"), socketPath: socketPath, allowedOrigins: allowedOrigins,
            maximumMessageBytes: maximumMessageBytes, maximumBrowsers: maximumBrowsers, idleTimeout: idleTimeout)
        if let maximumConnections { configuration.maximumConnections = maximumConnections }
        bridge = try await WebBridge.bind(configuration)
        let bridge = bridge
        task = Task { try await bridge.run() }
    }

    func stop() { task.cancel() }
}

/// A browser stand-in: a NIO WebSocket client with chosen `Host` and `Origin` headers.
final class TestBrowser {
    enum Upgrade {
        case webSocket(TestBrowser)
        case refused
    }

    /// What a read returned: a text message, or the close frame's code and reason.
    enum Received: Equatable {
        case text(String)
        case close(UInt16, String)
        case ended
    }

    let channel: NIOAsyncChannel<WebSocketFrame, WebSocketFrame>

    init(channel: NIOAsyncChannel<WebSocketFrame, WebSocketFrame>) { self.channel = channel }

    // A test may end with the connection still open; NIO traps on a writer dropped unfinished.
    deinit { channel.outbound.finish() }

    /// Connects to `bridge` with its token (in the query).
    static func connect(
        to bridge: RunningBridge, origin: String? = nil, host: String? = nil
    ) async throws
        -> TestBrowser
    {
        try await connect(port: bridge.port, origin: origin, host: host, uri: "/ws?token=\(bridge.token)")
    }

    static func connect(
        port: Int, origin: String? = nil, host: String? = nil, uri: String
    ) async throws
        -> TestBrowser
    {
        let upgrade = try await attempt(port: port, origin: origin, host: host, uri: uri)
        guard case .webSocket(let browser) = upgrade else {
            throw TestFailure(description: "the bridge refused the WebSocket upgrade")
        }
        return browser
    }

    static func attempt(
        port: Int, origin: String?, host: String? = nil, uri: String, cookie: String? = nil
    ) async throws -> Upgrade {
        var request = "GET \(uri) HTTP/1.1\r\nHost: \(host ?? "127.0.0.1:\(port)")\r\nConnection: Upgrade\r\n"
        request += "Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
        if let origin { request += "Origin: \(origin)\r\n" }
        if let cookie { request += "Cookie: \(cookie)\r\n" }
        request += "\r\n"
        let (channel, handshake) = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    let handshake = RawUpgradeHandler(request: request, promise: channel.eventLoop.makePromise())
                    try channel.pipeline.syncOperations.addHandlers([
                        handshake, ByteToMessageHandler(WebSocketFrameDecoder(maxFrameSize: 1 << 21)),
                        WebSocketFrameEncoder(),
                    ])
                    let webSocket = try NIOAsyncChannel<WebSocketFrame, WebSocketFrame>(
                        wrappingChannelSynchronously: channel)
                    return (webSocket, handshake.promise.futureResult)
                }
            }
        let browser = TestBrowser(channel: channel)
        guard try await handshake.get() else {
            try? await channel.channel.close()
            return .refused
        }
        return .webSocket(browser)
    }

    /// Sends a text message (masked, as browsers must).
    func send(_ text: String) async throws {
        try await channel.channel.writeAndFlush(
            WebSocketFrame(fin: true, opcode: .text, maskKey: .random(), data: ByteBuffer(string: text)))
    }

    /// Sends a binary message.
    func sendBinary(_ bytes: [UInt8]) async throws {
        try await channel.channel.writeAndFlush(
            WebSocketFrame(fin: true, opcode: .binary, maskKey: .random(), data: ByteBuffer(bytes: bytes)))
    }

    /// Drops the TCP connection without a close frame (a tab killed, a laptop lid shut).
    func drop() async throws {
        try await channel.channel.close()
    }
}

/// Reads frames one at a time from a browser's channel.
struct FrameReader {
    var iterator: NIOAsyncChannelInboundStream<WebSocketFrame>.AsyncIterator
    /// Kept so the connection lives as long as its reader.
    let browser: TestBrowser

    init(_ browser: TestBrowser) {
        iterator = browser.channel.inbound.makeAsyncIterator()
        self.browser = browser
    }

    mutating func next() async throws -> TestBrowser.Received {
        while let frame = try await iterator.next() {
            switch frame.opcode {
            case .text:
                return .text(String(buffer: frame.unmaskedData))
            case .connectionClose:
                var data = frame.unmaskedData
                let code = data.readInteger(as: UInt16.self) ?? 0
                // The bridge closes the TCP connection after its close frame; wait for that, so the
                // channel's writer is finished before the test drops it (NIO traps otherwise).
                while (try? await iterator.next()) ?? nil != nil {}
                return .close(code, String(buffer: data))
            default:
                continue
            }
        }
        return .ended
    }
}

/// A harness failure with a message.
struct TestFailure: Error, CustomStringConvertible {
    let description: String
}

/// Sends one raw HTTP request and returns everything the bridge answered. The blocking socket calls run
/// on a thread of their own: the bridge serves connections on Swift's cooperative pool, which has one
/// thread per core, and a test that blocked one of them (while other suites block the rest) starved
/// the very server it was waiting for.
func rawHTTP(port: Int, _ request: String) async throws -> String {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread { continuation.resume(with: Result { try blockingRawHTTP(port: port, request) }) }
        thread.start()
    }
}

private func blockingRawHTTP(port: Int, _ request: String) throws -> String {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw TestFailure(description: "socket failed") }
    defer { close(fd) }
    var timeout = timeval(tv_sec: 10, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    guard connected == 0 else { throw TestFailure(description: "connect failed: errno \(errno)") }
    let bytes = Array(request.utf8)
    _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
    var received: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let n = recv(fd, &buffer, buffer.count, 0)
        if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
            // A backstop, not a measurement: a bridge that never closes must fail, not pass as "closed".
            throw TestFailure(description: "the bridge neither answered nor closed within 10 s")
        }
        if n <= 0 { break }
        received += buffer[0..<n]
    }
    return String(decoding: received, as: UTF8.self)
}

/// The client side of the WebSocket handshake, written by hand: NIO's client upgrader loses bytes
/// that arrive in the same read as the 101 response (the daemon's hello, a close frame), which a busy
/// machine makes likely. This handler sends the request, swallows the response head, reports whether
/// it was 101, and hands every byte after it to the frame decoder behind it.
final class RawUpgradeHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    let promise: EventLoopPromise<Bool>
    private let request: String
    private var head = ByteBuffer()
    private var upgraded: Bool?

    init(request: String, promise: EventLoopPromise<Bool>) {
        self.request = request
        self.promise = promise
    }

    func channelActive(context: ChannelHandlerContext) {
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: request)), promise: nil)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if upgraded == true {
            context.fireChannelRead(data)
            return
        }
        guard upgraded == nil else { return }  // a refusal's body
        var bytes = unwrapInboundIn(data)
        head.writeBuffer(&bytes)
        let view = head.readableBytesView
        guard let end = view.firstRange(of: Array("\r\n\r\n".utf8)) else { return }
        let status = String(decoding: view[..<end.lowerBound], as: UTF8.self)
        let accepted = status.hasPrefix("HTTP/1.1 101")
        upgraded = accepted
        promise.succeed(accepted)
        if accepted, let rest = head.getSlice(at: end.upperBound, length: view.endIndex - end.upperBound),
            rest.readableBytes > 0
        {
            context.fireChannelRead(wrapInboundOut(rest))
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if upgraded == nil { promise.succeed(false) }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if upgraded == nil {
            upgraded = false
            promise.fail(error)
        }
        context.fireErrorCaught(error)
    }
}

/// A TCP connection to 127.0.0.1:`port` that sends nothing (a blocking socket; close it with `close`).
func openSilentConnection(port: Int) throws -> Int32 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw TestFailure(description: "socket failed") }
    var timeout = timeval(tv_sec: 10, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    guard connected == 0 else {
        close(fd)
        throw TestFailure(description: "connect failed: errno \(errno)")
    }
    return fd
}

/// Waits (on a thread of its own) until the server closes one of `fds` and returns it; nil when
/// none is closed within the 10 s backstop.
func firstClosedByServer(_ fds: [Int32]) async -> Int32? {
    await withCheckedContinuation { (continuation: CheckedContinuation<Int32?, Never>) in
        let thread = Thread {
            var polled = fds.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            guard poll(&polled, nfds_t(polled.count), 10_000) > 0 else {
                continuation.resume(returning: Int32?.none)
                return
            }
            for entry in polled where entry.revents != 0 {
                var byte: UInt8 = 0
                if recv(entry.fd, &byte, 1, Int32(MSG_DONTWAIT)) == 0 {
                    continuation.resume(returning: Int32?.some(entry.fd))
                    return
                }
            }
            continuation.resume(returning: Int32?.none)
        }
        thread.start()
    }
}
