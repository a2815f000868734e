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

/// One thing a pipeline output publishes, typed, before it is encoded: who it is for (the device's
/// whole-device view, or one region of one client) and what it says, with its predictions at every
/// horizon the view predicted. Each client takes the form for its own horizon (`message(horizon:)`);
/// frame-aligned clients take the typed touches into their `FrameAligner`.
public struct PublishedItem: Sendable {
    public var device: Int
    /// Nil: the whole-device view (every subscriber of the device that may see it); else one region of
    /// one client.
    public var address: RoutedAddress?
    public var content: Content

    public init(device: Int, address: RoutedAddress?, content: Content) {
        self.device = device
        self.address = address
        self.content = content
    }

    /// What an item says.
    public enum Content: Sendable {
        /// A view's touches of one frame.
        case touches(ViewTouches)
        /// A gesture event; a segment update carries the predicted matrix at each horizon that has one.
        case gesture(GestureMessage, predicted: [FramePrediction])
        /// Anything else (device added or removed, drops, recording notes).
        case message(Message)
        /// The answer to a client's request: the daemon turns it into that client's reply.
        case answer(PipelineAnswer)
    }

    /// The wire message for a client that predicts at `horizon` ms (nil: it asked for none); nil for an
    /// answer, which is not a stream message.
    public func message(horizon: Int?) -> Message? {
        switch content {
        case .touches(let t): return .touches(t.message(horizon: horizon))
        case .gesture(var g, let predicted):
            if let horizon, g.event.isSegmentUpdate,
                let m = predicted.first(where: { $0.horizonMilliseconds == horizon })?.matrix
            {
                g.predictedMatrix = m
            }
            return .gesture(g)
        case .message(let m): return m
        case .answer: return nil
        }
    }

    /// How a written item is routed: what `OutboundMessage.init(_:)` reads from its message.
    public struct Routing: Hashable, Sendable {
        public var device: Int
        public var streams: MessageStreams
        public var droppable: Bool
        public var wholeDevice: Bool
        public var supersedable: Bool
    }

    /// Writes the item's message for a client predicting at `horizon` (the bytes of
    /// `message(horizon:)`) straight from the typed content: a `touches` message from the pipeline's
    /// touches, a gesture message without a `Message` around it. Returns its routing; nil (nothing
    /// written) for an answer. The daemon's publisher and `multitouchctl bench` encode this way.
    public func write(horizon: Int?, to w: inout JSONWriter) -> Routing? {
        switch content {
        case .touches(let t):
            TouchesMessage.write(
                device: t.device, time: t.time, fingers: t.fingers, isSemiMT: t.isSemiMT, routing: t.routing,
                touches: t.touches, predicted: t.predicted(horizon: horizon), to: &w)
            var droppable = true
            for i in t.touches.indices where !TouchesMessage.isDroppable(t.touches[i].phase) {
                droppable = false
                break
            }
            return Routing(
                device: t.device, streams: .touches, droppable: droppable, wholeDevice: t.routing == nil,
                supersedable: false)
        case .gesture(let g, let predicted):
            if let horizon, g.event.isSegmentUpdate,
                let m = predicted.first(where: { $0.horizonMilliseconds == horizon })?.matrix
            {
                var withPrediction = g
                withPrediction.predictedMatrix = m
                withPrediction.write(to: &w)
            } else {
                g.write(to: &w)
            }
            return Routing(
                device: g.device, streams: .gestures, droppable: g.isDroppable, wholeDevice: g.region == nil,
                supersedable: false)
        case .message(let m):
            m.write(to: &w)
            // A transform notice (no id: not the reply to the asker) states the device's whole base.
            var supersedable = false
            if case .transform(let notice) = m, notice.id == nil { supersedable = true }
            return Routing(
                device: m.device ?? 0, streams: m.streams, droppable: m.isDroppable, wholeDevice: m.isWholeDeviceStream,
                supersedable: supersedable)
        case .answer:
            return nil
        }
    }

    /// Whether some client's form of this item differs by horizon (whole-device predictions).
    public var horizons: [Int] {
        switch content {
        case .touches(let t): return t.predictions.map(\.horizonMilliseconds)
        case .gesture(let g, let predicted):
            guard g.event.isSegmentUpdate else { return [] }
            return predicted.compactMap { $0.matrix == nil ? nil : $0.horizonMilliseconds }
        case .message, .answer: return []
        }
    }
}

/// One view's touches of one frame, typed (MultitouchCore's `Touch`), with their predicted locations.
public struct ViewTouches: Sendable {
    public var device: Int
    public var time: Timestamp
    public var fingers: Int
    /// The device is a semi-mt touchpad (its class, which the publishing edge looked up: the wire's
    /// `semiMT`).
    public var isSemiMT: Bool
    public var touches: [Touch]
    /// Set for a region's view (the region, the role, and why the daemon ended the touches, if it did).
    public var routing: TouchesRouting?
    /// The live touches' predicted locations, per horizon: every horizon the whole-device view
    /// predicted, or the region client's own (one).
    public var predictions: [FramePrediction]

