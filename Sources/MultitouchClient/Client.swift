import SystemCalls
@_exported import TouchVocabulary
@_exported import WireProtocol

#if canImport(Glibc)
import Glibc
#endif

/// A connection to multitouchd's Unix socket (docs/PROTOCOL.md), speaking the protocol through the
/// `WireProtocol` types the daemon itself uses: requests are `ClientRequest`s, everything the daemon
/// sends arrives as a typed `Message` (phases, modes and streams are enums).
///
/// Requests are sent with `subscribe`, `ping`, `requestStats`, `resetTransform`, `setTransform` or
/// `send(_:)`; everything the daemon sends, replies included, arrives in order through `nextMessage()`
/// (blocking) or the `messages` async sequence (one reader thread). Use one of the two, not both.
/// Sending is safe from any thread.
public final class MultitouchClient: @unchecked Sendable {
    /// The daemon's default socket.
    public static let defaultSocketPath = "/run/multitouchd/multitouchd.sock"

    private let fd: Int32
    private let writeLock = Lock()
    /// Splits the daemon's stream into lines: WireProtocol's framer, the one the daemon reads requests
    /// with. No length limit: the daemon is trusted to send lines it can also encode.
    private var framer = LineFramer()
    /// Complete lines from the last read not yet returned, from `pendingStart` on.
    private var pending: [[UInt8]] = []
    private var pendingStart = 0
    private var closed = false
    /// Messages of a type this version of the protocol does not know (a newer daemon's), skipped by
    /// `nextMessage()` as the protocol asks of clients.
    public private(set) var skippedUnknownMessages = 0

