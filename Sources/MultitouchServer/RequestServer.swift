import Configuration
import Logging
import MultitouchCore
import Publishing
import TouchPipeline
import TouchRouting
import TouchVocabulary
import WireProtocol

/// What a request's answer needs of the other clients, the devices and the fan-out (the hub; a fake in
/// tests).
protocol RequestContext: AnyObject {
    /// Every connected client, the asker included.
    var sessions: [ClientSession] { get }
    /// Whether a whole-device session is open on `device` (a routing switch waits for its end).
    func hasOpenSession(device: Int) -> Bool
    /// Whether `device` is present (requests naming another are answered `unknown-device` at once).
    func hasDevice(_ device: Int) -> Bool
    /// The devices' figures for `stats`.
    func deviceFigures() -> [DeviceFigures]
    /// The latency part of `stats`.
    func latencyStatistics() -> LatencyStatistics
    /// The time on the messages' clock at CLOCK_MONOTONIC `time` (`Devices.messageTime(atMonotonic:)`).
    func messageClock(_ time: Timestamp) -> Timestamp
}

extension RequestContext {
    /// Without a replay, the messages' clock is CLOCK_MONOTONIC itself.
    func messageClock(_ time: Timestamp) -> Timestamp { time }
}

/// Serving requests, one job: a request line decoded (large lines charged to their user's byte budget
/// first), the `Subscriber`/Publishing decision taken (subscribe, access rights, region refusals), a
/// device's part sent to its pipeline as a typed `PipelineRequest` with a token, and that pipeline's
/// typed answer (`PipelineAnswer`, in the device's output) turned into the asker's reply
/// (`reply(to:context:)`). Everything is returned as `Effect`s for the connections and the devices to
/// carry out. No socket: a test serves lines to sessions without one.
final class RequestServer {
    /// What serving one request asks for, in order.
    enum Effect {
        /// A reply line to the asker.
        case reply(Message)
        /// The asker's frame (a `frame` request).
        case deliverFramed([Message])
        /// A request for the pipeline of `device`; its answer comes back through the device's output.
        case device(PipelineRequest, device: Int, token: UInt64)
        /// A subscription began, changed or ended: who predicts what may change.
        case subscriptionsChanged
        /// The asker subscribed (a replay may wait for subscribers).
        case subscribed
    }

    /// Requests waiting for their pipeline's answer.
    private var answers = RequestAnswers()

    /// What a pipeline's answer becomes: the asker's reply, and a notice for every other client (a new
    /// device transform).
    struct AnswerReply {
        var client: Int
        var message: Message
        var notice: Message?
    }

    /// Who may observe, declare regions and set transforms; applies to clients connecting from now on.
    var access = AccessPolicy() {
        didSet { accessGroups = AccessGroups(access) }
    }
    private var accessGroups = AccessGroups(AccessPolicy())
    /// Region requests per second of one user's clients together (each rebuilds a hit index).
    private var regionRequests = RequestRate(
        perSecond: RequestServer.regionRequestsPerSecondPerUser,
        capacity: RequestServer.regionRequestsPerSecondPerUser)
    static let regionRequestsPerSecondPerUser = 240
    /// Every request of one user's clients together (issue 28): what a flood of tiny lines (`1\n`,
    /// pings, frames) may cost, whatever the number of connections. 2,000 a second is eight bridged
    /// browsers asking for frames at 120 Hz twice over; past it each line is refused unparsed.
    private var allRequests = RequestRate(
        perSecond: RequestServer.requestsPerSecondPerUser, capacity: RequestServer.requestsPerSecondPerUser)
    static let requestsPerSecondPerUser = 2000
    /// Bytes per second of one user's large request lines (over `largeRequestBytes`), charged before
    /// the line is parsed; the burst is two of the longest lines.
    private var largeRequestBytes: RequestRate
    static let largeRequestBytesPerSecondPerUser = 512 * 1024
    /// Lines up to this long are never charged by size (every request but a big region declaration).
    static let largeRequestBytes = 4096
    var logger: Logger
    private let clock: () -> UInt64
    private let startTime: UInt64

    init(maximumLineBytes: Int, logger: Logger, clock: @escaping () -> UInt64) {
        self.logger = logger
        self.clock = clock
        startTime = clock()
        largeRequestBytes = RequestRate(
            perSecond: RequestServer.largeRequestBytesPerSecondPerUser, capacity: max(128 * 1024, 2 * maximumLineBytes))
    }

    /// The rights a connection from `peer` on `fd` gets under the current policy.
    func grant(peer: PeerCredentials?, fd: Int32) -> AccessGrant {
        accessGroups.grant(policy: access, peer: peer, fd: fd)
    }

