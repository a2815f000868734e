/// One kernel `struct input_event`: what a device node or a recording delivers, before any meaning is
/// given to it.
public struct InputEvent: Hashable, Sendable {
    public var time: Timestamp
    public var type: UInt16
    public var code: UInt16
    public var value: Int32

    public init(time: Timestamp, type: UInt16, code: UInt16, value: Int32) {
        self.time = time
        self.type = type
        self.code = code
        self.value = value
    }

    /// True for the `EV_SYN/SYN_REPORT` that closes a frame.
    @inlinable public var isSynReport: Bool { type == EventType.syn && code == SynCode.report }
}

/// A whole evdev frame: every event up to and including its `SYN_REPORT`, in arrival order.
public struct EventFrame: Hashable, Sendable {
    /// Events of the frame without the closing `SYN_REPORT`.
    public var events: [InputEvent]
    /// Time of the closing `SYN_REPORT`.
    public var time: Timestamp
    /// True when this frame is the state difference libevdev produced while resyncing after
    /// `SYN_DROPPED`: contacts that end in it ended unseen and are reported `cancelled`.
    public var isResync: Bool

    public init(events: [InputEvent], time: Timestamp, isResync: Bool = false) {
        self.events = events
        self.time = time
        self.isResync = isResync
    }
}
