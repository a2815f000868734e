/// Why a line is not a valid message of this protocol: which message (and field) and what is wrong.
public struct WireDecodingError: Error, Hashable, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Typed access to the fields of one JSON object, the decoding half of every message and request: each
/// accessor names the field and the object in its error (`touches.touches[1]: "x" must be a number`).
/// Fields the reader is not asked for are ignored, as the protocol requires of clients.
public struct FieldReader: Sendable {
    public let object: JSONObject
    /// Where the object is, for errors: the message type, then the path inside it.
    public let context: String
    /// The text the object was parsed from (a request id is read from its bytes).
    let source: [UInt8]
    /// Where to note each member asked for, nil outside tests (`KeyTableTests` hold each message's
    /// reader to its key table with it).
    let log: ReadKeyLog?

    public init(_ object: JSONObject, context: String, source: [UInt8]) {
        self.init(object, context: context, source: source, log: nil)
    }

    init(_ object: JSONObject, context: String, source: [UInt8], log: ReadKeyLog?) {
        self.object = object
        self.context = context
        self.source = source
        self.log = log
    }

    func failure(_ key: String, _ what: String) -> WireDecodingError {
        WireDecodingError("\(context): \"\(key)\" \(what)")
    }

    func value(_ key: String) throws(WireDecodingError) -> JSONValue {
        guard let value = optionalValue(key) else { throw failure(key, "is missing") }
        return value
    }

    /// The value, or nil when the member is absent (a `null` value is an error, not an absence).
    func optionalValue(_ key: String) -> JSONValue? {
        log?.record(context, key)
        return object[key]
    }

    public func string(_ key: String) throws(WireDecodingError) -> String {
        try string(key, try value(key))
    }

    public func optionalString(_ key: String) throws(WireDecodingError) -> String? {
        guard let value = optionalValue(key) else { return nil }
        return try string(key, value)
    }

    private func string(_ key: String, _ value: JSONValue) throws(WireDecodingError) -> String {
        guard case .string(let s) = value else { throw failure(key, "must be a string, got \(value.typeName)") }
        return s
    }

    public func bool(_ key: String) throws(WireDecodingError) -> Bool {
        let value = try value(key)
        guard case .bool(let b) = value else { throw failure(key, "must be true or false, got \(value.typeName)") }
        return b
    }

    public func optionalBool(_ key: String) throws(WireDecodingError) -> Bool? {
        guard let value = optionalValue(key) else { return nil }
        guard case .bool(let b) = value else { throw failure(key, "must be true or false, got \(value.typeName)") }
        return b
    }

    public func integer<T: FixedWidthInteger>(_ key: String, as type: T.Type = Int.self) throws(WireDecodingError) -> T
    {
        try integer(key, try value(key))
    }

    public func optionalInteger<T: FixedWidthInteger>(
        _ key: String, as type: T.Type = Int.self
    )
        throws(WireDecodingError) -> T?
    {
        guard let value = optionalValue(key) else { return nil }
        return try integer(key, value)
    }

    func integer<T: FixedWidthInteger>(_ key: String, _ value: JSONValue) throws(WireDecodingError) -> T {
        guard case .number(let n) = value, let i = n.integer(as: T.self) else {
            throw failure(key, "must be an integer in \(T.min)...\(T.max), got \(value.jsonText)")
        }
        return i
    }

    public func double(_ key: String) throws(WireDecodingError) -> Double {
        try double(key, try value(key))
    }

    public func optionalDouble(_ key: String) throws(WireDecodingError) -> Double? {
        guard let value = optionalValue(key) else { return nil }
        return try double(key, value)
    }

    func double(_ key: String, _ value: JSONValue) throws(WireDecodingError) -> Double {
        guard case .number(let n) = value else { throw failure(key, "must be a number, got \(value.typeName)") }
        return n.doubleValue
    }

    /// A value of a string enum (`phase`, `mode`, `units` ...).
    public func enumeration<E: RawRepresentable>(
        _ key: String, as type: E.Type = E.self
    ) throws(WireDecodingError)
        -> E where E.RawValue == String
    {
        let text = try string(key)
        guard let value = E(rawValue: text) else { throw failure(key, "has an unknown value \"\(text)\"") }
        return value
    }

    /// A kernel time in seconds with up to six decimals, read exactly (no float rounding).
    public func time(_ key: String) throws(WireDecodingError) -> Timestamp {
        try time(key, try value(key))
    }

    public func optionalTime(_ key: String) throws(WireDecodingError) -> Timestamp? {
        guard let value = optionalValue(key) else { return nil }
        return try time(key, value)
    }

    private func time(_ key: String, _ value: JSONValue) throws(WireDecodingError) -> Timestamp {
        guard case .number(let n) = value, let time = Timestamp(exactDecimal: n.text) else {
            throw failure(key, "must be a time in seconds with at most six decimals, got \(value.jsonText)")
        }
        return time
    }