    public init(
        device: Int, time: Timestamp, fingers: Int, isSemiMT: Bool, touches: [Touch], routing: TouchesRouting?,
        predictions: [FramePrediction]
    ) {
        self.device = device
        self.time = time
        self.fingers = fingers
        self.isSemiMT = isSemiMT
        self.touches = touches
        self.routing = routing
        self.predictions = predictions
    }

    /// The predicted locations for `horizon` (a region's view: its one prediction whatever is asked).
    public func predicted(horizon: Int?) -> [Point]? {
        if routing != nil { return predictions.first?.locations }
        guard let horizon else { return nil }
        return predictions.first { $0.horizonMilliseconds == horizon }?.locations
    }

    /// The `touches` message for a client predicting at `horizon`.
    public func message(horizon: Int?) -> TouchesMessage {
        var message = TouchesMessage(
            device: device, time: time, fingers: fingers, isSemiMT: isSemiMT, touches: touches.map(TouchPoint.init),
            routing: routing)
        if let predicted = predicted(horizon: horizon) {
            var next = 0
            for i in message.touches.indices where !message.touches[i].phase.isTerminal && next < predicted.count {
                message.touches[i].predicted = predicted[next]
                next += 1
            }
        }
        return message
    }
}

/// The one conversion from the pipeline's typed output to what clients receive (docs/PROTOCOL.md),
/// used by the daemon's publisher, `multitouchctl replay/listen/check` and the tests: the same output
/// gives the same messages everywhere.
///
/// The edge knows each device's class from its `deviceAdded` (`PipelineDevice.kind`, chosen once by
/// its pipeline; no frame carries it) and writes it into every `touches` message of the device (the
/// wire's `semiMT`). So one edge sees a device's output from its `deviceAdded` on: the daemon's
/// `Publisher` holds one for its life, a replay one per run. The static conveniences make a fresh
/// edge for a whole stream of outputs.
public struct PipelineMessages: Sendable {
    /// The devices served as semi-mt touchpads, from their `deviceAdded` to their `ended`.
    private var semiMTDevices: Set<Int> = []

    public init() {}

    /// An edge that already knows `devices` (their `deviceAdded` went out through another edge, or
    /// none is published: a pipeline's own output as messages).
    public init(knowing devices: [PipelineDevice]) {
        for device in devices where device.kind.isSemiMT { semiMTDevices.insert(device.id) }
    }

    /// The wire's device object of a pipeline device.
    public static func deviceInfo(_ device: PipelineDevice) -> DeviceInfo { DeviceInfo(device) }

    /// Whether `device` is served as a semi-mt touchpad (the wire's `semiMT`).
    @inline(__always)
    func isSemiMT(_ device: Int) -> Bool {
        !semiMTDevices.isEmpty && semiMTDevices.contains(device)
    }

    /// Every item `output` publishes, in the order clients receive them. A frame gives its whole-device
    /// `touches`, then its routed deliveries, then its whole-device gestures.
    @inline(__always)
    public mutating func forEachItem(_ output: PipelineOutput, _ body: (PublishedItem) -> Void) {
        switch output {
        case .deviceAdded(let device):
            if device.kind.isSemiMT { semiMTDevices.insert(device.id) } else { semiMTDevices.remove(device.id) }
            body(
                PublishedItem(device: device.id, address: nil, content: .message(.deviceAdded(Self.deviceInfo(device))))
            )
        case .recordingNote(let note):
            body(PublishedItem(device: 0, address: nil, content: .message(.error(ErrorMessage(.recording, note)))))
        case .frame(let f):
            if !f.isWithheld { body(Self.touchesItem(f, isSemiMT: isSemiMT(f.device))) }
            for delivery in f.routed {
                if let item = Self.routed(delivery, device: f.device, isSemiMT: isSemiMT(f.device)) { body(item) }
            }
            for i in f.events.indices { body(Self.gestureItem(f, i)) }
        case .timers(let device, let events, let predictions):
            for event in events {
                body(
                    PublishedItem(
                        device: device, address: nil,
                        content: .gesture(GestureMessage(device: device, event: event), predicted: predictions)))
            }
        case .dropped(let device, let time, let drop):
            body(
                PublishedItem(
                    device: device, address: nil,
                    content: .message(.dropped(Self.dropped(drop, device: device, time: time)))))
        case .routed(let r):
            for delivery in r.deliveries {
                if let item = Self.routed(delivery, device: r.device, isSemiMT: isSemiMT(r.device)) { body(item) }
            }
        case .answer(let a):
            body(PublishedItem(device: a.device, address: nil, content: .answer(a)))
        case .ended(let device, let time, let reason):
            semiMTDevices.remove(device)
            body(
                PublishedItem(
                    device: device, address: nil,
                    content: .message(
                        .deviceRemoved(DeviceRemovedMessage(device: device, time: time, reason: reason.rawValue)))))
        }
    }