    /// Serves one request line of `client`, appending what it asks for to `effects`.
    func serve(_ line: [UInt8], from client: ClientSession, context: any RequestContext, into effects: inout [Effect]) {
        guard allRequests.take(uid: client.peer?.uid ?? .max, now: clock()) else {
            // Refused unparsed, like the large lines below: the flood costs a scan for the id.
            effects.append(
                .reply(
                    .error(
                        ErrorMessage(
                            .overBudget,
                            "over budget: requests_per_second_per_user: more than \(RequestServer.requestsPerSecondPerUser) in one second; nothing changed",
                            id: RequestID.salvaged(from: line)))))
            return
        }
        if line.count > RequestServer.largeRequestBytes,
            !largeRequestBytes.take(uid: client.peer?.uid ?? .max, now: clock(), cost: line.count)
        {
            // Refused unparsed: only the id is looked for, so a flood of large lines costs a scan each.
            let id = RequestID.salvaged(from: line)
            effects.append(
                .reply(
                    .error(
                        ErrorMessage(
                            .overBudget,
                            "over budget: request_bytes_per_second_per_user: more than \(RequestServer.largeRequestBytesPerSecondPerUser) bytes of requests over \(RequestServer.largeRequestBytes) bytes in one second; nothing changed",
                            id: id))))
            return
        }
        let request: ClientRequest
        do {
            request = try ClientRequest(decoding: line)
        } catch {
            logger.debug(
                "client: bad request",
                metadata: ["client.id": "\(client.id)", "error.code": "\(error.code)", "error": "\(error.message)"])
            effects.append(.reply(.error(error.errorMessage)))
            return
        }
        let id = request.id
        switch request.action {
        case .subscribe(let streams, let devices):
            let streams = streams ?? Set(MessageStream.allCases)
            let devices = devices ?? .all
            let subscribed = client.subscriber.subscribe(
                streams: streams, devices: devices, predictMilliseconds: request.predictMilliseconds,
                frameAligned: request.frameAligned, id: id, uid: client.peer?.uid)
            effects.append(.subscriptionsChanged)
            effects.append(.reply(.subscribed(subscribed)))
            logger.debug("client: subscribed", metadata: ["client.id": "\(client.id)"])
            effects.append(.subscribed)
        case .unsubscribe:
            client.subscriber.unsubscribe()
            effects.append(.subscriptionsChanged)
            effects.append(.reply(.unsubscribed(UnsubscribedMessage(id: id))))
        case .frame(let time):
            guard client.subscriber.frames != nil else {
                effects.append(
                    .reply(.error(ErrorMessage(.badField, "frame: subscribe with \"frames\": true first", id: id))))
                return
            }
            // The client's display time is CLOCK_MONOTONIC; a replay's messages carry the recording's
            // clock, so the frame is taken at the recording time playing then (docs/PROTOCOL.md).
            var out: [Message] = []
            client.subscriber.frames?.frame(at: context.messageClock(time), into: &out)
            effects.append(.deliverFramed(out))
        case .ping:
            effects.append(.reply(.pong(PongMessage(id: id))))
        case .stats:
            effects.append(.reply(.stats(statsMessage(id: id, for: client, context: context))))
        case .resetTransform(let device):
            guard permits(.transform, client, id, &effects) else { return }
            send(.setTransform(.identity), device: device, .transform, client, id, context, &effects)
        case .setTransform(let device, let matrix):
            guard permits(.transform, client, id, &effects) else { return }
            send(.setTransform(matrix), device: device, .transform, client, id, context, &effects)
        case .declareRegions(let device, let regions):
            guard permits(.regions, client, id, &effects), withinRegionRate(client, id, &effects) else { return }
            let request = PipelineRequest.declareRegions(
                client: ClientID(UInt64(client.id)), regions: regions, grant: client.subscriber.routingGrant)
            send(request, device: device, .regions, client, id, context, &effects)
        case .updateRegions(let device, let regions, let remove):
            guard permits(.regions, client, id, &effects), withinRegionRate(client, id, &effects) else { return }
            let request = PipelineRequest.updateRegions(
                client: ClientID(UInt64(client.id)), upserting: regions, removing: remove,
                grant: client.subscriber.routingGrant)
            send(request, device: device, .regions, client, id, context, &effects)
        case .recognized(let device, let region):
            send(
                .recognized(client: ClientID(UInt64(client.id)), region: region), device: device,
                .recognized(region: region), client, id, context, &effects)
        case .setRegionTransform(let device, let region, let matrix):
            send(
                .setRegionTransform(client: ClientID(UInt64(client.id)), region: region, matrix: matrix),
                device: device,
                .regionTransform(region: region), client, id, context, &effects)
        case .listRegions(let device):
            // No right needed: a client sees its own regions (root every one), as `stats` shows it its
            // own figures.
            send(.listRegions, device: device, .listRegions, client, id, context, &effects)
        }
    }

