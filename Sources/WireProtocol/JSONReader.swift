/// A parsed JSON value (RFC 8259): what `JSONReader` produces and the typed decoders read from.
///
/// Numbers keep their text, so integers of any size decode exactly (a `seq` past 2^53, a request id
/// echoed byte for byte) and nothing is rounded before the typed decoder asks for a `Double`.
public enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(JSONNumber)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// The JSON type name, for error messages ("number", "object", ...).
    public var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "boolean"
        case .number: return "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }

    /// The value as compact JSON text (numbers as they were written), for error messages.
    public var jsonText: String {
        var w = JSONWriter()
        write(to: &w)
        return String(decoding: w.bytes, as: UTF8.self)
    }

    func write(to w: inout JSONWriter) {
        switch self {
        case .null: w.null()
        case .bool(let b): w.bool(b)
        case .number(let n): w.raw(Array(n.text.utf8))
        case .string(let s): w.string(s)
        case .array(let items):
            w.beginArray()
            for item in items { item.write(to: &w) }
            w.endArray()
        case .object(let object):
            w.beginObject()
            for member in object.members {
                w.key(string: member.key)
                member.value.write(to: &w)
            }
            w.endObject()
        }
    }
}

/// A JSON number as written: the text is kept, conversions happen when a decoder asks.
public struct JSONNumber: Hashable, Sendable {
    /// The number's text exactly as it appeared (valid JSON number grammar, finite).
    public let text: String

    init(text: String) { self.text = text }

    /// The nearest `Double` (always finite: the reader refuses numbers out of range).
    public var doubleValue: Double { Double(text) ?? .nan }

    /// The value as an integer of type `T` when it is integral and in range: exact for integer text of
    /// any length, and also for integral values written with a fraction or exponent (`2.0`, `1e3`).
    public func integer<T: FixedWidthInteger>(as type: T.Type = T.self) -> T? {
        if let exact = T(text) { return exact }
        let value = doubleValue
        guard value == value.rounded(), let converted = T(exactly: value) else { return nil }
        return converted
    }
}

/// A JSON object: members in the order they were written (duplicate names are refused by the reader).
public struct JSONObject: Equatable, Sendable {
    public var members: [JSONMember]

    public init(members: [JSONMember]) { self.members = members }

    /// The value of the member named `key`, if any.
    public subscript(key: String) -> JSONValue? {
        for member in members where member.key == key { return member.value }
        return nil
    }

    /// The member named `key`, if any (with where its value was in the source text).
    public func member(_ key: String) -> JSONMember? {
        members.first { $0.key == key }
    }
}

/// One `"name": value` of an object.
public struct JSONMember: Equatable, Sendable {
    public var key: String
    public var value: JSONValue
    /// Byte offsets of the value's text in the parsed input (a request id is echoed from these bytes).
    public var valueRange: Range<Int>
}

/// Why a text is not JSON: the byte offset and what was expected there.
public struct JSONParseError: Error, Hashable, Sendable, CustomStringConvertible {
    public var offset: Int
    public var message: String
    public var description: String { "\(message) at byte \(offset)" }
}

/// The protocol's one JSON reader: a small recursive-descent parser over UTF-8 bytes, used by the
/// daemon for requests and by clients for messages (no Foundation). It refuses duplicate member names,
/// numbers out of `Double` range and nesting deeper than `maximumDepth`, so that a line of 64 KiB of
/// `[` cannot exhaust the stack.
public struct JSONReader {
    /// Deepest nesting accepted: requests need 3, messages 4 (stats).
    public static let maximumDepth = 32

    private let bytes: [UInt8]
    private var index = 0

    private init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// Parses exactly one JSON value (surrounding whitespace allowed). The bytes must already be valid
    /// UTF-8 (strings are decoded without further checks).
    public static func parse(_ bytes: [UInt8]) throws(JSONParseError) -> JSONValue {
        var parser = JSONReader(bytes)
        parser.skipWhitespace()
        let value = try parser.parseValue(depth: 0)
        parser.skipWhitespace()
        if parser.index != bytes.count { throw parser.error("unexpected text after the JSON value") }
        return value
    }

    /// The top-level member `name` of a line that failed to parse as a whole (a `NaN` or `1e999` in
    /// another member), found by skipping the other members' text: a request's `id`, so the
    /// `invalid-json` error still names the request. Nil when the line is not an object, the member is
    /// absent, or its own value does not parse.
    public static func salvageMember(_ name: String, in bytes: [UInt8]) -> JSONMember? {
        var p = JSONReader(bytes)
        p.skipWhitespace()
        guard p.index < bytes.count, bytes[p.index] == UInt8(ascii: "{") else { return nil }
        p.index += 1
        var depth = 1
        var expectKey = true
        while p.index < bytes.count {
            let b = bytes[p.index]
            if b == UInt8(ascii: "\"") {
                guard let key = try? p.parseString() else { return nil }
                guard depth == 1 && expectKey else { continue }
                p.skipWhitespace()
                guard p.index < bytes.count, bytes[p.index] == UInt8(ascii: ":") else { continue }
                p.index += 1
                p.skipWhitespace()
                expectKey = false
                guard key == name else { continue }
                let start = p.index
                guard let value = try? p.parseValue(depth: 1) else { return nil }
                return JSONMember(key: key, value: value, valueRange: start..<p.index)
            }
            switch b {
            case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                if depth == 0 { return nil }
            case UInt8(ascii: ","): if depth == 1 { expectKey = true }
            default: break
            }
            p.index += 1
        }
        return nil
    }

