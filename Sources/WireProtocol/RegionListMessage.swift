import TouchVocabulary

/// `regionList`: the reply to `listRegions` (docs/PROTOCOL.md "Touch routing"): who owns which area
/// of a device, at which z and within which z band. Root sees every region; any other client its own
/// only (another program's areas say what it shows where, and an exclusive region's existence is its
/// owner's business). `multitouchctl regions` prints it.
public struct RegionListMessage: Hashable, Sendable {
    public var id: RequestID?
    public var device: Int
    /// Top first: by z, highest first, then by owner and declaration order.
    public var regions: [RegionListing]

    public init(id: RequestID?, device: Int, regions: [RegionListing]) {
        self.id = id
        self.device = device
        self.regions = regions
    }

    /// The key table: the members after "type" and "id", in the order they are written.
    enum Keys {
        static let device = FieldKey("device")
        static let regions = FieldKey("regions")
        static let all = [device, regions]
    }

    func writeFields(to w: inout JSONWriter) {
        w.optionalField("id", id)
        w.key(Keys.device)
        w.int(device)
        w.key(Keys.regions)
        w.beginArray()
        for region in regions { region.write(to: &w) }
        w.endArray()
    }

    init(reading f: FieldReader) throws(WireDecodingError) {
        self.init(
            id: try f.requestID(), device: try f.integer(Keys.device.name),
            regions: try f.objects(Keys.regions.name) { (r) throws(WireDecodingError) in
                try RegionListing(reading: r)
            })
    }
}

/// Who holds a listed region: a connected client, or the daemon's own configuration (a `[[tuio.region]]`
/// target, which no program's crash can take away).
public enum RegionOwner: Hashable, Sendable {
    /// A client connection: its id (as in `stats`), pid and uid (-1 when unknown).
    case client(id: Int, pid: Int, uid: Int)
    /// A region the configuration declares; the text names it (`tuio.region[1] for qt-app`).
    case configuration(String)
}

/// One region in a `regionList`.
public struct RegionListing: Hashable, Sendable {
    /// The region's id.
    public var region: String
    public var owner: RegionOwner
    public var z: Int
    /// The z band its owner's regions must lie in (`[access]`; the configuration's own: any z).
    public var band: ClosedRange<Int>
    public var mode: RegionMode
    public var exclusive: Bool
    public var hidden: Bool
    public var disabled: Bool
    /// The shape's bounding box, in the device's published space: x, y, width, height.
    public var bounds: RegionRect

    public init(
        region: String, owner: RegionOwner, z: Int, band: ClosedRange<Int>, mode: RegionMode, exclusive: Bool,
        hidden: Bool, disabled: Bool, bounds: RegionRect
    ) {
        self.region = region
        self.owner = owner
        self.z = z
        self.band = band
        self.mode = mode
        self.exclusive = exclusive
        self.hidden = hidden
        self.disabled = disabled
        self.bounds = bounds
    }

    /// The key table of a listed region: every member, in the order written (`client`, `pid` and `uid`
    /// for a client's region, `configured` for the configuration's).
    enum Keys {
        static let region = FieldKey("region")
        static let client = FieldKey("client")
        static let pid = FieldKey("pid")
        static let uid = FieldKey("uid")
        static let configured = FieldKey("configured")
        static let z = FieldKey("z")
        static let band = FieldKey("band")
        static let mode = FieldKey("mode")
        static let exclusive = FieldKey("exclusive")
        static let hidden = FieldKey("hidden")
        static let disabled = FieldKey("disabled")
        static let bounds = FieldKey("bounds")
        static let all = [region, client, pid, uid, configured, z, band, mode, exclusive, hidden, disabled, bounds]
    }

    func write(to w: inout JSONWriter) {
        w.beginObject()
        w.key(Keys.region)
        w.string(region)
        switch owner {
        case .client(let id, let pid, let uid):
            w.key(Keys.client)
            w.int(id)
            w.key(Keys.pid)
            w.int(pid)
            w.key(Keys.uid)
            w.int(uid)
        case .configuration(let text):
            w.key(Keys.configured)
            w.string(text)
        }
        w.key(Keys.z)
        w.int(z)
        w.key(Keys.band)
        w.beginArray()
        w.int(band.lowerBound)
        w.int(band.upperBound)
        w.endArray()
        w.key(Keys.mode)
        w.string(mode.rawValue)
        w.key(Keys.exclusive)
        w.bool(exclusive)
        w.key(Keys.hidden)
        w.bool(hidden)
        w.key(Keys.disabled)
        w.bool(disabled)
        w.key(Keys.bounds)
        w.beginArray()
        w.double(bounds.x)
        w.double(bounds.y)
        w.double(bounds.width)
        w.double(bounds.height)
        w.endArray()
        w.endObject()
    }

    init(reading f: FieldReader) throws(WireDecodingError) {
        let owner: RegionOwner
        if let text = try f.optionalString(Keys.configured.name) {
            owner = .configuration(text)
        } else {
            owner = .client(
                id: try f.integer(Keys.client.name), pid: try f.integer(Keys.pid.name),
                uid: try f.integer(Keys.uid.name))
        }
        let band = try f.array(Keys.band.name) { (item, path) throws(WireDecodingError) -> Int in
            try f.integer(path, item)
        }
        guard band.count == 2, band[0] <= band[1] else {
            throw WireDecodingError("\(Keys.band.name) must be [lowest, highest], got \(band)")
        }
        let box = try f.doubles(Keys.bounds.name, count: 4)
        self.init(
            region: try f.string(Keys.region.name), owner: owner, z: try f.integer(Keys.z.name),
            band: band[0]...band[1], mode: try f.enumeration(Keys.mode.name),
            exclusive: try f.bool(Keys.exclusive.name), hidden: try f.bool(Keys.hidden.name),
            disabled: try f.bool(Keys.disabled.name),
            bounds: RegionRect(x: box[0], y: box[1], width: box[2], height: box[3]))
    }
}
