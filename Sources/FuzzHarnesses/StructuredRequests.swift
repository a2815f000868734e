import Foundation
import MultitouchCore
import Publishing
import TouchRouting
import TouchVocabulary
import WireProtocol

/// The fuzzer's bytes read as a stream of choices (libFuzzer's FuzzedDataProvider, in small): each
/// choice takes one byte, and an exhausted input chooses 0, so every input is a valid program.
struct Choices {
    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// A number in 0..<count (0 when the input is used up).
    mutating func next(_ count: Int) -> Int {
        guard count > 1, index < bytes.count else { return 0 }
        defer { index += 1 }
        return Int(bytes[index]) % count
    }

    mutating func chance(_ percent: Int) -> Bool { next(100) < percent }

    /// One of `items`.
    mutating func pick<T>(_ items: [T]) -> T { items[next(items.count)] }
}

/// Issue 28: a request harness that writes valid JSON requests of every type, with every field the
/// type takes (and now and then one it does not), filled with the numbers that break conversions:
/// ±2^63 and its neighbours, the clock's last microsecond and the one past it, 1e308, -0, denormals,
/// long digit strings. Byte-level mutation of JSON (`request`) rarely keeps a line valid long enough to
/// reach a field's conversion; this harness always does, so `{"type":"frame","time":
/// 9223372036854.775808}` is a few hundred executions away from an empty corpus.
///
/// What decodes is also carried out where it can be without a daemon: region sets are applied to a
/// `RegionSet` and hit-tested, `frame` times go to a `FrameAligner`, and every request must survive
/// encoding (the `request` harness's properties).
enum StructuredRequests {
    /// Numbers at the edges of what the decoders convert.
    static let extremes: [String] = [
        "0", "-0", "-0.0", "1", "-1", "0.5", "2", "100", "1e3", "1E-3", "0.000001", "0.0000001",
        "2147483647", "2147483648", "-2147483648", "-2147483649", "4294967295", "4294967296",
        "9007199254740993", "9223372036854775807", "9223372036854775808", "-9223372036854775808",
        "-9223372036854775809", "18446744073709551615", "18446744073709551616",
        "9223372036854.775807", "9223372036854.775808", "-9223372036854.775808", "9223372036854.775",
        "9223372036855", "999999999999.999999", "1e12", "1e9", "1000000000.000001", "1e308", "-1e308",
        "1.7976931348623157e308", "4.9e-324", "-4.9e-324", "2.2250738585072014e-308", "1e-320",
        "123456789012345678901234567890", "0.1234567", "1.0000000000000002",
    ]

    static let types = [
        "subscribe", "unsubscribe", "frame", "ping", "stats", "resetTransform", "setTransform", "recognized",
        "declareRegions", "updateRegions",
    ]

    /// The fields each type takes, and one it does not (an unknown field must be refused, not skipped).
    static let fields: [String: [String]] = [
        "subscribe": ["streams", "devices", "predictMs", "frames"], "frame": ["time"], "unsubscribe": [],
        "ping": [], "stats": [], "resetTransform": ["device", "region"],
        "setTransform": ["device", "matrix", "region"], "recognized": ["device", "region"],
        "declareRegions": ["device", "regions"], "updateRegions": ["device", "regions", "remove"],
    ]

    /// A number: an extreme, or digits the input spells (long ones too).
    static func number(_ c: inout Choices) -> String {
        switch c.next(4) {
        case 0, 1: return c.pick(extremes)
        case 2:
            // A decimal of up to 40 integer and 12 fraction digits, maybe negative, maybe an exponent.
            let sign = c.chance(30) ? "-" : ""
            let whole = String((0..<(1 + c.next(40))).map { _ in Character(String(c.next(10))) })
            let digits = c.next(13)
            let fraction = digits == 0 ? "" : "." + String((0..<digits).map { _ in Character(String(c.next(10))) })
            let exponent = c.chance(20) ? "e" + (c.chance(50) ? "-" : "") + String(c.next(330)) : ""
            return sign + (whole.first == "0" && whole.count > 1 ? "1" + whole.dropFirst() : whole) + fraction
                + exponent
        default:
            return String(c.next(256) - 16)
        }
    }

    static func string(_ c: inout Choices) -> String {
        switch c.next(5) {
        case 0: return "\"\""
        case 1: return "\"" + String(repeating: "r", count: c.next(200)) + "\""
        case 2: return "\"\\u0000\\ud83d\\ude00\""
        default: return "\"" + c.pick(["a", "pin", "map", "touches", "gestures", "devices", "all", "observer"]) + "\""
        }
    }

    /// Any JSON value, nested at most `depth` more levels.
    static func value(_ c: inout Choices, depth: Int) -> String {
        switch depth > 0 ? c.next(7) : c.next(4) {
        case 0, 1: return number(&c)
        case 2: return string(&c)
        case 3: return c.pick(["true", "false", "null"])
        case 4, 5: return "[" + (0..<c.next(7)).map { _ in value(&c, depth: depth - 1) }.joined(separator: ",") + "]"
        default:
            return "{" + (0..<c.next(4)).map { k in "\"k\(k)\":" + value(&c, depth: depth - 1) }.joined(separator: ",")
                + "}"
        }
    }

    static func numbers(_ c: inout Choices, _ count: Int) -> String {
        "[" + (0..<count).map { _ in number(&c) }.joined(separator: ",") + "]"
    }

