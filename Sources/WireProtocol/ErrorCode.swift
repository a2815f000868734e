/// The `code` of an `error` message: one type for every code the daemon sends (docs/PROTOCOL.md
/// "Errors"). A struct with static members rather than an enum so that a client can read a code a newer
/// daemon added (STYLE.md §5); `closesConnection` is the documented consequence of each known code.
public struct ErrorCode: Hashable, Sendable, CustomStringConvertible {
    public var rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }

    public var description: String { rawValue }

    /// True for the codes after which the daemon closes the connection (the message's `fatal`).
    public var closesConnection: Bool {
        self == .lineTooLong || self == .queueOverflow || self == .tooManyClients
    }

    /// A request line longer than `maximumLineBytes`: closed (the stream cannot be re-synchronised safely).
    public static let lineTooLong = ErrorCode(rawValue: "line-too-long")
    /// The line is not valid UTF-8: kept.
    public static let invalidUTF8 = ErrorCode(rawValue: "invalid-utf8")
    /// The line is not JSON, or not a JSON object: kept.
    public static let invalidJSON = ErrorCode(rawValue: "invalid-json")
    /// No "type", or one the daemon does not know: kept.
    public static let unknownType = ErrorCode(rawValue: "unknown-type")
    /// A field is missing, has the wrong JSON type or an invalid value: kept.
    public static let badField = ErrorCode(rawValue: "bad-field")
    /// The request names a device the daemon does not have: kept.
    public static let unknownDevice = ErrorCode(rawValue: "unknown-device")
    /// The client's queue passed `hardQueueLimitBytes`: closed.
    public static let queueOverflow = ErrorCode(rawValue: "queue-overflow")
    /// `maximumClients` are connected: closed.
    public static let tooManyClients = ErrorCode(rawValue: "too-many-clients")
    /// A region request would exceed a routing budget (docs/SECURITY.md "Limits"); the message names the
    /// limit: kept, nothing changed.
    public static let overBudget = ErrorCode(rawValue: "over-budget")
    /// The client lacks the right the request needs (`observe`, `regions`, `transform`, or its z band);
    /// the message names it: kept.
    public static let forbidden = ErrorCode(rawValue: "forbidden")
    /// (Replays) a note from the recording reader, e.g. a trailing partial frame: not a client error.
    public static let recording = ErrorCode(rawValue: "recording")

    /// Every code this version of the protocol defines.
    public static let known: [ErrorCode] = [
        .lineTooLong, .invalidUTF8, .invalidJSON, .unknownType, .badField, .unknownDevice, .queueOverflow,
        .tooManyClients, .recording, .overBudget, .forbidden,
    ]
}
