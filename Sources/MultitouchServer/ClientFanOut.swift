import Publishing
import TouchPipeline
import WireProtocol

/// Fan-out, one job: the devices' output published once (`Publisher`: each message encoded once, the
/// open-session account) and its shared bytes handed to every served client that wants them, through
/// `ClientConnections.deliver`; frame-aligned clients' share buffered for their `frame` requests; the
/// prediction horizon the subscribers asked for; the latency statistics of the batches written.
/// Owned by the loop thread.
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

    /// The `predictMs` of the subscribed clients that asked (one at a time); nil when none did.
    private(set) var predictionHorizon: Int?
    /// The horizon changed: the devices predict this far ahead from now on, or not at all (nil).
    var horizonChanged: ((Int?) -> Void)?

    init(connections: ClientConnections, clock: @escaping () -> UInt64) {
        self.connections = connections
        self.clock = clock
    }

    /// Whether a whole-device session is open on `device` (a routing switch waits for its end).
    func hasOpenSession(device: Int) -> Bool { publisher.hasOpenSession(device: device) }

    /// Publishes the devices' output: each message it makes is encoded once (`Publisher`) and its shared
    /// bytes handed to every subscribed client that wants them: the whole-device messages to the
    /// subscribers of the device (a connection routed there skips them), each region's messages to its
    /// client. `readAt` (monotonic ns of the device read) feeds the latency statistics.
    func dispatch(_ outputs: [PipelineOutput], readAt: UInt64) {
        publisher.publish(outputs, predicting: predictionHorizon != nil, into: &batch)
        guard !batch.isEmpty else { return }
        bufferFrames(batch.messages)
        dispatchEncoded(readAt: readAt)
    }

    /// Whole-device messages that do not come from a pipeline (tests): published as a device's are.
    func dispatch(_ messages: [Message], readAt: UInt64) {
        publisher.publish(messages, predicting: predictionHorizon != nil, into: &batch)
        guard !batch.isEmpty else { return }
        bufferFrames(batch.messages)
        dispatchEncoded(readAt: readAt)
    }

    /// Like `dispatch(_:readAt:)` for messages already encoded, some of them addressed to one client
    /// (a request's cancellations; `OutboundMessage.client`).
    func dispatch(outbound: [OutboundMessage], readAt: UInt64) {
        guard !outbound.isEmpty else { return }
        batch.removeAll()
        batch.encoded = outbound
        bufferFrames(outbound: outbound)
        dispatchEncoded(readAt: readAt)
    }

    /// One message to every served client but `except` that wants it (another client's new transform).
    func deliver(_ message: OutboundMessage, toAllBut except: ClientSession) {
        for other in connections.clients.values where other !== except && other.subscriber.wants(message) {
            connections.deliver([message], to: other)
        }
    }

    // MARK: Frame-aligned clients

    /// Frame-aligned clients' share of a batch: buffered until their next `frame` request.
    private func bufferFrames(_ messages: [Message]) {
        for client in connections.clients.values where client.subscriber.frames != nil && !client.closing {
            let encoded = outbound(for: client)
            for (i, message) in messages.enumerated()
            where i < encoded.count && client.subscriber.wantsFramed(encoded[i]) {
                let form = client.subscriber.predictMilliseconds == nil ? message.withoutPredictions : message
                client.subscriber.frames?.push(form)
            }
            catchUpIfOverfull(client)
        }
    }

    /// `bufferFrames` for a batch that arrives encoded (a request's routed messages, tests): the
    /// whole-device messages a frame-aligned client takes are read back from their bytes.
    private func bufferFrames(outbound: [OutboundMessage]) {
        for client in connections.clients.values where client.subscriber.frames != nil && !client.closing {
            for message in outbound where client.subscriber.wantsFramed(message) {
                let line = message.bytes.last == UInt8(ascii: "\n") ? message.bytes.dropLast() : message.bytes[...]
                if let decoded = try? Message(decoding: line) { client.subscriber.frames?.push(decoded) }
            }
            catchUpIfOverfull(client)
        }
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

    /// A frame for one frame-aligned client: its own, past the whole-device filter, never coalesced.
    func deliverFramed(_ messages: [Message], to client: ClientSession) {
        guard !messages.isEmpty else { return }
        let outbound = messages.map { message in
            var m = OutboundMessage(message)
            m.client = client.id  // this client's frame only, past the whole-device filter
            m.wholeDevice = false
            m.droppable = false  // a frame carries its coalesced samples: never coalesced away
            return m
        }
        connections.deliver(outbound, to: client)
    }

    // MARK: Prediction

    /// Re-reads the horizon from the subscribed clients (after a subscribe, unsubscribe or disconnect).
    func updatePredictionHorizon() {
        let horizon = connections.clients.values.first {
            $0.subscriber.subscription != nil && $0.subscriber.predictMilliseconds != nil
        }?
        .subscriber.predictMilliseconds
        guard horizon != predictionHorizon else { return }
        predictionHorizon = horizon
        horizonChanged?(horizon)
    }

    /// What `client` receives of the batch being dispatched: with predictions if it asked for them.
    private func outbound(for client: ClientSession) -> [OutboundMessage] {
        guard client.subscriber.predictMilliseconds != nil, batch.predicted.count == batch.encoded.count else {
            return batch.encoded
        }
        return batch.predicted
    }

    private func dispatchEncoded(readAt: UInt64) {
        var wrote = false
        var deferred = false
        for client in connections.clients.values where client.subscriber.subscription != nil && !client.closing {
            let backlogged = client.hasPendingOutput
            if connections.deliver(outbound(for: client), to: client) {
                wrote = true
                if backlogged || client.hasPendingOutput { deferred = true }
            }
        }
        // Clients that were not served this batch switch too.
        for message in batch.encoded where message.closesLastSession {
            for client in connections.clients.values where !client.subscriber.routingSwitch.isEmpty {
                client.subscriber.applyRoutingSwitch(message.device)
            }
        }
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
