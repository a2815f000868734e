/// Which devices a subscription covers.
public enum DeviceFilter: Hashable, Sendable {
    case all
    /// Daemon device ids (from hello / deviceAdded).
    case ids(Set<Int>)

    public func contains(_ device: Int) -> Bool {
        switch self {
        case .all: return true
        case .ids(let ids): return ids.contains(device)
        }
    }
}

/// One client request line, validated (docs/PROTOCOL.md "Requests").
public enum ClientRequest: Hashable, Sendable {
    /// Start (or replace) the client's subscription.
    case subscribe(streams: Set<MessageStream>, devices: DeviceFilter, id: RequestJSON?)
    /// Stop receiving streamed messages (replies still come).
    case unsubscribe(id: RequestJSON?)
    /// Answered with `pong` carrying the same id.
    case ping(id: RequestJSON?)
    /// Answered with a `stats` object.
    case stats(id: RequestJSON?)
    /// Reset a device's cumulative transform to identity.
    case resetTransform(device: Int, id: RequestJSON?)
    /// Set a device's cumulative transform ([a, b, c, d, tx, ty]).
    case setTransform(device: Int, matrix: [Double], id: RequestJSON?)

    /// The request's `id`, echoed in its reply.
    public var id: RequestJSON? {
        switch self {
        case .subscribe(_, _, let id), .unsubscribe(let id), .ping(let id), .stats(let id),
            .resetTransform(_, let id), .setTransform(_, _, let id):
            return id
        }
    }
}

/// Error codes of `{"type":"error"}` messages. A struct with static members so new codes are not an API
/// break (STYLE.md §5). `closesConnection` is the documented consequence.
public struct ProtocolErrorCode: Hashable, Sendable, CustomStringConvertible {
    public var rawValue: String
    public var closesConnection: Bool

    public var description: String { rawValue }

    /// A request line longer than `maximumLineBytes`: closed (the stream cannot be re-synchronised safely).
    public static let lineTooLong = ProtocolErrorCode(rawValue: "line-too-long", closesConnection: true)
    /// The line is not valid UTF-8: kept.
    public static let invalidUTF8 = ProtocolErrorCode(rawValue: "invalid-utf8", closesConnection: false)
    /// The line is not JSON, or not a JSON object: kept.
    public static let invalidJSON = ProtocolErrorCode(rawValue: "invalid-json", closesConnection: false)
    /// No "type", or one the daemon does not know: kept.
    public static let unknownType = ProtocolErrorCode(rawValue: "unknown-type", closesConnection: false)
    /// A field is missing, has the wrong JSON type or an invalid value: kept.
    public static let badField = ProtocolErrorCode(rawValue: "bad-field", closesConnection: false)
    /// The request names a device the daemon does not have: kept.
    public static let unknownDevice = ProtocolErrorCode(rawValue: "unknown-device", closesConnection: false)
    /// The client's queue passed `hardQueueLimitBytes`: closed.
    public static let queueOverflow = ProtocolErrorCode(rawValue: "queue-overflow", closesConnection: true)
    /// `maximumClients` are connected: closed.
    public static let tooManyClients = ProtocolErrorCode(rawValue: "too-many-clients", closesConnection: true)
}

/// Why a request was refused.
public struct RequestError: Error, Hashable, Sendable {
    public var code: ProtocolErrorCode
    public var message: String
    public var id: RequestJSON?

    public init(_ code: ProtocolErrorCode, _ message: String, id: RequestJSON? = nil) {
        self.code = code
        self.message = message
        self.id = id
    }
}

