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
    /// `[[tuio.region]]`: regions the daemon holds itself, each sending its touches to its own target.
    public var regions: [TUIORegionTarget] = []
    /// Largest datagram sent; a frame with more touches is split over several bundles.
    public var maximumDatagramBytes: Int = 1472
    /// Touchpads too (their positions over the pad); off by default: TUIO programs expect a screen, and
    /// a laptop's touchpad would otherwise share the programs' port with its touchscreen.
    public var touchpads: Bool = false
    public init() {}
}

/// One `[[tuio.region]]`: a region the daemon declares on every device it matches and holds itself (on
/// behalf of `owner`), sending the touches routed to it as TUIO normalized to its rectangle, so an
/// unmodified TUIO program (a Qt app) gets its part of a shared screen with no extra process, and its
/// area never falls through to the program below when the program crashes (docs/TUIO.md).
public struct TUIORegionTarget: Hashable, Sendable {
    /// The region's id (1...128 bytes, unique among the regions of `[tuio]`).
    public var id: String
    /// Where its touches go.
    public var target: TUIOTarget
    /// x, y, width, height in the device's published space (pixels of a mapped output, else mm).
    public var rect: [Double]
    public var z: Int = 0
    /// Secure input (docs/SECURITY.md): its touches reach its target only.
    public var exclusive: Bool = false
    /// Who the area is for, as `multitouchctl regions` shows it (default: the id).
    public var owner: String
    /// Which devices it is declared on: `name`, `path` and `class` as in `[[devices.rule]]` (every
    /// given one must match); with none, every touchscreen.
    public var match: DeviceRule

    public init(
        id: String, target: TUIOTarget, rect: [Double], z: Int = 0, exclusive: Bool = false, owner: String? = nil,
        match: DeviceRule? = nil
    ) {
        self.id = id
        self.target = target
        self.rect = rect
        self.z = z
        self.exclusive = exclusive
        self.owner = owner ?? id
        if let match {
            self.match = match
        } else {
            var rule = DeviceRule()
            rule.deviceClass = .touchscreen
            self.match = rule
        }
    }
}