    /// A connection failure: the call and errno.
    public struct ConnectionError: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    /// Connects to the daemon's socket.
    /// - Throws: `ConnectionError` when the socket does not exist, refuses or is not accessible.
    public init(path: String = MultitouchClient.defaultSocketPath) throws {
        guard let address = Sys.unixAddress(path) else {
            throw ConnectionError(description: "socket path too long: \(path)")
        }
        let fd: Int32
        do {
            fd = try Sys.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue))
        } catch {
            throw ConnectionError(description: "socket: \(error.reason)")
        }
        do {
            try Sys.connect(fd, to: address, path)
        } catch {
            Sys.close(fd)
            throw ConnectionError(description: "cannot connect to \(path): \(error.reason)")
        }
        self.fd = fd
    }

    /// Takes over a connected stream socket (tests use one end of a socket pair).
    public init(connectedSocket fd: Int32) {
        self.fd = fd
    }

    deinit { if !closed { Sys.close(fd) } }

    /// Closes the connection; a blocked `nextMessage()` returns nil.
    public func close() {
        writeLock.lock()
        defer { writeLock.unlock() }
        guard !closed else { return }
        closed = true
        // A peer that is already gone (ENOTCONN) leaves nothing to shut down.
        try? Sys.shutdown(fd, Int32(SHUT_RDWR))
    }

    // MARK: Requests

    /// Sends one request (one line).
    public func send(_ request: ClientRequest) throws {
        try sendLine(Array(request.jsonLine().utf8))
    }

    /// Sends raw bytes followed by a newline (for tests of the daemon's input handling).
    public func sendLine(_ bytes: [UInt8]) throws {
        var line = bytes
        line.append(0x0A)
        writeLock.lock()
        defer { writeLock.unlock() }
        do {
            try Sys.sendAll(fd, line, flags: Int32(MSG_NOSIGNAL))
        } catch {
            throw ConnectionError(description: "send: \(error.reason)")
        }
    }

    /// Starts streaming `streams` (nil: all) of `devices` (nil: all).
    /// `predictMilliseconds` (0-50) asks for each live touch's `predicted` position and each gesture
    /// update's `predictedMatrix` that far ahead (docs/PREDICTION.md; one horizon per daemon at a time).
    /// `frameAligned` holds the touches and gestures until each `frame(at:)`: one resampled `touches`
    /// message per display frame, the raw samples in `TouchPoint.coalesced`.
    public func subscribe(
        streams: Set<MessageStream>? = nil, devices: [Int]? = nil, id: RequestID? = nil,
        predictMilliseconds: Int? = nil,
        frameAligned: Bool = false
    ) throws {
        try send(
            ClientRequest(
                .subscribe(streams: streams, devices: devices.map { .ids(Set($0)) }), id: id,
                predictMilliseconds: predictMilliseconds, frameAligned: frameAligned))
    }

    /// Asks for the display frame at `time` (CLOCK_MONOTONIC, the messages' clock) of a frame-aligned
    /// subscription; its messages arrive as messages.
    public func frame(at time: Timestamp) throws { try send(ClientRequest(.frame(time: time))) }

    /// Stops streaming (replies still come).
    public func unsubscribe(id: RequestID? = nil) throws { try send(ClientRequest(.unsubscribe, id: id)) }

    /// Asks for a `pong` with the same id.
    public func ping(id: RequestID) throws { try send(ClientRequest(.ping, id: id)) }

    /// Asks for a `stats` reply.
    public func requestStats(id: RequestID? = nil) throws { try send(ClientRequest(.stats, id: id)) }

    /// Resets a device's cumulative transform to identity.
    public func resetTransform(device: Int, id: RequestID? = nil) throws {
        try send(ClientRequest(.resetTransform(device: device), id: id))
    }

    /// Sets a device's cumulative transform (x' = a*x + c*y + tx, y' = b*x + d*y + ty).
    public func setTransform(device: Int, matrix: TouchVocabulary.AffineTransform, id: RequestID? = nil) throws {
        try send(ClientRequest(.setTransform(device: device, matrix: matrix), id: id))
    }

    /// Replaces this connection's regions on `device` (empty: the whole device again); the daemon
    /// answers with `regions` (the ids in force) or an error (docs/PROTOCOL.md "Touch routing"). Check
    /// `HelloMessage.features` for `ProtocolFeature.regions` first: an older daemon answers
    /// `unknown-type`.
    public func declareRegions(device: Int, _ regions: [Region], id: RequestID? = nil) throws {
        try send(ClientRequest(.declareRegions(device: device, regions: regions), id: id))
    }

    /// Adds or replaces (by id) some of this connection's regions on `device` and removes others,
    /// atomically; answered like `declareRegions`.
    public func updateRegions(
        device: Int, _ regions: [Region] = [], remove: [String] = [], id: RequestID? = nil
    )
        throws
    {
        try send(ClientRequest(.updateRegions(device: device, regions: regions, remove: remove), id: id))
    }

    /// Asks who owns which area of `device`: answered with `regionList` (every region for root, this
    /// client's own for anyone else).
    public func listRegions(device: Int, id: RequestID? = nil) throws {
        try send(ClientRequest(.listRegions(device: device), id: id))
    }

    /// Tells the daemon this client's own recogniser recognised a gesture in its region: the region's
    /// options take effect (cancel its raw touches, claim them from observers). Answered with
    /// `recognized`, or an error for a region the client does not have there.
    public func recognized(device: Int, region: String, id: RequestID? = nil) throws {
        try send(ClientRequest(.recognized(device: device, region: region), id: id))
    }

    /// Sets (`matrix`) or resets (nil) the cumulative transform of one of this client's regions'
    /// gesture session; answered with `transform` carrying the region.
    public func setTransform(
        device: Int, region: String, matrix: TouchVocabulary.AffineTransform?, id: RequestID? = nil
    )
        throws
    {
        try send(ClientRequest(.setRegionTransform(device: device, region: region, matrix: matrix), id: id))
    }

    // MARK: Receiving

    /// Makes `nextLine()`/`nextMessage()` throw instead of waiting longer than `seconds` for data
    /// (SO_RCVTIMEO); 0 waits forever (the default).
    public func setReceiveTimeout(seconds: Double) throws {
        let value = timeval(tv_sec: Int(seconds), tv_usec: Int((seconds - seconds.rounded(.down)) * 1_000_000))
        do {
            try Sys.setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, value, name: "SO_RCVTIMEO")
        } catch {
            throw ConnectionError(description: "setsockopt(SO_RCVTIMEO): \(error.reason)")
        }
    }

    /// The next line from the daemon (without newline), blocking; nil at end of connection.
    public func nextLine() throws -> String? {
        guard let line = try nextLineBytes() else { return nil }
        return String(decoding: line, as: UTF8.self)
    }

    /// The next line's bytes (without newline; empty lines are skipped and a `\r` before the newline is
    /// dropped, as `LineFramer` does), blocking; nil at end of connection.
    private func nextLineBytes() throws -> [UInt8]? {
        while true {
            if pendingStart < pending.count {
                pendingStart += 1
                return pending[pendingStart - 1]
            }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n: Int
            do {
                n = try Sys.read(fd, into: &chunk)
            } catch {
                if error.errno == ECONNRESET { return nil }
                if error.wouldBlock { throw ConnectionError(description: "read: timed out waiting for the daemon") }
                throw ConnectionError(description: "read: \(error.reason)")
            }
            if n == 0 { return nil }
            switch framer.append(chunk[0..<n], maximumLineBytes: .max) {
            case .lines(let lines):
                pending = lines
                pendingStart = 0
            case .lineTooLong:
                // Unreachable with no limit; kept so the switch stays exhaustive.
                throw ConnectionError(description: "read: a line from the daemon is too long")
            }
        }
    }

    /// The next message, typed, blocking; nil at end of connection. Messages of a type this version
    /// does not know are skipped (and counted in `skippedUnknownMessages`).
    /// - Throws: `ConnectionError`, or `MessageDecodingError.invalid` for a line that is not a valid
    ///   message.
    public func nextMessage() throws -> Message? {
        while let line = try nextLineBytes() {
            do throws(MessageDecodingError) {
                return try Message(decoding: line)
            } catch {
                switch error {
                case .unknownType: skippedUnknownMessages += 1
                case .invalid: throw error
                }
            }
        }
        return nil
    }

    /// Every message from now on, read on a dedicated thread. The sequence ends when the daemon closes
    /// the connection (or `close()` is called) and throws on a read or decoding error.
    public var messages: AsyncThrowingStream<Message, any Error> {
        AsyncThrowingStream { continuation in
            do {
                try Sys.startThread { [self] in
                    do {
                        while let message = try nextMessage() { continuation.yield(message) }
                        continuation.finish()
                    } catch {
                        continuation.finish(throwing: error)
                    }
                }
            } catch {
                continuation.finish(throwing: error)
            }
        }
    }
}
