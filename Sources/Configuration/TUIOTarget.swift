/// Where TUIO datagrams go: a UDP `HOST:PORT`, or a bare `PORT` meaning this machine (127.0.0.1), so
/// touches leave the machine only when a configuration or a command line names another host.
public struct TUIOTarget: Hashable, Sendable, CustomStringConvertible {
    /// An IPv4 address or a host name (resolved to IPv4 when the sender starts).
    public var host: String
    public var port: UInt16

    public init(host: String = TUIOTarget.loopback, port: UInt16) {
        self.host = host
        self.port = port
    }

    /// The host of a target given as a bare port.
    public static let loopback = "127.0.0.1"

    /// `HOST:PORT` or `PORT`; nil for anything else (an empty host, a port outside 1...65535).
    public init?(parsing text: String) {
        let hostPart: Substring
        let portPart: Substring
        if let colon = text.lastIndex(of: ":") {
            hostPart = text[..<colon]
            portPart = text[text.index(after: colon)...]
            // IPv6 is not supported: its colons would make `HOST:PORT` ambiguous without brackets.
            guard !hostPart.isEmpty, !hostPart.contains(":"), !hostPart.contains(where: \.isWhitespace) else {
                return nil
            }
        } else {
            hostPart = Substring(TUIOTarget.loopback)
            portPart = Substring(text)
        }
        guard let port = UInt16(portPart), port > 0 else { return nil }
        self.init(host: hostPart == "localhost" ? TUIOTarget.loopback : String(hostPart), port: port)
    }

    /// True for 127.0.0.0/8 written as an address (a name is never assumed to be local).
    public var isLoopback: Bool {
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { UInt8($0) != nil } && parts[0] == "127"
    }

    public var description: String { "\(host):\(port)" }
}

/// `[tuio]`: TUIO 1.1 output of every device's touches over UDP (docs/TUIO.md).
public struct TUIOConfiguration: Hashable, Sendable {
    /// Empty (the default): no TUIO output, no socket.
    public var targets: [TUIOTarget] = []
    /// Largest datagram sent; a frame with more touches is split over several bundles.
    public var maximumDatagramBytes: Int = 1472
    /// Touchpads too (their positions over the pad); off by default: TUIO programs expect a screen, and
    /// a laptop's touchpad would otherwise share the programs' port with its touchscreen.
    public var touchpads: Bool = false
    public init() {}
}
