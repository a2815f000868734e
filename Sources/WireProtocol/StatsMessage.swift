/// `stats`: the reply to a `stats` request (docs/PROTOCOL.md "stats").
public struct StatsMessage: Hashable, Sendable {
    public var id: RequestID?
    /// Seconds since the daemon started.
    public var uptime: Double
    /// Connected clients in connection order.
    public var clients: [ClientStatistics]
    /// Present devices and the most recently departed ones, by id.
    public var devices: [DeviceStatistics]
    public var latency: LatencyStatistics

    public init(
        id: RequestID?, uptime: Double, clients: [ClientStatistics], devices: [DeviceStatistics],
        latency: LatencyStatistics
    ) {
        self.id = id
        self.uptime = uptime
        self.clients = clients
        self.devices = devices
        self.latency = latency
    }

    /// The key table: the members after "type" and "id", in the order they are written (the nested
    /// objects have their own: `ClientStatistics.Keys`, `DeviceStatistics.Keys`, ...).
    enum Keys {
        static let uptime = FieldKey("uptime")
        static let clients = FieldKey("clients")
        static let devices = FieldKey("devices")
        static let latency = FieldKey("latency")
        static let all = [uptime, clients, devices, latency]
    }

    func writeFields(to w: inout JSONWriter) {
        w.optionalField("id", id)
        w.key(Keys.uptime)
        w.double(uptime)
        w.key(Keys.clients)
        w.beginArray()
        for client in clients { client.write(to: &w) }
        w.endArray()
        w.key(Keys.devices)
        w.beginArray()
        for device in devices { device.write(to: &w) }
        w.endArray()
        w.key(Keys.latency)
        latency.write(to: &w)
    }

    init(reading f: FieldReader) throws(WireDecodingError) {
        self.init(
            id: try f.requestID(), uptime: try f.double(Keys.uptime.name),
            clients: try f.objects(Keys.clients.name) { (c) throws(WireDecodingError) in
                try ClientStatistics(reading: c)
            },
            devices: try f.objects(Keys.devices.name) { (d) throws(WireDecodingError) in
                try DeviceStatistics(reading: d)
            },
            latency: try LatencyStatistics(reading: try f.object(Keys.latency.name)))
    }
}

/// One client in `stats`. Every client sees every connection's id and whether it subscribed; its own
/// figures, rights and z band, and other clients' pid, uid and figures only for itself (root sees all):
/// what another client received says what it was shown, and an exclusive region's client's counters
/// would count its secure touches (DESIGN.md invariant 11).
public struct ClientStatistics: Hashable, Sendable {
    public var id: Int
    /// The peer's pid and uid (SO_PEERCRED; -1 when not shown or unknown).
    public var pid: Int
    public var uid: Int
    public var subscribed: Bool
    /// Messages and bytes waiting in the daemon for this client (nil: not shown).
    public var queued: Int?
    public var queuedBytes: Int?
    /// Messages queued for it so far, and how many of those were coalesced away (nil: not shown).
    public var delivered: UInt64?
    public var dropped: Int?
    /// Its rights under the daemon's `[access]` configuration, and the z band its regions must lie in
    /// (nil: not shown).
    public var rights: [String]?
    public var band: [Int]?

    public init(
        id: Int, pid: Int, uid: Int, subscribed: Bool, queued: Int? = nil, queuedBytes: Int? = nil,
        delivered: UInt64? = nil, dropped: Int? = nil, rights: [String]? = nil, band: [Int]? = nil
    ) {
        self.id = id
        self.pid = pid
        self.uid = uid
        self.subscribed = subscribed
        self.queued = queued
        self.queuedBytes = queuedBytes
        self.delivered = delivered
        self.dropped = dropped
        self.rights = rights
        self.band = band
    }

    /// The key table of a client object, in the order its members are written.
    enum Keys {
        static let id = FieldKey("id")
        static let pid = FieldKey("pid")
        static let uid = FieldKey("uid")
        static let subscribed = FieldKey("subscribed")
        static let queued = FieldKey("queued")
        static let queuedBytes = FieldKey("queuedBytes")
        static let delivered = FieldKey("delivered")
        static let dropped = FieldKey("dropped")
        static let rights = FieldKey("rights")
        static let band = FieldKey("band")
        static let all = [id, pid, uid, subscribed, queued, queuedBytes, delivered, dropped, rights, band]
    }

    func write(to w: inout JSONWriter) {
        w.beginObject()
        w.key(Keys.id)
        w.int(id)
        w.key(Keys.pid)
        w.int(pid)
        w.key(Keys.uid)
        w.int(uid)
        w.key(Keys.subscribed)
        w.bool(subscribed)
        if let queued, let queuedBytes, let delivered, let dropped {
            w.key(Keys.queued)
            w.int(queued)
            w.key(Keys.queuedBytes)
            w.int(queuedBytes)
            w.key(Keys.delivered)
            w.int(delivered)
            w.key(Keys.dropped)
            w.int(dropped)
        }
        if let rights {
            w.key(Keys.rights)
            w.beginArray()
            for right in rights { w.string(right) }
            w.endArray()
        }
        if let band, band.count == 2 {
            w.key(Keys.band)
            w.beginArray()
            w.int(band[0])
            w.int(band[1])
            w.endArray()
        }
        w.endObject()
    }