    /// Writes every message of `output` for a client predicting at `horizon` as JSON lines: the bytes
    /// of its items (`forEachItem`, `PublishedItem.write`), a frame without routed deliveries written
    /// straight from its parts (no item, no message value is made for it). Returns the lines written.
    public mutating func write(_ output: PipelineOutput, horizon: Int? = nil, to w: inout JSONWriter) -> Int {
        guard case .frame(let f) = output, f.routed.isEmpty else {
            var lines = 0
            forEachItem(output) { item in
                guard item.write(horizon: horizon, to: &w) != nil else { return }
                w.newline()
                lines += 1
            }
            return lines
        }
        var lines = 0
        if !f.isWithheld {
            _ = Self.writeTouches(f, isSemiMT: isSemiMT(f.device), horizon: horizon, to: &w)
            w.newline()
            lines += 1
        }
        for i in f.events.indices {
            _ = Self.writeGesture(f, i, horizon: horizon, to: &w)
            w.newline()
            lines += 1
        }
        return lines
    }

    // MARK: A frame's whole-device items

    /// The frame's whole-device `touches` item (for a frame that is not withheld).
    @inline(__always)
    static func touchesItem(_ f: PipelineFrame, isSemiMT: Bool) -> PublishedItem {
        let touches = ViewTouches(
            device: f.device, time: f.frame.time, fingers: f.frame.fingerCount, isSemiMT: isSemiMT,
            touches: f.frame.touches, routing: nil, predictions: f.predictions)
        return PublishedItem(device: f.device, address: nil, content: .touches(touches))
    }

    /// The frame's `i`th whole-device gesture event as an item.
    @inline(__always)
    static func gestureItem(_ f: PipelineFrame, _ i: Int) -> PublishedItem {
        PublishedItem(
            device: f.device, address: nil,
            content: .gesture(GestureMessage(device: f.device, event: f.events[i]), predicted: f.predictions))
    }

    /// Writes `touchesItem(f)`'s message for a client predicting at `horizon` (the bytes of its
    /// `PublishedItem.write`) straight from the frame; returns its routing.
    static func writeTouches(
        _ f: PipelineFrame, isSemiMT: Bool, horizon: Int?, to w: inout JSONWriter
    ) -> PublishedItem.Routing {
        let predicted = horizon.flatMap { f.prediction(horizonMilliseconds: $0) }?.locations
        TouchesMessage.write(
            device: f.device, time: f.frame.time, fingers: f.frame.fingerCount, isSemiMT: isSemiMT,
            routing: nil, touches: f.frame.touches, predicted: predicted, to: &w)
        var droppable = true
        for i in f.frame.touches.indices where !TouchesMessage.isDroppable(f.frame.touches[i].phase) {
            droppable = false
            break
        }
        return PublishedItem.Routing(
            device: f.device, streams: .touches, droppable: droppable, wholeDevice: true, supersedable: false)
    }

    /// Writes `gestureItem(f, i)`'s message for a client predicting at `horizon` (the bytes of its
    /// `PublishedItem.write`) straight from the frame; returns its routing.
    static func writeGesture(
        _ f: PipelineFrame, _ i: Int, horizon: Int?, to w: inout JSONWriter
    )
        -> PublishedItem.Routing
    {
        var matrix: AffineTransform?
        if let horizon, f.events[i].isSegmentUpdate { matrix = f.prediction(horizonMilliseconds: horizon)?.matrix }
        let message = GestureMessage(device: f.device, event: f.events[i], predictedMatrix: matrix)
        message.write(to: &w)
        return PublishedItem.Routing(
            device: f.device, streams: .gestures, droppable: message.isDroppable, wholeDevice: true,
            supersedable: false)
    }

    /// Every message `output` makes, in order, each with its addressee: nil for the whole-device stream
    /// (every subscriber of the device), else one region of one client. Whole-device messages carry the
    /// predictions at `horizon` (nil: none); routed ones carry their client's.
    @inline(__always)
    public mutating func forEach(
        _ output: PipelineOutput, horizon: Int? = nil, _ body: (Message, RoutedAddress?) -> Void
    ) {
        forEachItem(output) { item in
            if let message = item.message(horizon: horizon) { body(message, item.address) }
        }
    }

