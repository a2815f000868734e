import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A connection to multitouchd's Unix socket (docs/PROTOCOL.md).
///
/// Requests are sent with `subscribe`, `ping`, `requestStats`, `resetTransform` and `setTransform`;
/// everything the daemon sends, replies included, arrives in order through `nextEvent()` (blocking) or
/// the `events` async sequence (one reader thread). Use one of the two, not both. Sending is safe from
/// any thread.
public final class MultitouchClient: @unchecked Sendable {
    /// The daemon's default socket.
    public static let defaultSocketPath = "/run/multitouchd/multitouchd.sock"

    private let fd: Int32
    private let writeLock = NSLock()
    private var buffer: [UInt8] = []
    private var bufferStart = 0
    private var closed = false

    /// A connection failure: the call and errno.
    public struct ConnectionError: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    /// Connects to the daemon's socket.
    /// - Throws: `ConnectionError` when the socket does not exist, refuses or is not accessible.
    public init(path: String = MultitouchClient.defaultSocketPath) throws {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw ConnectionError(description: "socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            Glibc.close(fd)
            throw ConnectionError(description: "socket path too long: \(path)")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes + [0]) }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard result == 0 else {
            let reason = String(cString: strerror(errno))
            Glibc.close(fd)
            throw ConnectionError(description: "cannot connect to \(path): \(reason)")
        }
        self.fd = fd
    }

    deinit { if !closed { Glibc.close(fd) } }

    /// Closes the connection; a blocked `nextEvent()` returns nil.
    public func close() {
        writeLock.lock()
        defer { writeLock.unlock() }
        guard !closed else { return }
        closed = true
        shutdown(fd, Int32(SHUT_RDWR))
    }

    // MARK: Requests

    /// Sends one request object (one line). `fields` must be JSON-serializable.
    public func send(_ fields: [String: Any]) throws {
        let data = try JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys])
        try sendLine(Array(data))
    }

    /// Sends raw bytes followed by a newline (for tests of the daemon's input handling).
    public func sendLine(_ bytes: [UInt8]) throws {
        var line = bytes
        line.append(0x0A)
        writeLock.lock()
        defer { writeLock.unlock() }
        var offset = 0
        while offset < line.count {
            let n = line.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if n < 0 {
                if errno == EINTR { continue }
                throw ConnectionError(description: "send: \(String(cString: strerror(errno)))")
            }
            offset += n
        }
    }

    /// Starts streaming: `streams` among "touches", "gestures", "devices" (nil: all); `devices` ids
    /// (nil: all).
    public func subscribe(streams: [String]? = nil, devices: [Int]? = nil, id: Int? = nil) throws {
        var request: [String: Any] = ["type": "subscribe"]
        if let streams { request["streams"] = streams }
        if let devices { request["devices"] = devices }
        if let id { request["id"] = id }
        try send(request)
    }

    /// Asks for a `pong` with the same id.
    public func ping(id: Int) throws { try send(["type": "ping", "id": id]) }

    /// Asks for a `stats` reply.
    public func requestStats(id: Int? = nil) throws {
        var request: [String: Any] = ["type": "stats"]
        if let id { request["id"] = id }
        try send(request)
    }

    /// Resets a device's cumulative transform to identity.
    public func resetTransform(device: Int) throws { try send(["type": "resetTransform", "device": device]) }

    /// Sets a device's cumulative transform ([a, b, c, d, tx, ty]).
    public func setTransform(device: Int, matrix: [Double]) throws {
        try send(["type": "setTransform", "device": device, "matrix": matrix])
    }

    // MARK: Receiving

    /// Makes `nextLine()`/`nextEvent()` throw instead of waiting longer than `seconds` for data
    /// (SO_RCVTIMEO); 0 waits forever (the default).
    public func setReceiveTimeout(seconds: Double) throws {
        var value = timeval(tv_sec: Int(seconds), tv_usec: Int((seconds - seconds.rounded(.down)) * 1_000_000))
        guard setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &value, socklen_t(MemoryLayout<timeval>.size)) == 0 else {
            throw ConnectionError(description: "setsockopt(SO_RCVTIMEO): \(String(cString: strerror(errno)))")
        }
    }

    /// The next line from the daemon (without newline), blocking; nil at end of connection.
    public func nextLine() throws -> String? {
        while true {
            if let newline = buffer[bufferStart...].firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[bufferStart..<newline], as: UTF8.self)
                bufferStart = newline + 1
                if bufferStart > 65536 {
                    buffer.removeFirst(bufferStart)
                    bufferStart = 0
                }
                return line
            }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                if errno == ECONNRESET { return nil }
                if errno == EAGAIN || errno == EWOULDBLOCK {
                    throw ConnectionError(description: "read: timed out waiting for the daemon")
                }
                throw ConnectionError(description: "read: \(String(cString: strerror(errno)))")
            }
            if n == 0 { return nil }
            buffer.append(contentsOf: chunk[0..<n])
        }
    }

    /// The next message, typed, blocking; nil at end of connection.
    public func nextEvent() throws -> ServerEvent? {
        guard let line = try nextLine() else { return nil }
        return try ServerEvent.decode(line: line)
    }

    /// Every message from now on, read on a dedicated thread. The sequence ends when the daemon closes
    /// the connection (or `close()` is called) and throws on a read or decoding error.
    public var events: AsyncThrowingStream<ServerEvent, any Error> {
        AsyncThrowingStream { continuation in
            let thread = Thread { [self] in
                do {
                    while let event = try nextEvent() { continuation.yield(event) }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            thread.name = "multitouchd-client-reader"
            thread.start()
        }
    }
}