    /// Sends a device's part of a request to its pipeline, keeping what the answer needs; a device that
    /// is not present is answered at once.
    private func send(
        _ request: PipelineRequest, device: Int, _ kind: RequestAnswers.Kind, _ client: ClientSession,
        _ id: RequestID?, _ context: any RequestContext, _ effects: inout [Effect]
    ) {
        guard context.hasDevice(device) else {
            effects.append(.reply(.error(ErrorMessage(.unknownDevice, "no device \(device)", id: id))))
            return
        }
        let token = answers.register(client: client.id, id: id, kind: kind)
        effects.append(.device(request, device: device, token: token))
    }

    /// The reply a pipeline's answer makes, for the client that asked (nil: the token is not a pending
    /// request's, or its client is gone). A region answer also switches the asker's streams on the
    /// device (`Subscriber.regionsChanged`) before anything that follows it is delivered.
    func reply(to answer: PipelineAnswer, context: any RequestContext) -> AnswerReply? {
        guard let asker = answers.client(of: answer), let session = context.sessions.first(where: { $0.id == asker })
        else { return nil }
        let open = context.hasOpenSession(device: answer.device)
        // Root sees every region of `listRegions`, anyone else its own user's (another user's pid and
        // uid are root's business, as in `stats`).
        let seesAll = session.peer?.uid == 0
        let sessions = context.sessions
        let listing = { (entry: RegionEntry) -> RegionListing? in
            RegionListing(entry, asker: ClientID(UInt64(asker)), askerUID: session.peer?.uid, seesAll: seesAll) {
                client in
                guard let peer = sessions.first(where: { UInt64($0.id) == client.rawValue })?.peer else { return nil }
                return (Int(peer.pid), Int(peer.uid))
            }
        }
        guard
            let (message, notice) = answers.reply(
                to: answer, subscriber: &session.subscriber, sessionOpen: open, listing: listing)
        else { return nil }
        if case .regions(let m) = message {
            logger.debug(
                "client: regions",
                metadata: ["client.id": "\(asker)", "device.id": "\(answer.device)", "regions": "\(m.regions)"])
        }
        return AnswerReply(client: asker, message: message, notice: notice)
    }

    /// A client left: its requests waiting for an answer are forgotten.
    func forget(client: Int) { answers.forget(client: client) }

    /// Whether the client has `right`; if not, answers `forbidden` naming it.
    private func permits(
        _ right: AccessRight, _ client: ClientSession, _ id: RequestID?, _ effects: inout [Effect]
    ) -> Bool {
        guard let refusal = client.subscriber.refusal(missing: right, uid: client.peer?.uid, id: id) else {
            return true
        }
        effects.append(.reply(.error(refusal)))
        return false
    }

    /// Whether the client's user may send another region request now; if not, answers `over-budget`.
    private func withinRegionRate(_ client: ClientSession, _ id: RequestID?, _ effects: inout [Effect]) -> Bool {
        let uid = client.peer?.uid ?? .max
        if regionRequests.take(uid: uid, now: clock()) { return true }
        let limit = RequestServer.regionRequestsPerSecondPerUser
        effects.append(
            .reply(
                .error(
                    ErrorMessage(
                        .overBudget,
                        "over budget: region_requests_per_second_per_user: more than \(limit) in one second; nothing changed",
                        id: id))))
        return false
    }

    private func statsMessage(id: RequestID?, for asker: ClientSession, context: any RequestContext) -> StatsMessage {
        // Other clients' pid, uid and figures are root's business only (DESIGN.md invariant 11: what an
        // exclusive region's client received counts its secure touches).
        let seesAll = asker.peer?.uid == 0
        let clientStats = context.sessions.sorted { $0.id < $1.id }.map { c in
            let shown = seesAll || c === asker
            guard shown else {
                return ClientStatistics(id: c.id, pid: -1, uid: -1, subscribed: c.subscriber.subscription != nil)
            }
            let grant = c.subscriber.grant
            return ClientStatistics(
                id: c.id, pid: Int(c.peer?.pid ?? -1), uid: c.peer.map { Int($0.uid) } ?? -1,
                subscribed: c.subscriber.subscription != nil, queued: c.subscriber.queue.count,
                queuedBytes: c.pendingBytes, delivered: c.subscriber.delivered,
                dropped: c.subscriber.queue.droppedTotal,
                rights: grant.rights.sorted().map(\.rawValue), band: [grant.zBand.lowerBound, grant.zBand.upperBound])
        }
        let devices = context.deviceFigures().map { f in
            DeviceStatistics(
                device: f.device.id, name: f.device.name, frames: f.frames, active: f.active,
                predictions: f.predictionErrors.map { p in
                    PredictionStatistics(
                        horizonMilliseconds: p.horizonMilliseconds, count: p.error.count, meanMillimeters: p.error.mean,
                        maximumMillimeters: p.error.maximum)
                })
        }
        return StatsMessage(
            id: id, uptime: Double(clock() - startTime) / 1e9, clients: clientStats, devices: devices,
            latency: context.latencyStatistics())
    }
}
