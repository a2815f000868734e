/// Hands out daemon-unique, increasing touch ids. One source is shared by every device of a process so
/// that an id never repeats across devices; a replay makes its own and so starts at 1 every time.
public final class TouchIDSource {
    private var next: UInt64

    public init(first: UInt64 = 1) { next = first }

    public func take() -> UInt64 {
        defer { next &+= 1 }
        return next
    }
}

/// Parameters of UITouch.tapCount: a touch that begins within `interval` of the previous touch's end,
/// within `distanceMillimeters` of it, after a touch that was itself a tap (shorter than `maximumDuration`),
/// counts one more.
public struct TapCountParameters: Hashable, Sendable {
    public var intervalMilliseconds: Double
    public var distanceMillimeters: Double
    public var maximumDurationMilliseconds: Double
    public var maximumMovementMillimeters: Double

    public init(
        intervalMilliseconds: Double = 300, distanceMillimeters: Double = 10, maximumDurationMilliseconds: Double = 300,
        maximumMovementMillimeters: Double = 3
    ) {
        self.intervalMilliseconds = intervalMilliseconds
        self.distanceMillimeters = distanceMillimeters
        self.maximumDurationMilliseconds = maximumDurationMilliseconds
        self.maximumMovementMillimeters = maximumMovementMillimeters
    }

    public static let `default` = TapCountParameters()
}

/// Turns whole evdev frames of one device into touch frames: protocol B slots, protocol A contacts
/// (matched into stable ids), single-touch devices, semi-mt, `BTN_TOOL_*TAP` finger counts, palm
/// cancellation and the unit conversions. Pure: no clock, no I/O.
public struct ContactTracker {
    public let description: DeviceDescription
    public let mapper: CoordinateMapper

    public init(
        description: DeviceDescription, mapper: CoordinateMapper, idSource: TouchIDSource = TouchIDSource(),
        tapCounting: TapCountParameters = .default
    ) {
        self.description = description
        self.mapper = mapper
    }

    /// Applies one frame. Returns the touch frame when any touch began, moved, ended or was cancelled (or
    /// the finger count changed); nil when nothing touch-related changed.
    public mutating func process(_ frame: EventFrame) -> TouchFrame? {
        nil  // implemented by the tracker work
    }

    /// Ends every active touch as `cancelled` at `time` (device removed, grab lost, daemon shutdown, end of
    /// a recording). Returns nil when no touch was active.
    public mutating func cancelAll(at time: Timestamp) -> TouchFrame? {
        nil
    }

    /// Touches currently down.
    public var activeTouchCount: Int { 0 }
}
