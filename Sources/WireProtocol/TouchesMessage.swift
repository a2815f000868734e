import MultitouchCore
import TouchRouting

/// `touches`: every touch of one evdev frame (the active ones and those ending in it), like
/// `UIEvent.allTouches`.
public struct TouchesMessage: Hashable, Sendable {
    public var device: Int
    public var time: Timestamp
    /// Fingers on the surface as the device counts them (can exceed `touches.count`).
    public var fingers: Int
    /// The device is semi-mt (written only when true).
    public var isSemiMT: Bool
    /// Sorted by id.
    public var touches: [TouchPoint]
    /// Set on a routed connection: the region these touches were routed to, its role, and why the
    /// daemon ended them when it did (PROTOCOL.md "Touch routing"). Nil for the whole-device stream.
    public var routing: TouchesRouting?

    public init(
        device: Int, time: Timestamp, fingers: Int, isSemiMT: Bool, touches: [TouchPoint],
        routing: TouchesRouting? = nil
    ) {
        self.device = device
        self.time = time
        self.fingers = fingers
        self.isSemiMT = isSemiMT
        self.touches = touches
        self.routing = routing
    }

    /// The message for one frame of the pipeline.
    public init(device: Int, frame: TouchFrame) {
        self.init(
            device: device, time: frame.time, fingers: frame.fingerCount, isSemiMT: frame.isSemiMT,
            touches: frame.touches.map(TouchPoint.init))
    }

    func writeFields(to w: inout JSONWriter) {
        w.key("device")
        w.int(device)
        if let routing {
            w.key("region")
            w.string(routing.region)
            w.key("role")
            w.string(routing.role.rawValue)
            if let reason = routing.reason {
                w.key("reason")
                w.string(reason.rawValue)
            }
        }
        w.key("time")
        w.time(time)
        w.key("fingers")
        w.int(fingers)
        if isSemiMT {
            w.key("semiMT")
            w.bool(true)
        }
        w.key("touches")
        w.beginArray()
        for touch in touches { touch.write(to: &w) }
        w.endArray()
    }

    init(reading f: FieldReader) throws(WireDecodingError) {
        self.init(
            device: try f.integer("device"), time: try f.time("time"), fingers: try f.integer("fingers"),
            isSemiMT: try f.optionalBool("semiMT") ?? false,
            touches: try f.objects("touches") { (t) throws(WireDecodingError) in try TouchPoint(reading: t) },
            routing: try TouchesRouting(reading: f))
    }
}

/// The routing fields of a `touches` message: `region`, `role` and, when the daemon ended the touches
/// itself, `reason` (TouchRouting's own role and reason types, so the names are defined once).
public struct TouchesRouting: Hashable, Sendable {
    public var region: String
    public var role: RoutingRole
    public var reason: RoutingCancelReason?

    public init(region: String, role: RoutingRole, reason: RoutingCancelReason? = nil) {
        self.region = region
        self.role = role
        self.reason = reason
    }

    /// Nil when the message has no `region` (a whole-device message).
    init?(reading f: FieldReader) throws(WireDecodingError) {
        guard let region = try f.optionalString("region") else { return nil }
        self.init(
            region: region, role: try f.enumeration("role"),
            reason: f.optionalValue("reason") == nil ? nil : try f.enumeration("reason", as: RoutingCancelReason.self))
    }
}

/// One raw sample of a touch delivered with a resampled frame (`coalesced`): published location and
/// the sample's time.
public struct CoalescedSample: Hashable, Sendable {
    public var location: Point
    public var time: Timestamp

    public init(location: Point, time: Timestamp) {
        self.location = location
        self.time = time
    }
}

/// One touch as the wire carries it: a `Touch` without the kernel tracking id and the timestamp (the
/// message's `time` is every touch's time). Locations are in the device's published space.
public struct TouchPoint: Hashable, Sendable {
    /// Daemon-unique, increasing; stable from `began` to `ended`/`cancelled`.
    public var id: UInt64
    public var phase: TouchPhase
    /// `x`, `y`.
    public var location: Point
    /// `prevX`, `prevY`: the location in the previous frame (equal to `location` at `began`).
    public var previousLocation: Point
    /// `nx`, `ny`: 0...1 over the axis range.
    public var normalized: Point
    /// `mmX`, `mmY`.
    public var millimeters: Point
    /// Kernel slot (protocol B) or matcher slot.
    public var slot: Int
    public var tapCount: Int
    public var type: TouchType
    public var majorRadius: Double?
    public var minorRadius: Double?
    public var orientation: Double?
    public var force: Double?
    /// `predicted`: where the daemon predicts this live touch at the message's `time` plus the
    /// horizon the client asked for (published space); nil unless prediction was asked for.
    public var predicted: Point?
    /// `coalesced`: on a frame-aligned subscription, the raw samples of this touch that the frame
    /// consumed, oldest first, each `[x, y, time]` (docs/PREDICTION.md "Frame-aligned resampling");
    /// nil otherwise.
    public var coalesced: [CoalescedSample]?

