import Gestures

/// Every value of `"type"` a client sends. The golden files (tests/protocol/golden/requests/NAME.jsonl)
/// are named after these.
public enum RequestKind: String, Hashable, Sendable, CaseIterable {
    case subscribe, unsubscribe, ping, stats, resetTransform, setTransform
}

/// What a request asks for (docs/PROTOCOL.md "Requests").
public enum RequestAction: Hashable, Sendable {
    /// Start (or replace) the client's subscription. Absent fields mean every stream and every device.
    case subscribe(streams: Set<MessageStream>?, devices: DeviceFilter?)
    /// Stop receiving streamed messages (replies still come).
    case unsubscribe
    /// Answered with `pong` carrying the same id.
    case ping
    /// Answered with a `stats` object.
    case stats
    /// Reset a device's cumulative transform to identity.
    case resetTransform(device: Int)
    /// Set a device's cumulative transform (six finite numbers, invertible).
    case setTransform(device: Int, matrix: AffineTransform)

    public var kind: RequestKind {
        switch self {
        case .subscribe: return .subscribe
        case .unsubscribe: return .unsubscribe
        case .ping: return .ping
        case .stats: return .stats
        case .resetTransform: return .resetTransform
        case .setTransform: return .setTransform
        }
    }
}

/// One client request line, typed: what it asks for and the id its reply echoes. The daemon decodes
/// with `init(decoding:)` (validating every field), clients encode with `jsonLine()`.
public struct ClientRequest: Hashable, Sendable {
    public var action: RequestAction
    /// Echoed byte for byte in the reply and in any error about the request.
    public var id: RequestID?

    public init(_ action: RequestAction, id: RequestID? = nil) {
        self.action = action
        self.id = id
    }

    // MARK: Encoding

    /// The request as one line of JSON, without the newline: `"type"`, the fields, then `"id"`.
    public func jsonLine() -> String {
        var w = JSONWriter()
        write(to: &w)
        return String(decoding: w.bytes, as: UTF8.self)
    }

    public func write(to w: inout JSONWriter) {
        w.beginObject()
        w.key("type")
        w.string(action.kind.rawValue)
        switch action {
        case .subscribe(let streams, let devices):
            if let streams {
                w.key("streams")
                w.beginArray()
                for stream in streams.inProtocolOrder { w.string(stream.rawValue) }
                w.endArray()
            }
            if let devices {
                w.key("devices")
                devices.write(to: &w)
            }
        case .unsubscribe, .ping, .stats:
            break
        case .resetTransform(let device):
            w.key("device")
            w.int(device)
        case .setTransform(let device, let matrix):
            w.key("device")
            w.int(device)
            w.key("matrix")
            w.transform(matrix)
        }
        w.optionalField("id", id)
        w.endObject()
    }

    // MARK: Decoding

    /// Validates one request line (without its newline). Every refusal names what is wrong and carries
    /// the request's id when it had a valid one.
    public init(decoding line: [UInt8]) throws(RequestError) {
        guard String(validating: line, as: UTF8.self) != nil else {
            throw RequestError(.invalidUTF8, "request is not valid UTF-8")
        }
        let value: JSONValue
        do {
            value = try JSONReader.parse(line)
        } catch {
            throw RequestError(.invalidJSON, "request is not valid JSON: \(error)")
        }
        guard case .object(let object) = value else {
            throw RequestError(.invalidJSON, "request must be a JSON object, got \(value.typeName)")
        }
        var id: RequestID?
        if let member = object.member("id") {
            guard let valid = RequestID.read(member, source: line) else {
                throw RequestError(.badField, "\"id\" must be a string or a number, got \(member.value.typeName)")
            }
            id = valid
        }
        guard let typeValue = object["type"] else {
            throw RequestError(.unknownType, "request has no \"type\"", id: id)
        }
        guard case .string(let type) = typeValue else {
            throw RequestError(.unknownType, "\"type\" must be a string, got \(typeValue.typeName)", id: id)
        }
        guard let kind = RequestKind(rawValue: type) else {
            var quoted = JSONWriter()
            quoted.string(type)
            let known = RequestKind.allCases.map(\.rawValue).joined(separator: ", ")
            throw RequestError(
                .unknownType, "unknown request type \(String(decoding: quoted.bytes, as: UTF8.self)); known: \(known)",
                id: id)
        }
        let fields = RequestFields(object: object, id: id)
        let allowed: [String]
        let action: RequestAction
        switch kind {
        case .subscribe:
            allowed = ["streams", "devices"]
            action = .subscribe(streams: try fields.streams(), devices: try fields.devices())
        case .unsubscribe:
            allowed = []
            action = .unsubscribe
        case .ping:
            allowed = []
            action = .ping
        case .stats:
            allowed = []
            action = .stats
        case .resetTransform:
            allowed = ["device"]
            action = .resetTransform(device: try fields.device(object["device"]))
        case .setTransform:
            allowed = ["device", "matrix"]
            action = .setTransform(device: try fields.device(object["device"]), matrix: try fields.matrix())
        }
        let extra = object.members.map(\.key).filter { $0 != "type" && $0 != "id" && !allowed.contains($0) }
        if let first = extra.sorted().first {
            var quoted = JSONWriter()
            quoted.string(first)
            throw RequestError(
                .badField, "unknown field \(String(decoding: quoted.bytes, as: UTF8.self)) in \(type)", id: id)
        }
        self.init(action, id: id)
    }
}

