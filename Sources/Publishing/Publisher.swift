import Gestures
import TouchPipeline
import WireProtocol

/// The daemon's publishing step: a batch of pipeline output in, every item it publishes encoded once
/// per form a client can need (`OutboundMessage`, bytes shared by every client queue that takes it:
/// one form without predictions, one per horizon a view predicted), request answers turned into their
/// client's replies in order, and the one account of each device's open whole-device gesture sessions
/// and segments, which tells where a connection may switch between a device's whole-device stream and
/// its regions' streams (`Subscriber.regionsChanged`). Pure: no sockets, no clock.
public struct Publisher {
    /// Open whole-device sessions and segments per device (a device that is not here has none).
    private var open: [Int: Int] = [:]
    /// The publishing edge, which knows each device's class from its `deviceAdded`.
    private var edge = PipelineMessages()

    public init() {}

    /// What one batch publishes, in order. Reused from batch to batch (its capacity is kept).
    public struct Batch {
        /// The typed items, for frame-aligned clients (`FrameAligner`). An answer's item is a reply.
        public var items: [PublishedItem] = []
        /// Each item encoded without predictions (a routed item: its only form; an answer: its reply).
        public var encoded: [OutboundMessage] = []
        /// For each item, its forms with predictions: `variants[variantRanges[i]]`.
        public var variantRanges: [Range<Int>] = []
        public var variants: [(horizon: Int, message: OutboundMessage)] = []

        public init() {}

        public var isEmpty: Bool { encoded.isEmpty }

        public mutating func removeAll() {
            items.removeAll(keepingCapacity: true)
            encoded.removeAll(keepingCapacity: true)
            variantRanges.removeAll(keepingCapacity: true)
            variants.removeAll(keepingCapacity: true)
        }

        /// Where an answer's reply goes until it is set: no client has this id.
        static let nobody = OutboundMessage(bytes: [], device: 0, streams: [], droppable: false, client: -1)

        /// Sets item `i`'s reply (an answer's): `message` for client `client` alone.
        public mutating func setReply(_ i: Int, client: Int, _ message: Message) {
            var encoded = OutboundMessage.reply(message)
            encoded.client = client
            self.encoded[i] = encoded
        }

        /// Item `i` as a client predicting at `horizon` receives it.
        @inline(__always)
        public func message(_ i: Int, horizon: Int?) -> OutboundMessage {
            if let horizon {
                for v in variants[variantRanges[i]] where v.horizon == horizon { return v.message }
            }
            return encoded[i]
        }
    }

    /// Whether a whole-device session or segment is open on `device`: a connection asking to switch
    /// streams there now waits for it to close.
    public func hasOpenSession(device: Int) -> Bool { open[device] != nil }

    /// Publishes pipeline output: whole-device items for the device's subscribers, each region's items
    /// for its client (`PipelineMessages.forEachItem`). An answer to a request is an item addressed to
    /// nobody until the caller sets its reply (`Batch.setReply`).
    public mutating func publish(_ outputs: [PipelineOutput], into batch: inout Batch) {
        batch.removeAll()
        // The edge is taken out of `self` while `add` mutates the rest (its table is moved, not copied).
        var edge = self.edge
        self.edge = PipelineMessages()
        defer { self.edge = edge }
        for output in outputs {
            edge.forEachItem(output) { item in add(item, into: &batch) }
        }
    }

    /// Publishes whole-device messages that do not come from a pipeline here (tests, tools).
    public mutating func publish(_ messages: [Message], into batch: inout Batch) {
        batch.removeAll()
        for message in messages {
            add(PublishedItem(device: message.device ?? 0, address: nil, content: .message(message)), into: &batch)
        }
    }

    private mutating func add(_ item: PublishedItem, into batch: inout Batch) {
        if case .answer = item.content {
            append(item, Batch.nobody, into: &batch)
            return
        }
        // The configuration's regions have no connection: what is routed to them goes to the TUIO
        // output (which reads the pipeline's output), and nothing is encoded for it here.
        if let address = item.address, address.client.isConfigured { return }
        guard let message = item.message(horizon: nil) else { return }
        if let address = item.address {
            append(
                item,
                OutboundMessage(
                    message, client: Int(truncatingIfNeeded: address.client.rawValue), region: address.region),
                into: &batch)
            return
        }
        var plain = OutboundMessage(message)
        if case .gesture(let g) = message {
            plain.closesLastSession = account(Self.openDelta(g.event), device: g.device)
        }
        append(item, plain, into: &batch)
        let start = batch.variants.count
        for horizon in item.horizons {
            guard let form = item.message(horizon: horizon) else { continue }
            var encoded = OutboundMessage(form)
            encoded.closesLastSession = plain.closesLastSession
            batch.variants.append((horizon, encoded))
        }
        batch.variantRanges[batch.variantRanges.count - 1] = start..<batch.variants.count
    }

    private func append(_ item: PublishedItem, _ encoded: OutboundMessage, into batch: inout Batch) {
        batch.items.append(item)
        batch.encoded.append(encoded)
        batch.variantRanges.append(batch.variants.count..<batch.variants.count)
    }

    /// Counts a whole-device gesture event on its device; true when nothing is open there after it.
    private mutating func account(_ delta: Int, device: Int) -> Bool {
        guard delta != 0 else { return false }
        let count = max(0, (open[device] ?? 0) + delta)
        open[device] = count == 0 ? nil : count
        return count == 0
    }

    /// How an event changes the number of its device's open sessions and segments: +1 a session or
    /// segment began, -1 one ended or was cancelled, 0 otherwise. Where the number is back at 0 no touch
    /// is down and no segment or animation is under way.
    static func openDelta(_ event: GestureEvent) -> Int {
        switch event {
        case .sessionBegan: return 1
        case .sessionEnded: return -1
        case .update(let u):
            switch u.phase {
            case .began: return 1
            case .ended, .cancelled: return -1
            case .changed: return 0
            }
        case .tap, .doubleTap, .longPress: return 0
        }
    }
}
