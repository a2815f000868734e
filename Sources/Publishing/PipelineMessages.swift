import Gestures
import MultitouchCore
import Recordings
import TouchPipeline
import TouchRouting
import WireProtocol

/// A message for one region of one client, made of a device's routing-stage deliveries.
public struct RoutedMessage: Hashable, Sendable {
    public var client: ClientID
    /// The region it is about (coalescing under backpressure is per region).
    public var region: String
    public var message: Message

    public init(client: ClientID, region: String, message: Message) {
        self.client = client
        self.region = region
        self.message = message
    }
}

/// Who a routed message is for: one region of one client.
public struct RoutedAddress: Hashable, Sendable {
    public var client: ClientID
    public var region: String
}

/// The one conversion from the pipeline's typed output to wire messages (docs/PROTOCOL.md), used by the
/// daemon's publisher, `multitouchctl replay/listen/check` and the tests: the same output gives the same
/// messages everywhere.
public enum PipelineMessages {
    /// The wire's device object of a pipeline device.
    public static func deviceInfo(_ device: PipelineDevice) -> DeviceInfo {
        DeviceInfo(id: device.id, source: device.source, description: device.description, mapper: device.mapper)
    }

    /// Every message `output` makes, in the order clients receive them, each with its addressee: nil for
    /// the whole-device stream (every subscriber of the device), else one region of one client. A frame
    /// gives its whole-device `touches`, then its routed deliveries, then its whole-device gestures.
    @inline(__always)
    public static func forEach(_ output: PipelineOutput, _ body: (Message, RoutedAddress?) -> Void) {
        switch output {
        case .deviceAdded(let device):
            body(.deviceAdded(deviceInfo(device)), nil)
        case .recordingNote(let note):
            body(.error(ErrorMessage(.recording, note)), nil)
        case .frame(let f):
            if !f.isWithheld { body(.touches(touches(f)), nil) }
            if !f.routed.isEmpty {
                for delivery in f.routed {
                    if let (message, address) = routed(delivery, device: f.device, isSemiMT: f.isSemiMT) {
                        body(message, address)
                    }
                }
            }
            let matrix = f.prediction?.matrix
            for event in f.events { body(.gesture(gesture(event, device: f.device, predictedMatrix: matrix)), nil) }
        case .timers(let device, let events, let matrix):
            for event in events { body(.gesture(gesture(event, device: device, predictedMatrix: matrix)), nil) }
        case .dropped(let device, let time, let drop):
            body(.dropped(dropped(drop, device: device, time: time)), nil)
        case .routed(let r):
            for delivery in r.deliveries {
                if let (message, address) = routed(delivery, device: r.device, isSemiMT: r.isSemiMT) {
                    body(message, address)
                }
            }
        case .ended(let device, let time, let reason):
            body(.deviceRemoved(DeviceRemovedMessage(device: device, time: time, reason: reason.rawValue)), nil)
        }
    }

    /// The whole-device messages of `outputs` (what a client without regions receives), appended to `out`.
    public static func append(_ outputs: [PipelineOutput], to out: inout [Message]) {
        for output in outputs {
            forEach(output) { message, address in if address == nil { out.append(message) } }
        }
    }

    /// The routed messages of `outputs`, appended to `out`.
    public static func appendRouted(_ outputs: [PipelineOutput], to out: inout [RoutedMessage]) {
        for output in outputs {
            forEach(output) { message, address in
                if let address {
                    out.append(RoutedMessage(client: address.client, region: address.region, message: message))
                }
            }
        }
    }

    /// The whole-device messages of `outputs`.
    public static func messages(_ outputs: [PipelineOutput]) -> [Message] {
        var out: [Message] = []
        append(outputs, to: &out)
        return out
    }

    /// A frame's `touches` message, with each live touch's prediction when predictions are on.
    static func touches(_ f: PipelineFrame) -> TouchesMessage {
        var message = TouchesMessage(device: f.device, frame: f.frame)
        if let predicted = f.prediction?.locations {
            var next = 0
            for i in message.touches.indices where !message.touches[i].phase.isTerminal && next < predicted.count {
                message.touches[i].predicted = predicted[next]
                next += 1
            }
        }
        return message
    }

    /// A whole-device gesture message; a segment update carries `predictedMatrix` when there is one.
    static func gesture(_ event: GestureEvent, device: Int, predictedMatrix: AffineTransform?) -> GestureMessage {
        if let predictedMatrix, case .update = event {
            return GestureMessage(device: device, event: event, predictedMatrix: predictedMatrix)
        }
        return GestureMessage(device: device, event: event)
    }

