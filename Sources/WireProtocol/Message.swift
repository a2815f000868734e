/// Wire protocol version carried in the hello; bumped on any incompatible change (docs/PROTOCOL.md
/// "Changes": 2 leaves out mmX/mmY where they equal x/y).
public enum ProtocolVersion {
    /// Computed, not a `static let`: clients fold a constant `let` into their copies of default
    /// arguments (`HelloMessage(protocolVersion:)`), and an incremental build then kept the old number.
    public static var current: Int { 2 }
}

/// Names the hello's `features` may list: optional parts of protocol 1 a daemon serves.
public enum ProtocolFeature {
    /// Touch routing: `declareRegions`/`updateRegions` and the per-region streams (issue 12).
    public static let regions = "regions"
}

/// Every value of `"type"` the daemon sends: one per message shape. The golden files
/// (checks/protocol/golden/messages/NAME.jsonl) are named after these.
public enum MessageKind: String, Hashable, Sendable, CaseIterable {
    case hello, deviceAdded, deviceRemoved, touches
    case session, gesture, tap, doubleTap, longPress
    case dropped, error
    case pong, subscribed, unsubscribed, stats, transform, regions, recognized, regionList

    /// `rawValue` as a static string: the writer copies it without walking a `String` to escape it.
    var staticName: StaticString {
        switch self {
        case .hello: return "hello"
        case .deviceAdded: return "deviceAdded"
        case .deviceRemoved: return "deviceRemoved"
        case .touches: return "touches"
        case .session: return "session"
        case .gesture: return "gesture"
        case .tap: return "tap"
        case .doubleTap: return "doubleTap"
        case .longPress: return "longPress"
        case .dropped: return "dropped"
        case .error: return "error"
        case .pong: return "pong"
        case .subscribed: return "subscribed"
        case .unsubscribed: return "unsubscribed"
        case .stats: return "stats"
        case .transform: return "transform"
        case .regions: return "regions"
        case .recognized: return "recognized"
        case .regionList: return "regionList"
        }
    }
}

/// Every server-to-client message, typed (docs/PROTOCOL.md is the contract). `multitouchctl replay
/// --json` prints exactly these lines, a socket client receives the same lines for the same input, and
/// `init(decoding:)` reads them back: the daemon, multitouchctl and the Swift client share this one
/// definition.
///
/// Each case carries one body struct that owns its fields, how they are written and how they are read
/// (one file per body), so adding a field is a change to that struct and its file.
public enum Message: Hashable, Sendable {
    /// First line on every connection.
    case hello(HelloMessage)
    case deviceAdded(DeviceInfo)
    case deviceRemoved(DeviceRemovedMessage)
    /// One touch frame (all active touches plus those ending in it).
    case touches(TouchesMessage)
    /// A session, segment update or discrete gesture (types session, gesture, tap, doubleTap, longPress).
    case gesture(GestureMessage)
    /// Input or output was lost and the stream says so.
    case dropped(DroppedMessage)
    /// A problem the client or the input caused; `fatal` tells the client the connection closes after it.
    case error(ErrorMessage)
    /// Reply to `ping`.
    case pong(PongMessage)
    /// Reply to `subscribe`.
    case subscribed(SubscribedMessage)
    /// Reply to `unsubscribe`.
    case unsubscribed(UnsubscribedMessage)
    /// Reply to `stats`.
    case stats(StatsMessage)
    /// Reply to `setTransform`/`resetTransform`, and the notice other clients of the device get.
    case transform(TransformMessage)
    /// Reply to `declareRegions`/`updateRegions`: the client's region ids now in force on the device.
    case regions(RegionsMessage)
    /// Reply to `recognized`.
    case recognized(RecognizedMessage)
    /// Reply to `listRegions`: who owns which area of a device.
    case regionList(RegionListMessage)

    /// The message type as it appears in "type".
    public var kind: MessageKind {
        switch self {
        case .hello: return .hello
        case .deviceAdded: return .deviceAdded
        case .deviceRemoved: return .deviceRemoved
        case .touches: return .touches
        case .gesture(let g): return g.kind
        case .dropped: return .dropped
        case .error: return .error
        case .pong: return .pong
        case .subscribed: return .subscribed
        case .unsubscribed: return .unsubscribed
        case .stats: return .stats
        case .transform: return .transform
        case .regions: return .regions
        case .recognized: return .recognized
        case .regionList: return .regionList
        }
    }

    /// The device the message is about, if any.
    public var device: Int? {
        switch self {
        case .deviceAdded(let info): return info.id
        case .deviceRemoved(let m): return m.device
        case .touches(let m): return m.device
        case .gesture(let m): return m.device
        case .dropped(let m): return m.device
        case .transform(let m): return m.device
        case .regions(let m): return m.device
        case .recognized(let m): return m.device
        case .regionList(let m): return m.device
        case .hello, .error, .pong, .subscribed, .unsubscribed, .stats: return nil
        }
    }

    /// The streams a subscriber must want (any of them) to receive the message when it is broadcast
    /// (docs/PROTOCOL.md "Subscribing"). Empty for replies, which go to the one client that asked and
    /// are never subject to subscriptions.
    public var streams: MessageStreams {
        switch self {
        case .touches: return .touches
        case .gesture, .transform: return .gestures
        case .deviceAdded, .deviceRemoved: return .devices
        // Lost input and recording notes concern every stream of the device.
        case .dropped, .error: return .all
        case .hello, .pong, .subscribed, .unsubscribed, .stats, .regions, .recognized, .regionList: return []
        }
    }