    init(reading f: FieldReader) throws(WireDecodingError) {
        self.init(
            id: try f.integer(Keys.id.name), pid: try f.integer(Keys.pid.name), uid: try f.integer(Keys.uid.name),
            subscribed: try f.bool(Keys.subscribed.name), queued: try f.optionalInteger(Keys.queued.name),
            queuedBytes: try f.optionalInteger(Keys.queuedBytes.name),
            delivered: try f.optionalInteger(Keys.delivered.name, as: UInt64.self),
            dropped: try f.optionalInteger(Keys.dropped.name),
            rights: f.optionalValue(Keys.rights.name) == nil
                ? nil
                : try f.array(Keys.rights.name) { (item, path) throws(WireDecodingError) in
                    guard case .string(let s) = item else { throw WireDecodingError("\(path) must be a string") }
                    return s
                },
            band: f.optionalValue(Keys.band.name) == nil
                ? nil
                : try f.array(Keys.band.name) { (item, path) throws(WireDecodingError) in
                    guard case .number(let n) = item, let v = n.integer(as: Int.self) else {
                        throw WireDecodingError("\(path) must be an integer")
                    }
                    return v
                })
    }
}

/// One device in `stats`.
public struct DeviceStatistics: Hashable, Sendable {
    public var device: Int
    public var name: String
    /// Evdev frames read (SYN_REPORTs, resyncs and drops included).
    public var frames: UInt64
    /// False for a device that has gone.
    public var active: Bool
    /// `predictions`: while clients ask for predicted touches, one entry per horizon asked for here
    /// with how far the device's predictions were from where the (public) fingers went
    /// (docs/PREDICTION.md); empty otherwise.
    public var predictions: [PredictionStatistics]

    public init(device: Int, name: String, frames: UInt64, active: Bool, predictions: [PredictionStatistics] = []) {
        self.device = device
        self.name = name
        self.frames = frames
        self.active = active
        self.predictions = predictions
    }

    /// The key table of a device object, in the order its members are written.
    enum Keys {
        static let device = FieldKey("device")
        static let name = FieldKey("name")
        static let frames = FieldKey("frames")
        static let active = FieldKey("active")
        static let predictions = FieldKey("predictions")
        static let all = [device, name, frames, active, predictions]
    }

    func write(to w: inout JSONWriter) {
        w.beginObject()
        w.key(Keys.device)
        w.int(device)
        w.key(Keys.name)
        w.string(name)
        w.key(Keys.frames)
        w.int(frames)
        w.key(Keys.active)
        w.bool(active)
        if !predictions.isEmpty {
            w.key(Keys.predictions)
            w.beginArray()
            for prediction in predictions { prediction.write(to: &w) }
            w.endArray()
        }
        w.endObject()
    }

    init(reading f: FieldReader) throws(WireDecodingError) {
        let predictions =
            f.optionalValue(Keys.predictions.name) == nil
            ? []
            : try f.objects(Keys.predictions.name) { (p) throws(WireDecodingError) in
                try PredictionStatistics(reading: p)
            }
        self.init(
            device: try f.integer(Keys.device.name), name: try f.string(Keys.name.name),
            frames: try f.integer(Keys.frames.name, as: UInt64.self),
            active: try f.bool(Keys.active.name), predictions: predictions)
    }
}

/// A device's live prediction error in `stats`: predictions scored so far at `horizonMs`, their mean and
/// largest distance (mm) from where the finger was at the predicted time.
public struct PredictionStatistics: Hashable, Sendable {
    public var horizonMilliseconds: Int
    public var count: UInt64
    public var meanMillimeters: Double
    public var maximumMillimeters: Double

    public init(horizonMilliseconds: Int, count: UInt64, meanMillimeters: Double, maximumMillimeters: Double) {
        self.horizonMilliseconds = horizonMilliseconds
        self.count = count
        self.meanMillimeters = meanMillimeters
        self.maximumMillimeters = maximumMillimeters
    }

    /// The key table of a prediction object, in the order its members are written.
    enum Keys {
        static let horizon = FieldKey("horizonMs")
        static let count = FieldKey("count")
        static let mean = FieldKey("meanMm")
        static let maximum = FieldKey("maxMm")
        static let all = [horizon, count, mean, maximum]
    }

    func write(to w: inout JSONWriter) {
        w.beginObject()
        w.key(Keys.horizon)
        w.int(horizonMilliseconds)
        w.key(Keys.count)
        w.int(count)
        w.key(Keys.mean)
        w.double(meanMillimeters)
        w.key(Keys.maximum)
        w.double(maximumMillimeters)
        w.endObject()
    }

