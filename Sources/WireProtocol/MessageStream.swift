/// The subscription streams a message belongs to (docs/PROTOCOL.md "Subscribing").
public enum MessageStream: String, Hashable, Sendable, CaseIterable {
    /// Touch frames.
    case touches
    /// Gesture segment updates, sessions, taps, double taps, long presses, transform notices.
    case gestures
    /// Device added / removed.
    case devices
}

/// A set of streams (a message about lost input concerns every stream of its device).
public struct MessageStreams: OptionSet, Hashable, Sendable {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let touches = MessageStreams(rawValue: 1)
    public static let gestures = MessageStreams(rawValue: 2)
    public static let devices = MessageStreams(rawValue: 4)
    public static let all: MessageStreams = [.touches, .gestures, .devices]

    public init(_ stream: MessageStream) {
        switch stream {
        case .touches: self = .touches
        case .gestures: self = .gestures
        case .devices: self = .devices
        }
    }

    public init(_ streams: Set<MessageStream>) {
        self = []
        for stream in streams { formUnion(MessageStreams(stream)) }
    }
}

/// Which devices a subscription covers.
public enum DeviceFilter: Hashable, Sendable {
    case all
    /// Daemon device ids (from hello / deviceAdded).
    case ids(Set<Int>)

    public func contains(_ device: Int) -> Bool {
        switch self {
        case .all: return true
        case .ids(let ids): return ids.contains(device)
        }
    }

    /// `"all"` or the ids in increasing order.
    func write(to w: inout JSONWriter) {
        switch self {
        case .all: w.rawString("all")
        case .ids(let ids):
            w.beginArray()
            for id in ids.sorted() { w.int(id) }
            w.endArray()
        }
    }
}

extension Set where Element == MessageStream {
    /// The streams in the protocol's order (touches, gestures, devices), as they are written.
    var inProtocolOrder: [MessageStream] { MessageStream.allCases.filter(contains) }
}
