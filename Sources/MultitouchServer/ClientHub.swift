import Configuration
import Logging
import MultitouchCore
import Publishing
import TouchPipeline
import TouchRouting
import TouchVocabulary
import WireProtocol

/// What the client hub asks of the devices' side of the daemon, typed (no wire type crosses here):
/// the devices it reports, requests carried to a device's pipeline, and the client events the devices
/// need to know of.
protocol ClientHubHost: AnyObject {
    /// Devices present now (the hello).
    func currentDevices() -> [PipelineDevice]
    /// Per-device figures for `stats`.
    func deviceFigures() -> [DeviceFigures]
    /// Carries a request to the pipeline of `device`; its answer comes back in the device's output
    /// (`ClientHub.dispatch`). False when the device is not present.
    @discardableResult
    func apply(_ request: PipelineRequest, device: Int, token: UInt64) -> Bool
    /// A client subscribed; `subscribers` clients are subscribed now (a replay may wait for them).
    func clientSubscribed(subscribers: Int)
    /// A client connected or left (the systemd status line counts them).
    func clientsChanged()
    /// The client disconnected: its regions vanish.
    func clientGone(_ client: ClientID)
    /// Who asked for predictions changed (`ClientHub.predictionRequests(device:)`).
    func predictionsChanged()
    /// A subscription began or a region request was answered: these clients are subscribed now (a
    /// replay may wait for the regions they declared).
    func readinessChanged(subscribed: Set<ClientID>)
    /// The time on the messages' clock at CLOCK_MONOTONIC `time` (a `frame` request's display time; a
    /// replay's messages carry the recording's clock).
    func messageClock(_ time: Timestamp) -> Timestamp
}

extension ClientHubHost {
    func deviceFigures() -> [DeviceFigures] { [] }
    func apply(_ request: PipelineRequest, device: Int, token: UInt64) -> Bool { false }
    func clientSubscribed(subscribers: Int) {}
    func clientsChanged() {}
    func clientGone(_ client: ClientID) {}
    func predictionsChanged() {}
    func readinessChanged(subscribed: Set<ClientID>) {}
    func messageClock(_ time: Timestamp) -> Timestamp { time }
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

/// The clients' side of the daemon, a coordinator of three one-job parts: `ClientConnections` (the
/// sockets: admit, read, queue under the limits, flush, close), `RequestServer` (request lines to
/// decisions and replies, no socket) and `ClientFanOut` (the devices' output encoded once and handed to
/// every client that wants it, latency statistics). The hub wires them: it greets a new connection,
/// carries out what a request asks for, and tells the device side when clients come, go and subscribe.
/// Time comes from `clock` (monotonic ns), so tests run it with socket pairs and virtual time. Owned
/// by the loop thread.
final class ClientHub: RequestContext {
    let connections: ClientConnections
    let requests: RequestServer
    let fanOut: ClientFanOut
    private let daemonVersion: String
    private let clock: () -> UInt64
    weak var host: (any ClientHubHost)?
    /// Reused per request line: what serving it asks for.
    private var effects: [RequestServer.Effect] = []

    init(
        configuration: ClientsConfiguration, daemonVersion: String, logger: Logger, watcher: any ClientSocketWatcher,
        clock: @escaping () -> UInt64 = Sys.monotonicNanoseconds
    ) {
        self.daemonVersion = daemonVersion
        self.clock = clock
        connections = ClientConnections(configuration: configuration, logger: logger, watcher: watcher, clock: clock)
        requests = RequestServer(maximumLineBytes: configuration.maximumLineBytes, logger: logger, clock: clock)
        fanOut = ClientFanOut(connections: connections, clock: clock)
        connections.clientLeaving = { [unowned self] client in
            requests.forget(client: client.id)
            // Its regions vanish (also those declared while a switch was pending); what that cancels is
            // for this connection only, which is closing.
            if client.subscriber.hasRoutingState { host?.clientGone(ClientID(UInt64(client.id))) }
            if client.subscriber.predictMilliseconds != nil { host?.predictionsChanged() }
        }
        connections.clientsChanged = { [unowned self] in host?.clientsChanged() }
        fanOut.reply = { [unowned self] answer in requests.reply(to: answer, context: self) }
        fanOut.regionsAnswered = { [unowned self] in
            host?.predictionsChanged()
            host?.readinessChanged(subscribed: subscribedClients)
        }
    }

    var configuration: ClientsConfiguration {
        get { connections.configuration }
        set { connections.configuration = newValue }
    }
    /// Who may observe, declare regions and set transforms; applies to clients connecting from now on.
    var access: AccessPolicy {
        get { requests.access }
        set { requests.access = newValue }
    }
    var logger: Logger { connections.logger }
    var logLevel: Logger.Level {
        get { connections.logger.logLevel }
        set {
            connections.logger.logLevel = newValue
            requests.logger.logLevel = newValue
        }
    }
    var clientCount: Int { connections.clients.count }
    var hasPendingOutput: Bool { connections.hasPendingOutput }
    /// The earliest grace deadline of a closing client, for the daemon's grace timer.
    var nextCloseDeadline: UInt64? { connections.nextCloseDeadline }
    /// Called when the set of closing clients (and so `nextCloseDeadline`) may have changed.
    var closingChanged: (() -> Void)? {
        get { connections.closingChanged }
        set { connections.closingChanged = newValue }
    }
    /// Who asked for predictions of `device` (`PredictionRequests(subscribers:device:)`).
    func predictionRequests(device: Int) -> PredictionRequests {
        PredictionRequests(subscribers: connections.clients.values.map(\.subscriber), device: device)
    }

