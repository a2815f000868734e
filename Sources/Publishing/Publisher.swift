import Gestures
import TouchPipeline
import WireProtocol

/// The daemon's publishing step: a batch of pipeline output in, every message it makes encoded once
/// (`OutboundMessage`, bytes shared by every client queue), and the one account of each device's open
/// whole-device gesture sessions and segments, which tells where a connection may switch between a
/// device's whole-device stream and its regions' streams (`Subscriber.regionsChanged`). Pure: no
/// sockets, no clock.
public struct Publisher {
    /// Open whole-device sessions and segments per device (a device that is not here has none).
    private var open: [Int: Int] = [:]

    public init() {}

    /// What one batch publishes, in order. Reused from batch to batch (its capacity is kept).
    public struct Batch {
        /// The messages, for clients that take them unencoded (frame-aligned ones).
        public var messages: [Message] = []
        /// Each message encoded once, whole-device ones without predictions.
        public var encoded: [OutboundMessage] = []
        /// The same with predictions, for the clients that asked for them; empty when nobody predicts.
        public var predicted: [OutboundMessage] = []

        public init() {}

        public var isEmpty: Bool { encoded.isEmpty }

        public mutating func removeAll() {
            messages.removeAll(keepingCapacity: true)
            encoded.removeAll(keepingCapacity: true)
            predicted.removeAll(keepingCapacity: true)
        }
    }

    /// Whether a whole-device session or segment is open on `device`: a connection asking to switch
    /// streams there now waits for it to close.
    public func hasOpenSession(device: Int) -> Bool { open[device] != nil }

    /// Publishes pipeline output: whole-device messages for the device's subscribers, each region's
    /// messages for its client (`PipelineMessages.forEach`). `predicting`: some client asked for
    /// predictions, so whole-device messages are encoded with and without them.
    public mutating func publish(_ outputs: [PipelineOutput], predicting: Bool, into batch: inout Batch) {
        batch.removeAll()
        for output in outputs {
            PipelineMessages.forEach(output) { message, address in
                add(message, address, predicting: predicting, into: &batch)
            }
        }
    }

    /// Publishes whole-device messages that do not come from a pipeline here (tests, tools).
    public mutating func publish(_ messages: [Message], predicting: Bool, into batch: inout Batch) {
        batch.removeAll()
        for message in messages { add(message, nil, predicting: predicting, into: &batch) }
    }

    private mutating func add(_ message: Message, _ address: RoutedAddress?, predicting: Bool, into batch: inout Batch)
    {
        batch.messages.append(message)
        if let address {
            let routed = OutboundMessage(
                message, client: Int(truncatingIfNeeded: address.client.rawValue), region: address.region)
            batch.encoded.append(routed)
            if predicting { batch.predicted.append(routed) }
            return
        }
        var plain = OutboundMessage(predicting ? message.withoutPredictions : message)
        if case .gesture(let g) = message, g.region == nil {
            plain.closesLastSession = account(Self.openDelta(g.event), device: g.device)
        }
        batch.encoded.append(plain)
        if predicting {
            var full = OutboundMessage(message)
            full.closesLastSession = plain.closesLastSession
            batch.predicted.append(full)
        }
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
