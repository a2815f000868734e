/// A region's own gesture settings (docs/ROUTING.md "Gesture settings"): some fields of
/// `GestureConfiguration`, named by their `[gestures]` TOML keys, that override the device's
/// configuration for that region's gesture session (momentum for a map, a longer long press for a
/// button bar). Fields it does not name keep the device's values. Checked against the same ranges as
/// the configuration file (`GestureConfiguration.fields`), so a client can set nothing the file could
/// not.
public struct GestureSettings: Hashable, Sendable {
    /// Numeric fields by TOML key.
    public private(set) var numbers: [String: Double] = [:]
    /// Flags by TOML key.
    public private(set) var flags: [String: Bool] = [:]

    public init() {}

    /// No field overridden.
    public var isEmpty: Bool { numbers.isEmpty && flags.isEmpty }

    /// Sets a numeric field. Returns the problem (unknown key, a flag, a value out of range), nil when set.
    public mutating func set(_ key: String, number value: Double) -> String? {
        guard let field = GestureConfiguration.fields.first(where: { $0.key == key }) else {
            return "unknown gesture setting \"\(key)\" (the [gestures] keys of docs/CONFIGURATION.md)"
        }
        guard case .number(_, let range) = field.value else { return "\"\(key)\" must be true or false" }
        guard range.accepts(value) else { return "\"\(key)\" must be \(range.expectation), got \(value)" }
        numbers[key] = value
        return nil
    }

    /// Sets a flag. Returns the problem, nil when set.
    public mutating func set(_ key: String, flag value: Bool) -> String? {
        guard let field = GestureConfiguration.fields.first(where: { $0.key == key }) else {
            return "unknown gesture setting \"\(key)\" (the [gestures] keys of docs/CONFIGURATION.md)"
        }
        guard case .flag = field.value else { return "\"\(key)\" must be a number" }
        flags[key] = value
        return nil
    }

    /// `base` with these fields replaced. A combination the ranges alone do not rule out (a lower scale
    /// limit above the upper one) keeps the base's values of those fields.
    public func applied(to base: GestureConfiguration) -> GestureConfiguration {
        guard !isEmpty else { return base }
        var c = base
        for field in GestureConfiguration.fields {
            switch field.value {
            case .number(let keyPath, _): if let v = numbers[field.key] { c[keyPath: keyPath] = v }
            case .flag(let keyPath): if let v = flags[field.key] { c[keyPath: keyPath] = v }
            }
        }
        if !(c.minimumScale < c.maximumScale) {
            c.minimumScale = base.minimumScale
            c.maximumScale = base.maximumScale
        }
        return c
    }

    /// The overridden fields in `GestureConfiguration.fields` order, for writing them back out.
    public var orderedFields: [(key: String, value: Value)] {
        GestureConfiguration.fields.compactMap { field in
            if let v = numbers[field.key] { return (field.key, .number(v)) }
            if let v = flags[field.key] { return (field.key, .flag(v)) }
            return nil
        }
    }

    /// One overridden value.
    public enum Value: Hashable, Sendable {
        case number(Double)
        case flag(Bool)
    }
}
