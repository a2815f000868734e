import Configuration
import Gestures
import Logging
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
    weak var host: (any ClientHubHost)? {
        didSet { requests.host = host }
    }
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
            if client.subscriber.predictMilliseconds != nil { fanOut.updatePredictionHorizon() }
            // Its regions vanish (also those declared while a switch was pending); what that cancels is
            // for this connection only, which is closing.
            if client.subscriber.hasRoutingState { host?.clientGone(client.id) }
        }
        connections.clientsChanged = { [unowned self] in host?.clientsChanged() }
        fanOut.horizonChanged = { [unowned self] horizon in host?.predictionHorizon(horizon) }
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
    /// The `predictMs` of the subscribed clients that asked (one at a time); nil when none did.
    var predictionHorizon: Int? { fanOut.predictionHorizon }

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
                    daemon: daemonVersion, devices: host?.currentDevices() ?? [], features: [ProtocolFeature.regions])))
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

    // MARK: Requests

    private func serve(_ line: [UInt8], from client: ClientSession) {
        effects.removeAll(keepingCapacity: true)
        requests.serve(line, from: client, context: self, into: &effects)
        for effect in effects {
            switch effect {
            case .reply(let message): connections.reply(to: client, message)
            case .deliver(let messages): connections.deliver(messages, to: client)
            case .deliverFramed(let messages): fanOut.deliverFramed(messages, to: client)
            case .toOthers(let message): fanOut.deliver(message, toAllBut: client)
            case .publish(let messages): fanOut.dispatch(outbound: messages, readAt: clock())
            case .subscriptionsChanged: fanOut.updatePredictionHorizon()
            case .subscribed:
                host?.clientSubscribed(
                    subscribers: connections.clients.values.filter { $0.subscriber.subscription != nil }.count)
            }
        }
    }

    var sessions: [ClientSession] { Array(connections.clients.values) }
    func hasOpenSession(device: Int) -> Bool { fanOut.hasOpenSession(device: device) }
    func latencyStatistics() -> LatencyStatistics { fanOut.latencyStatistics() }

    // MARK: Output

    /// Publishes the devices' output (`ClientFanOut.dispatch`).
    func dispatch(_ outputs: [PipelineOutput], readAt: UInt64) { fanOut.dispatch(outputs, readAt: readAt) }

    /// Whole-device messages that do not come from a pipeline (tests): published as a device's are.
    func dispatch(_ messages: [Message], readAt: UInt64) { fanOut.dispatch(messages, readAt: readAt) }

    /// Messages already encoded, some of them addressed to one client (`ClientFanOut.dispatch(outbound:)`).
    func dispatch(outbound: [OutboundMessage], readAt: UInt64) { fanOut.dispatch(outbound: outbound, readAt: readAt) }
}
