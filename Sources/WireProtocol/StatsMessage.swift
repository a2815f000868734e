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
    /// client, device and latency objects keep their literal keys for now).
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

    func write(to w: inout JSONWriter) {
        w.beginObject()
        w.key("id")
        w.int(id)
        w.key("pid")
        w.int(pid)
        w.key("uid")
        w.int(uid)
        w.key("subscribed")
        w.bool(subscribed)
        if let queued, let queuedBytes, let delivered, let dropped {
            w.key("queued")
            w.int(queued)
            w.key("queuedBytes")
            w.int(queuedBytes)
            w.key("delivered")
            w.int(delivered)
            w.key("dropped")
            w.int(dropped)
        }
        if let rights {
            w.key("rights")
            w.beginArray()
            for right in rights { w.string(right) }
            w.endArray()
        }
        if let band, band.count == 2 {
            w.key("band")
            w.beginArray()
            w.int(band[0])
            w.int(band[1])
            w.endArray()
        }
        w.endObject()
    }

    init(reading f: FieldReader) throws(WireDecodingError) {
        self.init(
            id: try f.integer("id"), pid: try f.integer("pid"), uid: try f.integer("uid"),
            subscribed: try f.bool("subscribed"), queued: try f.optionalInteger("queued"),
            queuedBytes: try f.optionalInteger("queuedBytes"),
            delivered: try f.optionalInteger("delivered", as: UInt64.self), dropped: try f.optionalInteger("dropped"),
            rights: f.optionalValue("rights") == nil
                ? nil
                : try f.array("rights") { (item, path) throws(WireDecodingError) in
                    guard case .string(let s) = item else { throw WireDecodingError("\(path) must be a string") }
                    return s
                },
            band: f.optionalValue("band") == nil
                ? nil
                : try f.array("band") { (item, path) throws(WireDecodingError) in
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

    func write(to w: inout JSONWriter) {
        w.beginObject()
        w.key("device")
        w.int(device)
        w.key("name")
        w.string(name)
        w.key("frames")
        w.int(frames)
        w.key("active")
        w.bool(active)
        if !predictions.isEmpty {
            w.key("predictions")
            w.beginArray()
            for prediction in predictions {
                w.beginObject()
                w.key("horizonMs")
                w.int(prediction.horizonMilliseconds)
                w.key("count")
                w.int(prediction.count)
                w.key("meanMm")
                w.double(prediction.meanMillimeters)
                w.key("maxMm")
                w.double(prediction.maximumMillimeters)
                w.endObject()
            }
            w.endArray()
        }
        w.endObject()
    }

    init(reading f: FieldReader) throws(WireDecodingError) {
        let predictions =
            f.optionalValue("predictions") == nil
            ? []
            : try f.objects("predictions") { (p) throws(WireDecodingError) in
                PredictionStatistics(
                    horizonMilliseconds: try p.integer("horizonMs"), count: try p.integer("count", as: UInt64.self),
                    meanMillimeters: try p.double("meanMm"), maximumMillimeters: try p.double("maxMm"))
            }
        self.init(
            device: try f.integer("device"), name: try f.string("name"),
            frames: try f.integer("frames", as: UInt64.self),
            active: try f.bool("active"), predictions: predictions)
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

    func write(to w: inout JSONWriter) {
        w.beginObject()
        w.key("unit")
        w.rawString("us")
        w.key("count")
        w.int(count)
        w.key("max")
        w.double(maximum)
        w.key("buckets")
        w.beginArray()
        for bucket in buckets {
            w.beginObject()
            w.key("lt")
            w.int(bucket.lessThan)
            w.key("count")
            w.int(bucket.count)
            w.endObject()
        }
        w.endArray()
        w.key("deferred")
        w.int(deferred)
        if let recent {
            w.key("recent")
            w.beginObject()
            w.key("samples")
            w.int(recent.samples)
            w.key("p50")
            w.double(recent.p50)
            w.key("p99")
            w.double(recent.p99)
            w.endObject()
        }
        w.endObject()
    }

    init(reading f: FieldReader) throws(WireDecodingError) {
        guard try f.string("unit") == "us" else { throw f.failure("unit", "must be \"us\"") }
        let recent = try f.optionalObject("recent")
        self.init(
            count: try f.integer("count", as: UInt64.self), maximum: try f.double("max"),
            buckets: try f.objects("buckets") { (b) throws(WireDecodingError) in
                LatencyBucket(
                    lessThan: try b.integer("lt", as: UInt64.self), count: try b.integer("count", as: UInt64.self))
            },
            deferred: try f.integer("deferred", as: UInt64.self),
            recent: try recent.map { (r) throws(WireDecodingError) in
                RecentLatency(samples: try r.integer("samples"), p50: try r.double("p50"), p99: try r.double("p99"))
            })
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
}
