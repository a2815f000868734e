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

    /// The message for one frame of a device; `isSemiMT`: the device is served as a semi-mt touchpad
    /// (its class, which no frame carries).
    public init(device: Int, frame: TouchFrame, isSemiMT: Bool) {
        self.init(
            device: device, time: frame.time, fingers: frame.fingerCount, isSemiMT: isSemiMT,
            touches: frame.touches.map(TouchPoint.init))
    }

    /// The key table: the members of a `touches` message, in the order they are written.
    enum Keys {
        static let device = FieldKey("device")
        static let region = FieldKey("region")
        static let role = FieldKey("role")
        static let reason = FieldKey("reason")
        static let time = FieldKey("time")
        static let fingers = FieldKey("fingers")
        static let isSemiMT = FieldKey("semiMT")
        static let touches = FieldKey("touches")
        static let all = [device, region, role, reason, time, fingers, isSemiMT, touches]
    }

    /// The most bytes the head (`device` to the `touches` array's bracket) puts through its cursor.
    private static let maximumHeadLength = 160

    func writeFields(to w: inout JSONWriter) {
        Self.writeHead(device: device, time: time, fingers: fingers, isSemiMT: isSemiMT, routing: routing, to: &w)
        // Each touch read in place, not copied out of the array first.
        touches.withUnsafeBufferPointer { touches in
            guard let first = touches.baseAddress else { return }
            for i in touches.indices { TouchPoint.write(first + i, to: &w) }
        }
        w.endArray()
    }

    /// Writes a whole `touches` message, exactly as `Message.touches(TouchesMessage(...)).write(to:)`
    /// does, straight from the pipeline's typed touches: each touch becomes its `TouchPoint` on the
    /// stack (no array of them, no message value), the live ones (not ending) taking `predicted`'s
    /// locations in order. The daemon's publisher writes every `touches` line this way.
    public static func write(
        device: Int, time: Timestamp, fingers: Int, isSemiMT: Bool, routing: TouchesRouting?, touches: [Touch],
        predicted: [Point]?, to w: inout JSONWriter
    ) {
        // A whole-device line (the commonest) opens its object in the head's reservation too: each
        // writer call checks bounds and uniqueness, which one panning finger's line pays in full.
        let opening = routing == nil
        if !opening {
            w.beginObject()
            w.key("type")
            w.rawString(MessageKind.touches.staticName)
        }
        writeHead(
            device: device, time: time, fingers: fingers, isSemiMT: isSemiMT, routing: routing, opening: opening,
            to: &w)
        var next = 0
        for touch in touches {
            var point = TouchPoint(touch)
            if let predicted, !point.phase.isTerminal, next < predicted.count {
                point.predicted = predicted[next]
                next += 1
            }
            withUnsafePointer(to: &point) { TouchPoint.write($0, to: &w) }
        }
        w.endArray()
        w.endObject()
    }

    /// Whether a `touches` message of touches in these phases may be coalesced away under
    /// backpressure (`Message.isDroppable`): every touch only moved or stayed.
    @inline(__always)
    public static func isDroppable(_ phase: TouchPhase) -> Bool { phase == .moved || phase == .stationary }

    /// The members from `device` to the `touches` array's opening bracket; with `opening` (only
    /// without `routing`) the object's `{"type":"touches"` before them.
    private static func writeHead(
        device: Int, time: Timestamp, fingers: Int, isSemiMT: Bool, routing: TouchesRouting?, opening: Bool = false,
        to w: inout JSONWriter
    ) {
        if let routing {  // escaped strings: through the writer
            w.key(Keys.device)
            w.int(device)
            w.key(Keys.region)
            w.string(routing.region)
            w.key(Keys.role)
            w.string(routing.role.rawValue)
            if let reason = routing.reason {
                w.key(Keys.reason)
                w.string(reason.rawValue)
            }
        }
        // The numbers of the head through one reservation; the array is open after it (no comma due).
        w.withCursor(reserving: Self.maximumHeadLength, thenComma: false) { cursor in
            var c = cursor  // a local in registers (see `JSONCursor`)
            defer { cursor = c }
            if opening {
                c.text("{\"type\":")
                c.rawString(MessageKind.touches.staticName)
                c.key(Keys.device)
                c.int(device)
                c.key(Keys.time)
            } else if routing == nil {
                c.key(Keys.device, first: true)
                c.int(device)
                c.key(Keys.time)
            } else {
                c.key(Keys.time, first: true)  // `withCursor` wrote the comma
            }
            c.time(time)
            c.key(Keys.fingers)
            c.int(fingers)
            if isSemiMT {
                c.key(Keys.isSemiMT)
                c.text("true")
            }
            c.key(Keys.touches)
            c.byte(UInt8(ascii: "["))
        }
    }

    init(reading f: FieldReader) throws(WireDecodingError) {
        self.init(
            device: try f.integer(Keys.device.name), time: try f.time(Keys.time.name),
            fingers: try f.integer(Keys.fingers.name), isSemiMT: try f.optionalBool(Keys.isSemiMT.name) ?? false,
            touches: try f.objects(Keys.touches.name) { (t) throws(WireDecodingError) in
                try TouchPoint(reading: t)
            },
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
        typealias Keys = TouchesMessage.Keys
        guard let region = try f.optionalString(Keys.region.name) else { return nil }
        self.init(
            region: region, role: try f.enumeration(Keys.role.name),
            reason: f.optionalValue(Keys.reason.name) == nil
                ? nil : try f.enumeration(Keys.reason.name, as: RoutingCancelReason.self))
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
    /// `mmX`, `mmY`: written only where they differ from `x`, `y` (an output mapping publishes
    /// pixels); equal to `location` when the message has none.
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

    /// The key table: the members of a touch object, in the order they are written. The precision
    /// of each number is docs/PROTOCOL.md's "Number precision".
    enum Keys {
        static let id = FieldKey("id")
        static let phase = FieldKey("phase")
        static let x = FieldKey("x")
        static let y = FieldKey("y")
        static let previousX = FieldKey("prevX")
        static let previousY = FieldKey("prevY")
        static let normalizedX = FieldKey("nx")
        static let normalizedY = FieldKey("ny")
        static let millimetersX = FieldKey("mmX")
        static let millimetersY = FieldKey("mmY")
        static let slot = FieldKey("slot")
        static let tapCount = FieldKey("tapCount")
        static let type = FieldKey("type")
        static let majorRadius = FieldKey("majorRadius")
        static let minorRadius = FieldKey("minorRadius")
        static let orientation = FieldKey("orientation")
        static let force = FieldKey("force")
        static let predicted = FieldKey("predicted")
        static let coalesced = FieldKey("coalesced")
        static let all = [
            id, phase, x, y, previousX, previousY, normalizedX, normalizedY, millimetersX, millimetersY, slot,
            tapCount, type, majorRadius, minorRadius, orientation, force, predicted, coalesced,
        ]
    }

    /// The most bytes `write(to:)` puts through its cursor: 19 keys of at most 11 bytes plus their
    /// punctuation, 14 numbers of at most 32 bytes, 3 integers of at most 20 and 2 short strings,
    /// with room to spare. `coalesced` (of any length) is written through the writer after it.
    private static let maximumFixedLength = 1024

    /// Writes the touch at `t` (read in place: copying a `TouchPoint` out of its array costs a
    /// value-witness call per touch, for its `coalesced` array).
    static func write(_ t: UnsafePointer<TouchPoint>, to w: inout JSONWriter) {
        w.withCursor(reserving: Self.maximumFixedLength) { cursor in
            var c = cursor  // a local in registers (see `JSONCursor`)
            defer { cursor = c }
            c.byte(UInt8(ascii: "{"))
            c.key(Keys.id, first: true)
            c.int(t.pointee.id)
            c.key(Keys.phase)
            switch t.pointee.phase {
            case .began: c.rawString("began")
            case .moved: c.rawString("moved")
            case .stationary: c.rawString("stationary")
            case .ended: c.rawString("ended")
            case .cancelled: c.rawString("cancelled")
            }
            c.key(Keys.x)
            c.double(t.pointee.location.x, .three)
            c.key(Keys.y)
            c.double(t.pointee.location.y, .three)
            c.key(Keys.previousX)
            c.double(t.pointee.previousLocation.x, .three)
            c.key(Keys.previousY)
            c.double(t.pointee.previousLocation.y, .three)
            c.key(Keys.normalizedX)
            c.double(t.pointee.normalized.x, .six)
            c.key(Keys.normalizedY)
            c.double(t.pointee.normalized.y, .six)
            // Protocol 2: mmX/mmY only where they differ from x/y, that is when an output mapping
            // publishes pixels; a reader takes x/y for them when they are absent.
            if t.pointee.millimeters != t.pointee.location {
                c.key(Keys.millimetersX)
                c.double(t.pointee.millimeters.x, .three)
                c.key(Keys.millimetersY)
                c.double(t.pointee.millimeters.y, .three)
            }
            c.key(Keys.slot)
            c.int(t.pointee.slot)
            c.key(Keys.tapCount)
            c.int(t.pointee.tapCount)
            c.key(Keys.type)
            switch t.pointee.type {
            case .direct: c.rawString("direct")
            case .indirect: c.rawString("indirect")
            }
            if let majorRadius = t.pointee.majorRadius {
                c.key(Keys.majorRadius)
                c.double(majorRadius, .three)
            }
            if let minorRadius = t.pointee.minorRadius {
                c.key(Keys.minorRadius)
                c.double(minorRadius, .three)
            }
            if let orientation = t.pointee.orientation {
                c.key(Keys.orientation)
                c.double(orientation, .six)
            }
            if let force = t.pointee.force {
                c.key(Keys.force)
                c.double(force, .six)
            }
            if let predicted = t.pointee.predicted {
                c.key(Keys.predicted)
                c.point(predicted.x, predicted.y, .three)
            }
            if t.pointee.coalesced == nil { c.byte(UInt8(ascii: "}")) }  // the object closed in the same reservation
        }
        if let coalesced = t.pointee.coalesced {
            w.key(Keys.coalesced)
            w.beginArray()
            for sample in coalesced {
                w.beginArray()
                w.double(sample.location.x, .three)
                w.double(sample.location.y, .three)
                w.time(sample.time)
                w.endArray()
            }
            w.endArray()
            w.endObject()
        }
    }

    init(reading f: FieldReader) throws(WireDecodingError) {
        let location = Point(x: try f.double(Keys.x.name), y: try f.double(Keys.y.name))
        self.init(
            id: try f.integer(Keys.id.name, as: UInt64.self), phase: try f.enumeration(Keys.phase.name),
            location: location,
            previousLocation: Point(x: try f.double(Keys.previousX.name), y: try f.double(Keys.previousY.name)),
            normalized: Point(x: try f.double(Keys.normalizedX.name), y: try f.double(Keys.normalizedY.name)),
            millimeters: Point(
                x: try f.optionalDouble(Keys.millimetersX.name) ?? location.x,
                y: try f.optionalDouble(Keys.millimetersY.name) ?? location.y),
            slot: try f.integer(Keys.slot.name), tapCount: try f.integer(Keys.tapCount.name),
            type: try f.enumeration(Keys.type.name),
            majorRadius: try f.optionalDouble(Keys.majorRadius.name),
            minorRadius: try f.optionalDouble(Keys.minorRadius.name),
            orientation: try f.optionalDouble(Keys.orientation.name), force: try f.optionalDouble(Keys.force.name),
            predicted: f.optionalValue(Keys.predicted.name) == nil ? nil : try f.point(Keys.predicted.name))
        if let value = f.optionalValue(Keys.coalesced.name) { coalesced = try Self.coalesced(value, f) }
    }

    private static func coalesced(_ value: JSONValue, _ f: FieldReader) throws(WireDecodingError) -> [CoalescedSample] {
        guard case .array(let items) = value else { throw f.failure(Keys.coalesced.name, "must be an array") }
        var samples: [CoalescedSample] = []
        samples.reserveCapacity(items.count)
        for item in items {
            guard case .array(let v) = item, v.count == 3, case .number(let x) = v[0], case .number(let y) = v[1],
                case .number(let t) = v[2], let time = Timestamp(exactDecimal: t.text)
            else { throw f.failure(Keys.coalesced.name, "must hold [x, y, time] arrays") }
            samples.append(CoalescedSample(location: Point(x: x.doubleValue, y: y.doubleValue), time: time))
        }
        return samples
    }
}
