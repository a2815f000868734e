import Configuration
import MultitouchCore
import Recordings
import TouchPipeline
import TouchRouting
import WireProtocol

/// A rehearsal: a recording served to scripted clients exactly as `multitouchd --replay` serves it to
/// programs that connect first, subscribe and declare their regions on each device as soon as it is
/// announced, on virtual time. Each client gets the bytes the daemon would write to its socket (its
/// replies, its streams in the form for its own horizon, its frames when frame-aligned), through the
/// daemon's own publishing parts (`Publisher`, `Subscriber`, `RequestAnswers`, `ClientQueue`). Pure and
/// deterministic: the differential noninterference check (DESIGN.md invariant 11) compares two
/// rehearsals byte for byte.
public enum Rehearsal {
    /// One scripted program.
    public struct Client: Sendable {
        /// Its connection id (the router's `ClientID`); unique, from 1.
        public var id: Int
        public var grant: AccessGrant
        /// Streams it subscribes to (all three when nil and `subscribes`).
        public var streams: Set<MessageStream>
        public var subscribes: Bool
        public var predictMilliseconds: Int?
        /// Frame-aligned at this display period (µs), its frames asked at `k * period` of the recording's
        /// clock; nil: streamed as it comes.
        public var framePeriodMicroseconds: Int64?
        /// Regions it declares on every device as soon as the device is announced.
        public var regions: [Region]

        public init(
            id: Int, grant: AccessGrant = .everything, streams: Set<MessageStream> = Set(MessageStream.allCases),
            subscribes: Bool = true, predictMilliseconds: Int? = nil, framePeriodMicroseconds: Int64? = nil,
            regions: [Region] = []
        ) {
            self.id = id
            self.grant = grant
            self.streams = streams
            self.subscribes = subscribes
            self.predictMilliseconds = predictMilliseconds
            self.framePeriodMicroseconds = framePeriodMicroseconds
            self.regions = regions
        }
    }

    /// What each client received, and the devices' figures a `stats` shows anyone.
    public struct Result: Sendable {
        /// Each client's bytes, by id.
        public var bytes: [Int: [UInt8]]
        /// Each device's frame count and prediction scores at the end (what every client's `stats` shows).
        public var deviceStatistics: [DeviceStatistics]
        /// Per device index, the kernel tracking ids of the contacts that became secure touches (they
        /// began in an exclusive region) and of those that became public ones.
        public var secureContacts: [Int: Set<Int32>]
        public var publicContacts: [Int: Set<Int32>]
    }

