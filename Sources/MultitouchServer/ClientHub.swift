import CLinuxSystem
import Configuration
import Gestures
import Glibc
import Logging
import MultitouchCore
import Publishing
import TouchPipeline
import TouchRouting
import WireProtocol

/// What the client hub asks of the rest of the daemon: the devices it reports and transforms.
protocol ClientHubHost: AnyObject {
    /// Devices present now (the hello).
    func currentDevices() -> [DeviceInfo]
    /// Per-device frame counts for `stats`.
    func deviceStatistics() -> [DeviceStatistics]
    /// Replaces a device's cumulative transform; false when there is no such device.
    func setTransform(device: Int, matrix: AffineTransform) -> Bool
    /// A client subscribed; `subscribers` clients are subscribed now (a replay may wait for them).
    func clientSubscribed(subscribers: Int)
    /// A client connected or left (the systemd status line counts them).
    func clientsChanged()
    /// Applies a client's region request on a device, within what `grant` allows; nil when there is no
    /// such device.
    func regions(
        _ request: DeviceHost.RegionRequest, client: Int, device: Int, grant: RoutingGrant
    ) -> DeviceHost.RegionAnswer?
    /// The client's own recogniser recognised a gesture in its region; what that cancels.
    func recognized(client: Int, device: Int, region: String) -> Result<[RoutedMessage], DeviceHost.RegionFailure>
    /// Sets (`matrix`) or resets (nil) one of the client's regions' cumulative transform.
    func setRegionTransform(
        client: Int, device: Int, region: String, matrix: AffineTransform?
    )
        -> Result<AffineTransform, DeviceHost.RegionFailure>
    /// The client disconnected: its regions vanish.
    func clientGone(_ client: Int)
    /// The subscribed clients' prediction horizon (ms) changed (docs/PREDICTION.md): the devices
    /// predict this far ahead from now on, or not at all (nil).
    func predictionHorizon(_ horizon: Int?)
}

extension ClientHubHost {
    /// A host that routes nothing: every device is unknown to region requests.
    func regions(
        _ request: DeviceHost.RegionRequest, client: Int, device: Int, grant: RoutingGrant
    ) -> DeviceHost.RegionAnswer? { nil }
    func recognized(client: Int, device: Int, region: String) -> Result<[RoutedMessage], DeviceHost.RegionFailure> {
        .failure(.unknownDevice)
    }
    func setRegionTransform(
        client: Int, device: Int, region: String, matrix: AffineTransform?
    )
        -> Result<AffineTransform, DeviceHost.RegionFailure>
    { .failure(.unknownDevice) }
    func clientGone(_ client: Int) {}
    func predictionHorizon(_ horizon: Int?) {}
}

/// How the hub has client sockets watched: the daemon's `EventLoop`, or nothing in tests that drive the
/// hub by hand.
protocol ClientSocketWatcher: AnyObject {
    func watch(client id: Int, fd: Int32) throws(SystemError)
    func update(fd: Int32, readable: Bool, writable: Bool)
    func unwatch(fd: Int32)
    /// Puts the listening socket (back) in the loop, after `unwatch` paused it (out of descriptors).
    func watchListener(fd: Int32)
}