    public init(
        id: UInt64, phase: TouchPhase, location: Point, previousLocation: Point, normalized: Point,
        millimeters: Point, slot: Int, tapCount: Int, type: TouchType, majorRadius: Double? = nil,
        minorRadius: Double? = nil, orientation: Double? = nil, force: Double? = nil, predicted: Point? = nil
    ) {
        self.predicted = predicted
        self.id = id
        self.phase = phase
        self.location = location
        self.previousLocation = previousLocation
        self.normalized = normalized
        self.millimeters = millimeters
        self.slot = slot
        self.tapCount = tapCount
        self.type = type
        self.majorRadius = majorRadius
        self.minorRadius = minorRadius
        self.orientation = orientation
        self.force = force
    }

    public init(_ touch: Touch) {
        self.init(
            id: touch.id, phase: touch.phase, location: touch.location, previousLocation: touch.previousLocation,
            normalized: touch.normalized, millimeters: touch.millimeters, slot: touch.slot, tapCount: touch.tapCount,
            type: touch.type, majorRadius: touch.majorRadius, minorRadius: touch.minorRadius,
            orientation: touch.orientation, force: touch.force)
    }

    func write(to w: inout JSONWriter) {
        w.beginObject()
        w.key("id")
        w.int(id)
        w.key("phase")
        switch phase {
        case .began: w.rawString("began")
        case .moved: w.rawString("moved")
        case .stationary: w.rawString("stationary")
        case .ended: w.rawString("ended")
        case .cancelled: w.rawString("cancelled")
        }
        w.key("x")
        w.double(location.x)
        w.key("y")
        w.double(location.y)
        w.key("prevX")
        w.double(previousLocation.x)
        w.key("prevY")
        w.double(previousLocation.y)
        w.key("nx")
        w.double(normalized.x)
        w.key("ny")
        w.double(normalized.y)
        w.key("mmX")
        w.double(millimeters.x)
        w.key("mmY")
        w.double(millimeters.y)
        w.key("slot")
        w.int(slot)
        w.key("tapCount")
        w.int(tapCount)
        w.key("type")
        switch type {
        case .direct: w.rawString("direct")
        case .indirect: w.rawString("indirect")
        }
        w.optionalField("majorRadius", majorRadius)
        w.optionalField("minorRadius", minorRadius)
        w.optionalField("orientation", orientation)
        w.optionalField("force", force)
        if let predicted {
            w.key("predicted")
            w.point(predicted.x, predicted.y)
        }
        if let coalesced {
            w.key("coalesced")
            w.beginArray()
            for sample in coalesced {
                w.beginArray()
                w.double(sample.location.x)
                w.double(sample.location.y)
                w.time(sample.time)
                w.endArray()
            }
            w.endArray()
        }
        w.endObject()
    }

    init(reading f: FieldReader) throws(WireDecodingError) {
        self.init(
            id: try f.integer("id", as: UInt64.self), phase: try f.enumeration("phase"),
            location: Point(x: try f.double("x"), y: try f.double("y")),
            previousLocation: Point(x: try f.double("prevX"), y: try f.double("prevY")),
            normalized: Point(x: try f.double("nx"), y: try f.double("ny")),
            millimeters: Point(x: try f.double("mmX"), y: try f.double("mmY")), slot: try f.integer("slot"),
            tapCount: try f.integer("tapCount"), type: try f.enumeration("type"),
            majorRadius: try f.optionalDouble("majorRadius"), minorRadius: try f.optionalDouble("minorRadius"),
            orientation: try f.optionalDouble("orientation"), force: try f.optionalDouble("force"),
            predicted: f.optionalValue("predicted") == nil ? nil : try f.point("predicted"))
        if let value = f.optionalValue("coalesced") { coalesced = try Self.coalesced(value, f) }
    }

    private static func coalesced(_ value: JSONValue, _ f: FieldReader) throws(WireDecodingError) -> [CoalescedSample] {
        guard case .array(let items) = value else { throw f.failure("coalesced", "must be an array") }
        var samples: [CoalescedSample] = []
        samples.reserveCapacity(items.count)
        for item in items {
            guard case .array(let v) = item, v.count == 3, case .number(let x) = v[0], case .number(let y) = v[1],
                case .number(let t) = v[2], let time = Timestamp(exactDecimal: t.text)
            else { throw f.failure("coalesced", "must hold [x, y, time] arrays") }
            samples.append(CoalescedSample(location: Point(x: x.doubleValue, y: y.doubleValue), time: time))
        }
        return samples
    }
}
