/// What a `dropped` count counts.
public enum DropUnit: String, Hashable, Sendable, CaseIterable {
    /// Kernel events (SYN_DROPPED, a trailing partial frame).
    case events
    /// Kernel buffer overflows of a live device (each followed by a resync).
    case overflows
    /// Messages a slow client missed (coalesced away).
    case messages
}

/// `dropped`: input or output was lost and the stream says so (nothing is lost silently).
public struct DroppedMessage: Hashable, Sendable {
    /// The device the loss concerns (absent when none).
    public var device: Int?
    public var time: Timestamp?
    public var count: Int
    public var unit: DropUnit
    /// Words for people: `SYN_DROPPED`, `client queue full`, ...
    public var reason: String

    public init(device: Int?, time: Timestamp?, count: Int, unit: DropUnit, reason: String) {
        self.device = device
        self.time = time
        self.count = count
        self.unit = unit
        self.reason = reason
    }

    /// The key table: the members after "type", in the order they are written.
    enum Keys {
        static let device = FieldKey("device")
        static let time = FieldKey("time")
        static let count = FieldKey("count")
        static let unit = FieldKey("unit")
        static let reason = FieldKey("reason")
        static let all = [device, time, count, unit, reason]
    }

    func writeFields(to w: inout JSONWriter) {
        w.optionalField(Keys.device.text, device)
        w.optionalField(Keys.time.text, time)
        w.key(Keys.count)
        w.int(count)
        w.key(Keys.unit)
        w.string(unit.rawValue)
        w.key(Keys.reason)
        w.string(reason)
    }

    init(reading f: FieldReader) throws(WireDecodingError) {
        self.init(
            device: try f.optionalInteger(Keys.device.name), time: try f.optionalTime(Keys.time.name),
            count: try f.integer(Keys.count.name), unit: try f.enumeration(Keys.unit.name),
            reason: try f.string(Keys.reason.name))
    }
}

/// `error`: what was wrong, in words; `fatal` means the daemon closes the connection after this line.
public struct ErrorMessage: Hashable, Sendable {
    public var code: ErrorCode
    public var message: String
    public var fatal: Bool
    /// The id of the request that caused it, when it had one (written last).
    public var id: RequestID?

    public init(code: ErrorCode, message: String, fatal: Bool, id: RequestID? = nil) {
        self.code = code
        self.message = message
        self.fatal = fatal
        self.id = id
    }

    /// An error whose `fatal` is what the code documents.
    public init(_ code: ErrorCode, _ message: String, id: RequestID? = nil) {
        self.init(code: code, message: message, fatal: code.closesConnection, id: id)
    }

    /// The key table: the members after "type", in the order they are written, "id" (last) aside.
    enum Keys {
        static let code = FieldKey("code")
        static let message = FieldKey("message")
        static let fatal = FieldKey("fatal")
        static let all = [code, message, fatal]
    }

    func writeFields(to w: inout JSONWriter) {
        w.key(Keys.code)
        w.string(code.rawValue)
        w.key(Keys.message)
        w.string(message)
        w.key(Keys.fatal)
        w.bool(fatal)
        if let id {
            w.key("id")
            id.write(to: &w)
        }
    }

    init(reading f: FieldReader) throws(WireDecodingError) {
        self.init(
            code: ErrorCode(rawValue: try f.string(Keys.code.name)), message: try f.string(Keys.message.name),
            fatal: try f.bool(Keys.fatal.name), id: try f.requestID())
    }
}

extension FieldReader {
    /// The `"id"` member as the reply carries it, or nil.
    func requestID() throws(WireDecodingError) -> RequestID? {
        guard let member = object.member("id") else { return nil }
        guard let id = RequestID.read(member, source: source) else {
            throw failure("id", "must be a string, a number or null, got \(member.value.typeName)")
        }
        return id
    }
}