    // MARK: Connections

    /// Accepts waiting connections and adopts each.
    func acceptClients(listenFD: Int32) {
        connections.accept(listenFD: listenFD) { fd, peer in adopt(fd: fd, peer: peer) }
    }

    /// Takes over a connected, non-blocking socket: refused with `too-many-clients` when full, else
    /// watched and greeted with the hello. Returns the client id, nil when refused.
    @discardableResult
    func adopt(fd: Int32, peer: PeerCredentials?) -> Int? {
        guard let client = connections.admit(fd: fd, peer: peer, grant: { requests.grant(peer: peer, fd: fd) }) else {
            return nil
        }
        connections.reply(
            to: client,
            .hello(
                HelloMessage(
                    daemon: daemonVersion, devices: (host?.currentDevices() ?? []).map(PipelineMessages.deviceInfo),
                    features: [ProtocolFeature.regions])))
        host?.clientsChanged()
        return client.id
    }

    /// What epoll reported for client `id`.
    func handle(client id: Int, readable: Bool, writable: Bool, hangUp: Bool) {
        connections.handle(client: id, readable: readable, writable: writable, hangUp: hangUp) { line, client in
            serve(line, from: client)
        }
    }

    /// Ends a loop turn: backlogged clients get their next share of request lines, round-robin
    /// (`ClientConnections.serveBacklog`, issue 28).
    func serveBacklog() { connections.serveBacklog { line, client in serve(line, from: client) } }
    /// Some client has request lines waiting: the loop polls instead of blocking.
    var hasBacklog: Bool { connections.hasBacklog }
    /// Runs one loop turn's work, writing what it queues for each client once at the end.
    func batch<T>(_ body: () -> T) -> T { connections.batch(body) }

    /// Closes the clients whose grace time ran out.
    func closeExpiredClients() { connections.closeExpiredClients() }

    /// Shutdown: disconnects everyone (the daemon first writes what is queued while its deadline allows).
    func disconnectAll(reason: String) { connections.disconnectAll(reason: reason) }

    /// Shutdown: what frame-aligned clients hold for frames they have not asked for yet (a replay's
    /// last touches, the cancellations of the shutdown itself) is theirs now, queued like any frame, so
    /// every touch they saw begin still ends for them.
    func deliverHeldFrames() {
        for client in connections.clients.values where !client.closing {
            guard let aligner = client.subscriber.frames, !aligner.isIdle else { continue }
            var out: [Message] = []
            client.subscriber.frames?.catchUp(into: &out)
            fanOut.deliverFramed(out, to: client)
        }
    }

    // MARK: Requests

    private func serve(_ line: [UInt8], from client: ClientSession) {
        effects.removeAll(keepingCapacity: true)
        requests.serve(line, from: client, context: self, into: &effects)
        for effect in effects {
            switch effect {
            case .reply(let message): connections.reply(to: client, message)
            case .deliverFramed(let messages): fanOut.deliverFramed(messages, to: client)
            case .device(let request, let device, let token):
                // The answer and what the request cancelled come back through `dispatch`.
                host?.apply(request, device: device, token: token)
            case .subscriptionsChanged: host?.predictionsChanged()
            case .subscribed:
                let subscribed = subscribedClients
                host?.clientSubscribed(subscribers: subscribed.count)
                host?.readinessChanged(subscribed: subscribed)
            }
        }
    }

    /// The clients with a subscription now.
    private var subscribedClients: Set<ClientID> {
        Set(connections.clients.values.filter { $0.subscriber.subscription != nil }.map { ClientID(UInt64($0.id)) })
    }

    var sessions: [ClientSession] { Array(connections.clients.values) }
    func messageClock(_ time: Timestamp) -> Timestamp { host?.messageClock(time) ?? time }
    func hasOpenSession(device: Int) -> Bool { fanOut.hasOpenSession(device: device) }
    func hasDevice(_ device: Int) -> Bool { host?.currentDevices().contains { $0.id == device } ?? false }
    func deviceFigures() -> [DeviceFigures] { host?.deviceFigures() ?? [] }
    func latencyStatistics() -> LatencyStatistics { fanOut.latencyStatistics() }

    // MARK: Output

    /// Publishes the devices' output (`ClientFanOut.dispatch`).
    func dispatch(_ outputs: [PipelineOutput], readAt: UInt64) { fanOut.dispatch(outputs, readAt: readAt) }

    /// Whole-device messages that do not come from a pipeline (tests): published as a device's are.
    func dispatch(_ messages: [Message], readAt: UInt64) { fanOut.dispatch(messages, readAt: readAt) }
}
