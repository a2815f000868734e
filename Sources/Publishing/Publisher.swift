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
    /// Every message is written here first (its storage reused), then copied into its own bytes.
    private var writer = JSONWriter(capacity: 4096)
    /// The longest message so far (with its newline): a spare buffer too small for a message grows to
    /// this at once, so the buffers, whatever messages they held before, stop growing soon.
    private var longestMessage = 1024

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
        /// The bytes of messages published earlier, for the next messages to be written into: a buffer
        /// no client queue holds any more is reused as it is (so a steady stream of frames allocates
        /// nothing); one a queue still holds stays with it, and the next message gets a new buffer.
        var spare: [[UInt8]] = []

        public init() {}

        public var isEmpty: Bool { encoded.isEmpty }

        /// Empties the batch; its messages' byte buffers are kept for the next ones, and the typed items
        /// let go of the pipeline's buffers (the touches of a frame), which the pipeline then reuses.
        public mutating func removeAll() {
            items.removeAll(keepingCapacity: true)
            // In reverse, so that the next batch's first message takes this batch's first buffer back
            // (buffers keep the size of the messages at their place: a frame's touches, its gesture).
            for message in variants.reversed() { spare.append(message.message.bytes) }
            for message in encoded.reversed() { spare.append(message.bytes) }
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
            // A frame without routed deliveries (the steady state) is encoded straight from its parts.
            if case .frame(let f) = output, f.routed.isEmpty {
                addFrame(f, isSemiMT: edge.isSemiMT(f.device), into: &batch)
            } else {
                edge.forEachItem(output) { item in add(item, into: &batch) }
            }
        }
    }

    /// What `add` does for the items of a frame with no routed deliveries (`forEachItem`'s order: the
    /// touches, then the gestures), each message written from the frame (`PipelineMessages
    /// .writeTouches`, `.writeGesture`) rather than from its item: the same bytes, without copying
    /// the item's parts about.
    private mutating func addFrame(_ f: PipelineFrame, isSemiMT: Bool, into batch: inout Batch) {
        if !f.isWithheld {
            let plain = encode(
                { PipelineMessages.writeTouches(f, isSemiMT: isSemiMT, horizon: nil, to: &$0) }, into: &batch)
            append(PipelineMessages.touchesItem(f, isSemiMT: isSemiMT), plain, into: &batch)
            let start = batch.variants.count
            for prediction in f.predictions {
                let horizon = prediction.horizonMilliseconds
                let form = encode(
                    { PipelineMessages.writeTouches(f, isSemiMT: isSemiMT, horizon: horizon, to: &$0) }, into: &batch)
                batch.variants.append((horizon, form))
            }
            batch.variantRanges[batch.variantRanges.count - 1] = start..<batch.variants.count
        }
        for i in f.events.indices {
            var plain = encode({ PipelineMessages.writeGesture(f, i, horizon: nil, to: &$0) }, into: &batch)
            plain.closesLastSession = account(Self.openDelta(f.events[i]), device: f.device)
            append(PipelineMessages.gestureItem(f, i), plain, into: &batch)
            guard f.events[i].isSegmentUpdate else { continue }
            let start = batch.variants.count
            for prediction in f.predictions where prediction.matrix != nil {
                let horizon = prediction.horizonMilliseconds
                var form = encode({ PipelineMessages.writeGesture(f, i, horizon: horizon, to: &$0) }, into: &batch)
                form.closesLastSession = plain.closesLastSession
                batch.variants.append((horizon, form))
            }
            batch.variantRanges[batch.variantRanges.count - 1] = start..<batch.variants.count
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
        guard var plain = encode(item, horizon: nil, into: &batch) else { return }
        if let address = item.address {
            // One region's message for its client.
            plain.client = Int(truncatingIfNeeded: address.client.rawValue)
            plain.region = address.region
            append(item, plain, into: &batch)
            return
        }
        switch item.content {
        case .gesture(let g, _), .message(.gesture(let g)):
            plain.closesLastSession = account(Self.openDelta(g.event), device: g.device)
        case .touches, .message, .answer:
            break
        }
        append(item, plain, into: &batch)
        // The forms with predictions (`PublishedItem.horizons`, read in place).
        let start = batch.variants.count
        switch item.content {
        case .touches(let t):
            for prediction in t.predictions { addVariant(item, prediction.horizonMilliseconds, plain, into: &batch) }
        case .gesture(let g, let predicted) where g.event.isSegmentUpdate:
            for prediction in predicted where prediction.matrix != nil {
                addVariant(item, prediction.horizonMilliseconds, plain, into: &batch)
            }
        case .gesture, .message, .answer:
            break
        }
        if batch.variants.count > start {
            batch.variantRanges[batch.variantRanges.count - 1] = start..<batch.variants.count
        }
    }

    private mutating func addVariant(
        _ item: PublishedItem, _ horizon: Int, _ plain: OutboundMessage, into batch: inout Batch
    ) {
        guard var form = encode(item, horizon: horizon, into: &batch) else { return }
        form.closesLastSession = plain.closesLastSession
        batch.variants.append((horizon, form))
    }

    /// The item's message for a client predicting at `horizon`, encoded once: written straight from
    /// the typed item (`PublishedItem.write`) by the publisher's writer, then copied into a spare
    /// buffer of the batch.
    private mutating func encode(_ item: PublishedItem, horizon: Int?, into batch: inout Batch) -> OutboundMessage? {
        writer.removeAll()
        guard let routing = item.write(horizon: horizon, to: &writer) else { return nil }
        return finish(routing, into: &batch)
    }

    /// A message `writeMessage` writes (returning its routing), encoded once like `encode(_:horizon:into:)`.
    private mutating func encode(
        _ writeMessage: (inout JSONWriter) -> PublishedItem.Routing, into batch: inout Batch
    ) -> OutboundMessage {
        writer.removeAll()
        let routing = writeMessage(&writer)
        return finish(routing, into: &batch)
    }

    /// The writer's message and its newline copied into a spare buffer of the batch, with its routing.
    private mutating func finish(_ routing: PublishedItem.Routing, into batch: inout Batch) -> OutboundMessage {
        writer.newline()
        longestMessage = max(longestMessage, writer.count)
        var bytes = batch.spare.popLast() ?? []
        bytes.removeAll(keepingCapacity: true)
        if bytes.capacity < writer.count { bytes.reserveCapacity(longestMessage) }
        writer.withBytes { bytes.append(contentsOf: $0) }
        var encoded = OutboundMessage(
            bytes: bytes, device: routing.device, streams: routing.streams, droppable: routing.droppable,
            wholeDevice: routing.wholeDevice)
        encoded.supersedable = routing.supersedable
        return encoded
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