/// The clients' side of the daemon, owning every connection's state: accept, request lines and their
/// replies, subscriptions, fan-out of pipeline messages (each encoded once), backpressure (coalescing,
/// the hard limit), the grace for a closing client's last line, and latency statistics. Time comes from
/// `clock` (monotonic ns), so tests run it with socket pairs and virtual time. Owned by the loop thread.
final class ClientHub {
    var configuration: ClientsConfiguration
    /// Who may observe, declare regions and set transforms; applies to clients connecting from now on.
    var access = AccessPolicy() {
        didSet { accessGroups = AccessGroups(access) }
    }
    private var accessGroups = AccessGroups(AccessPolicy())
    /// Region requests per second of one user's clients together (each rebuilds a hit index).
    private var regionRequests = RequestRate(
        perSecond: ClientHub.regionRequestsPerSecondPerUser, capacity: ClientHub.regionRequestsPerSecondPerUser)
    static let regionRequestsPerSecondPerUser = 240
    /// Bytes per second of one user's large request lines (over `largeRequestBytes`), charged before
    /// the line is parsed; the burst is two of the longest lines.
    private var largeRequestBytes = RequestRate(perSecond: ClientHub.largeRequestBytesPerSecondPerUser, capacity: 1)
    static let largeRequestBytesPerSecondPerUser = 512 * 1024
    /// Lines up to this long are never charged by size (every request but a big region declaration).
    static let largeRequestBytes = 4096
    private let daemonVersion: String
    private(set) var logger: Logger
    private let clock: () -> UInt64
    private unowned let watcher: any ClientSocketWatcher
    weak var host: (any ClientHubHost)?

    private var clients: [Int: ClientSession] = [:]
    private var nextClientID = 1
    /// Accepting connections (the descriptor reserve, the paused listener).
    private let acceptor: ConnectionAcceptor
    private var histogram = LatencyHistogram()
    private var samples = LatencySamples()
    /// Batches with output for a client whose queue was not empty: their last write happened later
    /// than the histogram's time (they are counted here, not in the histogram).
    private var deferredBatches: UInt64 = 0
    private var readScratch = [UInt8](repeating: 0, count: 64 * 1024)
    private let startTime: UInt64
    /// Encodes the devices' output once per message and keeps the account of open whole-device sessions.
    private var publisher = Publisher()
    /// Reused per dispatch: the batch being fanned out.
    private var batch = Publisher.Batch()

    /// Five seconds for a client that is slow, not dead, to read its last line (the reason).
    static let closeGraceNanoseconds: UInt64 = 5_000_000_000

    init(
        configuration: ClientsConfiguration, daemonVersion: String, logger: Logger, watcher: any ClientSocketWatcher,
        clock: @escaping () -> UInt64 = Sys.monotonicNanoseconds
    ) {
        self.configuration = configuration
        self.daemonVersion = daemonVersion
        self.logger = logger
        self.watcher = watcher
        self.clock = clock
        acceptor = ConnectionAcceptor(watcher: watcher, clock: clock)
        startTime = clock()
        largeRequestBytes = RequestRate(
            perSecond: ClientHub.largeRequestBytesPerSecondPerUser,
            capacity: max(128 * 1024, 2 * configuration.maximumLineBytes))
    }

    var clientCount: Int { clients.count }
    var logLevel: Logger.Level {
        get { logger.logLevel }
        set { logger.logLevel = newValue }
    }
    var hasPendingOutput: Bool { clients.values.contains(where: \.hasPendingOutput) }

    /// The earliest grace deadline of a closing client, for the daemon's grace timer.
    var nextCloseDeadline: UInt64? { clients.values.filter(\.closing).map(\.closeDeadline).min() }

    // MARK: Connections

    /// Accepts waiting connections (`ConnectionAcceptor`) and adopts each.
    func acceptClients(listenFD: Int32) {
        acceptor.accept(listenFD: listenFD, logger: logger) { fd, peer in adopt(fd: fd, peer: peer) }
    }