/// Why a request was refused: the error code, the words, and the request's id if it had one.
public struct RequestError: Error, Hashable, Sendable {
    public var code: ErrorCode
    public var message: String
    public var id: RequestID?

    public init(_ code: ErrorCode, _ message: String, id: RequestID? = nil) {
        self.code = code
        self.message = message
        self.id = id
    }

    /// The `error` message the daemon answers with.
    public var errorMessage: ErrorMessage { ErrorMessage(code, message, id: id) }
}

/// Field validation of requests, with the daemon's documented error texts.
private struct RequestFields {
    let object: JSONObject
    let id: RequestID?

    func streams() throws(RequestError) -> Set<MessageStream>? {
        guard let value = object["streams"] else { return nil }
        guard case .array(let items) = value else {
            throw RequestError(.badField, "\"streams\" must be an array of stream names", id: id)
        }
        var result: Set<MessageStream> = []
        for item in items {
            guard case .string(let name) = item, let stream = MessageStream(rawValue: name) else {
                let known = MessageStream.allCases.map(\.rawValue).joined(separator: ", ")
                throw RequestError(.badField, "unknown stream \(item.jsonText); known: \(known)", id: id)
            }
            result.insert(stream)
        }
        return result
    }

    func devices() throws(RequestError) -> DeviceFilter? {
        guard let value = object["devices"] else { return nil }
        if case .string("all") = value { return .all }
        guard case .array(let items) = value else {
            throw RequestError(.badField, "\"devices\" must be \"all\" or an array of device ids", id: id)
        }
        var ids: Set<Int> = []
        for item in items { ids.insert(try device(item)) }
        return .ids(ids)
    }

    func device(_ value: JSONValue?) throws(RequestError) -> Int {
        guard let value else { throw RequestError(.badField, "missing \"device\" (a device id)", id: id) }
        guard case .number(let number) = value, let device = number.integer(as: Int32.self), device >= 0 else {
            throw RequestError(.badField, "a device id must be a non-negative integer, got \(value.jsonText)", id: id)
        }
        return Int(device)
    }

    func matrix() throws(RequestError) -> AffineTransform {
        guard let value = object["matrix"] else {
            throw RequestError(.badField, "missing \"matrix\" ([a, b, c, d, tx, ty])", id: id)
        }
        guard case .array(let items) = value, items.count == 6 else {
            throw RequestError(.badField, "\"matrix\" must be an array of 6 numbers [a, b, c, d, tx, ty]", id: id)
        }
        var numbers: [Double] = []
        for item in items {
            guard case .number(let n) = item else {
                throw RequestError(.badField, "\"matrix\" must hold numbers, got \(item.typeName)", id: id)
            }
            numbers.append(n.doubleValue)
        }
        let determinant = numbers[0] * numbers[3] - numbers[1] * numbers[2]
        guard determinant != 0, determinant.isFinite, let matrix = AffineTransform(components: numbers) else {
            throw RequestError(.badField, "\"matrix\" is not invertible (a*d - b*c = 0)", id: id)
        }
        return matrix
    }
}