    private func error(_ message: String) -> JSONParseError { JSONParseError(offset: index, message: message) }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private mutating func parseValue(depth: Int) throws(JSONParseError) -> JSONValue {
        guard index < bytes.count else { throw error("unexpected end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject(depth: depth + 1)
        case UInt8(ascii: "["): return try parseArray(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw error("unexpected character")
        }
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(JSONParseError) {
        let count = literal.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw error("unexpected end of input") }
        let matches = literal.withUTF8Buffer { expected in
            (0..<count).allSatisfy { bytes[index + $0] == expected[$0] }
        }
        guard matches else { throw error("invalid literal") }
        index += count
    }

    private mutating func parseObject(depth: Int) throws(JSONParseError) -> JSONValue {
        if depth > JSONReader.maximumDepth { throw error("nested deeper than \(JSONReader.maximumDepth)") }
        index += 1
        var members: [JSONMember] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object(JSONObject(members: members))
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                throw error("expected a member name")
            }
            let key = try parseString()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("expected ':'") }
            index += 1
            skipWhitespace()
            if members.contains(where: { $0.key == key }) { throw error("duplicate member \"\(key)\"") }
            let start = index
            let value = try parseValue(depth: depth)
            members.append(JSONMember(key: key, value: value, valueRange: start..<index))
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            if bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object(JSONObject(members: members))
            }
            throw error("expected ',' or '}'")
        }
    }

    private mutating func parseArray(depth: Int) throws(JSONParseError) -> JSONValue {
        if depth > JSONReader.maximumDepth { throw error("nested deeper than \(JSONReader.maximumDepth)") }
        index += 1
        var items: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array(items)
        }
        while true {
            skipWhitespace()
            items.append(try parseValue(depth: depth))
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            if bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(items)
            }
            throw error("expected ',' or ']'")
        }
    }

    private mutating func digits() -> Int {
        let start = index
        while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
        return index - start
    }

    private mutating func parseNumber() throws(JSONParseError) -> JSONValue {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count else { throw error("expected a digit") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else if digits() == 0 {
            throw error("expected a digit")
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            if digits() == 0 { throw error("expected a digit after '.'") }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            if digits() == 0 { throw error("expected an exponent") }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        guard let value = Double(text), value.isFinite else { throw error("number out of range") }
        return .number(JSONNumber(text: text))
    }

    private mutating func parseHex4() throws(JSONParseError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("short \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let c = bytes[index]
            let digit: UInt32
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(c - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(c - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(c - UInt8(ascii: "A") + 10)
            default: throw error("invalid \\u escape")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    private mutating func parseString() throws(JSONParseError) -> String {
        index += 1  // opening quote
        var runStart = index
        var result = ""
        while true {
            guard index < bytes.count else { throw error("unterminated string") }
            let c = bytes[index]
            if c == UInt8(ascii: "\"") {
                result += String(decoding: bytes[runStart..<index], as: UTF8.self)
                index += 1
                return result
            }
            if c < 0x20 { throw error("control character in string") }
            if c != UInt8(ascii: "\\") {
                index += 1
                continue
            }
            result += String(decoding: bytes[runStart..<index], as: UTF8.self)
            index += 1
            guard index < bytes.count else { throw error("unterminated escape") }
            let escape = bytes[index]
            index += 1
            switch escape {
            case UInt8(ascii: "\""): result += "\""
            case UInt8(ascii: "\\"): result += "\\"
            case UInt8(ascii: "/"): result += "/"
            case UInt8(ascii: "b"): result += "\u{08}"
            case UInt8(ascii: "f"): result += "\u{0C}"
            case UInt8(ascii: "n"): result += "\n"
            case UInt8(ascii: "r"): result += "\r"
            case UInt8(ascii: "t"): result += "\t"
            case UInt8(ascii: "u"):
                var code = try parseHex4()
                if (0xD800...0xDBFF).contains(code) {
                    guard index + 6 <= bytes.count, bytes[index] == UInt8(ascii: "\\"),
                        bytes[index + 1] == UInt8(ascii: "u")
                    else { throw error("unpaired surrogate") }
                    index += 2
                    let low = try parseHex4()
                    guard (0xDC00...0xDFFF).contains(low) else { throw error("unpaired surrogate") }
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00...0xDFFF).contains(code) {
                    throw error("unpaired surrogate")
                }
                guard let scalar = Unicode.Scalar(code) else { throw error("invalid \\u escape") }
                result.unicodeScalars.append(scalar)
            default:
                throw error("invalid escape")
            }
            runStart = index
        }
    }
}
