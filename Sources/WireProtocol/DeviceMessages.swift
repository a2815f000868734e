/// What the daemon tells clients about one device (the device object of `hello` and `deviceAdded`).
public struct DeviceInfo: Hashable, Sendable {
    /// Daemon-assigned id, used as "device" in every message about it.
    public var id: Int
    public var name: String
    /// Device node for live devices, the recording's file name for replays.
    public var source: String
    public var deviceClass: DeviceClass
    public var multitouchProtocol: MultitouchProtocol
    public var slots: Int
    public var isSemiMT: Bool
    /// Units of every location, centroid, translation and matrix about this device.
    public var units: PublishedUnits
    /// Extent of the published space (pixels of the output, or the size in mm).
    public var width: Double
    public var height: Double
    /// Physical size and how it was found ("resolution", "configured size", "nominal size").
    public var widthMillimeters: Double
    public var heightMillimeters: Double
    public var sizeSource: String

    public init(
        id: Int, name: String, source: String, deviceClass: DeviceClass, multitouchProtocol: MultitouchProtocol,
        slots: Int, isSemiMT: Bool, units: PublishedUnits, width: Double, height: Double, widthMillimeters: Double,
        heightMillimeters: Double, sizeSource: String
    ) {
        self.id = id
        self.name = name
        self.source = source
        self.deviceClass = deviceClass
        self.multitouchProtocol = multitouchProtocol
        self.slots = slots
        self.isSemiMT = isSemiMT
        self.units = units
        self.width = width
        self.height = height
        self.widthMillimeters = widthMillimeters
        self.heightMillimeters = heightMillimeters
        self.sizeSource = sizeSource
    }

    /// The key table: the members of the device object, in the order they are written.
    enum Keys {
        static let id = FieldKey("id")
        static let name = FieldKey("name")
        static let source = FieldKey("source")
        static let deviceClass = FieldKey("class")
        static let multitouchProtocol = FieldKey("protocol")
        static let slots = FieldKey("slots")
        static let isSemiMT = FieldKey("semiMT")
        static let units = FieldKey("units")
        static let width = FieldKey("width")
        static let height = FieldKey("height")
        static let widthMillimeters = FieldKey("widthMM")
        static let heightMillimeters = FieldKey("heightMM")
        static let sizeSource = FieldKey("sizeSource")
        static let all = [
            id, name, source, deviceClass, multitouchProtocol, slots, isSemiMT, units, width, height, widthMillimeters,
            heightMillimeters, sizeSource,
        ]
    }

    func write(to w: inout JSONWriter) {
        w.beginObject()
        w.key(Keys.id)
        w.int(id)
        w.key(Keys.name)
        w.string(name)
        w.key(Keys.source)
        w.string(source)
        w.key(Keys.deviceClass)
        w.string(deviceClass.rawValue)
        w.key(Keys.multitouchProtocol)
        w.string(multitouchProtocol.rawValue)
        w.key(Keys.slots)
        w.int(slots)
        w.key(Keys.isSemiMT)
        w.bool(isSemiMT)
        w.key(Keys.units)
        w.string(units.rawValue)
        w.key(Keys.width)
        w.double(width)
        w.key(Keys.height)
        w.double(height)
        w.key(Keys.widthMillimeters)
        w.double(widthMillimeters)
        w.key(Keys.heightMillimeters)
        w.double(heightMillimeters)
        w.key(Keys.sizeSource)
        w.string(sizeSource)
        w.endObject()
    }

    init(reading f: FieldReader) throws(WireDecodingError) {
        self.init(
            id: try f.integer(Keys.id.name), name: try f.string(Keys.name.name), source: try f.string(Keys.source.name),
            deviceClass: try f.enumeration(Keys.deviceClass.name),
            multitouchProtocol: try f.enumeration(Keys.multitouchProtocol.name),
            slots: try f.integer(Keys.slots.name), isSemiMT: try f.bool(Keys.isSemiMT.name),
            units: try f.enumeration(Keys.units.name),
            width: try f.double(Keys.width.name), height: try f.double(Keys.height.name),
            widthMillimeters: try f.double(Keys.widthMillimeters.name),
            heightMillimeters: try f.double(Keys.heightMillimeters.name),
            sizeSource: try f.string(Keys.sizeSource.name))
    }
}

/// `hello`: the first line on every connection.
public struct HelloMessage: Hashable, Sendable {
    /// The daemon's protocol version (`ProtocolVersion.current` when it is this one).
    public var protocolVersion: Int
    /// `multitouchd 0.1.0`.
    public var daemon: String
    /// Devices present at connect time.
    public var devices: [DeviceInfo]
    /// Optional parts of the protocol this daemon serves (`regions`: touch routing); written only when
    /// there are some, so an older daemon's hello simply has none.
    public var features: [String]

    public init(
        protocolVersion: Int = ProtocolVersion.current, daemon: String, devices: [DeviceInfo], features: [String] = []
    ) {
        self.protocolVersion = protocolVersion
        self.daemon = daemon
        self.devices = devices
        self.features = features
    }

    /// The key table: the members after "type", in the order they are written.
    enum Keys {
        static let protocolVersion = FieldKey("protocol")
        static let daemon = FieldKey("daemon")
        static let devices = FieldKey("devices")
        static let features = FieldKey("features")
        static let all = [protocolVersion, daemon, devices, features]
    }

    func writeFields(to w: inout JSONWriter) {
        w.key(Keys.protocolVersion)
        w.int(protocolVersion)
        w.key(Keys.daemon)
        w.string(daemon)
        w.key(Keys.devices)
        w.beginArray()
        for device in devices { device.write(to: &w) }
        w.endArray()
        if !features.isEmpty {
            w.key(Keys.features)
            w.beginArray()
            for feature in features { w.string(feature) }
            w.endArray()
        }
    }

    init(reading f: FieldReader) throws(WireDecodingError) {
        self.init(
            protocolVersion: try f.integer(Keys.protocolVersion.name), daemon: try f.string(Keys.daemon.name),
            devices: try f.objects(Keys.devices.name) { (d) throws(WireDecodingError) in try DeviceInfo(reading: d) },
            features: f.optionalValue(Keys.features.name) == nil
                ? []
                : try f.array(Keys.features.name) { (item, path) throws(WireDecodingError) -> String in
                    guard case .string(let name) = item else {
                        throw WireDecodingError("\(path): a feature must be a string, got \(item.jsonText)")
                    }
                    return name
                })
    }
}

/// `deviceRemoved`: follows the cancellation of everything the device had active.
public struct DeviceRemovedMessage: Hashable, Sendable {
    public var device: Int
    /// When it went (absent when unknown).
    public var time: Timestamp?
    /// `unplugged`, `end of recording`, `shutdown`, ... (words for people).
    public var reason: String

    public init(device: Int, time: Timestamp?, reason: String) {
        self.device = device
        self.time = time
        self.reason = reason
    }

    /// The key table: the members after "type", in the order they are written.
    enum Keys {
        static let device = FieldKey("device")
        static let time = FieldKey("time")
        static let reason = FieldKey("reason")
        static let all = [device, time, reason]
    }

    func writeFields(to w: inout JSONWriter) {
        w.key(Keys.device)
        w.int(device)
        w.optionalField(Keys.time.text, time)
        w.key(Keys.reason)
        w.string(reason)
    }

    init(reading f: FieldReader) throws(WireDecodingError) {
        self.init(
            device: try f.integer(Keys.device.name), time: try f.optionalTime(Keys.time.name),
            reason: try f.string(Keys.reason.name))
    }
}