    /// Takes over a connected, non-blocking socket: refused with `too-many-clients` when full, else
    /// watched and greeted with the hello. Returns the client id, nil when refused.
    @discardableResult
    func adopt(fd: Int32, peer: PeerCredentials?) -> Int? {
        if clients.count >= configuration.maximumClients {
            logger.warning("client: refused, too many clients", metadata: ["peer": "\(peer?.description ?? "unknown")"])
            ConnectionAcceptor.refuse(fd, "the daemon serves at most \(configuration.maximumClients) clients")
            return nil
        }
        if let peer, clients.values.count(where: { $0.peer?.uid == peer.uid }) >= configuration.maximumClientsPerUser {
            logger.warning("client: refused, too many clients of one user", metadata: ["peer": "\(peer)"])
            ConnectionAcceptor.refuse(
                fd,
                "the daemon serves at most \(configuration.maximumClientsPerUser) clients of one user (uid \(peer.uid))"
            )
            return nil
        }
        let client = ClientSession(
            id: nextClientID, fd: fd, peer: peer, grant: accessGroups.grant(policy: access, peer: peer, fd: fd))
        nextClientID += 1
        do {
            try watcher.watch(client: client.id, fd: fd)
        } catch {
            logger.error("socket: cannot watch client", metadata: ["error": "\(error)"])
            Sys.close(fd)
            return nil
        }
        clients[client.id] = client
        logger.info(
            "client: connected",
            metadata: [
                "client.id": "\(client.id)", "client.pid": "\(peer?.pid ?? -1)",
                "client.uid": "\(peer?.uid ?? UInt32.max)", "client.gid": "\(peer?.gid ?? UInt32.max)",
            ])
        reply(
            to: client,
            .hello(
                HelloMessage(
                    daemon: daemonVersion, devices: host?.currentDevices() ?? [], features: [ProtocolFeature.regions])))
        host?.clientsChanged()
        return client.id
    }

    /// What epoll reported for client `id`.
    func handle(client id: Int, readable: Bool, writable: Bool, hangUp: Bool) {
        guard let client = clients[id] else { return }
        if hangUp {
            disconnect(client, reason: "connection closed")
            return
        }
        if writable {
            flush(client)
            if clients[client.id] == nil { return }
        }
        if readable && !client.closing { readRequests(client) }
    }

    // MARK: Requests

    private func readRequests(_ client: ClientSession) {
        switch client.readLines(maximumLineBytes: configuration.maximumLineBytes, scratch: &readScratch) {
        case .closed:
            // The peer finished sending (EOF): answer what it asked, then close.
            beginClosing(client)
        case .lineTooLong:
            logger.notice("client: request line too long; closing", metadata: ["client.id": "\(client.id)"])
            fail(
                client, .lineTooLong,
                "request line longer than \(configuration.maximumLineBytes) bytes (newline included)")
        case .lines(let lines):
            for line in lines {
                guard clients[client.id] != nil, !client.closing else { return }
                handleRequest(line, from: client)
            }
        }
    }