    static func dropped(_ drop: PipelineDrop, device: Int, time: Timestamp) -> DroppedMessage {
        switch drop {
        case .synDropped(let count):
            return DroppedMessage(device: device, time: time, count: count, unit: .events, reason: "SYN_DROPPED")
        case .overflow:
            return DroppedMessage(
                device: device, time: time, count: 1, unit: .overflows,
                reason: "SYN_DROPPED: kernel buffer overflowed; resynced from the device state")
        case .partialFrame(let count):
            return DroppedMessage(
                device: device, time: time, count: count, unit: .events,
                reason: "partial frame without SYN_REPORT at end of input")
        }
    }

    /// A routing delivery as the message its client receives (docs/PROTOCOL.md "What a routed
    /// connection receives"); nil for request answers, which become replies instead.
    public static func routed(
        _ delivery: RoutingDelivery, device: Int, isSemiMT: Bool
    ) -> (Message, RoutedAddress)? {
        switch delivery {
        case .touches(let t):
            let fingers = t.touches.reduce(0) { $0 + ($1.phase.isTerminal ? 0 : 1) }
            let message = TouchesMessage(
                device: device, time: t.time, fingers: fingers, isSemiMT: isSemiMT,
                touches: t.touches.map(TouchPoint.init),
                routing: TouchesRouting(region: t.recipient.key.region, role: t.recipient.role, reason: t.reason))
            return (.touches(message), RoutedAddress(client: t.recipient.client, region: t.recipient.key.region))
        case .gesture(let recipient, let event):
            return (
                .gesture(GestureMessage(device: device, event: event, region: recipient.key.region)),
                RoutedAddress(client: recipient.client, region: recipient.key.region)
            )
        case .transformSet, .rejected:
            return nil
        }
    }

    /// Deliveries as routed messages (a request's cancellations, for its reply).
    public static func routedMessages(_ deliveries: [RoutingDelivery], device: Int, isSemiMT: Bool) -> [RoutedMessage] {
        deliveries.compactMap { delivery in
            routed(delivery, device: device, isSemiMT: isSemiMT).map {
                RoutedMessage(client: $0.1.client, region: $0.1.region, message: $0.0)
            }
        }
    }
}

/// `Replay` as messages: exactly the lines `multitouchctl replay --json` prints and a socket client of
/// `multitouchd --replay` receives (minus the hello).
public enum MessageReplay {
    /// Messages for a recording, in `ReplaySchedule`'s order.
    public static func messages(
        recording: Recording, source: String = "", settings: PipelineSettings = .init()
    ) -> [Message] {
        var out: [Message] = []
        run(recording: recording, source: source, settings: settings) { out.append(contentsOf: $0) }
        return out
    }

    /// Streams a replay: `sink` receives the messages in batches (one batch per frame or timer).
    public static func run(
        recording: Recording, source: String = "", settings: PipelineSettings = .init(),
        sink: ([Message]) -> Void
    ) {
        var messages: [Message] = []
        Replay.run(recording: recording, source: source, settings: settings) { batch in
            PipelineMessages.append(batch, to: &messages)
            if !messages.isEmpty { sink(messages) }
            messages.removeAll(keepingCapacity: true)
        }
    }
}

extension DevicePipeline {
    /// The wire's device object of this device.
    public var info: DeviceInfo { PipelineMessages.deviceInfo(device) }

    /// `push(_:into:)` as whole-device messages.
    public mutating func push(_ event: InputEvent, into out: inout [Message]) {
        var outputs: [PipelineOutput] = []
        push(event, into: &outputs)
        PipelineMessages.append(outputs, to: &out)
    }

    /// `push(_ reading:into:)` as whole-device messages.
    public mutating func push(_ reading: DeviceReading, into out: inout [Message]) -> ReadingOutcome {
        var outputs: [PipelineOutput] = []
        let outcome = push(reading, into: &outputs)
        PipelineMessages.append(outputs, to: &out)
        return outcome
    }

    /// `advance(to:into:)` as whole-device messages.
    public mutating func advance(to time: Timestamp, into out: inout [Message]) {
        var outputs: [PipelineOutput] = []
        advance(to: time, into: &outputs)
        PipelineMessages.append(outputs, to: &out)
    }

    /// `end(at:reason:into:)` as whole-device messages (the cancellations, then `deviceRemoved`).
    public mutating func end(at time: Timestamp, reason: DeviceEndReason, into out: inout [Message]) {
        var outputs: [PipelineOutput] = []
        end(at: time, reason: reason, into: &outputs)
        PipelineMessages.append(outputs, to: &out)
    }
}

extension ReplaySchedule {
    /// `take(_:into:)` as whole-device messages.
    public mutating func take(_ step: Step, into out: inout [Message]) {
        var outputs: [PipelineOutput] = []
        take(step, into: &outputs)
        PipelineMessages.append(outputs, to: &out)
    }
}