    /// True for the whole-device `touches` and gesture messages (no `region`): what a connection that
    /// declared regions on the device no longer receives (docs/PROTOCOL.md "Touch routing").
    public var isWholeDeviceStream: Bool {
        switch self {
        case .touches(let m): return m.routing == nil
        case .gesture(let m): return m.region == nil
        case .hello, .deviceAdded, .deviceRemoved, .dropped, .error, .pong, .subscribed, .unsubscribed, .stats,
            .transform, .regions, .recognized, .regionList:
            return false
        }
    }

    /// True for messages a slow client may miss (they coalesce into the next of their kind): `changed`
    /// gesture updates and touch frames in which every touch only moved or stayed. Began, ended,
    /// cancelled and discrete events are never droppable.
    public var isDroppable: Bool {
        switch self {
        case .touches(let m):
            // Each phase read in place (`allSatisfy` copied every touch out, a retain and a release each).
            for i in m.touches.indices where !TouchesMessage.isDroppable(m.touches[i].phase) { return false }
            return true
        case .gesture(let m):
            return m.isDroppable
        case .hello, .deviceAdded, .deviceRemoved, .dropped, .error, .pong, .subscribed, .unsubscribed, .stats,
            .transform, .regions, .recognized, .regionList:
            return false
        }
    }

    // MARK: Encoding

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
        w.withBytes { bytes.append(contentsOf: $0) }  // without `bytes`' intermediate array
    }

    /// Writes the message as one JSON object (no newline): `"type"` first, then the body's fields.
    public func write(to w: inout JSONWriter) {
        w.beginObject()
        w.key("type")
        w.rawString(kind.staticName)
        switch self {
        case .hello(let m): m.writeFields(to: &w)
        case .deviceAdded(let info):
            w.key("device")
            info.write(to: &w)
        case .deviceRemoved(let m): m.writeFields(to: &w)
        case .touches(let m): m.writeFields(to: &w)
        case .gesture(let m): m.writeFields(to: &w)
        case .dropped(let m): m.writeFields(to: &w)
        case .error(let m): m.writeFields(to: &w)
        case .pong(let m): m.writeFields(to: &w)
        case .subscribed(let m): m.writeFields(to: &w)
        case .unsubscribed(let m): m.writeFields(to: &w)
        case .stats(let m): m.writeFields(to: &w)
        case .transform(let m): m.writeFields(to: &w)
        case .regions(let m): m.writeFields(to: &w)
        case .recognized(let m): m.writeFields(to: &w)
        case .regionList(let m): m.writeFields(to: &w)
        }
        w.endObject()
    }

    // MARK: Decoding

    /// Reads one line the daemon sent (without its newline).
    /// - Throws: `MessageDecodingError.unknownType` for a type this version does not know (clients
    ///   skip those, as the protocol asks), `.invalid` for anything else that is not a valid message.
    public init(decoding line: some Collection<UInt8>) throws(MessageDecodingError) {
        let bytes = Array(line)
        guard String(validating: bytes, as: UTF8.self) != nil else {
            throw .invalid(WireDecodingError("the line is not valid UTF-8"))
        }
        let value: JSONValue
        do {
            value = try JSONReader.parse(bytes)
        } catch {
            throw .invalid(WireDecodingError("not JSON: \(error)"))
        }
        guard case .object(let object) = value else {
            throw .invalid(WireDecodingError("a message must be a JSON object, got \(value.typeName)"))
        }
        guard case .string(let type)? = object["type"] else {
            throw .invalid(WireDecodingError("a message needs a string \"type\""))
        }
        guard let kind = MessageKind(rawValue: type) else { throw .unknownType(type) }
        do {
            self = try Message(kind: kind, fields: FieldReader(object, context: type, source: bytes))
        } catch {
            throw .invalid(error)
        }
    }

    private init(kind: MessageKind, fields f: FieldReader) throws(WireDecodingError) {
        switch kind {
        case .hello: self = .hello(try HelloMessage(reading: f))
        case .deviceAdded: self = .deviceAdded(try DeviceInfo(reading: try f.object("device")))
        case .deviceRemoved: self = .deviceRemoved(try DeviceRemovedMessage(reading: f))
        case .touches: self = .touches(try TouchesMessage(reading: f))
        case .session, .gesture, .tap, .doubleTap, .longPress:
            self = .gesture(try GestureMessage(kind: kind, reading: f))
        case .dropped: self = .dropped(try DroppedMessage(reading: f))
        case .error: self = .error(try ErrorMessage(reading: f))
        case .pong: self = .pong(try PongMessage(reading: f))
        case .subscribed: self = .subscribed(try SubscribedMessage(reading: f))
        case .unsubscribed: self = .unsubscribed(try UnsubscribedMessage(reading: f))
        case .stats: self = .stats(try StatsMessage(reading: f))
        case .transform: self = .transform(try TransformMessage(reading: f))
        case .regions: self = .regions(try RegionsMessage(reading: f))
        case .recognized: self = .recognized(try RecognizedMessage(reading: f))
        case .regionList: self = .regionList(try RegionListMessage(reading: f))
        }
    }
}

/// Why a line from the daemon is not a message this client can use.
public enum MessageDecodingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A `"type"` this version of the protocol does not define (a newer daemon's): skip it.
    case unknownType(String)
    /// Not a valid message: not JSON, a missing or mistyped field, ...
    case invalid(WireDecodingError)

    public var description: String {
        switch self {
        case .unknownType(let type): return "unknown message type \"\(type)\""
        case .invalid(let error): return error.message
        }
    }
}
