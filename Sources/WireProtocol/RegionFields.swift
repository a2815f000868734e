/// The region object of `declareRegions` and `updateRegions` (docs/PROTOCOL.md "Touch routing"):
/// writing one, and reading one with every problem named. The values are `TouchRouting.Region`, the
/// router's own type, so the wire and the router cannot disagree about what a region is.
enum RegionFields {
    /// Keys a region object may have; anything else is refused (a typo must not be ignored).
    static let allowedKeys: Set<String> = [
        "id", "rect", "polygon", "mask", "z", "mode", "hidden", "disabled", "gestures",
        "cancelsTouchesOnRecognition", "delaysTouchesUntilFailure", "exclusive",
    ]

    /// Writes `region` with defaults left out, so a short declaration round-trips to itself.
    static func write(_ region: Region, to w: inout JSONWriter) {
        w.beginObject()
        w.key("id")
        w.string(region.id)
        switch region.shape {
        case .rectangle(let r):
            w.key("rect")
            w.beginArray()
            w.double(r.x)
            w.double(r.y)
            w.double(r.width)
            w.double(r.height)
            w.endArray()
        case .polygon(let points):
            w.key("polygon")
            w.beginArray()
            for p in points { w.point(p.x, p.y) }
            w.endArray()
        }
        if let mask = region.mask {
            w.key("mask")
            w.beginObject()
            w.key("columns")
            w.int(mask.columns)
            w.key("rows")
            w.int(mask.rows)
            w.key("bits")
            w.string(Base64.encode(packBits(mask.solid)))
            w.endObject()
        }
        if region.z != 0 {
            w.key("z")
            w.int(region.z)
        }
        if region.mode != .opaque {
            w.key("mode")
            w.string(region.mode.rawValue)
        }
        if region.hidden {
            w.key("hidden")
            w.bool(true)
        }
        if region.disabled {
            w.key("disabled")
            w.bool(true)
        }
        let defaultGestures = region.mode != .observer
        if !region.options.settings.isEmpty {
            w.key("gestures")
            w.beginObject()
            for (key, value) in region.options.settings.orderedFields {
                w.key(string: key)
                switch value {
                case .number(let v): w.double(v)
                case .flag(let v): w.bool(v)
                }
            }
            w.endObject()
        } else if region.options.gestures != defaultGestures {
            w.key("gestures")
            w.bool(region.options.gestures)
        }
        if region.options.cancelsTouchesOnRecognition {
            w.key("cancelsTouchesOnRecognition")
            w.bool(true)
        }
        if region.options.delaysTouchesUntilFailure {
            w.key("delaysTouchesUntilFailure")
            w.bool(true)
        }
        if region.options.exclusive {
            w.key("exclusive")
            w.bool(true)
        }
        w.endObject()
    }

    /// Reads the array under `key`: every region, or every problem found in any of them (so a client
    /// fixes its declaration in one round trip). `Region.problem` is applied here too: the router would
    /// refuse the same regions, and the wire names them first with their index.
    static func readArray(_ value: JSONValue?, key: String) -> (regions: [Region], problems: [String]) {
        guard let value else { return ([], ["missing \"\(key)\" (an array of region objects)"]) }
        guard case .array(let items) = value else {
            return ([], ["\"\(key)\" must be an array of region objects, got \(value.typeName)"])
        }
        var regions: [Region] = []
        var problems: [String] = []
        for (index, item) in items.enumerated() {
            switch read(item) {
            case .success(let region):
                if let problem = region.problem {
                    problems.append("\(key)[\(index)]: \(problem)")
                } else {
                    regions.append(region)
                }
            case .failure(let failure):
                problems.append(contentsOf: failure.problems.map { "\(key)[\(index)]: \($0)" })
            }
        }
        return (regions, problems)
    }

    struct Problems: Error {
        var problems: [String]
    }