    /// Serves `recording` to `clients`.
    public static func run(recording: Recording, settings: PipelineSettings = .init(), clients: [Client]) -> Result {
        var schedule = ReplaySchedule(recording: recording, source: "rehearsal", settings: settings)
        var subscribers: [Subscriber] = clients.map { Subscriber(id: $0.id, grant: $0.grant) }
        var bytes: [Int: [UInt8]] = [:]
        for client in clients { bytes[client.id] = [] }
        var publisher = Publisher()
        var batch = Publisher.Batch()
        var answers = RequestAnswers()
        var nextFrame: [Int: Int64] = [:]
        var secureContacts: [Int: Set<Int32>] = [:]
        var publicContacts: [Int: Set<Int32>] = [:]

        func note(_ touches: [Touch], device: Int) {
            let index = device - 1
            for t in touches {
                if t.isSecure {
                    secureContacts[index, default: []].insert(t.trackingID)
                } else {
                    publicContacts[index, default: []].insert(t.trackingID)
                }
            }
        }

        // Every client reads as fast as it is written to (no queue limit, nothing coalesced).
        func drain() {
            for i in subscribers.indices {
                while let entry = subscribers[i].queue.popFirst() {
                    bytes[subscribers[i].id, default: []] += entry.message.bytes
                }
            }
        }

        func publish(_ outputs: [PipelineOutput]) {
            guard !outputs.isEmpty else { return }
            for output in outputs {
                guard case .frame(let f) = output else { continue }
                note(f.frame.touches, device: f.device)
                for case .touches(let t) in f.routed { note(t.touches, device: f.device) }
            }
            publisher.publish(outputs, into: &batch)
            var notices: [(Message, Int)] = []
            for i in batch.items.indices {
                guard case .answer(let answer) = batch.items[i].content, let asker = answers.client(of: answer),
                    let s = subscribers.firstIndex(where: { $0.id == asker })
                else { continue }
                let open = publisher.hasOpenSession(device: answer.device)
                // A scripted client lists its own regions (a rehearsal has no peers and no root).
                let own = ClientID(UInt64(asker))
                guard
                    let (message, notice) = answers.reply(
                        to: answer, subscriber: &subscribers[s], sessionOpen: open,
                        listing: { RegionListing($0, asker: own, seesAll: false) { _ in nil } })
                else { continue }
                batch.setReply(i, client: asker, message)
                if let notice { notices.append((notice, asker)) }
            }
            for i in subscribers.indices { _ = subscribers[i].take(batch, softLimit: .max) }
            for message in batch.encoded where message.closesLastSession {
                for i in subscribers.indices where !subscribers[i].routingSwitch.isEmpty {
                    subscribers[i].applyRoutingSwitch(message.device)
                }
            }
            if !notices.isEmpty {
                publisher.publish(notices.map(\.0), into: &batch)
                for i in batch.encoded.indices { batch.encoded[i].except = notices[i].1 }
                for i in subscribers.indices { _ = subscribers[i].take(batch, softLimit: .max) }
            }
            drain()
        }

        /// The frames every frame-aligned client asks for up to `time`.
        func frames(upTo time: Int64) {
            for (c, client) in clients.enumerated() {
                guard let period = client.framePeriodMicroseconds, period > 0, var frame = nextFrame[client.id]
                else { continue }
                while frame <= time {
                    var out: [Message] = []
                    subscribers[c].frames?.frame(at: Timestamp(microseconds: frame), into: &out)
                    for message in out { message.encode(into: &bytes[client.id, default: []]) }
                    frame &+= period
                }
                nextFrame[client.id] = frame
            }
        }

        // Everyone connected and subscribed before the replay starts (`--wait-for-subscribers`).
        for (c, client) in clients.enumerated() where client.subscribes {
            let reply = subscribers[c].subscribe(
                streams: client.streams, devices: .all, predictMilliseconds: client.predictMilliseconds,
                frameAligned: client.framePeriodMicroseconds != nil, id: nil, uid: nil)
            Message.subscribed(reply).encode(into: &bytes[client.id, default: []])
        }
        schedule.setPredictions { PredictionRequests(subscribers: subscribers, device: $0) }
        var outputs: [PipelineOutput] = []
        while let step = schedule.nextStep {
            if let time = step.time?.microseconds {
                for client in clients where client.framePeriodMicroseconds != nil && nextFrame[client.id] == nil {
                    let period = client.framePeriodMicroseconds ?? 1
                    nextFrame[client.id] = (time / period + 1) * period
                }
                frames(upTo: time)
            }
            schedule.take(step, into: &outputs)
            publish(outputs)
            var added: [Int] = []
            for case .deviceAdded(let device) in outputs { added.append(device.id) }
            outputs.removeAll(keepingCapacity: true)
            // Each client declares its regions on a device just announced, in connection order.
            for device in added {
                for (c, client) in clients.enumerated() where !client.regions.isEmpty && client.grant.has(.regions) {
                    let token = answers.register(client: client.id, id: nil, kind: .regions)
                    let grant = subscribers[c].routingGrant
                    _ = schedule.withPipeline(device: device) {
                        $0.handle(
                            .declareRegions(client: ClientID(UInt64(client.id)), regions: client.regions, grant: grant),
                            token: token, into: &outputs)
                    }
                    publish(outputs)
                    outputs.removeAll(keepingCapacity: true)
                }
                schedule.setPredictions { PredictionRequests(subscribers: subscribers, device: $0) }
            }
        }
        // Frames run on until every frame-aligned client has everything.
        for (c, client) in clients.enumerated() {
            guard let period = client.framePeriodMicroseconds, period > 0, var frame = nextFrame[client.id] else {
                continue
            }
            var rounds = 0
            while !(subscribers[c].frames?.isIdle ?? true) && rounds < 1_000_000 {
                var out: [Message] = []
                subscribers[c].frames?.frame(at: Timestamp(microseconds: frame), into: &out)
                for message in out { message.encode(into: &bytes[client.id, default: []]) }
                frame &+= period
                rounds += 1
            }
        }
        let statistics = schedule.pipelines.map { p in
            DeviceStatistics(
                device: p.deviceID, name: p.device.name, frames: p.frameCount, active: false,
                predictions: p.predictionErrors.map {
                    PredictionStatistics(
                        horizonMilliseconds: $0.horizonMilliseconds, count: $0.error.count,
                        meanMillimeters: $0.error.mean, maximumMillimeters: $0.error.maximum)
                })
        }
        return Result(
            bytes: bytes, deviceStatistics: statistics, secureContacts: secureContacts, publicContacts: publicContacts)
    }
}
