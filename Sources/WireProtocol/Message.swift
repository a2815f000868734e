import Gestures
import MultitouchCore

/// Wire protocol version carried in the hello; bumped on any incompatible change (docs/PROTOCOL.md).
public enum ProtocolVersion {
    public static let current = 1
}

/// What the daemon tells clients about one device (hello, deviceAdded).
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

    public init(id: Int, source: String, description: DeviceDescription, mapper: CoordinateMapper) {
        self.id = id
        name = description.name
        self.source = source
        deviceClass = description.deviceClass
        multitouchProtocol = description.multitouchProtocol
        slots = description.slotCount
        isSemiMT = description.isSemiMT
        units = mapper.units
        let size = mapper.sizeMillimeters
        widthMillimeters = size.width
        heightMillimeters = size.height
        sizeSource = mapper.scaleSource
        if let output = mapper.output {
            width = output.width
            height = output.height
        } else {
            width = size.width
            height = size.height
        }
    }
}

/// One named field of a control message the server builds at run time (stats, pong, subscribed).
public struct JSONField: Hashable, Sendable {
    public var name: String
    public var value: JSONValue
    public init(_ name: String, _ value: JSONValue) {
        self.name = name
        self.value = value
    }
}

/// A JSON value for control messages whose shape is not fixed at compile time.
public indirect enum JSONValue: Hashable, Sendable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([JSONField])

    func write(to w: inout JSONWriter) {
        switch self {
        case .null: w.null()
        case .bool(let b): w.bool(b)
        case .int(let i): w.int(i)
        case .double(let d): w.double(d)
        case .string(let s): w.string(s)
        case .array(let items):
            w.beginArray()
            for item in items { item.write(to: &w) }
            w.endArray()
        case .object(let fields):
            w.beginObject()
            for field in fields {
                w.key(string: field.name)
                field.value.write(to: &w)
            }
            w.endObject()
        }
    }
}

/// Every server-to-client message. `multitouchctl replay --json` prints exactly these lines, and a
/// socket client receives the same lines for the same input (docs/PROTOCOL.md is the contract).
public enum Message: Hashable, Sendable {
    /// First line on every connection.
    case hello(daemon: String, devices: [DeviceInfo])
    case deviceAdded(DeviceInfo)
    case deviceRemoved(device: Int, time: Timestamp?, reason: String)
    /// One touch frame (all active touches plus those ending in it).
    case touches(device: Int, frame: TouchFrame)
    /// A session, segment update or discrete gesture.
    case gesture(device: Int, event: GestureEvent)
    /// Input was lost and the stream says so: `count` items (events, frames or messages, see `unit`).
    case dropped(device: Int?, time: Timestamp?, count: Int, unit: String, reason: String)
    /// A problem the client or the input caused; `fatal` tells the client the connection closes after it.
    case error(code: String, message: String, fatal: Bool)
    /// Server control messages built at run time (pong, stats, subscribed, transform).
    case control(type: String, fields: [JSONField])

    /// The message type as it appears in "type".
    public var typeName: String {
        switch self {
        case .hello: return "hello"
        case .deviceAdded: return "deviceAdded"
        case .deviceRemoved: return "deviceRemoved"
        case .touches: return "touches"
        case .gesture(_, let event):
            switch event {
            case .sessionBegan, .sessionEnded: return "session"
            case .update: return "gesture"
            case .tap: return "tap"
            case .doubleTap: return "doubleTap"
            case .longPress: return "longPress"
            }
        case .dropped: return "dropped"
        case .error: return "error"
        case .control(let type, _): return type
        }
    }

    /// The device the message is about, if any.
    public var device: Int? {
        switch self {
        case .deviceAdded(let info): return info.id
        case .deviceRemoved(let d, _, _), .touches(let d, _), .gesture(let d, _): return d
        case .dropped(let d, _, _, _, _): return d
        case .hello, .error, .control: return nil
        }
    }

    /// True for messages a slow client may miss (they coalesce into the next of their kind): `changed`
    /// gesture updates and touch frames in which every touch only moved or stayed. Began, ended,
    /// cancelled and discrete events are never droppable.
    public var isDroppable: Bool {
        switch self {
        case .touches(_, let frame):
            return frame.touches.allSatisfy { $0.phase == .moved || $0.phase == .stationary }
        case .gesture(_, .update(let update)):
            return update.phase == .changed
        default:
            return false
        }
    }

    /// The message as one line of JSON, without the newline.
    public func jsonLine() -> String {
        var w = JSONWriter()
        write(to: &w)
        return String(decoding: w.bytes, as: UTF8.self)
    }

    /// Appends the message and its newline to `bytes`.
    public func encode(into bytes: inout [UInt8]) {
        var w = JSONWriter()
        write(to: &w)
        w.newline()
        bytes.append(contentsOf: w.bytes)
    }