    /// The whole-device messages of `outputs` (what a client without regions receives), appended to `out`.
    public mutating func append(_ outputs: [PipelineOutput], horizon: Int? = nil, to out: inout [Message]) {
        for output in outputs {
            forEach(output, horizon: horizon) { message, address in if address == nil { out.append(message) } }
        }
    }

    /// The routed messages of `outputs`, appended to `out`.
    public mutating func appendRouted(_ outputs: [PipelineOutput], to out: inout [RoutedMessage]) {
        for output in outputs {
            forEach(output) { message, address in
                if let address {
                    out.append(RoutedMessage(client: address.client, region: address.region, message: message))
                }
            }
        }
    }

    /// The whole-device messages of a whole stream of outputs (from its devices' `deviceAdded`),
    /// appended to `out`, by a fresh edge.
    public static func append(_ outputs: [PipelineOutput], horizon: Int? = nil, to out: inout [Message]) {
        var edge = PipelineMessages()
        edge.append(outputs, horizon: horizon, to: &out)
    }

    /// The routed messages of a whole stream of outputs, appended to `out`, by a fresh edge.
    public static func appendRouted(_ outputs: [PipelineOutput], to out: inout [RoutedMessage]) {
        var edge = PipelineMessages()
        edge.appendRouted(outputs, to: &out)
    }

    /// The whole-device messages of a whole stream of outputs (from its devices' `deviceAdded`).
    public static func messages(_ outputs: [PipelineOutput], horizon: Int? = nil) -> [Message] {
        var out: [Message] = []
        append(outputs, horizon: horizon, to: &out)
        return out
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

    /// A routing delivery as the item its client receives (docs/PROTOCOL.md "What a routed connection
    /// receives"); nil for request answers, which become replies instead.
    public static func routed(_ delivery: RoutingDelivery, device: Int, isSemiMT: Bool) -> PublishedItem? {
        switch delivery {
        case .touches(let t):
            let fingers = t.touches.reduce(0) { $0 + ($1.phase.isTerminal ? 0 : 1) }
            let touches = ViewTouches(
                device: device, time: t.time, fingers: fingers, isSemiMT: isSemiMT, touches: t.touches,
                routing: TouchesRouting(region: t.recipient.key.region, role: t.recipient.role, reason: t.reason),
                predictions: t.predicted.map { [FramePrediction(horizonMilliseconds: 0, locations: $0, matrix: nil)] }
                    ?? [])
            return PublishedItem(
                device: device, address: RoutedAddress(client: t.recipient.client, region: t.recipient.key.region),
                content: .touches(touches))
        case .gesture(let recipient, let event, let predictedMatrix):
            return PublishedItem(
                device: device, address: RoutedAddress(client: recipient.client, region: recipient.key.region),
                content: .message(
                    .gesture(
                        GestureMessage(
                            device: device, event: event, region: recipient.key.region,
                            predictedMatrix: event.isSegmentUpdate ? predictedMatrix : nil))))
        case .transformSet, .rejected:
            return nil
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
        var edge = PipelineMessages()
        Replay.run(recording: recording, source: source, settings: settings) { batch in
            edge.append(batch, horizon: settings.predictionMilliseconds, to: &messages)
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
        var edge = PipelineMessages(knowing: [device])
        push(event, into: &outputs)
        edge.append(outputs, to: &out)
    }

    /// `push(_ reading:into:)` as whole-device messages.
    public mutating func push(_ reading: DeviceReading, into out: inout [Message]) -> ReadingOutcome {
        var outputs: [PipelineOutput] = []
        var edge = PipelineMessages(knowing: [device])
        let outcome = push(reading, into: &outputs)
        edge.append(outputs, to: &out)
        return outcome
    }

    /// `advance(to:into:)` as whole-device messages.
    public mutating func advance(to time: Timestamp, into out: inout [Message]) {
        var outputs: [PipelineOutput] = []
        var edge = PipelineMessages(knowing: [device])
        advance(to: time, into: &outputs)
        edge.append(outputs, to: &out)
    }

    /// `end(at:reason:into:)` as whole-device messages (the cancellations, then `deviceRemoved`).
    public mutating func end(at time: Timestamp, reason: DeviceEndReason, into out: inout [Message]) {
        var outputs: [PipelineOutput] = []
        var edge = PipelineMessages(knowing: [device])
        end(at: time, reason: reason, into: &outputs)
        edge.append(outputs, to: &out)
    }
}

extension ReplaySchedule {
    /// `take(_:into:)` as whole-device messages.
    public mutating func take(_ step: Step, into out: inout [Message]) {
        var outputs: [PipelineOutput] = []
        var edge = PipelineMessages(knowing: pipelines.map(\.device))
        take(step, into: &outputs)
        edge.append(outputs, to: &out)
    }
}