    static func read(_ value: JSONValue) -> Result<Region, Problems> {
        guard case .object(let object) = value else {
            return .failure(Problems(problems: ["a region must be an object, got \(value.typeName)"]))
        }
        var problems: [String] = []
        for key in object.members.map(\.key).sorted() where !allowedKeys.contains(key) {
            problems.append("unknown field \(JSONValue.string(key).jsonText) in a region")
        }
        var id = ""
        switch object["id"] {
        case .string(let s)?: id = s
        case nil: problems.append("missing \"id\" (a string)")
        case let other?: problems.append("\"id\" must be a string, got \(other.typeName)")
        }
        var shape: RegionShape?
        switch (object["rect"], object["polygon"]) {
        case (nil, nil):
            problems.append("needs \"rect\" [x, y, width, height] or \"polygon\" [[x, y], ...]")
        case (.some, .some):
            problems.append("has both \"rect\" and \"polygon\"; give one")
        case (let rect?, nil):
            if let n = numbers(rect), n.count == 4 {
                shape = .rectangle(RegionRect(x: n[0], y: n[1], width: n[2], height: n[3]))
            } else {
                problems.append("\"rect\" must be 4 numbers [x, y, width, height]")
            }
        case (nil, let polygon?):
            var points: [Point] = []
            if case .array(let items) = polygon {
                for item in items {
                    guard let n = numbers(item), n.count == 2 else { break }
                    points.append(Point(x: n[0], y: n[1]))
                }
            }
            if case .array(let items) = polygon, points.count == items.count {
                shape = .polygon(points)
            } else {
                problems.append("\"polygon\" must be an array of [x, y] pairs of numbers")
            }
        }
        var mask: AlphaMask?
        if let value = object["mask"] {
            switch readMask(value) {
            case .success(let m): mask = m
            case .failure(let p): problems.append(contentsOf: p.problems)
            }
        }
        var z = 0
        if let value = object["z"] {
            if case .number(let n) = value, let v = n.integer(as: Int32.self) {
                z = Int(v)
            } else {
                problems.append("\"z\" must be an integer, got \(value.jsonText)")
            }
        }
        var mode = RegionMode.opaque
        if let value = object["mode"] {
            if case .string(let s) = value, let m = RegionMode(rawValue: s) {
                mode = m
            } else {
                let known = RegionMode.allCases.map(\.rawValue).joined(separator: ", ")
                problems.append("\"mode\" must be one of \(known), got \(value.jsonText)")
            }
        }
        func flag(_ key: String, _ fallback: Bool) -> Bool {
            guard let value = object[key] else { return fallback }
            guard case .bool(let b) = value else {
                problems.append("\"\(key)\" must be true or false, got \(value.jsonText)")
                return fallback
            }
            return b
        }
        let hidden = flag("hidden", false)
        let disabled = flag("disabled", false)
        // "gestures": true or false (a gesture session or none), or an object of `[gestures]` settings
        // for this region's session (which implies one).
        var settings = GestureSettings()
        var gestures = mode != .observer
        switch object["gestures"] {
        case nil: break
        case .bool(let b)?: gestures = b
        case .object(let fields)?:
            gestures = true
            for member in fields.members {
                let (key, value) = (member.key, member.value)
                let problem: String?
                switch value {
                case .number(let n) where n.doubleValue.isFinite: problem = settings.set(key, number: n.doubleValue)
                case .bool(let b): problem = settings.set(key, flag: b)
                default: problem = "gesture setting \"\(key)\" must be a number or true/false, got \(value.jsonText)"
                }
                if let problem { problems.append("\"gestures\": \(problem)") }
            }
        case let other?:
            problems.append(
                "\"gestures\" must be true, false or an object of gesture settings, got \(other.jsonText)")
        }
        let options = RegionOptions(
            cancelsTouchesOnRecognition: flag("cancelsTouchesOnRecognition", false),
            delaysTouchesUntilFailure: flag("delaysTouchesUntilFailure", false),
            exclusive: flag("exclusive", false),
            gestures: gestures, settings: settings)
        guard problems.isEmpty, let shape else {
            let named = id.isEmpty ? problems : problems.map { "region \(JSONValue.string(id).jsonText): \($0)" }
            return .failure(Problems(problems: named))
        }
        return .success(
            Region(
                id: id, shape: shape, mask: mask, z: z, mode: mode, hidden: hidden, disabled: disabled,
                options: options))
    }