    /// Writes the message as one JSON object (no newline).
    public func write(to w: inout JSONWriter) {
        w.beginObject()
        w.key("type")
        w.string(typeName)
        switch self {
        case .hello(let daemon, let devices):
            w.key("protocol")
            w.int(ProtocolVersion.current)
            w.key("daemon")
            w.string(daemon)
            w.key("devices")
            w.beginArray()
            for device in devices { device.write(to: &w) }
            w.endArray()
        case .deviceAdded(let info):
            w.key("device")
            info.write(to: &w)
        case .deviceRemoved(let device, let time, let reason):
            w.key("device")
            w.int(device)
            w.optionalField("time", time)
            w.key("reason")
            w.string(reason)
        case .touches(let device, let frame):
            w.key("device")
            w.int(device)
            w.key("time")
            w.time(frame.time)
            w.key("fingers")
            w.int(frame.fingerCount)
            if frame.isSemiMT {
                w.key("semiMT")
                w.bool(true)
            }
            w.key("touches")
            w.beginArray()
            for touch in frame.touches { touch.write(to: &w) }
            w.endArray()
        case .gesture(let device, let event):
            w.key("device")
            w.int(device)
            event.write(to: &w)
        case .dropped(let device, let time, let count, let unit, let reason):
            w.optionalField("device", device)
            w.optionalField("time", time)
            w.key("count")
            w.int(count)
            w.key("unit")
            w.string(unit)
            w.key("reason")
            w.string(reason)
        case .error(let code, let message, let fatal):
            w.key("code")
            w.string(code)
            w.key("message")
            w.string(message)
            w.key("fatal")
            w.bool(fatal)
        case .control(_, let fields):
            for field in fields {
                w.key(string: field.name)
                field.value.write(to: &w)
            }
        }
        w.endObject()
    }
}

extension DeviceInfo {
    func write(to w: inout JSONWriter) {
        w.beginObject()
        w.key("id")
        w.int(id)
        w.key("name")
        w.string(name)
        w.key("source")
        w.string(source)
        w.key("class")
        w.string(deviceClass.rawValue)
        w.key("protocol")
        w.string(multitouchProtocol.rawValue)
        w.key("slots")
        w.int(slots)
        w.key("semiMT")
        w.bool(isSemiMT)
        w.key("units")
        w.string(units.rawValue)
        w.key("width")
        w.double(width)
        w.key("height")
        w.double(height)
        w.key("widthMM")
        w.double(widthMillimeters)
        w.key("heightMM")
        w.double(heightMillimeters)
        w.key("sizeSource")
        w.string(sizeSource)
        w.endObject()
    }
}

extension Touch {
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
        w.endObject()
    }
}

extension GestureEvent {
    /// Writes the fields after "type" and "device".
    func write(to w: inout JSONWriter) {
        switch self {
        case .sessionBegan(let session, let time):
            w.key("time")
            w.time(time)
            w.key("session")
            w.int(session)
            w.key("phase")
            w.rawString("began")
        case .sessionEnded(let session, let time, let cancelled):
            w.key("time")
            w.time(time)
            w.key("session")
            w.int(session)
            w.key("phase")
            if cancelled { w.rawString("cancelled") } else { w.rawString("ended") }
        case .update(let u):
            w.key("time")
            w.time(u.time)
            w.key("session")
            w.int(u.session)
            w.key("seq")
            w.int(u.seq)
            w.key("phase")
            w.string(u.phase.rawValue)
            w.key("mode")
            w.string(u.mode.rawValue)
            w.key("fingers")
            w.int(u.fingers)
            w.key("centroid")
            w.point(u.centroid.x, u.centroid.y)
            w.key("translation")
            w.point(u.translation.x, u.translation.y)
            w.key("scale")
            w.double(u.scale)
            w.key("rotation")
            w.double(u.rotation)
            w.key("velocity")
            w.beginObject()
            w.key("translation")
            w.point(u.velocity.translation.x, u.velocity.translation.y)
            w.key("scale")
            w.double(u.velocity.scale)
            w.key("rotation")
            w.double(u.velocity.rotation)
            w.endObject()
            w.key("matrix")
            u.matrix.write(to: &w)
        case .tap(let session, let time, let location, let tapCount, let fingers):
            w.key("time")
            w.time(time)
            w.key("session")
            w.int(session)
            w.key("location")
            w.point(location.x, location.y)
            w.key("tapCount")
            w.int(tapCount)
            w.key("fingers")
            w.int(fingers)
        case .doubleTap(let session, let time, let location, let matrix):
            w.key("time")
            w.time(time)
            w.key("session")
            w.int(session)
            w.key("location")
            w.point(location.x, location.y)
            w.key("matrix")
            matrix.write(to: &w)
        case .longPress(let session, let time, let phase, let location, let fingers):
            w.key("time")
            w.time(time)
            w.key("session")
            w.int(session)
            w.key("phase")
            w.string(phase.rawValue)
            w.key("location")
            w.point(location.x, location.y)
            w.key("fingers")
            w.int(fingers)
        }
    }
}

extension AffineTransform {
    func write(to w: inout JSONWriter) {
        w.beginArray()
        w.double(a)
        w.double(b)
        w.double(c)
        w.double(d)
        w.double(tx)
        w.double(ty)
        w.endArray()
    }
}
