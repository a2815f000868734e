import Configuration
import Gestures
import Logging
import MultitouchCore
import Publishing
import TouchRouting
import WireProtocol

/// What a request's answer needs of the other clients and of the fan-out (the hub; a fake in tests).
protocol RequestContext: AnyObject {
    /// Every connected client, the asker included.
    var sessions: [ClientSession] { get }
    /// Whether a whole-device session is open on `device` (a routing switch waits for its end).
    func hasOpenSession(device: Int) -> Bool
    /// The latency part of `stats`.
    func latencyStatistics() -> LatencyStatistics
}

/// Serving requests, one job: a request line decoded (large lines charged to their user's byte budget
/// first), the `Subscriber`/Publishing decision taken (subscribe, access rights, region refusals), the
/// device side asked (`ClientHubHost`), and the answer returned as `Effect`s for the connections and the
/// fan-out to carry out. No socket: a test serves lines to sessions without one.
final class RequestServer {
    /// What serving one request asks for, in order.
    enum Effect {
        /// A reply line to the asker.
        case reply(Message)
        /// Messages for the asker (what a region change cancelled), past its subscription filter.
        case deliver([OutboundMessage])
        /// The asker's frame (a `frame` request).
        case deliverFramed([Message])
        /// One message for every other client that wants it.
        case toOthers(OutboundMessage)
        /// Messages published to every client (what a recognised gesture cancelled).
        case publish([OutboundMessage])
        /// A subscription began or ended: the prediction horizon may change.
        case subscriptionsChanged
        /// The asker subscribed (a replay may wait for subscribers).
        case subscribed
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
    weak var host: (any ClientHubHost)?

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
            if let refusal = client.subscriber.subscribe(
                streams: streams, devices: devices, predictMilliseconds: request.predictMilliseconds,
                frameAligned: request.frameAligned, id: id, others: context.sessions.map(\.subscriber))
            {
                effects.append(.reply(.error(refusal)))
                return
            }
            effects.append(.subscriptionsChanged)
            effects.append(
                .reply(
                    .subscribed(
                        SubscribedMessage(
                            id: id, streams: streams, devices: devices,
                            predictMilliseconds: request.predictMilliseconds))))
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
            var out: [Message] = []
            client.subscriber.frames?.frame(at: time, into: &out)
            effects.append(.deliverFramed(out))
        case .ping:
            effects.append(.reply(.pong(PongMessage(id: id))))
        case .stats:
            effects.append(.reply(.stats(statsMessage(id: id, for: client, context: context))))
        case .resetTransform(let device):
            guard permits(.transform, client, id, &effects) else { return }
            setTransform(device: device, matrix: .identity, id: id, &effects)
        case .setTransform(let device, let matrix):
            guard permits(.transform, client, id, &effects) else { return }
            setTransform(device: device, matrix: matrix, id: id, &effects)
        case .declareRegions(let device, let regions):
            guard permits(.regions, client, id, &effects), withinRegionRate(client, id, &effects) else { return }
            answerRegions(
                host?.regions(
                    .declare(regions), client: client.id, device: device, grant: client.subscriber.routingGrant),
                device, id, client, context, &effects)
        case .updateRegions(let device, let regions, let remove):
            guard permits(.regions, client, id, &effects), withinRegionRate(client, id, &effects) else { return }
            answerRegions(
                host?.regions(
                    .update(regions, remove: remove), client: client.id, device: device,
                    grant: client.subscriber.routingGrant),
                device, id, client, context, &effects)
        case .recognized(let device, let region):
            switch host?.recognized(client: client.id, device: device, region: region) ?? .failure(.unknownDevice) {
            case .success(let routed):
                effects.append(.reply(.recognized(RecognizedMessage(id: id, device: device, region: region))))
                effects.append(.publish(routed.map(OutboundMessage.init(routed:))))
            case .failure(let failure):
                effects.append(.reply(Self.regionFailure(failure, device: device, id: id)))
            }
        case .setRegionTransform(let device, let region, let matrix):
            let result =
                host?.setRegionTransform(client: client.id, device: device, region: region, matrix: matrix)
                ?? .failure(.unknownDevice)
            switch result {
            case .success(let m):
                effects.append(
                    .reply(.transform(TransformMessage(id: id, device: device, matrix: m, region: region))))
            case .failure(let failure):
                effects.append(.reply(Self.regionFailure(failure, device: device, id: id)))
            }
        }
    }

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

    private static func regionFailure(_ failure: DeviceHost.RegionFailure, device: Int, id: RequestID?) -> Message {
        switch failure {
        case .unknownDevice: .error(ErrorMessage(.unknownDevice, "no device \(device)", id: id))
        case .refused(let why): .error(ErrorMessage(.badField, why, id: id))
        }
    }

    /// Replies to a region request: the ids now in force (the connection is routed on the device while
    /// there are some), then what the change cancelled; or the error.
    private func answerRegions(
        _ outcome: DeviceHost.RegionAnswer?, _ device: Int, _ id: RequestID?, _ client: ClientSession,
        _ context: any RequestContext, _ effects: inout [Effect]
    ) {
        switch outcome {
        case nil:
            effects.append(.reply(.error(ErrorMessage(.unknownDevice, "no device \(device)", id: id))))
        case .rejected(let error)?:
            effects.append(.reply(.error(Subscriber.refusal(error, id: id))))
        case .inForce(let ids, let cancelled)?:
            client.subscriber.regionsChanged(
                device: device, routed: !ids.isEmpty, sessionOpen: context.hasOpenSession(device: device))
            logger.debug(
                "client: regions",
                metadata: ["client.id": "\(client.id)", "device.id": "\(device)", "regions": "\(ids)"])
            effects.append(.reply(.regions(RegionsMessage(id: id, device: device, regions: ids))))
            if !cancelled.isEmpty { effects.append(.deliver(cancelled.map(OutboundMessage.init(routed:)))) }
        }
    }

    private func setTransform(device: Int, matrix: AffineTransform, id: RequestID?, _ effects: inout [Effect]) {
        guard host?.setTransform(device: device, matrix: matrix) == true else {
            effects.append(.reply(.error(ErrorMessage(.unknownDevice, "no device \(device)", id: id))))
            return
        }
        effects.append(.reply(.transform(TransformMessage(id: id, device: device, matrix: matrix))))
        // Everyone else drawing this device's content learns of the new base too.
        effects.append(
            .toOthers(OutboundMessage(.transform(TransformMessage(id: nil, device: device, matrix: matrix)))))
    }

    private func statsMessage(id: RequestID?, for asker: ClientSession, context: any RequestContext) -> StatsMessage {
        // Other clients' pid and uid are root's business only (-1: not shown).
        let seesAll = asker.peer?.uid == 0
        let clientStats = context.sessions.sorted { $0.id < $1.id }.map { c in
            let shown = seesAll || c === asker
            return ClientStatistics(
                id: c.id, pid: shown ? Int(c.peer?.pid ?? -1) : -1, uid: shown ? Int(c.peer?.uid ?? 0) : -1,
                subscribed: c.subscriber.subscription != nil,
                queued: c.subscriber.queue.count, queuedBytes: c.pendingBytes, delivered: c.subscriber.delivered,
                dropped: c.subscriber.queue.droppedTotal)
        }
        return StatsMessage(
            id: id, uptime: Double(clock() - startTime) / 1e9, clients: clientStats,
            devices: host?.deviceStatistics() ?? [], latency: context.latencyStatistics())
    }
}
