import WireProtocol

/// One wire message ready to send: encoded once, its bytes shared (copy-on-write, never copied) by every
/// client queue it is put in, plus what routing and backpressure need to know about it.
public struct OutboundMessage: Sendable {
    /// One JSON object and its terminating newline.
    public var bytes: [UInt8]
    /// Daemon device id the message is about (0: none).
    public var device: Int
    /// Streams a subscriber must want (any of them) to get it; empty for replies to one client (hello,
    /// pong, stats, error), which are never subject to subscriptions.
    public var streams: MessageStreams
    /// May be coalesced away under backpressure (`Message.isDroppable`: `changed` gesture updates and
    /// touch frames whose touches only moved or stayed).
    public var droppable: Bool
    /// A message of the whole-device `touches` or gesture streams: a connection routed on `device`
    /// does not get it (it gets its regions' own messages instead).
    public var wholeDevice: Bool
    /// The one client a routed message is for (0: every subscriber that wants it).
    public var client: Int
    /// The region a routed message is about: droppable messages coalesce per device, stream and region.
    public var region: String?
    /// A message for every client but this one (another client's new transform: the asker has its
    /// reply); 0: no exception.
    public var except = 0
    /// A whole-device gesture message after which its device has no session or segment open (no touch
    /// down, no segment or animation under way): the point where a connection can switch between the
    /// whole-device and routed streams. Set by the `Publisher`, which keeps that account.
    public var closesLastSession = false
    /// A notice that only matters in its latest form (a device's `transform` notice carries the whole
    /// new base): a newer one of the same device, stream and region replaces it while it is still
    /// queued, whatever the queue's length, so a flood of them holds one slot per device in a
    /// bystander's queue and never overflows it (issue 28). The client misses nothing it needs, so no
    /// `dropped` notice is sent for it.
    public var supersedable = false

    public init(
        bytes: [UInt8], device: Int, streams: MessageStreams, droppable: Bool, wholeDevice: Bool = false,
        client: Int = 0, region: String? = nil
    ) {
        self.bytes = bytes
        self.device = device
        self.streams = streams
        self.droppable = droppable
        self.wholeDevice = wholeDevice
        self.client = client
        self.region = region
    }

    /// `message` encoded once, with its routing (`Message.streams`, `Message.isDroppable`).
    public init(_ message: Message) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256)
        message.encode(into: &bytes)
        self.init(
            bytes: bytes, device: message.device ?? 0, streams: message.streams, droppable: message.isDroppable,
            wholeDevice: message.isWholeDeviceStream)
        // A transform notice (no id: not the reply to the asker) states the device's whole base.
        if case .transform(let notice) = message, notice.id == nil { supersedable = true }
    }

    /// `message` for client `client` alone: one of its regions' touches or gesture events.
    public init(_ message: Message, client: Int, region: String) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256)
        message.encode(into: &bytes)
        self.init(
            bytes: bytes, device: message.device ?? 0, streams: message.streams, droppable: message.isDroppable,
            client: client, region: region)
    }

    /// A region's message for its client.
    public init(routed: RoutedMessage) {
        self.init(routed.message, client: Int(truncatingIfNeeded: routed.client.rawValue), region: routed.region)
    }

    /// A reply to one client: never subject to subscriptions, never dropped.
    public static func reply(_ message: Message) -> OutboundMessage {
        var bytes: [UInt8] = []
        message.encode(into: &bytes)
        return OutboundMessage(bytes: bytes, device: 0, streams: [], droppable: false)
    }
}

/// A bounded per-client message queue with coalescing (docs/PROTOCOL.md "Backpressure").
///
/// Below `softLimit` queued messages everything is appended. At or above it, a droppable message
/// replaces the most recent still-queued droppable message of the same (device, stream, region) when no
/// other message of that stream was queued after it: the old one is removed and the new one appended
/// at the tail, so every stream stays in time order, and the new
/// entry carries the count of messages the client missed before it. A non-droppable message is always
/// appended. The byte total is what the caller checks against the hard limit. Pure and single-threaded.
public struct ClientQueue: Sendable {
    /// A queued message and the number of same-stream messages coalesced away right before it.
    public struct Entry: Sendable {
        public var message: OutboundMessage
        public var missed: Int
    }

    private struct Key: Hashable, Sendable {
        var device: Int
        var streams: UInt8
        var region: String?

        init(_ message: OutboundMessage) {
            device = message.device
            streams = message.streams.rawValue
            region = message.region
        }
    }

