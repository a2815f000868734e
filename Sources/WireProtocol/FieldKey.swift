/// A message member's name, declared once in its message's key table (a `Keys` enum next to the type)
/// and used by both directions: `writeFields` writes it with `JSONWriter.key(_:)`, `init(reading:)`
/// asks `FieldReader` for `name`. Before the tables the two spelled every key separately and only the
/// golden files held them together.
///
/// A `StaticString` underneath, so writing a key costs what writing the literal did.
public struct FieldKey: Sendable {
    public let text: StaticString

    public init(_ text: StaticString) { self.text = text }

    /// The key as a `String`, what `FieldReader` looks members up by.
    public var name: String { text.description }
}

extension JSONWriter {
    /// Writes `"key":` inside an object.
    @inlinable
    public mutating func key(_ key: FieldKey) { self.key(key.text) }
}