    private static func numbers(_ value: JSONValue) -> [Double]? {
        guard case .array(let items) = value else { return nil }
        var result: [Double] = []
        for item in items {
            guard case .number(let n) = item, n.doubleValue.isFinite else { return nil }
            result.append(n.doubleValue)
        }
        return result
    }

    private static func readMask(_ value: JSONValue) -> Result<AlphaMask, Problems> {
        let usage = "\"mask\" must be {\"columns\":C,\"rows\":R,\"bits\":\"<base64>\"}"
        guard case .object(let object) = value, object.members.count == 3,
            case .number(let c)? = object["columns"], let columns = c.integer(as: Int32.self),
            case .number(let r)? = object["rows"], let rows = r.integer(as: Int32.self),
            case .string(let text)? = object["bits"]
        else { return .failure(Problems(problems: [usage])) }
        let side = RegionLimits.maximumMaskSide
        guard (1...Int32(side)).contains(columns), (1...Int32(side)).contains(rows) else {
            return .failure(Problems(problems: ["mask columns and rows must be 1...\(side), got \(columns) x \(rows)"]))
        }
        guard let bytes = Base64.decode(text) else {
            return .failure(Problems(problems: ["mask \"bits\" is not valid base64"]))
        }
        let cells = Int(columns) * Int(rows)
        let expected = (cells + 7) / 8
        guard bytes.count == expected else {
            return .failure(
                Problems(problems: [
                    "mask \"bits\" holds \(bytes.count) bytes, expected \(expected) for \(columns) x \(rows) cells"
                ]))
        }
        let solid = (0..<cells).map { bytes[$0 / 8] & (0x80 >> UInt8($0 % 8)) != 0 }
        return .success(AlphaMask(columns: Int(columns), rows: Int(rows), solid: solid))
    }

    /// One bit per cell, most significant bit first, zero-padded to whole bytes.
    static func packBits(_ cells: [Bool]) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: (cells.count + 7) / 8)
        for (i, solid) in cells.enumerated() where solid { bytes[i / 8] |= 0x80 >> UInt8(i % 8) }
        return bytes
    }
}

/// A screen layout for offline routing (`multitouchctl check --regions`, `replay --regions`): one JSON
/// array per client, each the region objects that client declares on every device, exactly as in
/// `declareRegions` (docs/PROTOCOL.md "Touch routing"). For example a toolbar client, a map client and
/// an observer: `[[{"id":"toolbar","rect":[0,0,100,10],"z":2}], [{"id":"map","rect":[0,0,100,60],"z":1}],
/// [{"id":"fx","rect":[0,0,100,60],"mode":"observer"}]]`.
public enum RegionLayout {
    /// The clients' regions, in file order (client 1 first).
    /// - Throws: `WireDecodingError` naming every problem (not JSON, not an array of arrays, a bad region).
    public static func decode(_ bytes: [UInt8]) throws(WireDecodingError) -> [[Region]] {
        let value: JSONValue
        do {
            value = try JSONReader.parse(bytes)
        } catch {
            throw WireDecodingError("not JSON: \(error)")
        }
        guard case .array(let clients) = value else {
            throw WireDecodingError("a region layout is an array with one array of region objects per client")
        }
        var layout: [[Region]] = []
        var problems: [String] = []
        for (index, client) in clients.enumerated() {
            let (regions, found) = RegionFields.readArray(client, key: "clients[\(index)]")
            layout.append(regions)
            problems += found
        }
        guard problems.isEmpty else { throw WireDecodingError(problems.joined(separator: "; ")) }
        return layout
    }
}
