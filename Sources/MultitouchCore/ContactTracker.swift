/// Hands out daemon-unique, increasing touch ids. One source is shared by every device of a process so
/// that an id never repeats across devices; a replay makes its own and so starts at 1 every time.
///
/// Two sequences: public ids (1, 2, ...) for every touch other clients may see, and secure ids (from
/// `firstSecureID`) for touches that begin in an exclusive region (DESIGN.md invariant 11). A secure
/// touch takes nothing from the public sequence, so no other client can count secure touches from gaps
/// in the ids it sees.
public final class TouchIDSource {
    private var next: UInt64
    private var nextSecure: UInt64

    /// The first secure id: 2^32, above any public id a daemon hands out in practice, and exactly
    /// representable as a JSON number (below 2^53).
    public static let firstSecureID: UInt64 = 1 << 32

    public init(first: UInt64 = 1) {
        next = first
        nextSecure = TouchIDSource.firstSecureID
    }

    /// The next public id.
    public func take() -> UInt64 {
        defer { next &+= 1 }
        return next
    }

    /// The next secure id (a touch that began in an exclusive region).
    public func takeSecure() -> UInt64 {
        defer { nextSecure &+= 1 }
        return nextSecure
    }
}

/// Where touches are secure (they begin in an exclusive region: DESIGN.md invariant 11): set on a
/// `ContactTracker` by the layer that knows the regions (the pipeline's routing stage) whenever they
/// change. Asked once per touch, when it begins.
public protocol SecureAreas: Sendable {
    /// Whether a touch beginning at `location` (published space) is secure.
    func isSecure(at location: Point) -> Bool
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
///
/// The device's `ContactSource` (protocol B slots, semi-mt, protocol A, single touch) is chosen once,
/// here, from its protocol and its class (`DeviceKind`), and parses each frame's events into the `ContactTable`, which holds what every kind shares.
///
/// Rules (kernel Documentation/input/multi-touch-protocol.rst unless noted):
/// - Protocol B: slot 0 is implied until the first `ABS_MT_SLOT`; a slot keeps its values across frames
///   (the kernel only sends changes). `ABS_MT_TRACKING_ID` -1 ends the slot's touch; a different id on
///   an active slot ends the old touch and begins a new one in the same frame. A slot number outside
///   the declared range (a kernel or device bug) makes the following slot events be ignored until the
///   next valid `ABS_MT_SLOT`.
/// - `ABS_MT_TOOL_TYPE` `MT_TOOL_PALM` cancels the touch; the slot stays ignored until its tracking id
///   ends or changes (a palm that becomes a finger again is not resurrected: libinput does the same for
///   touchscreens, evdev-mt-touchpad's palm code aside).
/// - `EventFrame.isResync`: touches that end in a resync frame ended unseen and are `cancelled`.
/// - Protocol A: every frame lists all contacts; `ProtocolAMatcher` gives them stable ids. A frame with
///   `SYN_MT_REPORT` but no contact, or with `BTN_TOUCH` 0 and no contact, ends all of them; a frame
///   without any contact data (e.g. only `MSC_TIMESTAMP`) changes nothing.
/// - Single touch: `ABS_X`/`ABS_Y`, `ABS_PRESSURE`, and `BTN_TOUCH` (`BTN_TOOL_FINGER` when the device
///   has no `BTN_TOUCH`) give one touch.
/// - `fingerCount`: 0 without touches; else the active touches, raised to the highest
///   `BTN_TOOL_FINGER`...`QUINTTAP` held (less the slots ignored as palms: the tool keys count palms)
///   only where the slots cannot carry the fingers: on a touchpad, a tool count above its slot count
///   (a two-slot or semi-mt pad with three fingers). A direct device never counts tool keys: panels
///   such as N-Trig's hold `BTN_TOOL_DOUBLETAP` with one finger down, and a pad's tool key may lead
///   its second slot by a frame.
/// - Touchpad sensor jumps (libinput's `tp_detect_jumps`): a contact that moves, scaled to a 12 ms
///   frame of the device's own time (`MSC_TIMESTAMP` where it reports one, else event time: frames
///   bunched by a stall are not fast motion), more than 20 mm or 7 mm more than its previous motion
///   ends and begins anew where the sensor puts it. Touchscreens keep every motion.
/// - `isButtonPressed`: `BTN_LEFT` is held (a clickpad click); a change of it while touches are down
///   makes a frame of its own.
/// - A touch is `moved` when any reported value changed (position, radii, orientation, pressure; UIKit
///   also sends touchesMoved for force changes), else `stationary`.
/// - A touch that begins and ends within one frame (only malformed or resync input does that) is
///   reported `began` in that frame and `ended` (or `cancelled`) in the next one, so every consumer
///   sees began before the end, each exactly once, as with UIKit. The end is delivered by the next
///   `process` (even when that frame changes nothing else), by `cancelAll`, or at once by
///   `takeDeferredEnds()`, which a pipeline should call whenever `hasDeferredEnds` is true so that the
///   touch does not stay down until the next frame.
/// - Units: positions through `CoordinateMapper`; radii are `ABS_MT_TOUCH_MAJOR`/`MINOR` halved, in mm
///   along X; orientation is `ABS_MT_ORIENTATION / max * pi/2` radians (the kernel doc: max is a
///   quarter turn clockwise from the Y axis; a `[0, 1]` range means "aligned with Y or X" and maps to 0
///   or pi/2), clamped to +-pi for devices that report beyond max; force is pressure over its axis
///   range clamped to 0...1 (`ABS_MT_PRESSURE` for multitouch devices, `ABS_PRESSURE` for single touch;
///   nil when absent: a multitouch device's `ABS_PRESSURE` belongs to an unspecified contact).
///
/// Not thread-safe; one tracker per device. `process` does not allocate per event: slot storage and
/// scratch buffers are allocated at init, and the output array is reused when the caller has released
/// the previous frame.
public struct ContactTracker {
    public let description: DeviceDescription
    public let mapper: CoordinateMapper
    /// The class the device is served as, which chose its contact source.
    public let kind: DeviceKind

