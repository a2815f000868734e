import MultitouchCore

/// Gesture thresholds, in mm, ms and degrees. Defaults and their sources are documented in
/// docs/GESTURES.md and config/multitouchd.toml (section [gestures], same names in snake_case).
public struct GestureConfiguration: Hashable, Sendable {
    /// A one-finger pan starts once the finger moved this far from where it landed.
    public var panSlopMillimeters: Double = 2.0
    /// A pinchRotate segment publishes no change until the mean spread changed this much...
    public var spreadDeadBandMillimeters: Double = 1.0
    /// ...or the mean angle turned this much...
    public var rotationDeadBandDegrees: Double = 3.0
    /// ...or the centroid moved this far.
    public var centroidDeadBandMillimeters: Double = 1.0
    /// A finger count that lasts shorter than this (a finger lifting right after another) makes no segment.
    public var fingerChurnDebounceMilliseconds: Double = 40
    /// Longest touch that still counts as a tap.
    public var tapMaximumDurationMilliseconds: Double = 250
    /// Farthest a tapping finger may move.
    public var tapMaximumMovementMillimeters: Double = 3.0
    /// Longest gap between taps of a double tap (from the first lift to the second landing).
    public var doubleTapIntervalMilliseconds: Double = 300
    /// Farthest the second tap may land from the first.
    public var doubleTapDistanceMillimeters: Double = 10.0
    /// A finger held this long without moving beyond `longPressMovementMillimeters` is a long press.
    public var longPressDurationMilliseconds: Double = 500
    public var longPressMovementMillimeters: Double = 3.0
    /// Cumulative scale limits, applied to the incoming segment at its boundary.
    public var minimumScale: Double = 0.05
    public var maximumScale: Double = 50.0
    /// Double tap zooms the cumulative transform by this factor toward the tap point; 1 disables.
    public var doubleTapZoomFactor: Double = 1.0
    /// A single tap is published only once a double tap can no longer follow.
    public var singleTapWaitsForDoubleTap: Bool = false
    /// Velocities are measured over this much of the most recent motion.
    public var velocityWindowMilliseconds: Double = 100

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
