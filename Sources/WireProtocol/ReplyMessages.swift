// Replies to requests. Each echoes the request's id right after "type" when the request had one.

/// `pong`: the reply to `ping`.
public struct PongMessage: Hashable, Sendable {
    public var id: RequestID?

    public init(id: RequestID?) { self.id = id }

    func writeFields(to w: inout JSONWriter) { w.optionalField("id", id) }

    init(reading f: FieldReader) throws(WireDecodingError) { self.init(id: try f.requestID()) }
}

/// `subscribed`: the reply to `subscribe`, with what the subscription now covers.
public struct SubscribedMessage: Hashable, Sendable {
    public var id: RequestID?
    /// Written in the protocol's order (touches, gestures, devices).
    public var streams: Set<MessageStream>
    public var devices: DeviceFilter
    /// The prediction horizon the subscription carries (`predictMs`), echoed when asked for.
    public var predictMilliseconds: Int?
    /// The subscription is frame-aligned (`"frames": true`), echoed when asked for.
    public var frameAligned: Bool
    /// What the client will not receive of what it subscribed to, and why (a whole-device subscription
    /// without the `observe` right gets its own regions' streams only); nil when it gets everything.
    public var withheld: String?

    public init(
        id: RequestID?, streams: Set<MessageStream>, devices: DeviceFilter, predictMilliseconds: Int? = nil,
        frameAligned: Bool = false, withheld: String? = nil
    ) {
        self.id = id
        self.streams = streams
        self.devices = devices
        self.predictMilliseconds = predictMilliseconds
        self.frameAligned = frameAligned
        self.withheld = withheld
    }

    /// The key table: the members after "type" and "id", in the order they are written.
    enum Keys {
        static let streams = FieldKey("streams")
        static let devices = FieldKey("devices")
        static let predictMilliseconds = FieldKey("predictMs")
        static let frames = FieldKey("frames")
        static let withheld = FieldKey("withheld")
        static let all = [streams, devices, predictMilliseconds, frames, withheld]
    }

    func writeFields(to w: inout JSONWriter) {
        w.optionalField("id", id)
        w.key(Keys.streams)
        w.beginArray()
        for stream in streams.inProtocolOrder { w.string(stream.rawValue) }
        w.endArray()
        w.key(Keys.devices)
        devices.write(to: &w)
        w.optionalField(Keys.predictMilliseconds.text, predictMilliseconds)
        if frameAligned {
            w.key(Keys.frames)
            w.bool(true)
        }
        if let withheld {
            w.key(Keys.withheld)
            w.string(withheld)
        }
    }

    init(reading f: FieldReader) throws(WireDecodingError) {
        self.init(
            id: try f.requestID(), streams: try f.streams(Keys.streams.name),
            devices: try f.deviceFilter(Keys.devices.name),
            predictMilliseconds: try f.optionalInteger(Keys.predictMilliseconds.name),
            frameAligned: try f.optionalBool(Keys.frames.name) ?? false,
            withheld: try f.optionalString(Keys.withheld.name))
    }
}

/// `unsubscribed`: the reply to `unsubscribe`.
public struct UnsubscribedMessage: Hashable, Sendable {
    public var id: RequestID?

    public init(id: RequestID?) { self.id = id }

    func writeFields(to w: inout JSONWriter) { w.optionalField("id", id) }

    init(reading f: FieldReader) throws(WireDecodingError) { self.init(id: try f.requestID()) }
}

/// `transform`: a device's cumulative transform was set or reset. The requesting client gets it with the
/// request's id; every other subscriber of the device's gestures gets it without.
public struct TransformMessage: Hashable, Sendable {
    public var id: RequestID?
    public var device: Int
    public var matrix: AffineTransform
    /// Set when it is one region's own cumulative transform (a routed connection's request); then only
    /// the requesting client gets the message.
    public var region: String?

    public init(id: RequestID?, device: Int, matrix: AffineTransform, region: String? = nil) {
        self.id = id
        self.device = device
        self.matrix = matrix
        self.region = region
    }

    /// The key table: the members after "type" and "id", in the order they are written.
    enum Keys {
        static let device = FieldKey("device")
        static let region = FieldKey("region")
        static let matrix = FieldKey("matrix")
        static let all = [device, region, matrix]
    }

    func writeFields(to w: inout JSONWriter) {
        w.optionalField("id", id)
        w.key(Keys.device)
        w.int(device)
        if let region {
            w.key(Keys.region)
            w.string(region)
        }
        w.key(Keys.matrix)
        w.transform(matrix)
    }

    init(reading f: FieldReader) throws(WireDecodingError) {
        self.init(
            id: try f.requestID(), device: try f.integer(Keys.device.name), matrix: try f.transform(Keys.matrix.name),
            region: try f.optionalString(Keys.region.name))
    }
}

/// `recognized`: the reply to `recognized` (the region's options took effect).
public struct RecognizedMessage: Hashable, Sendable {
    public var id: RequestID?
    public var device: Int
    public var region: String

    public init(id: RequestID?, device: Int, region: String) {
        self.id = id
        self.device = device
        self.region = region
    }

    /// The key table: the members after "type" and "id", in the order they are written.
    enum Keys {
        static let device = FieldKey("device")
        static let region = FieldKey("region")
        static let all = [device, region]
    }

    func writeFields(to w: inout JSONWriter) {
        w.optionalField("id", id)
        w.key(Keys.device)
        w.int(device)
        w.key(Keys.region)
        w.string(region)
    }

    init(reading f: FieldReader) throws(WireDecodingError) {
        self.init(
            id: try f.requestID(), device: try f.integer(Keys.device.name), region: try f.string(Keys.region.name))
    }
}

/// `regions`: the reply to `declareRegions` and `updateRegions`, with the ids of the client's regions
/// on the device now in force, in declaration order (empty: the connection is no longer routed there).
public struct RegionsMessage: Hashable, Sendable {
    public var id: RequestID?
    public var device: Int
    public var regions: [String]

    public init(id: RequestID?, device: Int, regions: [String]) {
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
        for region in regions { w.string(region) }
        w.endArray()
    }

    init(reading f: FieldReader) throws(WireDecodingError) {
        self.init(
            id: try f.requestID(), device: try f.integer(Keys.device.name),
            regions: try f.array(Keys.regions.name) { (item, path) throws(WireDecodingError) -> String in
                guard case .string(let name) = item else {
                    throw WireDecodingError("\(path): a region id must be a string, got \(item.jsonText)")
                }
                return name
            })
    }
}

extension JSONWriter {
    /// `"id":...` when there is an id.
    mutating func optionalField(_ name: StaticString, _ id: RequestID?) {
        guard let id else { return }
        key(name)
        id.write(to: &self)
    }
}

extension FieldReader {
    /// An array of stream names.
    func streams(_ key: String) throws(WireDecodingError) -> Set<MessageStream> {
        Set(
            try array(key) { (item, path) throws(WireDecodingError) -> MessageStream in
                guard case .string(let name) = item, let stream = MessageStream(rawValue: name) else {
                    throw WireDecodingError("\(path): unknown stream \(item.jsonText)")
                }
                return stream
            })
    }

    /// `"all"` or an array of device ids.
    func deviceFilter(_ key: String) throws(WireDecodingError) -> DeviceFilter {
        let value = try value(key)
        if case .string("all") = value { return .all }
        return .ids(Set(try array(key) { (item, path) throws(WireDecodingError) -> Int in try integer(key, item) }))
    }
}
