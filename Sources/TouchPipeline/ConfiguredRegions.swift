import MultitouchCore
import TouchRouting

/// A region the daemon's configuration declares on a device (`[[tuio.region]]`, docs/TUIO.md): held
/// by the daemon itself under a client id no connection has, so it lasts as long as the device and
/// the configuration, whatever happens to the program its touches are meant for. Its touches are
/// routed like any client's region's (it is a view of the device, exclusive ones are secure) and leave
/// the pipeline as routed deliveries to `client`, which the daemon's TUIO output sends on.
public struct ConfiguredRegion: Hashable, Sendable {
    /// The id the region is held under (`ClientID.configured(_:)`).
    public var client: ClientID
    public var region: Region
    /// Who it is for, as `listRegions` shows it (`tuio.region[1] for qt-app`).
    public var label: String

    public init(client: ClientID, region: Region, label: String) {
        self.client = client
        self.region = region
        self.label = label
    }
}

extension ClientID {
    /// Where the configuration's client ids begin: far above any connection id (connections count from
    /// 1 and a daemon would have to accept one a microsecond for 35 years to get here).
    static let configuredBase: UInt64 = 1 << 50

    /// The client id of the configuration's `index`th region target (0-based).
    public static func configured(_ index: Int) -> ClientID { ClientID(configuredBase + UInt64(max(0, index))) }

    /// True for an id the configuration holds regions under (no connection receives what is routed to it).
    public var isConfigured: Bool { rawValue >= Self.configuredBase }
}

/// One region of a device as `listRegions` reports it, from the pipeline's routing stage.
public struct RegionEntry: Hashable, Sendable {
    public var client: ClientID
    public var region: Region
    /// The z band of its owner's grant.
    public var band: ClosedRange<Int>
    /// Set for a region the configuration declares (`ConfiguredRegion.label`).
    public var configured: String?

    public init(client: ClientID, region: Region, band: ClosedRange<Int>, configured: String? = nil) {
        self.client = client
        self.region = region
        self.band = band
        self.configured = configured
    }
}