    private func handleRequest(_ line: [UInt8], from client: ClientSession) {
        if line.count > ClientHub.largeRequestBytes,
            !largeRequestBytes.take(uid: client.peer?.uid ?? .max, now: clock(), cost: line.count)
        {
            // Refused unparsed: only the id is looked for, so a flood of large lines costs a scan each.
            let id = RequestID.salvaged(from: line)
            reply(
                to: client,
                .error(
                    ErrorMessage(
                        .overBudget,
                        "over budget: request_bytes_per_second_per_user: more than \(ClientHub.largeRequestBytesPerSecondPerUser) bytes of requests over \(ClientHub.largeRequestBytes) bytes in one second; nothing changed",
                        id: id)))
            return
        }
        let request: ClientRequest
        do {
            request = try ClientRequest(decoding: line)
        } catch {
            logger.debug(
                "client: bad request",
                metadata: ["client.id": "\(client.id)", "error.code": "\(error.code)", "error": "\(error.message)"])
            reply(to: client, .error(error.errorMessage))
            return
        }
        let id = request.id
        switch request.action {
        case .subscribe(let streams, let devices):
            let streams = streams ?? Set(MessageStream.allCases)
            let devices = devices ?? .all
            if let refusal = client.subscriber.subscribe(
                streams: streams, devices: devices, predictMilliseconds: request.predictMilliseconds,
                frameAligned: request.frameAligned, id: id, others: clients.values.map(\.subscriber))
            {
                reply(to: client, .error(refusal))
                return
            }
            updatePredictionHorizon()
            reply(
                to: client,
                .subscribed(
                    SubscribedMessage(
                        id: id, streams: streams, devices: devices, predictMilliseconds: request.predictMilliseconds)))
            logger.debug("client: subscribed", metadata: ["client.id": "\(client.id)"])
            host?.clientSubscribed(subscribers: clients.values.filter { $0.subscriber.subscription != nil }.count)
        case .unsubscribe:
            client.subscriber.unsubscribe()
            updatePredictionHorizon()
            reply(to: client, .unsubscribed(UnsubscribedMessage(id: id)))
        case .frame(let time):
            deliverFrame(at: time, to: client, id: id)
        case .ping:
            reply(to: client, .pong(PongMessage(id: id)))
        case .stats:
            reply(to: client, .stats(statsMessage(id: id, for: client)))
        case .resetTransform(let device):
            guard permits(.transform, client, id) else { return }
            setTransform(device: device, matrix: .identity, id: id, client: client)
        case .setTransform(let device, let matrix):
            guard permits(.transform, client, id) else { return }
            setTransform(device: device, matrix: matrix, id: id, client: client)
        case .declareRegions(let device, let regions):
            guard permits(.regions, client, id), withinRegionRate(client, id) else { return }
            answerRegions(
                host?.regions(.declare(regions), client: client.id, device: device, grant: routingGrant(client)),
                device, id, client)
        case .updateRegions(let device, let regions, let remove):
            guard permits(.regions, client, id), withinRegionRate(client, id) else { return }
            answerRegions(
                host?.regions(
                    .update(regions, remove: remove), client: client.id, device: device, grant: routingGrant(client)),
                device, id, client)
        case .recognized(let device, let region):
            switch host?.recognized(client: client.id, device: device, region: region) ?? .failure(.unknownDevice) {
            case .success(let routed):
                reply(to: client, .recognized(RecognizedMessage(id: id, device: device, region: region)))
                dispatch(outbound: routed.map(OutboundMessage.init(routed:)), readAt: clock())
            case .failure(let failure):
                replyRegionFailure(failure, device: device, id: id, to: client)
            }
        case .setRegionTransform(let device, let region, let matrix):
            let result =
                host?.setRegionTransform(client: client.id, device: device, region: region, matrix: matrix)
                ?? .failure(.unknownDevice)
            switch result {
            case .success(let m):
                reply(to: client, .transform(TransformMessage(id: id, device: device, matrix: m, region: region)))
            case .failure(let failure):
                replyRegionFailure(failure, device: device, id: id, to: client)
            }
        }
    }

    /// Whether the client has `right`; if not, answers `forbidden` naming it.
    private func permits(_ right: AccessRight, _ client: ClientSession, _ id: RequestID?) -> Bool {
        guard let refusal = client.subscriber.refusal(missing: right, uid: client.peer?.uid, id: id) else {
            return true
        }
        reply(to: client, .error(refusal))
        return false
    }

    /// Whether the client's user may send another region request now; if not, answers `over-budget`.
    private func withinRegionRate(_ client: ClientSession, _ id: RequestID?) -> Bool {
        let uid = client.peer?.uid ?? .max
        if regionRequests.take(uid: uid, now: clock()) { return true }
        let limit = ClientHub.regionRequestsPerSecondPerUser
        reply(
            to: client,
            .error(
                ErrorMessage(
                    .overBudget,
                    "over budget: region_requests_per_second_per_user: more than \(limit) in one second; nothing changed",
                    id: id)))
        return false
    }

    /// What the router needs of the client's grant.
    private func routingGrant(_ client: ClientSession) -> RoutingGrant {
        client.subscriber.routingGrant
    }

    private func replyRegionFailure(
        _ failure: DeviceHost.RegionFailure, device: Int, id: RequestID?, to client: ClientSession
    ) {
        switch failure {
        case .unknownDevice: reply(to: client, .error(ErrorMessage(.unknownDevice, "no device \(device)", id: id)))
        case .refused(let why): reply(to: client, .error(ErrorMessage(.badField, why, id: id)))
        }
    }

