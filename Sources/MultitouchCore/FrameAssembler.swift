/// Groups a raw event stream into whole frames: everything up to `SYN_REPORT`. The pipeline never acts
/// on half a frame (libinput's "evdev frame"; kernel Documentation/input/event-codes.rst).
///
/// `SYN_DROPPED` means the kernel's buffer overflowed: the events of the current frame and all events
/// up to and including the next `SYN_REPORT` are discarded, and the caller must resync (live devices)
/// or carry on with stale state (recordings). Either way it is reported, never silent.
public struct FrameAssembler: Sendable {
    /// What one pushed event completes.
    public enum Output: Hashable, Sendable {
        /// A whole frame.
        case frame(EventFrame)
        /// Events were lost: `discarded` events (the partial frame plus everything up to the next
        /// `SYN_REPORT`) were thrown away. Emitted at that `SYN_REPORT`, when the stream is whole again.
        case dropped(at: Timestamp, discarded: Int)
    }

    private var pending: [InputEvent] = []
    /// The last frame handed out still shares `pending`'s buffer; it is cleared at the next push, when
    /// the caller has normally dropped the frame, so the buffer is reused instead of reallocated.
    private var clearBeforeNextPush = false
    private var dropping = false
    private var discarded = 0

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
            case SynCode.dropped:
                discarded += pending.count + 1
                pending.removeAll(keepingCapacity: true)
                dropping = true
                return nil
            case SynCode.report:
                if dropping {
                    dropping = false
                    let count = discarded
                    discarded = 0
                    return .dropped(at: event.time, discarded: count)
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
        return pending
    }
}
