import MultitouchCore
import WireProtocol

/// What one device reading did to the pipeline, for the caller's batching and bookkeeping.
public enum ReadingOutcome: Hashable, Sendable {
    /// An event inside a frame: nothing to send yet.
    case pending
    /// A frame closed (SYN_REPORT): the messages so far form a batch to send.
    case frame
    /// The kernel buffer overflowed and the device state was re-read: a `dropped` message and the
    /// resync frame's messages were appended; they form a batch to send.
    case resynced
    /// The device is gone. Nothing was appended: the caller ends the pipeline (`finish(at:into:)`) at a
    /// time and with a `deviceRemoved` reason only it knows.
    case removed
}

extension DevicePipeline {
    /// The one adapter from live-device readings to pipeline input, used by the daemon and by
    /// `multitouchctl listen`: events go in as they are, a resync is announced with its `dropped`
    /// message (unit `overflows`) and fed as a resync frame.
    public mutating func push(_ reading: DeviceReading, into out: inout [Message]) -> ReadingOutcome {
        switch reading {
        case .event(let event):
            push(event, into: &out)
            return event.isSynReport ? .frame : .pending
        case .resync(let frame, let droppedAt):
            push(resync: frame, droppedAt: droppedAt, into: &out)
            return .resynced
        case .removed:
            return .removed
        }
    }
}
