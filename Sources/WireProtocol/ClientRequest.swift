/// Every value of `"type"` a client sends. The golden files (checks/protocol/golden/requests/NAME.jsonl)
/// are named after these.
public enum RequestKind: String, Hashable, Sendable, CaseIterable {
    case subscribe, unsubscribe, ping, stats, resetTransform, setTransform, declareRegions, updateRegions
    case recognized, frame, listRegions
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
    /// Replace the client's regions on a device with these (empty: routing off for the device). The
    /// regions are checked as a whole (docs/PROTOCOL.md "Touch routing").
    case declareRegions(device: Int, regions: [Region])
    /// Add or replace (by id) some of the client's regions on a device, and remove others by id.
    case updateRegions(device: Int, regions: [Region], remove: [String])
    /// The client's own recogniser recognised a gesture in one of its regions: the region's options take
    /// effect as when its gesture session recognises one (cancel raw touches, claim exclusively).
    case recognized(device: Int, region: String)
    /// Set (`matrix`) or reset (nil) the cumulative transform of one of the client's regions' gesture
    /// session: `setTransform`/`resetTransform` with a `region`.
    case setRegionTransform(device: Int, region: String, matrix: AffineTransform?)
    /// A display frame of a frame-aligned subscription (`"frames": true`) at `time` (the messages' clock,
    /// CLOCK_MONOTONIC): answered with that frame's resampled messages (docs/PREDICTION.md).
    case frame(time: Timestamp)
    /// Who owns which area of a device (`regionList`): every region for root, the client's own for
    /// anyone else.
    case listRegions(device: Int)

    public var kind: RequestKind {
        switch self {
        case .subscribe: return .subscribe
        case .unsubscribe: return .unsubscribe
        case .ping: return .ping
        case .stats: return .stats
        case .resetTransform: return .resetTransform
        case .setTransform: return .setTransform
        case .declareRegions: return .declareRegions
        case .updateRegions: return .updateRegions
        case .recognized: return .recognized
        case .setRegionTransform(_, _, let matrix): return matrix == nil ? .resetTransform : .setTransform
        case .frame: return .frame
        case .listRegions: return .listRegions
        }
    }
}

/// One client request line, typed: what it asks for and the id its reply echoes. The daemon decodes
/// with `init(decoding:)` (validating every field), clients encode with `jsonLine()`.
public struct ClientRequest: Hashable, Sendable {
    public var action: RequestAction
    /// Echoed byte for byte in the reply and in any error about the request.
    public var id: RequestID?
    /// `subscribe`'s `"predictMs"` (0-50): the client wants predicted touches and matrices this far
    /// ahead of each message's time (docs/PREDICTION.md). Nil for every other request.
    public var predictMilliseconds: Int?
    /// `subscribe`'s `"frames": true`: the client asks for its touches and gestures one display frame at
    /// a time (`frame` requests), resampled (docs/PREDICTION.md). False for every other request.
    public var frameAligned = false

    /// The largest prediction horizon a client may ask for, ms (issue 20: 0-50).
    public static let maximumPredictMilliseconds = 50

