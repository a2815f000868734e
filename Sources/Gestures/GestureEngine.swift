import MultitouchCore

/// Gesture thresholds, in mm and ms. Defaults and their sources are documented in docs/GESTURES.md.
public struct GestureConfiguration: Hashable, Sendable {
    public init() {}
    public static let `default` = GestureConfiguration()
}

/// The unified pan/pinch/rotate state machine plus tap, double-tap and long-press recognizers for one
/// device. A pure function of (touch frames, virtual time, configuration): no clock reads, no I/O.
public struct GestureEngine {
    public private(set) var configuration: GestureConfiguration

    public init(configuration: GestureConfiguration = .default, isSemiMT: Bool = false) {
        self.configuration = configuration
    }

    /// Feeds one touch frame; returns what it caused, in order. Call `advance(to:)` with the frame's time
    /// first so timers due before it fire before it.
    public mutating func process(_ frame: TouchFrame) -> [GestureEvent] { [] }

    /// Advances virtual time to `time`, firing every timer (long press, tap-failure, debounce) due at or
    /// before it, each at its own deadline.
    public mutating func advance(to time: Timestamp) -> [GestureEvent] { [] }

    /// The earliest time a timer is due, for the event loop to arm; nil when no timer is pending.
    public var nextDeadline: Timestamp? { nil }

    /// The cumulative transform (M = S_current * M_base).
    public var transform: AffineTransform { .identity }

    /// Replaces the cumulative transform (a client reset or set). Takes effect as the new base: an active
    /// segment continues from it without a jump in its own relative values.
    public mutating func setTransform(_ transform: AffineTransform) {}
}