extension ClientRequest {
    /// Validates one request line (without its newline).
    public static func parse(line: [UInt8]) throws(RequestError) -> ClientRequest {
        guard String(validating: line, as: UTF8.self) != nil else {
            throw RequestError(.invalidUTF8, "request is not valid UTF-8")
        }
        let value: RequestJSON
        do {
            value = try JSONParser.parse(line)
        } catch {
            throw RequestError(.invalidJSON, "request is not valid JSON: \(error)")
        }
        guard case .object(let fields) = value else {
            throw RequestError(.invalidJSON, "request must be a JSON object, got \(value.typeName)")
        }
        let id = fields["id"]
        if let id {
            switch id {
            case .string, .number, .null: break
            case .bool, .array, .object:
                throw RequestError(.badField, "\"id\" must be a string or a number, got \(id.typeName)")
            }
        }
        guard let typeValue = fields["type"] else { throw RequestError(.unknownType, "request has no \"type\"", id: id) }
        guard case .string(let type) = typeValue else {
            throw RequestError(.unknownType, "\"type\" must be a string, got \(typeValue.typeName)", id: id)
        }
        let allowed: Set<String>
        let request: ClientRequest
        switch type {
        case "subscribe":
            allowed = ["type", "id", "streams", "devices"]
            request = .subscribe(
                streams: try streams(fields["streams"], id: id), devices: try devices(fields["devices"], id: id), id: id)
        case "unsubscribe":
            allowed = ["type", "id"]
            request = .unsubscribe(id: id)
        case "ping":
            allowed = ["type", "id"]
            request = .ping(id: id)
        case "stats":
            allowed = ["type", "id"]
            request = .stats(id: id)
        case "resetTransform":
            allowed = ["type", "id", "device"]
            request = .resetTransform(device: try device(fields["device"], id: id), id: id)
        case "setTransform":
            allowed = ["type", "id", "device", "matrix"]
            request = .setTransform(
                device: try device(fields["device"], id: id), matrix: try matrix(fields["matrix"], id: id), id: id)
        default:
            throw RequestError(
                .unknownType,
                "unknown request type \(JSONText.quoted(type)); known: subscribe, unsubscribe, ping, stats, resetTransform, setTransform",
                id: id)
        }
        if let extra = fields.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw RequestError(.badField, "unknown field \(JSONText.quoted(extra)) in \(type)", id: id)
        }
        return request
    }

    private static func streams(_ value: RequestJSON?, id: RequestJSON?) throws(RequestError) -> Set<MessageStream> {
        guard let value else { return Set(MessageStream.allCases) }
        guard case .array(let items) = value else {
            throw RequestError(.badField, "\"streams\" must be an array of stream names", id: id)
        }
        var result: Set<MessageStream> = []
        for item in items {
            guard case .string(let name) = item, let stream = MessageStream(rawValue: name) else {
                throw RequestError(
                    .badField, "unknown stream \(item.jsonText); known: touches, gestures, devices", id: id)
            }
            result.insert(stream)
        }
        return result
    }

    private static func devices(_ value: RequestJSON?, id: RequestJSON?) throws(RequestError) -> DeviceFilter {
        guard let value else { return .all }
        if case .string("all") = value { return .all }
        guard case .array(let items) = value else {
            throw RequestError(.badField, "\"devices\" must be \"all\" or an array of device ids", id: id)
        }
        var ids: Set<Int> = []
        for item in items { ids.insert(try device(item, id: id)) }
        return .ids(ids)
    }

    private static func device(_ value: RequestJSON?, id: RequestJSON?) throws(RequestError) -> Int {
        guard let value else { throw RequestError(.badField, "missing \"device\" (a device id)", id: id) }
        guard case .number(let number, _) = value, number >= 0, number <= Double(Int32.max),
            number == number.rounded()
        else {
            throw RequestError(.badField, "a device id must be a non-negative integer, got \(value.jsonText)", id: id)
        }
        return Int(number)
    }

    private static func matrix(_ value: RequestJSON?, id: RequestJSON?) throws(RequestError) -> [Double] {
        guard let value else { throw RequestError(.badField, "missing \"matrix\" ([a, b, c, d, tx, ty])", id: id) }
        guard case .array(let items) = value, items.count == 6 else {
            throw RequestError(.badField, "\"matrix\" must be an array of 6 numbers [a, b, c, d, tx, ty]", id: id)
        }
        var numbers: [Double] = []
        for item in items {
            guard case .number(let n, _) = item else {
                throw RequestError(.badField, "\"matrix\" must hold numbers, got \(item.typeName)", id: id)
            }
            numbers.append(n)
        }
        let determinant = numbers[0] * numbers[3] - numbers[1] * numbers[2]
        guard determinant != 0, determinant.isFinite else {
            throw RequestError(.badField, "\"matrix\" is not invertible (a*d - b*c = 0)", id: id)
        }
        return numbers
    }
}
