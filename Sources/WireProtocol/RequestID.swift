/// A request's `"id"`, kept as the JSON text the client wrote so the reply echoes it byte for byte:
/// `9007199254740993` stays `9007199254740993` (no float rounding), `-0` stays `-0`, `"\u0041"` stays
/// `"\u0041"` (docs/PROTOCOL.md "Requests"). An id is a JSON string, a number or `null`.
public struct RequestID: Hashable, Sendable, CustomStringConvertible, ExpressibleByIntegerLiteral,
    ExpressibleByStringLiteral
{
    /// The id's JSON text (a string literal with its quotes, a number, or `null`).
    public let json: String

    /// An id from JSON text that is already known to be a valid string, number or null.
    init(json: String) { self.json = json }

    /// A number id.
    public init(_ value: Int) { json = String(value) }

    /// A string id (written with the protocol's escaping).
    public init(_ value: String) {
        var w = JSONWriter(capacity: value.utf8.count + 2)
        w.string(value)
        json = String(decoding: w.bytes, as: UTF8.self)
    }

    public init(integerLiteral value: Int) { self.init(value) }
    public init(stringLiteral value: String) { self.init(value) }

    /// Reads an id member: a string, a number or null; anything else is refused. `source` is the text
    /// the value was parsed from, so the id keeps its exact bytes.
    static func read(_ member: JSONMember, source: [UInt8]) -> RequestID? {
        switch member.value {
        case .string, .number, .null:
            return RequestID(json: String(decoding: source[member.valueRange], as: UTF8.self))
        case .bool, .array, .object:
            return nil
        }
    }

    /// The top-level `"id"` of a request line that is not parsed (not valid JSON as a whole, or
    /// refused unparsed), so the error still names the request; nil when it cannot be read.
    public static func salvaged(from line: [UInt8]) -> RequestID? {
        JSONReader.salvageMember("id", in: line).flatMap { read($0, source: line) }
    }

    /// The string, when the id is a JSON string.
    public var stringValue: String? {
        guard case .string(let s)? = try? JSONReader.parse(Array(json.utf8)) else { return nil }
        return s
    }

    /// The integer, when the id is an integral JSON number that fits an `Int`.
    public var intValue: Int? {
        guard case .number(let n)? = try? JSONReader.parse(Array(json.utf8)) else { return nil }
        return n.integer(as: Int.self)
    }

    public var description: String { json }

    func write(to w: inout JSONWriter) {
        w.raw(Array(json.utf8))
    }
}