    /// Slots from `base`; nil is a coalesced-away tombstone or an already-popped slot before `head`.
    private var slots: [Entry?] = []
    private var head = 0
    private var base = 0
    private var tombstones = 0
    /// Absolute index of the latest queued droppable message per key.
    private var lastDroppable: [Key: Int] = [:]
    /// Absolute index of the queued supersedable notice per key (at most one each).
    private var lastNotice: [Key: Int] = [:]

    /// Messages queued (tombstones not counted).
    public private(set) var count = 0
    /// Bytes of the queued messages.
    public private(set) var bytes = 0
    /// Messages coalesced away over the client's lifetime.
    public private(set) var droppedTotal = 0
    /// Supersedable notices replaced by a newer one while queued, over the client's lifetime.
    public private(set) var supersededTotal = 0

    public init() {}

    public var isEmpty: Bool { count == 0 }

    /// What `enqueue` did.
    public enum EnqueueResult: Hashable, Sendable {
        case appended
        /// An older droppable message of the same device and stream was replaced.
        case coalesced
        /// A queued supersedable notice of the same device, stream and region was replaced.
        case superseded
    }

    /// Adds `message`, coalescing when the queue holds `softLimit` messages or more.
    @discardableResult
    public mutating func enqueue(_ message: OutboundMessage, softLimit: Int) -> EnqueueResult {
        let key = Key(message)
        if message.supersedable {
            var result = EnqueueResult.appended
            if let old = lastNotice[key], old >= base + head, let entry = slots[old - base] {
                slots[old - base] = nil
                tombstones += 1
                count -= 1
                bytes -= entry.message.bytes.count
                supersededTotal += 1
                result = .superseded
            }
            lastNotice[key] = base + slots.count
            slots.append(Entry(message: message, missed: 0))
            count += 1
            bytes += message.bytes.count
            if tombstones > 64 && tombstones > count { compact() }
            return result
        }
        var missed = 0
        var result = EnqueueResult.appended
        if message.droppable, count >= softLimit, let old = lastDroppable[key], old >= base + head,
            let entry = slots[old - base]
        {
            slots[old - base] = nil
            tombstones += 1
            count -= 1
            bytes -= entry.message.bytes.count
            missed = entry.missed + 1
            droppedTotal += 1
            result = .coalesced
        }
        let index = base + slots.count
        slots.append(Entry(message: message, missed: missed))
        count += 1
        bytes += message.bytes.count
        // A droppable message never coalesces across a later message of its stream: removing it from
        // before that one would put the gap ahead of the `dropped` notice the next droppable carries
        // (a segment's `ended` arriving with seq missing and no notice yet, issue 19).
        lastDroppable[key] = message.droppable ? index : nil
        if tombstones > 64 && tombstones > count { compact() }
        return result
    }

    /// Removes and returns the oldest message.
    public mutating func popFirst() -> Entry? {
        while head < slots.count {
            let entry = slots[head]
            slots[head] = nil
            head += 1
            if let entry {
                count -= 1
                bytes -= entry.message.bytes.count
                if head == slots.count {
                    // Drained (what a client that keeps up does after every batch): the slots start
                    // over in the same storage. Indices stay fresh (`base` moves past the old ones),
                    // so the droppable and notice tables' entries point before `base`: gone.
                    base += slots.count
                    slots.removeAll(keepingCapacity: true)
                    head = 0
                } else if head > 1024 && head * 2 > slots.count {
                    compact()
                }
                return entry
            }
            tombstones -= 1
        }
        return nil
    }

    /// Drops everything (a client being disconnected).
    public mutating func removeAll() {
        slots = []
        head = 0
        base = 0
        tombstones = 0
        lastDroppable = [:]
        lastNotice = [:]
        count = 0
        bytes = 0
    }

    /// Removes popped slots and tombstones so memory stays proportional to `count`.
    private mutating func compact() {
        var newSlots: [Entry?] = []
        newSlots.reserveCapacity(count)
        var newLast: [Key: Int] = [:]
        var newNotices: [Key: Int] = [:]
        let newBase = base + slots.count  // fresh absolute indices never collide with old ones
        for slot in slots[head...] {
            guard let entry = slot else { continue }
            if entry.message.droppable {
                newLast[Key(entry.message)] =
                    newBase + newSlots.count
            }
            if entry.message.supersedable { newNotices[Key(entry.message)] = newBase + newSlots.count }
            newSlots.append(entry)
        }
        slots = newSlots
        base = newBase
        head = 0
        tombstones = 0
        lastDroppable = newLast
        lastNotice = newNotices
    }
}
