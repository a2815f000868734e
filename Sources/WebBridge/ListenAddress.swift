#if canImport(Glibc)
import Glibc
#endif

/// A `HOST:PORT` the bridge listens on, parsed from `--listen`, and whether it is a loopback address.
///
/// Accepted hosts: an IPv4 address (`127.0.0.1`), a bracketed IPv6 address (`[::1]`) or `localhost`
/// (bound as 127.0.0.1). Names other than `localhost` are refused: a name that resolves differently
/// tomorrow must not silently move a loopback-only service onto a network.
public struct ListenAddress: Sendable, Equatable, CustomStringConvertible {
    /// The numeric host to bind (`localhost` already turned into `127.0.0.1`).
    public let host: String
    /// The TCP port; 0 asks the kernel for a free one (the bridge prints the port it got).
    public let port: Int
    /// True for 127.0.0.0/8 and ::1: only programs on this machine can connect.
    public let isLoopback: Bool

    /// Why a `--listen` value was refused.
    public struct ParseError: Error, CustomStringConvertible, Equatable {
        /// The message, naming the value and what is expected.
        public let description: String
    }

    /// Parses `HOST:PORT`.
    /// - Throws: `ParseError` with a message naming the bad part.
    public init(parsing text: String) throws {
        let hostPart: Substring
        let portPart: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else {
                throw ParseError(
                    description: "--listen \(text): an IPv6 address is written [ADDRESS]:PORT, e.g. [::1]:8080")
            }
            hostPart = text[text.index(after: text.startIndex)..<close]
            portPart = text[text.index(close, offsetBy: 2)...]
        } else {
            guard let colon = text.lastIndex(of: ":"), !text[..<colon].contains(":") else {
                throw ParseError(description: "--listen \(text): expected HOST:PORT, e.g. 127.0.0.1:8080")
            }
            hostPart = text[..<colon]
            portPart = text[text.index(after: colon)...]
        }
        guard let port = Int(portPart), (0...65535).contains(port) else {
            throw ParseError(description: "--listen \(text): the port must be a number from 0 to 65535")
        }
        let host = hostPart == "localhost" ? "127.0.0.1" : String(hostPart)
        if let octets = Self.ipv4Octets(host) {
            isLoopback = octets[0] == 127
        } else if let words = Self.ipv6Bytes(host) {
            isLoopback = words == [UInt8](repeating: 0, count: 15) + [1]
        } else {
            throw ParseError(
                description:
                    "--listen \(text): the host must be an IP address or localhost (not a name that may resolve elsewhere)"
            )
        }
        self.host = host
        self.port = port
    }

    /// The address as `--listen` would take it back, with IPv6 hosts in brackets.
    public var description: String { Self.format(host: host, port: port) }

    /// The four octets of a dotted IPv4 address, or nil.
    static func ipv4Octets(_ text: String) -> [UInt8]? {
        var address = in_addr()
        guard inet_pton(AF_INET, text, &address) == 1 else { return nil }
        return withUnsafeBytes(of: &address.s_addr) { Array($0) }
    }

    /// The sixteen bytes of an IPv6 address, or nil.
    static func ipv6Bytes(_ text: String) -> [UInt8]? {
        var address = in6_addr()
        guard inet_pton(AF_INET6, text, &address) == 1 else { return nil }
        return withUnsafeBytes(of: &address) { Array($0) }
    }
}