    /// Replies to a region request: the ids now in force (the connection is routed on the device while
    /// there are some), then what the change cancelled; or the error.
    private func answerRegions(
        _ outcome: DeviceHost.RegionAnswer?, _ device: Int, _ id: RequestID?, _ client: ClientSession
    ) {
        switch outcome {
        case nil:
            reply(to: client, .error(ErrorMessage(.unknownDevice, "no device \(device)", id: id)))
        case .rejected(let error)?:
            reply(to: client, .error(Subscriber.refusal(error, id: id)))
        case .inForce(let ids, let cancelled)?:
            client.subscriber.regionsChanged(
                device: device, routed: !ids.isEmpty, sessionOpen: publisher.hasOpenSession(device: device))
            logger.debug(
                "client: regions",
                metadata: ["client.id": "\(client.id)", "device.id": "\(device)", "regions": "\(ids)"])
            reply(to: client, .regions(RegionsMessage(id: id, device: device, regions: ids)))
            if !cancelled.isEmpty { deliver(cancelled.map(OutboundMessage.init(routed:)), to: client) }
        }
    }

    private func setTransform(device: Int, matrix: AffineTransform, id: RequestID?, client: ClientSession) {
        guard host?.setTransform(device: device, matrix: matrix) == true else {
            reply(to: client, .error(ErrorMessage(.unknownDevice, "no device \(device)", id: id)))
            return
        }
        reply(to: client, .transform(TransformMessage(id: id, device: device, matrix: matrix)))
        // Everyone else drawing this device's content learns of the new base too.
        let message = OutboundMessage(.transform(TransformMessage(id: nil, device: device, matrix: matrix)))
        for other in clients.values where other !== client && other.subscriber.wants(message) {
            deliver([message], to: other)
        }
    }

    private func statsMessage(id: RequestID?, for asker: ClientSession) -> StatsMessage {
        // Other clients' pid and uid are root's business only (-1: not shown).
        let seesAll = asker.peer?.uid == 0
        let clientStats = clients.values.sorted { $0.id < $1.id }.map { c in
            let shown = seesAll || c === asker
            return ClientStatistics(
                id: c.id, pid: shown ? Int(c.peer?.pid ?? -1) : -1, uid: shown ? Int(c.peer?.uid ?? 0) : -1,
                subscribed: c.subscriber.subscription != nil,
                queued: c.subscriber.queue.count, queuedBytes: c.pendingBytes, delivered: c.subscriber.delivered,
                dropped: c.subscriber.queue.droppedTotal)
        }
        var buckets: [LatencyBucket] = []
        for (k, n) in histogram.buckets.enumerated() where n > 0 {
            buckets.append(LatencyBucket(lessThan: LatencyHistogram.upperBoundMicroseconds(k), count: n))
        }
        let recent = samples.percentilesMicroseconds([0.5, 0.99]).map { p in
            RecentLatency(samples: samples.count, p50: p[0], p99: p[1])
        }
        return StatsMessage(
            id: id, uptime: Double(clock() - startTime) / 1e9, clients: clientStats,
            devices: host?.deviceStatistics() ?? [],
            latency: LatencyStatistics(
                count: histogram.count, maximum: Double(histogram.maximumNanoseconds) / 1000, buckets: buckets,
                deferred: deferredBatches, recent: recent))
    }

    // MARK: Output

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

