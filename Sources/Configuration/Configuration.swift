import MultitouchCore
import TouchVocabulary

/// Where the daemon listens and who may connect.
public struct SocketConfiguration: Hashable, Sendable {
    public var path: String = "/run/multitouchd/multitouchd.sock"
    /// File mode of the socket (0660: owner and group may connect).
    public var mode: UInt32 = 0o660
    /// Group that owns the socket; empty keeps the daemon's own group.
    public var group: String = "multitouch"
    /// When the group does not exist: false logs a warning and keeps going, true refuses to start
    /// (TOML `require_group`).
    public var requireGroup: Bool = false
    public init() {}
}

/// Include or exclude devices and set per-device options. Rules are tried in order; the first rule
/// whose every given matcher matches decides. A device no rule matches is served when it is a
/// touchscreen or touchpad.
public struct DeviceRule: Hashable, Sendable {
    public enum Action: String, Hashable, Sendable { case include, exclude }
    public var action: Action = .include
    /// Glob (fnmatch) on the device name.
    public var name: String?
    /// Glob on the device node path (/dev/input/event*) or a /dev/input/by-id or by-path link.
    public var path: String?
    /// Device class to match.
    public var deviceClass: DeviceClass?
    /// Grab the device exclusively (EVIOCGRAB); nil uses `DevicesConfiguration.grab`.
    public var grab: Bool?
    /// Map a touchscreen onto this output (publishes pixels).
    public var output: OutputMapping?
    /// Physical size (width, height) in mm for a device that reports no resolution.
    public var sizeMillimeters: [Double]?
    public init() {}
}

/// Device selection and defaults.
public struct DevicesConfiguration: Hashable, Sendable {
    /// Default for grabbing devices; passthrough (false) lets the desktop see touches too.
    public var grab: Bool = false
    public var rules: [DeviceRule] = []
    public init() {}
}

/// Per-client queue limits of the socket server.
public struct ClientsConfiguration: Hashable, Sendable {
    /// Queued messages past which `changed` gesture updates and moved touch frames coalesce.
    public var softQueueLimit: Int = 256
    /// Queued bytes past which the client is told why and disconnected.
    public var hardQueueLimitBytes: Int = 4 * 1024 * 1024
    /// Longest request line a client may send.
    public var maximumLineBytes: Int = 64 * 1024
    /// Most clients connected at once.
    public var maximumClients: Int = 64
    /// Most clients of one user (peer uid) connected at once, so one member of the socket's group
    /// cannot take every slot.
    public var maximumClientsPerUser: Int = 16
    public init() {}
}

/// Log verbosity; the names are swift-log's `Logger.Level` raw values, so the daemon converts with
/// `Logger.Level(rawValue:)`.
public enum LogLevel: String, Hashable, Sendable, CaseIterable {
    case trace, debug, info, notice, warning, error, critical
}

/// The daemon's whole configuration (config/multitouchd.toml), with built-in defaults equal to the
/// shipped file.
public struct DaemonConfiguration: Hashable, Sendable {
    /// Where the installed service reads its configuration (systemd/multitouchd.service, Makefile).
    public static let defaultPath = "/etc/multitouchd/multitouchd.toml"

    public var socket = SocketConfiguration()
    public var devices = DevicesConfiguration()
    public var gestures: GestureConfiguration = .default
    public var clients = ClientsConfiguration()
    public var tuio = TUIOConfiguration()
    /// Who may observe, declare regions and set transforms (`[access]`).
    public var access = AccessPolicy()
    public var logLevel: LogLevel = .info
    public init() {}
}