    /// Most slots kept: a description claiming more (garbage) is clamped. Real panels have at most 60.
    public static let slotLimit = 256

    private var table: ContactTable
    private var source: ContactSource

    /// - Parameter kind: the class the device is served as; nil: `description.kind`. A pipeline passes
    ///   the one it chose for all its stages.
    public init(
        description: DeviceDescription, mapper: CoordinateMapper, kind: DeviceKind? = nil,
        idSource: TouchIDSource = TouchIDSource(), tapCounting: TapCountParameters = .default
    ) {
        self.description = description
        self.mapper = mapper
        let kind = kind ?? description.kind
        self.kind = kind
        let features = DeviceFeatures(description, kind: kind)
        table = ContactTable(features: features, mapper: mapper, idSource: idSource, tapCounting: tapCounting)
        source = ContactSource(features: features)
    }

    /// Touches currently down (including one whose deferred end is still owed).
    public var activeTouchCount: Int { table.order.count + table.deferredEnds.count }

    /// True when a touch began and ended in the last frame and its end has not been delivered yet.
    public var hasDeferredEnds: Bool { !table.deferredEnds.isEmpty }

    /// Where touches that begin from now on are secure (`Touch.isSecure`): secure ids, their own tap
    /// counts, and slots numbered apart from the public touches' (docs/SECURITY.md). Nil: no touch is.
    public var secureAreas: (any SecureAreas)? {
        get { table.secureAreas }
        set { table.secureAreas = newValue }
    }

    /// Applies one frame. Returns the touch frame when any touch began, moved, ended or was cancelled (or
    /// the finger count changed); nil when nothing touch-related changed.
    public mutating func process(_ frame: EventFrame) -> TouchFrame? {
        table.beginFrame(frame)
        source.apply(frame.events, to: &table)
        return table.finishFrame()
    }

    /// Delivers, at once, the ends owed for touches that began and ended within the last frame (see
    /// the type's documentation). Nil when none is owed.
    public mutating func takeDeferredEnds() -> TouchFrame? { table.takeDeferredEnds() }

    /// Ends every active touch as `cancelled` at `time` (device removed, grab lost, daemon shutdown, end of
    /// a recording). Returns nil when no touch was active.
    ///
    /// Slots whose contact is still down stay ignored until the kernel ends or replaces it, so a
    /// cancelled touch never comes back under its old id.
    public mutating func cancelAll(at time: Timestamp) -> TouchFrame? { table.cancelAll(at: time) }
}
