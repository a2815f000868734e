/// A connected client as the daemon numbers it (the same id `stats` shows).
public struct ClientID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var rawValue: UInt64
    public init(_ rawValue: UInt64) { self.rawValue = rawValue }
    public static func < (a: ClientID, b: ClientID) -> Bool { a.rawValue < b.rawValue }
    public var description: String { "client \(rawValue)" }
}

/// A region as the router knows it: the client that declared it and the id the client chose (ids are
/// unique per client and device, not across clients).
public struct RegionKey: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var client: ClientID
    public var region: String
    public init(client: ClientID, region: String) {
        self.client = client
        self.region = region
    }
    public static func < (a: RegionKey, b: RegionKey) -> Bool {
        a.client != b.client ? a.client < b.client : a.region < b.region
    }
    public var description: String { "\(client.rawValue)/\(region)" }
}

/// How a region takes part in hit-testing (ROUTING.md "Modes").
public enum RegionMode: String, Hashable, Sendable, CaseIterable {
    /// Owns every touch that begins inside its shape (and is the topmost such region).
    case opaque
    /// Owns a touch only where its alpha mask is solid; elsewhere the touch goes to what lies below
    /// (seed 001's PassthroughView). Requires a mask.
    case passthrough
    /// Never owns: receives every touch that begins inside it (where its mask, if any, is solid),
    /// alongside the owner, whatever lies above (seed 000's fluid background).
    case observer
}

/// Per-region behaviour once a gesture is recognised (seed 003: UIGestureRecognizer's
/// cancelsTouchesInView and delaysTouchesBegan; Chromium's touch disposition for `exclusive`).
public struct RegionOptions: Hashable, Sendable {
    /// When the region's gesture session recognises a gesture (a segment began, a tap, double tap or
    /// long press), the owner's raw touches of that session are cancelled; gestures keep coming.
    public var cancelsTouchesOnRecognition: Bool
    /// Raw touches are held back while the session is undecided: discarded (never delivered) when a
    /// gesture is recognised, delivered in one go when the session ends without one.
    public var delaysTouchesUntilFailure: Bool
    /// Secure input (DESIGN.md invariant 11): a touch that begins here exists for this region's client
    /// only, from `began` (secure id, no other client's observer, no whole-device stream, engine, TUIO
    /// output or statistic). The client's own observer regions see it until the region's session
    /// recognises a gesture, which claims it from them.
    public var exclusive: Bool
    /// The region gets a gesture session over its touches. On by default for owners; an observer gets
    /// gestures only when it asks.
    public var gestures: Bool
    /// The region's own gesture settings over the device's `[gestures]` (momentum for a map, no double
    /// tap zoom for a keypad); empty: the device's. They apply from the region's next gesture session.
    public var settings: GestureSettings

    public init(
        cancelsTouchesOnRecognition: Bool = false, delaysTouchesUntilFailure: Bool = false, exclusive: Bool = false,
        gestures: Bool = true, settings: GestureSettings = GestureSettings()
    ) {
        self.cancelsTouchesOnRecognition = cancelsTouchesOnRecognition
        self.delaysTouchesUntilFailure = delaysTouchesUntilFailure
        self.exclusive = exclusive
        self.gestures = gestures
        self.settings = settings
    }
}

/// One client-declared area of a device's published space that touches are routed to (issue 12).
/// A value: the router copies it when a client replaces its set.
public struct Region: Hashable, Sendable {
    /// Chosen by the client, unique among its regions on the device; carried on every message about it.
    public var id: String
    public var shape: RegionShape
    /// Optional coarse alpha mask over `shape.bounds`; required for `passthrough`, refused for `opaque`
    /// (an opaque region owns its whole shape).
    public var mask: AlphaMask?
    /// Higher is in front. Ties: the later-declared region of a client is in front; between clients,
    /// the higher client id (the later connection) is in front.
    public var z: Int
    public var mode: RegionMode
    /// Skipped by hit-testing, like a hidden UIView (and one with alpha 0).
    public var hidden: Bool
    /// Skipped by hit-testing, like isUserInteractionEnabled = false.
    public var disabled: Bool
    public var options: RegionOptions

    public init(
        id: String, shape: RegionShape, mask: AlphaMask? = nil, z: Int = 0, mode: RegionMode = .opaque,
        hidden: Bool = false, disabled: Bool = false, options: RegionOptions? = nil
    ) {
        self.id = id
        self.shape = shape
        self.mask = mask
        self.z = z
        self.mode = mode
        self.hidden = hidden
        self.disabled = disabled
        self.options = options ?? RegionOptions(gestures: mode != .observer)
    }

    /// Whether a touch beginning at `p` hits this region (shape, then mask where there is one).
    /// Hidden and disabled are the hit-tester's business, not this function's.
    @inlinable public func isHit(at p: Point, bounds: RegionRect) -> Bool {
        guard shape.contains(p) else { return false }
        guard let mask else { return true }
        return mask.isSolid(at: p, over: bounds)
    }

    /// What is wrong with the region, nil when it is usable.
    public var problem: String? {
        if id.isEmpty || id.utf8.count > RegionLimits.maximumIDBytes {
            return "region id must be 1...\(RegionLimits.maximumIDBytes) bytes"
        }
        if let p = shape.problem { return "region \"\(id)\": \(p)" }
        if let p = mask?.problem { return "region \"\(id)\": \(p)" }
        switch mode {
        case .opaque where mask != nil:
            return "region \"\(id)\": an opaque region owns its whole shape; give the mask to a passthrough region"
        case .passthrough where mask == nil:
            return "region \"\(id)\": a passthrough region needs a mask (where it is solid it owns the touch)"
        case .opaque, .passthrough, .observer:
            break
        }
        if !options.gestures && !options.settings.isEmpty {
            return "region \"\(id)\": gesture settings given to a region without gestures (\"gestures\": false)"
        }
        if mode == .observer
            && (options.cancelsTouchesOnRecognition || options.delaysTouchesUntilFailure || options.exclusive)
        {
            return
                "region \"\(id)\": cancelsTouchesOnRecognition, delaysTouchesUntilFailure and exclusive apply to owners, not observers"
        }
        return nil
    }
}
