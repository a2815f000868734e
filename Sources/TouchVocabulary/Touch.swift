/// A touch's phase within one frame, with UITouch.Phase semantics: every touch has exactly one `began`,
/// then any number of `moved`/`stationary`, then exactly one `ended` or `cancelled`.
public enum TouchPhase: String, Hashable, Sendable, CaseIterable {
    case began, moved, stationary, ended, cancelled

    /// True for `ended` and `cancelled`: the touch is not in the next frame.
    public var isTerminal: Bool { self == .ended || self == .cancelled }
}

/// Whether the finger is on the picture (touchscreen) or moves a pointer (touchpad), like UITouch.TouchType.
public enum TouchType: String, Hashable, Sendable {
    case direct, indirect
}

/// One finger in one frame, the daemon's UITouch. Locations exist in three spaces: `location` in the
/// device's published space (pixels of the mapped output, else mm), `millimeters` in the isotropic
/// physical space every threshold is measured in, and `normalized` (0...1 over the axis range).
public struct Touch: Hashable, Sendable {
    /// Daemon-unique, increasing id; stays the same from `began` to `ended`/`cancelled`.
    public var id: UInt64
    /// The kernel slot (protocol B) or matcher slot (protocol A) that carries the touch.
    public var slot: Int
    /// The kernel tracking id (protocol B), or the matcher's own id (protocol A, single touch).
    public var trackingID: Int32
    public var phase: TouchPhase
    /// Position in the published space.
    public var location: Point
    /// Position in the published space in the previous frame (equal to `location` at `began`).
    public var previousLocation: Point
    /// Position in millimetres (isotropic physical space).
    public var millimeters: Point
    /// Position as a fraction of each axis range, 0...1.
    public var normalized: Point
    /// Time of the frame this touch state belongs to.
    public var timestamp: Timestamp
    /// UITouch.tapCount: 1 for a first touch, 2 when it lands as the second tap of a multi-tap, ...
    public var tapCount: Int
    /// `ABS_MT_TOUCH_MAJOR`/`MINOR` as radii (half the axis), in mm where the resolution is known.
    public var majorRadius: Double?
    public var minorRadius: Double?
    /// `ABS_MT_ORIENTATION` in radians, 0 along the device's Y axis, when the device reports it.
    public var orientation: Double?
    /// Pressure normalized to 0...1, absent when the device reports none.
    public var force: Double?
    public var type: TouchType

    public init(
        id: UInt64, slot: Int, trackingID: Int32, phase: TouchPhase, location: Point, previousLocation: Point,
        millimeters: Point, normalized: Point, timestamp: Timestamp, tapCount: Int = 1, majorRadius: Double? = nil,
        minorRadius: Double? = nil, orientation: Double? = nil, force: Double? = nil, type: TouchType
    ) {
        self.id = id
        self.slot = slot
        self.trackingID = trackingID
        self.phase = phase
        self.location = location
        self.previousLocation = previousLocation
        self.millimeters = millimeters
        self.normalized = normalized
        self.timestamp = timestamp
        self.tapCount = tapCount
        self.majorRadius = majorRadius
        self.minorRadius = minorRadius
        self.orientation = orientation
        self.force = force
        self.type = type
    }
}

/// Every touch of one device at one evdev frame, like UIEvent.allTouches: the ones that changed and the
/// stationary ones, ordered by id.
public struct TouchFrame: Hashable, Sendable {
    public var time: Timestamp
    public var touches: [Touch]
    /// Fingers on the surface as the device counts them: at least the active touches, more when
    /// `BTN_TOOL_*TAP` says there are fingers the slots cannot carry.
    public var fingerCount: Int
    /// `BTN_LEFT` is held: the surface is physically clicked (a clickpad press, or the button of a
    /// touchpad that has one). Taps of a session with a click are no taps.
    public var isButtonPressed: Bool

    public init(time: Timestamp, touches: [Touch], fingerCount: Int, isButtonPressed: Bool = false) {
        self.time = time
        self.touches = touches
        self.fingerCount = fingerCount
        self.isButtonPressed = isButtonPressed
    }

    /// Touches still down after this frame (every phase but ended and cancelled).
    public var activeTouches: [Touch] { touches.filter { !$0.phase.isTerminal } }
}