    /// Frame-aligned clients' share of a batch: buffered until their next `frame` request.
    private func bufferFrames(_ messages: [Message]) {
        for client in clients.values where client.subscriber.frames != nil && !client.closing {
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
        for client in clients.values where client.subscriber.frames != nil && !client.closing {
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

    /// Answers a `frame` request: the frame's resampled touches and its gestures (nothing when nothing
    /// is due), or an error without a frame-aligned subscription.
    private func deliverFrame(at time: Timestamp, to client: ClientSession, id: RequestID?) {
        guard client.subscriber.frames != nil else {
            reply(to: client, .error(ErrorMessage(.badField, "frame: subscribe with \"frames\": true first", id: id)))
            return
        }
        var out: [Message] = []
        client.subscriber.frames?.frame(at: time, into: &out)
        deliverFramed(out, to: client)
    }

    private func deliverFramed(_ messages: [Message], to client: ClientSession) {
        guard !messages.isEmpty else { return }
        let outbound = messages.map { message in
            var m = OutboundMessage(message)
            m.client = client.id  // this client's frame only, past the whole-device filter
            m.wholeDevice = false
            m.droppable = false  // a frame carries its coalesced samples: never coalesced away
            return m
        }
        _ = deliver(outbound, to: client)
    }

    /// The `predictMs` of the subscribed clients that asked (one at a time); nil when none did.
    private(set) var predictionHorizon: Int?

    private func updatePredictionHorizon() {
        let horizon = clients.values.first {
            $0.subscriber.subscription != nil && $0.subscriber.predictMilliseconds != nil
        }?
        .subscriber.predictMilliseconds
        guard horizon != predictionHorizon else { return }
        predictionHorizon = horizon
        host?.predictionHorizon(horizon)
    }

    /// What `client` receives of the batch being dispatched: with predictions if it asked for them.
    private func outbound(for client: ClientSession) -> [OutboundMessage] {
        guard client.subscriber.predictMilliseconds != nil, batch.predicted.count == batch.encoded.count else {
            return batch.encoded
        }
        return batch.predicted
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

    private func dispatchEncoded(readAt: UInt64) {
        var wrote = false
        var deferred = false
        for client in clients.values where client.subscriber.subscription != nil && !client.closing {
            let backlogged = client.hasPendingOutput
            if deliver(outbound(for: client), to: client) {
                wrote = true
                if backlogged || client.hasPendingOutput { deferred = true }
            }
        }
        // Clients that were not served this batch switch too.
        for message in batch.encoded where message.closesLastSession {
            for client in clients.values where !client.subscriber.routingSwitch.isEmpty {
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

    /// Queues the messages the client wants and writes what the socket takes. Returns true when any
    /// message was for this client.
    @discardableResult
    private func deliver(_ messages: [OutboundMessage], to client: ClientSession) -> Bool {
        var any = false
        for message in messages {
            if client.subscriber.wants(message) {
                any = true
                client.subscriber.queue.enqueue(message, softLimit: configuration.softQueueLimit)
                client.subscriber.delivered &+= 1
            }
            // Nothing is open on the device after this message: a pending switch between its whole-device
            // stream and routed streams takes effect here, where no touch or session can be cut in two.
            if message.closesLastSession && !client.subscriber.routingSwitch.isEmpty {
                client.subscriber.applyRoutingSwitch(message.device)
            }
        }
        guard any else { return false }
        if client.pendingBytes > configuration.hardQueueLimitBytes {
            logger.warning(
                "client: queue over the hard limit; disconnecting",
                metadata: [
                    "client.id": "\(client.id)", "client.pid": "\(client.peer?.pid ?? -1)",
                    "client.queued_bytes": "\(client.pendingBytes)",
                    "client.dropped": "\(client.subscriber.queue.droppedTotal)",
                ])
            fail(
                client, .queueOverflow,
                "client queue passed \(configuration.hardQueueLimitBytes) bytes (the client does not read fast enough); disconnecting"
            )
            return true
        }
        if !client.wantsWritable { flush(client) }
        return true
    }

    private func reply(to client: ClientSession, _ message: Message) {
        client.subscriber.queue.enqueue(.reply(message), softLimit: .max)
        if client.pendingBytes > configuration.hardQueueLimitBytes {
            fail(
                client, .queueOverflow, "client queue passed \(configuration.hardQueueLimitBytes) bytes; disconnecting")
            return
        }
        if !client.wantsWritable { flush(client) }
    }

    private func flush(_ client: ClientSession) {
        let result = client.flush { message, missed in
            var bytes: [UInt8] = []
            Message.dropped(
                DroppedMessage(
                    device: message.device == 0 ? nil : message.device, time: nil, count: missed, unit: .messages,
                    reason: "client queue full")
            ).encode(into: &bytes)
            return bytes
        }
        switch result {
        case .drained:
            if client.closing {
                disconnect(client, reason: "closed after final message")
                return
            }
            setWritableInterest(client, false)
        case .blocked:
            setWritableInterest(client, true)
        case .failed:
            disconnect(client, reason: "write failed (peer gone)")
        }
    }

    private func setWritableInterest(_ client: ClientSession, _ wanted: Bool) {
        guard client.wantsWritable != wanted else { return }
        client.wantsWritable = wanted
        watcher.update(fd: client.fd, readable: !client.closing, writable: wanted)
    }

    // MARK: Closing

    /// Sends a fatal error as the client's last line and closes it (after the line is written or the
    /// grace time, whichever comes first).
    private func fail(_ client: ClientSession, _ code: ErrorCode, _ message: String) {
        var line: [UInt8] = []
        Message.error(ErrorMessage(code, message)).encode(into: &line)
        let dropped = client.pendingBytes
        client.replacePending(with: line)
        // The room held back in the socket since connect: the line goes in even if the client never
        // reads again (ClientSession.reserveSendBuffer).
        client.releaseSendReserve()
        if dropped >= ClientHub.releaseMemoryAfterBytes { Sys.releaseFreedMemory() }
        beginClosing(client)
    }

    /// Dropping a queue this large hands the freed heap back to the system.
    static let releaseMemoryAfterBytes = 1024 * 1024

    private func beginClosing(_ client: ClientSession) {
        guard !client.closing else { return }
        client.closing = true
        client.closeDeadline = clock() + ClientHub.closeGraceNanoseconds
        // Stop reading: only the remaining output matters now.
        watcher.update(fd: client.fd, readable: false, writable: client.wantsWritable)
        closingChanged?()
        flush(client)
    }

    /// Called when the set of closing clients (and so `nextCloseDeadline`) may have changed.
    var closingChanged: (() -> Void)?

    /// Closes the clients whose grace time ran out.
    func closeExpiredClients() {
        let now = clock()
        for client in clients.values where client.closing && client.closeDeadline <= now {
            disconnect(client, reason: "final message not read within the grace time")
        }
        closingChanged?()
    }

    private func disconnect(_ client: ClientSession, reason: String) {
        guard clients.removeValue(forKey: client.id) != nil else { return }
        if client.subscriber.predictMilliseconds != nil { updatePredictionHorizon() }
        // Its regions vanish (also those declared while a switch was pending); what that cancels is for
        // this connection only, which is closing.
        if client.subscriber.hasRoutingState { host?.clientGone(client.id) }
        watcher.unwatch(fd: client.fd)
        Sys.close(client.fd)
        acceptor.clientLeft()
        let dropped = client.pendingBytes
        client.subscriber.queue.removeAll()
        if dropped >= ClientHub.releaseMemoryAfterBytes { Sys.releaseFreedMemory() }
        logger.info(
            "client: disconnected",
            metadata: [
                "client.id": "\(client.id)", "client.pid": "\(client.peer?.pid ?? -1)", "reason": "\(reason)",
                "client.subscriber.delivered": "\(client.subscriber.delivered)",
                "client.dropped": "\(client.subscriber.queue.droppedTotal)",
            ])
        host?.clientsChanged()
    }

    /// Shutdown: writes what is queued while `deadline` allows (the loop keeps reporting writability),
    /// then disconnects everyone.
    func disconnectAll(reason: String) {
        for client in Array(clients.values) { disconnect(client, reason: reason) }
    }
}