    public init(
        _ action: RequestAction, id: RequestID? = nil, predictMilliseconds: Int? = nil, frameAligned: Bool = false
    ) {
        self.action = action
        self.id = id
        self.predictMilliseconds = predictMilliseconds
        self.frameAligned = frameAligned
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
                w.key(Keys.streams)
                w.beginArray()
                for stream in streams.inProtocolOrder { w.string(stream.rawValue) }
                w.endArray()
            }
            if let devices {
                w.key(Keys.devices)
                devices.write(to: &w)
            }
            w.optionalField(Keys.predictMilliseconds.text, predictMilliseconds)
            if frameAligned {
                w.key(Keys.frames)
                w.bool(true)
            }
        case .unsubscribe, .ping, .stats:
            break
        case .resetTransform(let device), .listRegions(let device):
            w.key(Keys.device)
            w.int(device)
        case .setTransform(let device, let matrix):
            w.key(Keys.device)
            w.int(device)
            w.key(Keys.matrix)
            w.exactTransform(matrix)
        case .declareRegions(let device, let regions):
            w.key(Keys.device)
            w.int(device)
            writeRegions(regions, to: &w)
        case .updateRegions(let device, let regions, let remove):
            w.key(Keys.device)
            w.int(device)
            writeRegions(regions, to: &w)
            w.key(Keys.remove)
            w.beginArray()
            for id in remove { w.string(id) }
            w.endArray()
        case .recognized(let device, let region):
            w.key(Keys.device)
            w.int(device)
            w.key(Keys.region)
            w.string(region)
        case .setRegionTransform(let device, let region, let matrix):
            w.key(Keys.device)
            w.int(device)
            w.key(Keys.region)
            w.string(region)
            if let matrix {
                w.key(Keys.matrix)
                w.exactTransform(matrix)
            }
        case .frame(let time):
            w.key(Keys.time)
            w.time(time)
        }
        w.optionalField("id", id)
        w.endObject()
    }

    private func writeRegions(_ regions: [Region], to w: inout JSONWriter) {
        w.key(Keys.regions)
        w.beginArray()
        for region in regions { RegionFields.write(region, to: &w) }
        w.endArray()
    }

    /// The key table: every member a request may have after "type" and "id", used by the writer,
    /// the reader and each request type's list of the members it allows.
    enum Keys {
        static let streams = FieldKey("streams")
        static let devices = FieldKey("devices")
        static let predictMilliseconds = FieldKey("predictMs")
        static let frames = FieldKey("frames")
        static let device = FieldKey("device")
        static let matrix = FieldKey("matrix")
        static let regions = FieldKey("regions")
        static let remove = FieldKey("remove")
        static let region = FieldKey("region")
        static let time = FieldKey("time")
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
            // The id still names the request when it can be read (NaN or 1e999 elsewhere in the line).
            let id = RequestID.salvaged(from: line)
            throw RequestError(.invalidJSON, "request is not valid JSON: \(error)", id: id)
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
        let allowed: [FieldKey]
        let action: RequestAction
        var predict: Int?
        var frames = false
        switch kind {
        case .subscribe:
            allowed = [Keys.streams, Keys.devices, Keys.predictMilliseconds, Keys.frames]
            action = .subscribe(streams: try fields.streams(), devices: try fields.devices())
            predict = try fields.predictMilliseconds()
            frames = try fields.frames()
        case .frame:
            allowed = [Keys.time]
            action = .frame(time: try fields.frameTime())
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
            allowed = [Keys.device, Keys.region]
            let device = try fields.device(object[Keys.device.name])
            if let region = try fields.region(optional: true) {
                action = .setRegionTransform(device: device, region: region, matrix: nil)
            } else {
                action = .resetTransform(device: device)
            }
        case .setTransform:
            allowed = [Keys.device, Keys.matrix, Keys.region]
            let device = try fields.device(object[Keys.device.name])
            let matrix = try fields.matrix()
            if let region = try fields.region(optional: true) {
                action = .setRegionTransform(device: device, region: region, matrix: matrix)
            } else {
                action = .setTransform(device: device, matrix: matrix)
            }
        case .recognized:
            allowed = [Keys.device, Keys.region]
            let device = try fields.device(object[Keys.device.name])
            guard let region = try fields.region(optional: false) else {
                throw RequestError(.badField, "missing \"region\" (a region id)", id: id)
            }
            action = .recognized(device: device, region: region)
        case .declareRegions:
            allowed = [Keys.device, Keys.regions]
            action = .declareRegions(
                device: try fields.device(object[Keys.device.name]), regions: try fields.regions(optional: false))
        case .listRegions:
            allowed = [Keys.device]
            action = .listRegions(device: try fields.device(object[Keys.device.name]))
        case .updateRegions:
            allowed = [Keys.device, Keys.regions, Keys.remove]
            let device = try fields.device(object[Keys.device.name])
            action = .updateRegions(
                device: device, regions: try fields.regions(optional: true), remove: try fields.remove())
        }
        let extra = object.members.map(\.key).filter { key in
            key != "type" && key != "id" && !allowed.contains { $0.name == key }
        }
        if let first = extra.sorted().first {
            var quoted = JSONWriter()
            quoted.string(first)
            throw RequestError(
                .badField, "unknown field \(String(decoding: quoted.bytes, as: UTF8.self)) in \(type)", id: id)
        }
        self.init(action, id: id, predictMilliseconds: predict, frameAligned: frames)
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
        guard let value = object[ClientRequest.Keys.streams.name] else { return nil }
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
        guard let value = object[ClientRequest.Keys.devices.name] else { return nil }
        if case .string("all") = value { return .all }
        guard case .array(let items) = value else {
            throw RequestError(.badField, "\"devices\" must be \"all\" or an array of device ids", id: id)
        }
        var ids: Set<Int> = []
        for item in items { ids.insert(try device(item)) }
        return .ids(ids)
    }

    func predictMilliseconds() throws(RequestError) -> Int? {
        guard let value = object[ClientRequest.Keys.predictMilliseconds.name] else { return nil }
        let limit = ClientRequest.maximumPredictMilliseconds
        guard case .number(let number) = value, let ms = number.integer(as: Int32.self), ms >= 0, ms <= limit else {
            throw RequestError(
                .badField, "\"predictMs\" must be an integer 0...\(limit), got \(value.jsonText)", id: id)
        }
        return Int(ms)
    }

    func frames() throws(RequestError) -> Bool {
        guard let value = object[ClientRequest.Keys.frames.name] else { return false }
        guard case .bool(let on) = value else {
            throw RequestError(.badField, "\"frames\" must be true or false, got \(value.jsonText)", id: id)
        }
        return on
    }

    /// `frame`'s `"time"`: seconds on the messages' clock (CLOCK_MONOTONIC), microseconds kept.
    func frameTime() throws(RequestError) -> Timestamp {
        if let value = object[ClientRequest.Keys.time.name], case .number(let number) = value,
            let exact = Timestamp(exactDecimal: number.text),
            exact.microseconds >= 0
        {
            return exact
        }
        guard let value = object[ClientRequest.Keys.time.name], case .number(let number) = value,
            let seconds = Double(number.text),
            seconds.isFinite, seconds >= 0, seconds < 1e12
        else {
            throw RequestError(
                .badField,
                "\"time\" must be a non-negative number of seconds, got \(object[ClientRequest.Keys.time.name]?.jsonText ?? "nothing")",
                id: id)
        }
        return Timestamp(microseconds: Int64((seconds * 1_000_000).rounded()))
    }

    func device(_ value: JSONValue?) throws(RequestError) -> Int {
        guard let value else { throw RequestError(.badField, "missing \"device\" (a device id)", id: id) }
        guard case .number(let number) = value, let device = number.integer(as: Int32.self), device >= 0 else {
            throw RequestError(.badField, "a device id must be a non-negative integer, got \(value.jsonText)", id: id)
        }
        return Int(device)
    }

    /// Every region of the request, or one `bad-field` error naming every problem (the request is
    /// atomic: nothing of it takes effect unless all of it is valid).
    func regions(optional: Bool) throws(RequestError) -> [Region] {
        if optional && object[ClientRequest.Keys.regions.name] == nil { return [] }
        // Counted before anything is decoded: a set that can never fit costs no mask decoding.
        if case .array(let items)? = object[ClientRequest.Keys.regions.name],
            items.count > RegionLimits.maximumRegionsPerClient
        {
            throw RequestError(
                .badField,
                "\"regions\": at most \(RegionLimits.maximumRegionsPerClient) regions per client and device, got \(items.count)",
                id: id)
        }
        var (regions, problems) = RegionFields.readArray(
            object[ClientRequest.Keys.regions.name], key: ClientRequest.Keys.regions.name)
        var seen: Set<String> = []
        for region in regions where !seen.insert(region.id).inserted {
            problems.append("duplicate region id \(JSONValue.string(region.id).jsonText)")
        }
        guard problems.isEmpty else {
            throw RequestError(.badField, problems.joined(separator: "; "), id: id)
        }
        return regions
    }

    /// `"region"`: one of the client's region ids (nil when absent and `optional`).
    func region(optional: Bool) throws(RequestError) -> String? {
        guard let value = object[ClientRequest.Keys.region.name] else {
            if optional { return nil }
            throw RequestError(.badField, "missing \"region\" (a region id)", id: id)
        }
        guard case .string(let region) = value, !region.isEmpty, region.utf8.count <= RegionLimits.maximumIDBytes else {
            throw RequestError(
                .badField, "\"region\" must be a region id (a string of 1...\(RegionLimits.maximumIDBytes) bytes)",
                id: id)
        }
        return region
    }

    func remove() throws(RequestError) -> [String] {
        guard let value = object[ClientRequest.Keys.remove.name] else { return [] }
        guard case .array(let items) = value else {
            throw RequestError(.badField, "\"remove\" must be an array of region ids", id: id)
        }
        var ids: [String] = []
        for item in items {
            guard case .string(let s) = item else {
                throw RequestError(.badField, "\"remove\" must hold region ids (strings), got \(item.typeName)", id: id)
            }
            ids.append(s)
        }
        return ids
    }

    func matrix() throws(RequestError) -> AffineTransform {
        guard let value = object[ClientRequest.Keys.matrix.name] else {
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
        // Finite and invertible is not enough: [1,0,0,1,1.7e308,1.7e308] made every later gesture matrix
        // of the device overflow (issue 11), so the bounds of `TransformBounds` apply here.
        switch TransformBounds.validate(numbers) {
        case .success(let matrix): return matrix
        case .failure(let error): throw RequestError(.badField, error.message, id: id)
        }
    }
}