    /// `[x, y]`.
    public func point(_ key: String) throws(WireDecodingError) -> Point {
        let numbers = try doubles(key, count: 2)
        return Point(x: numbers[0], y: numbers[1])
    }

    /// `[a, b, c, d, tx, ty]`.
    public func transform(_ key: String) throws(WireDecodingError) -> AffineTransform {
        let v = try doubles(key, count: 6)
        return AffineTransform(a: v[0], b: v[1], c: v[2], d: v[3], tx: v[4], ty: v[5])
    }

    /// An array of exactly `count` numbers.
    public func doubles(_ key: String, count: Int) throws(WireDecodingError) -> [Double] {
        let value = try value(key)
        guard case .array(let items) = value, items.count == count else {
            throw failure(key, "must be an array of \(count) numbers, got \(value.jsonText)")
        }
        var numbers: [Double] = []
        numbers.reserveCapacity(count)
        for item in items {
            guard case .number(let n) = item else {
                throw failure(key, "must hold numbers, got \(item.typeName)")
            }
            numbers.append(n.doubleValue)
        }
        return numbers
    }

    /// A nested object.
    public func object(_ key: String) throws(WireDecodingError) -> FieldReader {
        let value = try value(key)
        guard case .object(let object) = value else { throw failure(key, "must be an object, got \(value.typeName)") }
        return FieldReader(object, context: "\(context).\(key)", source: source, log: log)
    }

    public func optionalObject(_ key: String) throws(WireDecodingError) -> FieldReader? {
        guard optionalValue(key) != nil else { return nil }
        return try object(key)
    }

    /// An array, each element read by `element` (given its index).
    public func array<T>(
        _ key: String, _ element: (JSONValue, String) throws(WireDecodingError) -> T
    )
        throws(WireDecodingError) -> [T]
    {
        let value = try value(key)
        guard case .array(let items) = value else { throw failure(key, "must be an array, got \(value.typeName)") }
        var result: [T] = []
        result.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            result.append(try element(item, "\(context).\(key)[\(index)]"))
        }
        return result
    }

    /// An array of objects, each read by `element`.
    public func objects<T>(
        _ key: String, _ element: (FieldReader) throws(WireDecodingError) -> T
    )
        throws(WireDecodingError) -> [T]
    {
        try array(key) { (item, path) throws(WireDecodingError) -> T in
            guard case .object(let object) = item else {
                throw WireDecodingError("\(path) must be an object, got \(item.typeName)")
            }
            return try element(FieldReader(object, context: path, source: source, log: log))
        }
    }
}

/// The members readers asked for, by the reader's context with array indices left out
/// (`touches.touches`), so that a test can compare them with a key table.
final class ReadKeyLog: @unchecked Sendable {
    private(set) var keys: [String: Set<String>] = [:]

    func record(_ context: String, _ key: String) {
        // Every index goes (`stats.devices[0].predictions[1]` is `stats.devices.predictions`).
        var name = ""
        var inIndex = false
        for c in context {
            if c == "[" { inIndex = true } else if c == "]" { inIndex = false } else if !inIndex { name.append(c) }
        }
        keys[name, default: []].insert(key)
    }
}

extension Timestamp {
    /// Parses `sec.usec` as the protocol writes it (`12.016000`, `-1.500000`, also `12`, `12.5`):
    /// exact, no float rounding. Nil for text with more than six decimals or an exponent.
    init?(exactDecimal text: String) {
        var utf8 = Substring(text).utf8[...]
        var negative = false
        if utf8.first == UInt8(ascii: "-") {
            negative = true
            utf8 = utf8.dropFirst()
        }
        let dot = utf8.firstIndex(of: UInt8(ascii: "."))
        let wholeText = dot.map { utf8[..<$0] } ?? utf8
        let fractionText = dot.map { utf8[utf8.index(after: $0)...] } ?? Substring("").utf8[...]
        guard !wholeText.isEmpty, fractionText.count <= 6,
            wholeText.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
            fractionText.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
            let whole = Int64(String(decoding: wholeText, as: UTF8.self))
        else { return nil }
        var fraction: Int64 = 0
        var digits = 0
        for digit in fractionText {
            fraction = fraction * 10 + Int64(digit - UInt8(ascii: "0"))
            digits += 1
        }
        while digits < 6 {
            fraction *= 10
            digits += 1
        }
        // Checked all the way: `9223372036854.775808` is one microsecond past Int64.max, and a client's
        // line must never trap the daemon (issue 28); such a time is refused like any malformed one.
        let (scaled, overflow) = whole.multipliedReportingOverflow(by: 1_000_000)
        guard !overflow else { return nil }
        let (magnitude, carried) = scaled.addingReportingOverflow(fraction)
        guard !carried else { return nil }
        self.init(microseconds: negative ? -magnitude : magnitude)
    }
}