    /// A region object with every key a region takes, each present or not.
    static func region(_ c: inout Choices, _ k: Int) -> String {
        var members = ["\"id\":" + (c.chance(90) ? "\"r\(k)\"" : value(&c, depth: 1))]
        if c.chance(80) {
            members.append("\"rect\":" + numbers(&c, c.chance(90) ? 4 : c.next(6)))
        } else {
            let vertices = (0..<(c.next(10) + 1)).map { _ in numbers(&c, 2) }.joined(separator: ",")
            members.append("\"polygon\":[" + vertices + "]")
        }
        if c.chance(50) { members.append("\"z\":" + number(&c)) }
        let mode = c.pick(["opaque", "passthrough", "observer", "other"])
        if c.chance(60) { members.append("\"mode\":\"\(mode)\"") }
        if c.chance(35) || mode == "passthrough" {
            let columns = c.chance(70) ? String(1 + c.next(16)) : number(&c)
            let rows = c.chance(70) ? String(1 + c.next(16)) : number(&c)
            // Bits for the mask the sizes say when they are sizes a mask may have (the decoder
            // refuses others before it looks at the bits), a byte more or less now and then.
            let side = { (text: String) in max(1, min(256, Int(text) ?? 1)) }
            let cells = side(columns) * side(rows)
            let bytes = (0..<max(0, (cells + 7) / 8 + c.next(3) - 1)).map { _ in UInt8(c.next(256)) }
            members.append(
                "\"mask\":{\"columns\":\(columns),\"rows\":\(rows),\"bits\":\"\(Data(bytes).base64EncodedString())\"}")
        }
        for flag in [
            "hidden", "disabled", "gestures", "cancelsTouchesOnRecognition", "delaysTouchesUntilFailure", "exclusive",
        ]
        where c.chance(15) {
            members.append("\"\(flag)\":" + (c.chance(80) ? c.pick(["true", "false"]) : value(&c, depth: 0)))
        }
        if c.chance(3) { members.append("\"unknown\":1") }
        return "{" + members.joined(separator: ",") + "}"
    }

    /// The value of `field` of a request: well-typed most of the time, anything now and then.
    static func field(_ name: String, _ c: inout Choices) -> String {
        if c.chance(8) { return value(&c, depth: 2) }
        switch name {
        case "streams":
            let names = ["touches", "gestures", "devices", "taps", "other"]
            return "[" + (0..<c.next(5)).map { _ in "\"" + c.pick(names) + "\"" }.joined(separator: ",") + "]"
        case "devices": return c.chance(30) ? "\"all\"" : numbers(&c, c.next(4))
        case "predictMs", "device", "time": return number(&c)
        case "frames": return c.pick(["true", "false"])
        case "matrix":
            return c.chance(40)
                ? "[" + c.pick(["1", "2", "0.5"]) + ",0,0,1," + number(&c) + "," + number(&c) + "]"
                : numbers(&c, c.chance(90) ? 6 : c.next(8))
        case "region": return string(&c)
        case "regions": return "[" + (0..<c.next(6)).map { region(&c, $0) }.joined(separator: ",") + "]"
        case "remove": return "[" + (0..<c.next(4)).map { _ in string(&c) }.joined(separator: ",") + "]"
        default: return value(&c, depth: 1)
        }
    }

    /// The request line the choices spell.
    static func line(_ c: inout Choices) -> String {
        let type = c.pick(types)
        var members = ["\"type\":\"\(type)\""]
        if c.chance(50) { members.append("\"id\":" + (c.chance(50) ? number(&c) : string(&c))) }
        for name in fields[type] ?? [] where c.chance(85) { members.append("\"\(name)\":" + field(name, &c)) }
        if c.chance(4) { members.append("\"extra\":" + value(&c, depth: 1)) }
        // Any member order: decoders must not depend on it.
        let first = c.next(members.count)
        members.swapAt(0, first)
        return "{" + members.joined(separator: ",") + "}"
    }

    /// Runs one input: up to eight request lines spelled by the choices, on one region set and one
    /// frame aligner, as one connection's requests would be.
    @Sendable static func run(_ input: [UInt8]) -> FuzzHarness.Outcome {
        var c = Choices(input)
        var set = RegionSet()
        var aligner = FrameAligner()
        var out: [Message] = []
        var accepted = false
        for _ in 0..<(1 + c.next(8)) {
            let text = line(&c)
            guard Harnesses.decodeRequest(Array(text.utf8)),
                let request = try? ClientRequest(decoding: Array(text.utf8))
            else { continue }
            accepted = true
            switch request.action {
            case .frame(let time):
                aligner.frame(at: time, into: &out)
                out.removeAll(keepingCapacity: true)
            case .declareRegions(_, let regions):
                apply(&set, regions)
            case .updateRegions(_, let regions, let remove):
                apply(&set, try? set.merged(client: ClientID(1), upserting: regions, removing: remove))
            case .subscribe, .unsubscribe, .ping, .stats, .resetTransform, .setTransform, .recognized, .listRegions,
                .setRegionTransform:
                break
            }
        }
        return accepted ? .accepted : .rejected
    }

    /// Applies a region set and hit-tests the corners and centre of every region's bounds.
    private static func apply(_ set: inout RegionSet, _ regions: [Region]?) {
        guard let regions, (try? set.replace(client: ClientID(1), with: regions)) != nil else { return }
        for entry in set.index.entries {
            let b = entry.bounds
            for p in [
                Point(x: b.x, y: b.y), Point(x: b.x + b.width / 2, y: b.y + b.height / 2), Point(x: b.maxX, y: b.maxY),
            ] {
                _ = set.index.owner(at: p)
                var observers: [Int] = []
                set.index.observers(at: p, into: &observers)
            }
        }
    }
}
