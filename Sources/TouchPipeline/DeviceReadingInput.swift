import MultitouchCore

/// What one device reading did to the pipeline, for the caller's batching and bookkeeping.
public enum ReadingOutcome: Hashable, Sendable {
    /// An event inside a frame: nothing to send yet.
    case pending
    /// A frame closed (SYN_REPORT): the messages so far form a batch to send.
    case frame
    /// The kernel buffer overflowed and the device state was re-read: the overflow (`dropped`) and the
    /// resync frame's output were appended; they form a batch to send.
    case resynced
    /// The device is gone. Nothing was appended: the caller ends the pipeline (`end(at:reason:into:)`)
    /// at a time and with a reason only it knows.
    case removed
}

extension DevicePipeline {
    /// The one adapter from live-device readings to pipeline input, used by the daemon and by
    /// `multitouchctl listen`: events go in as they are, a resync is announced (`PipelineDrop.overflow`)
    /// and fed as a resync frame.
    public mutating func push(_ reading: DeviceReading, into out: inout [PipelineOutput]) -> ReadingOutcome {
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
