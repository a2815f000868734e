import Gestures
import MultitouchCore

/// The daemon's whole configuration (config/multitouchd.toml), with built-in defaults.
public struct DaemonConfiguration: Hashable, Sendable {
    public var gestures: GestureConfiguration = .default
    public init() {}
}