    init(reading p: FieldReader) throws(WireDecodingError) {
        self.init(
            horizonMilliseconds: try p.integer(Keys.horizon.name),
            count: try p.integer(Keys.count.name, as: UInt64.self),
            meanMillimeters: try p.double(Keys.mean.name), maximumMillimeters: try p.double(Keys.maximum.name))
    }
}

/// Latency from a device read to the last client write of the messages it produced, in microseconds.
public struct LatencyStatistics: Hashable, Sendable {
    /// Batches measured.
    public var count: UInt64
    /// The slowest, µs.
    public var maximum: Double
    /// Non-empty log2 buckets: `count` batches took less than `lessThan` µs (and at least half of it).
    public var buckets: [LatencyBucket]
    /// Batches that waited in some client's queue (not measured).
    public var deferred: UInt64
    /// Exact percentiles over the most recent batches; absent before the first.
    public var recent: RecentLatency?

    public init(count: UInt64, maximum: Double, buckets: [LatencyBucket], deferred: UInt64, recent: RecentLatency?) {
        self.count = count
        self.maximum = maximum
        self.buckets = buckets
        self.deferred = deferred
        self.recent = recent
    }

    /// The key table of the latency object, in the order its members are written.
    enum Keys {
        static let unit = FieldKey("unit")
        static let count = FieldKey("count")
        static let maximum = FieldKey("max")
        static let buckets = FieldKey("buckets")
        static let deferred = FieldKey("deferred")
        static let recent = FieldKey("recent")
        static let all = [unit, count, maximum, buckets, deferred, recent]
    }

    func write(to w: inout JSONWriter) {
        w.beginObject()
        w.key(Keys.unit)
        w.rawString("us")
        w.key(Keys.count)
        w.int(count)
        w.key(Keys.maximum)
        w.double(maximum)
        w.key(Keys.buckets)
        w.beginArray()
        for bucket in buckets { bucket.write(to: &w) }
        w.endArray()
        w.key(Keys.deferred)
        w.int(deferred)
        if let recent {
            w.key(Keys.recent)
            recent.write(to: &w)
        }
        w.endObject()
    }

    init(reading f: FieldReader) throws(WireDecodingError) {
        guard try f.string(Keys.unit.name) == "us" else { throw f.failure(Keys.unit.name, "must be \"us\"") }
        let recent = try f.optionalObject(Keys.recent.name)
        self.init(
            count: try f.integer(Keys.count.name, as: UInt64.self), maximum: try f.double(Keys.maximum.name),
            buckets: try f.objects(Keys.buckets.name) { (b) throws(WireDecodingError) in try LatencyBucket(reading: b)
            },
            deferred: try f.integer(Keys.deferred.name, as: UInt64.self),
            recent: try recent.map { (r) throws(WireDecodingError) in try RecentLatency(reading: r) })
    }
}

/// One histogram bucket of `LatencyStatistics`.
public struct LatencyBucket: Hashable, Sendable {
    /// Upper bound, exclusive, µs.
    public var lessThan: UInt64
    public var count: UInt64

    public init(lessThan: UInt64, count: UInt64) {
        self.lessThan = lessThan
        self.count = count
    }

    /// The key table of a bucket object, in the order its members are written.
    enum Keys {
        static let lessThan = FieldKey("lt")
        static let count = FieldKey("count")
        static let all = [lessThan, count]
    }

    func write(to w: inout JSONWriter) {
        w.beginObject()
        w.key(Keys.lessThan)
        w.int(lessThan)
        w.key(Keys.count)
        w.int(count)
        w.endObject()
    }

    init(reading b: FieldReader) throws(WireDecodingError) {
        self.init(
            lessThan: try b.integer(Keys.lessThan.name, as: UInt64.self),
            count: try b.integer(Keys.count.name, as: UInt64.self))
    }
}

/// Exact percentiles (µs, 0.1 µs precision) over the most recent batches.
public struct RecentLatency: Hashable, Sendable {
    public var samples: Int
    public var p50: Double
    public var p99: Double

    public init(samples: Int, p50: Double, p99: Double) {
        self.samples = samples
        self.p50 = p50
        self.p99 = p99
    }

    /// The key table of the recent object, in the order its members are written.
    enum Keys {
        static let samples = FieldKey("samples")
        static let p50 = FieldKey("p50")
        static let p99 = FieldKey("p99")
        static let all = [samples, p50, p99]
    }

    func write(to w: inout JSONWriter) {
        w.beginObject()
        w.key(Keys.samples)
        w.int(samples)
        w.key(Keys.p50)
        w.double(p50)
        w.key(Keys.p99)
        w.double(p99)
        w.endObject()
    }

    init(reading r: FieldReader) throws(WireDecodingError) {
        self.init(
            samples: try r.integer(Keys.samples.name), p50: try r.double(Keys.p50.name),
            p99: try r.double(Keys.p99.name))
    }
}
