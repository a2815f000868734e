/// What one read of a live device produced, in order. Defined here, with the pure types, so that the
/// pipeline's one adapter (`DevicePipeline.push(_:into:)` for readings) takes it as it comes from
/// `DeviceInput.LiveDevice.read(into:)`.
public enum DeviceReading: Hashable, Sendable {
    /// A kernel event, with its CLOCK_MONOTONIC time.
    case event(InputEvent)
    /// The kernel's buffer overflowed (`SYN_DROPPED` at `droppedAt`). libevdev re-read the device state;
    /// `frame` (isResync = true) is the difference, ending where a normal frame would end. Events of the
    /// frame that was open when the drop happened are lost: the pipeline discards its partial frame.
    case resync(EventFrame, droppedAt: Timestamp)
    /// The device is gone (`ENODEV`): unplugged or its uinput creator exited. Nothing follows.
    case removed
}

extension DeviceReading {
    /// The raw events that stand for this reading in a recording (`multitouchctl record`, `listen
    /// --record`). A resync is written as `SYN_DROPPED` with value `SynDroppedValue.resyncFollows` at
    /// the overflow's time, the state difference, and its `SYN_REPORT`: replayed, it gives the same
    /// `dropped` message and resync frame as the live path (`FrameAssembler.Output.resync`).
    public var recordedEvents: [InputEvent] {
        switch self {
        case .event(let event):
            return [event]
        case .resync(let frame, let droppedAt):
            return [
                InputEvent(
                    time: droppedAt, type: EventType.syn, code: SynCode.dropped, value: SynDroppedValue.resyncFollows)
            ]
                + frame.events
                + [InputEvent(time: frame.time, type: EventType.syn, code: SynCode.report, value: 0)]
        case .removed:
            return []
        }
    }
}
