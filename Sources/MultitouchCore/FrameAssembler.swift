/// Groups a raw event stream into whole frames: everything up to `SYN_REPORT`. The pipeline never acts
/// on half a frame (libinput's "evdev frame"; kernel Documentation/input/event-codes.rst).
///
/// `SYN_DROPPED` means the kernel's buffer overflowed: the events of the current frame and all events
/// up to and including the next `SYN_REPORT` are discarded, and the caller must resync (live devices)
/// or carry on with stale state (recordings). Either way it is reported, never silent.
///
/// A `SYN_DROPPED` whose value is `SynDroppedValue.resyncFollows` (1) is the other kind, written only by
/// multitouchd's own recorders (`DeviceReading.recordedEvents`): libevdev already re-read the device,
/// and the events up to the next `SYN_REPORT` are that state difference. They come out as one
/// `.resync` frame, and a partial frame in progress is left alone, exactly as the live path treats a
/// resync; so a recording of a live session replays to the live output even across an overflow.
public struct FrameAssembler: Sendable {
    /// What one pushed event completes.
    public enum Output: Hashable, Sendable {
        /// A whole frame.
        case frame(EventFrame)
        /// Events were lost: `discarded` events (the partial frame plus everything up to the next
        /// `SYN_REPORT`) were thrown away. Emitted at that `SYN_REPORT`, when the stream is whole again.
        case dropped(at: Timestamp, discarded: Int)
        /// A recorded resync (`SYN_DROPPED` value 1 ... `SYN_REPORT`): the state difference libevdev
        /// produced after an overflow at `droppedAt`, as a frame with `isResync` set.
        case resync(EventFrame, droppedAt: Timestamp)
    }

    private var pending: [InputEvent] = []
    /// The last frame handed out still shares `pending`'s buffer; it is cleared at the next push, when
    /// the caller has normally dropped the frame, so the buffer is reused instead of reallocated.
    private var clearBeforeNextPush = false
    private var dropping = false
    private var discarded = 0
    /// Set between a recorded resync's `SYN_DROPPED` (its time) and the `SYN_REPORT` that ends it; its
    /// events go to `pending` from `resyncStart` on (before it: a partial frame, left alone), so the
    /// per-event path has no extra test.
    private var resyncDroppedAt: Timestamp?
    private var resyncStart = 0

    public init() { pending.reserveCapacity(64) }

    /// Number of events waiting for their `SYN_REPORT`.
    public var pendingCount: Int { clearBeforeNextPush ? 0 : pending.count }

    /// Adds one event; returns a frame (or a drop report) when the event closes one.
    public mutating func push(_ event: InputEvent) -> Output? {
        if clearBeforeNextPush {
            pending.removeAll(keepingCapacity: true)
            clearBeforeNextPush = false
        }
        if event.type == EventType.syn {
            switch event.code {
            case SynCode.dropped
            where event.value == SynDroppedValue.resyncFollows && !dropping && resyncDroppedAt == nil:
                resyncDroppedAt = event.time
                resyncStart = pending.count
                return nil
            case SynCode.dropped:
                discarded += pending.count + 1
                pending.removeAll(keepingCapacity: true)
                dropping = true
                resyncDroppedAt = nil
                return nil
            case SynCode.report:
                if dropping {
                    dropping = false
                    let count = discarded
                    discarded = 0
                    return .dropped(at: event.time, discarded: count)
                }
                if let droppedAt = resyncDroppedAt {
                    resyncDroppedAt = nil
                    let difference = Array(pending[resyncStart...])
                    pending.removeSubrange(resyncStart...)
                    return .resync(
                        EventFrame(events: difference, time: event.time, isResync: true), droppedAt: droppedAt)
                }
                clearBeforeNextPush = true
                return .frame(EventFrame(events: pending, time: event.time))
            default:
                break  // SYN_MT_REPORT stays in the frame: protocol A needs it.
            }
        }
        if dropping {
            discarded += 1
        } else {
            pending.append(event)
        }
        return nil
    }

    /// Removes and returns the events of an unfinished trailing frame (a recording cut mid-frame), so the
    /// caller can report them as dropped.
    public mutating func takePartialFrame() -> [InputEvent] {
        if clearBeforeNextPush {
            pending.removeAll(keepingCapacity: true)
            clearBeforeNextPush = false
        }
        defer {
            pending.removeAll(keepingCapacity: true)
            dropping = false
            discarded = 0
        }
        // A resync cut off before its SYN_REPORT: its events are reported with the partial frame.
        resyncDroppedAt = nil
        return pending
    }
}
