/// One OSC 1.0 argument of the three types TUIO 1.1 uses (`i`, `f`, `s`).
public enum OSCArgument: Hashable, Sendable {
    case int32(Int32)
    case float32(Float)
    case string(String)

    /// The type tag character.
    var tag: UInt8 {
        switch self {
        case .int32: UInt8(ascii: "i")
        case .float32: UInt8(ascii: "f")
        case .string: UInt8(ascii: "s")
        }
    }

    /// Bytes on the wire: 4 for numbers, the string with its NUL padded to a multiple of 4.
    var encodedCount: Int {
        switch self {
        case .int32, .float32: 4
        case .string(let s): OSC.paddedCount(s.utf8.count)
        }
    }
}

/// One OSC 1.0 message: an address and its arguments.
public struct OSCMessage: Hashable, Sendable {
    public var address: String
    public var arguments: [OSCArgument]

    public init(_ address: String, _ arguments: [OSCArgument]) {
        self.address = address
        self.arguments = arguments
    }

    /// Size of the encoded message (without the bundle element's size prefix).
    public var encodedCount: Int {
        // Type tags: "," then one character per argument, NUL-terminated and padded.
        OSC.paddedCount(address.utf8.count) + OSC.paddedCount(1 + arguments.count)
            + arguments.reduce(0) { $0 + $1.encodedCount }
    }

    /// Appends the OSC 1.0 encoding: address, type tag string, arguments (big-endian, 4-byte aligned).
    public func encode(into out: inout [UInt8]) {
        OSC.appendString(address.utf8, into: &out)
        out.append(UInt8(ascii: ","))
        for argument in arguments { out.append(argument.tag) }
        OSC.appendPadding(afterStringOf: 1 + arguments.count, into: &out)
        for argument in arguments {
            switch argument {
            case .int32(let v): OSC.appendBigEndian(UInt32(bitPattern: v), into: &out)
            case .float32(let v): OSC.appendBigEndian(v.bitPattern, into: &out)
            case .string(let s): OSC.appendString(s.utf8, into: &out)
            }
        }
    }
}

/// OSC 1.0 byte layout helpers (opensoundcontrol.org, "OSC 1.0 specification"): strings end with a NUL
/// and are padded with NULs to a multiple of 4 bytes; numbers are big-endian; a bundle is "#bundle",
/// an 8-byte time tag, then elements each preceded by its int32 size.
public enum OSC {
    /// The time tag meaning "immediately" (OSC 1.0: 63 zero bits then a 1).
    public static let immediate: UInt64 = 1
    /// "#bundle" plus its NUL, then the time tag.
    public static let bundleHeaderCount = 16

    /// Bytes a string of `count` bytes takes with its NUL and padding.
    public static func paddedCount(_ count: Int) -> Int { (count / 4 + 1) * 4 }

    /// A bundle of `messages` with the time tag `immediate`.
    public static func bundle(_ messages: [OSCMessage]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bundleHeaderCount + messages.reduce(0) { $0 + 4 + $1.encodedCount })
        appendString("#bundle".utf8, into: &out)
        appendBigEndian(immediate, into: &out)
        for message in messages {
            appendBigEndian(UInt32(message.encodedCount), into: &out)
            message.encode(into: &out)
        }
        return out
    }

    static func appendString(_ bytes: String.UTF8View, into out: inout [UInt8]) {
        out.append(contentsOf: bytes)
        appendPadding(afterStringOf: bytes.count, into: &out)
    }

    /// The NUL that ends a string of `count` bytes and the NULs up to the next multiple of 4.
    static func appendPadding(afterStringOf count: Int, into out: inout [UInt8]) {
        for _ in count..<paddedCount(count) { out.append(0) }
    }

    static func appendBigEndian<T: FixedWidthInteger>(_ value: T, into out: inout [UInt8]) {
        var v = value.bigEndian
        withUnsafeBytes(of: &v) { out.append(contentsOf: $0) }
    }
}
