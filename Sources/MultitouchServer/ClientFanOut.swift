import Publishing
import TouchPipeline
import WireProtocol

/// Fan-out, one job: the devices' output published once (`Publisher`: each item encoded once per form a
/// client can need, the open-session account, request answers turned into their askers' replies in
/// order) and handed to every served client (`Subscriber.take`: the form for its own horizon, its own
/// regions' items, a frame-aligned client's share into its frames) through `ClientConnections.deliver`;
/// the latency statistics of the batches written. Owned by the loop thread.
final class ClientFanOut {
    private unowned let connections: ClientConnections
    private let clock: () -> UInt64
    /// Encodes the devices' output once per message and keeps the account of open whole-device sessions.
    private var publisher = Publisher()
    /// Reused per dispatch: the batch being fanned out.
    private var batch = Publisher.Batch()
    private var histogram = LatencyHistogram()
    private var samples = LatencySamples()
    /// Batches with output for a client whose queue was not empty: their last write happened later
    /// than the histogram's time (they are counted here, not in the histogram).
    private var deferredBatches: UInt64 = 0
    /// Turns a pipeline's answer into its asker's reply (the request server).
    var reply: (PipelineAnswer) -> RequestServer.AnswerReply? = { _ in nil }
    /// Called after a batch that answered a region request (who predicts what may have changed).
    var regionsAnswered: () -> Void = {}

    init(connections: ClientConnections, clock: @escaping () -> UInt64) {
        self.connections = connections
        self.clock = clock
    }

    /// Whether a whole-device session is open on `device` (a routing switch waits for its end).
    func hasOpenSession(device: Int) -> Bool { publisher.hasOpenSession(device: device) }

    /// Publishes the devices' output: each item it makes is encoded once per form (`Publisher`) and its
    /// shared bytes handed to every subscribed client that wants them: whole-device items to the
    /// subscribers of the device (a connection routed there skips them), each region's items to its
    /// client, each answer to its asker (and a new transform's notice to the others). `readAt`
    /// (monotonic ns of the device read) feeds the latency statistics, over batches that carry
    /// whole-device output only (a batch for an exclusive region's client alone is not counted: its
    /// count would show the region's secure touches, DESIGN.md invariant 11).
    func dispatch(_ outputs: [PipelineOutput], readAt: UInt64) {
        var notices: [(message: Message, except: Int)] = []
        var answeredRegions = false
        publisher.publish(outputs, into: &batch)
        // Answers become their askers' replies in place (after publishing: a reply may read the
        // publisher's account of open sessions).
        for i in batch.items.indices {
            guard case .answer(let answer) = batch.items[i].content, let r = reply(answer) else { continue }
            if case .regions = r.message { answeredRegions = true }
            if let notice = r.notice { notices.append((notice, r.client)) }
            batch.setReply(i, client: r.client, r.message)
        }
        if !batch.isEmpty { dispatchBatch(readAt: readAt) }
        if !notices.isEmpty {
            publisher.publish(notices.map(\.message), into: &batch)
            for i in batch.encoded.indices { batch.encoded[i].except = notices[i].except }
            dispatchBatch(readAt: nil)
        }
        // Handed on: the batch lets go of the frame (the pipeline reuses its buffers) and keeps the
        // messages' byte buffers for the next batch.
        batch.removeAll()
        if answeredRegions { regionsAnswered() }
    }

    /// Whole-device messages that do not come from a pipeline (tests): published as a device's are.
    func dispatch(_ messages: [Message], readAt: UInt64) {
        publisher.publish(messages, into: &batch)
        guard !batch.isEmpty else { return }
        dispatchBatch(readAt: readAt)
        batch.removeAll()
    }

    // MARK: Frame-aligned clients

    /// A frame for one frame-aligned client: its own, never coalesced.
    func deliverFramed(_ messages: [Message], to client: ClientSession) {
        guard !messages.isEmpty else { return }
        let outbound = messages.map { message in
            var m = OutboundMessage.reply(message)
            m.client = client.id
            return m
        }
        connections.deliver(own: outbound, to: client)
    }

    /// A client that stops asking for frames still holds a bounded buffer: it gets what is due.
    private func catchUpIfOverfull(_ client: ClientSession) {
        guard let pending = client.subscriber.frames?.pendingCount, pending > FrameAligner.maximumPending else {
            return
        }
        var out: [Message] = []
        client.subscriber.frames?.catchUp(into: &out)
        deliverFramed(out, to: client)
    }

    private func dispatchBatch(readAt: UInt64?) {
        var wrote = false
        var deferred = false
        for client in connections.clients.values where !client.closing {
            let backlogged = client.hasPendingOutput
            if connections.deliver(batch, to: client) {
                wrote = true
                if backlogged || client.hasPendingOutput { deferred = true }
            }
            if client.subscriber.frames != nil { catchUpIfOverfull(client) }
        }
        // Clients that were not served this batch switch too.
        for message in batch.encoded where message.closesLastSession {
            for client in connections.clients.values where !client.subscriber.routingSwitch.isEmpty {
                client.subscriber.applyRoutingSwitch(message.device)
            }
        }
        guard let readAt, batch.encoded.contains(where: \.wholeDevice) else { return }
        if deferred {
            deferredBatches &+= 1
        } else if wrote {
            let latency = clock() &- readAt
            histogram.record(nanoseconds: latency)
            samples.record(nanoseconds: latency)
        }
    }

    // MARK: Statistics

    /// The latency part of `stats`: read to last write of every batch written at once.
    func latencyStatistics() -> LatencyStatistics {
        var buckets: [LatencyBucket] = []
        for (k, n) in histogram.buckets.enumerated() where n > 0 {
            buckets.append(LatencyBucket(lessThan: LatencyHistogram.upperBoundMicroseconds(k), count: n))
        }
        let recent = samples.percentilesMicroseconds([0.5, 0.99]).map { p in
            RecentLatency(samples: samples.count, p50: p[0], p99: p[1])
        }
        return LatencyStatistics(
            count: histogram.count, maximum: Double(histogram.maximumNanoseconds) / 1000, buckets: buckets,
            deferred: deferredBatches, recent: recent)
    }
}
