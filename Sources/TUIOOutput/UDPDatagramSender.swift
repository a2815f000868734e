import Configuration
import Glibc

/// Why the TUIO sender could not start (a target that does not resolve, no socket).
public struct UDPSenderError: Error, CustomStringConvertible {
    public let description: String
}

/// Sends datagrams to a fixed list of UDP targets from one non-blocking, unconnected IPv4 socket.
/// Nothing is queued: a datagram the kernel does not take at once (EAGAIN) is dropped and counted,
/// and a receiver that is gone costs one `sendto` per datagram (an unconnected socket gets no
/// ECONNREFUSED back; a connected one would, and that is counted and ignored too). Owned by one thread.
public final class UDPDatagramSender {
    /// What was sent and what was not, for `stats` and the bench.
    public struct Statistics: Hashable, Sendable {
        public var datagrams: UInt64 = 0
        public var bytes: UInt64 = 0
        /// `sendto` failures (EAGAIN, ECONNREFUSED, EHOSTUNREACH, ...), each datagram dropped.
        public var failures: UInt64 = 0
        public var lastErrno: Int32 = 0
    }

    public let targets: [TUIOTarget]
    public private(set) var statistics = Statistics()
    private let fd: Int32
    private let addresses: [sockaddr_in]

    /// Resolves every target (IPv4) and opens the socket.
    public init(targets: [TUIOTarget]) throws(UDPSenderError) {
        var resolved: [sockaddr_in] = []
        for target in targets { resolved.append(try Self.resolve(target)) }
        let fd = socket(
            AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else {
            throw UDPSenderError(description: "socket(AF_INET, SOCK_DGRAM): \(String(cString: strerror(errno)))")
        }
        self.fd = fd
        self.targets = targets
        addresses = resolved
    }

    deinit { close(fd) }

    /// Sends one datagram to every target; failures are counted, never raised.
    public func send(_ datagram: [UInt8]) {
        for var address in addresses {
            let sent = datagram.withUnsafeBytes { bytes in
                withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        sendto(
                            fd, bytes.baseAddress, bytes.count, Int32(MSG_DONTWAIT) | Int32(MSG_NOSIGNAL), $0,
                            socklen_t(MemoryLayout<sockaddr_in>.size))
                    }
                }
            }
            if sent < 0 {
                statistics.failures += 1
                statistics.lastErrno = errno
            } else {
                statistics.datagrams += 1
                statistics.bytes += UInt64(sent)
            }
        }
    }

    private static func resolve(_ target: TUIOTarget) throws(UDPSenderError) -> sockaddr_in {
        var hints = addrinfo()
        hints.ai_family = AF_INET
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(target.host, String(target.port), &hints, &result)
        defer { if let result { freeaddrinfo(result) } }
        guard status == 0, let info = result, let address = info.pointee.ai_addr,
            info.pointee.ai_addrlen >= socklen_t(MemoryLayout<sockaddr_in>.size)
        else {
            let why = status == 0 ? "no IPv4 address" : String(cString: gai_strerror(status))
            throw UDPSenderError(description: "TUIO target \(target): \(why)")
        }
        return address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee }
    }
}
