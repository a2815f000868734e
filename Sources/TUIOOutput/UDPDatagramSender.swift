import Configuration
import Glibc
import SystemCalls

/// Why the TUIO sender could not start (no socket), or a target's name did not resolve.
public struct UDPSenderError: Error, CustomStringConvertible, Sendable {
    public let description: String
}

/// Sends datagrams to a fixed list of UDP targets from one non-blocking, unconnected IPv4 socket.
/// Nothing is queued: a datagram the kernel does not take at once (EAGAIN) is dropped and counted,
/// and a receiver that is gone costs one `sendto` per datagram (an unconnected socket gets no
/// ECONNREFUSED back; a connected one would, and that is counted and ignored too). Owned by one thread.
///
/// Targets written as IPv4 addresses are ready at once. Host names are resolved on a thread of their
/// own (issue 28): getaddrinfo waits for DNS, 10 s and more when no server answers, and the daemon
/// starts the sender on its event loop (at start and on every reload). Until a name has resolved,
/// datagrams for it are counted in `Statistics.unresolved` and not sent.
public final class UDPDatagramSender {
    /// What was sent and what was not, for `stats` and the bench.
    public struct Statistics: Hashable, Sendable {
        public var datagrams: UInt64 = 0
        public var bytes: UInt64 = 0
        /// `sendto` failures (EAGAIN, ECONNREFUSED, EHOSTUNREACH, ...), each datagram dropped.
        public var failures: UInt64 = 0
        public var lastErrno: Int32 = 0
        /// Datagrams not sent because their target's name had not resolved (yet, or ever).
        public var unresolved: UInt64 = 0
    }

    /// How a host name becomes an address: getaddrinfo by default, a stand-in in tests. Called on the
    /// resolver thread, never on the caller's.
    public typealias Resolver = @Sendable (TUIOTarget) -> Result<sockaddr_in, UDPSenderError>

    /// Addresses the resolver thread fills in, read by `send` on the owner's thread.
    private final class Resolved: @unchecked Sendable {
        private let lock = Lock()
        private var addresses: [sockaddr_in?]
        init(_ addresses: [sockaddr_in?]) { self.addresses = addresses }
        func set(_ index: Int, _ address: sockaddr_in) { lock.withLock { addresses[index] = address } }
        var snapshot: [sockaddr_in?] { lock.withLock { addresses } }
    }

    public let targets: [TUIOTarget]
    public private(set) var statistics = Statistics()
    private let fd: Int32
    private let resolved: Resolved

    /// Opens the socket; IPv4 addresses are used at once, host names are resolved by `resolver` on a
    /// thread of its own, which calls `resolvedName` (on that thread) with each outcome.
    /// - Throws: `UDPSenderError` when the socket cannot be made.
    public init(
        targets: [TUIOTarget], resolver: @escaping Resolver = UDPDatagramSender.resolve,
        resolvedName: (@Sendable (TUIOTarget, Result<sockaddr_in, UDPSenderError>) -> Void)? = nil
    ) throws(UDPSenderError) {
        do {
            fd = try Sys.socket(
                AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        } catch {
            throw UDPSenderError(description: "socket(AF_INET, SOCK_DGRAM): \(error.reason)")
        }
        self.targets = targets
        let literal = targets.map(Self.literalAddress)
        resolved = Resolved(literal)
        let names = targets.indices.filter { literal[$0] == nil }
        guard !names.isEmpty else { return }
        let box = resolved
        do {
            try Sys.startThread {
                for index in names {
                    let outcome = resolver(targets[index])
                    if case .success(let address) = outcome { box.set(index, address) }
                    resolvedName?(targets[index], outcome)
                }
            }
        } catch {
            // deinit closes the socket: every property is set by now.
            throw UDPSenderError(description: "cannot start the resolver thread: \(error)")
        }
    }

    deinit { Sys.close(fd) }

    /// The names still being resolved or that failed: datagrams for them are not sent.
    public var unresolvedTargets: [TUIOTarget] {
        zip(targets, resolved.snapshot).compactMap { $1 == nil ? $0 : nil }
    }

    /// Sends one datagram to every target whose address is known; failures are counted, never raised.
    public func send(_ datagram: [UInt8]) {
        for case let address in resolved.snapshot {
            guard let address else {
                statistics.unresolved += 1
                continue
            }
            let sent = datagram.withUnsafeBytes { bytes in
                Result { () throws(SystemError) in
                    try Sys.sendto(fd, bytes, flags: Int32(MSG_DONTWAIT) | Int32(MSG_NOSIGNAL), address: address)
                }
            }
            switch sent {
            case .failure(let error):
                statistics.failures += 1
                statistics.lastErrno = error.errno
            case .success(let count):
                statistics.datagrams += 1
                statistics.bytes += UInt64(count)
            }
        }
    }

    /// The target's address when its host is written as an IPv4 address (no lookup), else nil.
    static func literalAddress(_ target: TUIOTarget) -> sockaddr_in? {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = target.port.bigEndian
        guard inet_pton(AF_INET, target.host, &address.sin_addr) == 1 else { return nil }
        return address
    }

    /// getaddrinfo (IPv4): what the resolver thread runs for a host name. Blocks as long as DNS does.
    @Sendable public static func resolve(_ target: TUIOTarget) -> Result<sockaddr_in, UDPSenderError> {
        Sys.resolveIPv4(host: target.host, port: target.port).mapError {
            UDPSenderError(description: "TUIO target \(target): \($0.reason)")
        }
    }
}
