import CLinuxSystem
import Configuration
import DeviceInput
import Gestures
import Glibc
import Logging
import MultitouchCore
import TouchPipeline
import WireProtocol

/// Everything `multitouchd` was started with.
public struct DaemonOptions: Sendable {
    public var configuration: DaemonConfiguration
    /// Re-reads the configuration file on SIGHUP; nil when there is no file (defaults): SIGHUP then only
    /// logs that there is nothing to reload.
    public var reloadConfiguration: (@Sendable () throws -> DaemonConfiguration)?
    /// Serve a recording as devices.
    public var replay: ReplayOptions?
    /// Open no live devices (serve only the replay).
    public var noDevices: Bool
    /// `multitouchd 0.1.0`, sent in the hello.
    public var daemonVersion: String
    /// Longest time spent flushing client queues at shutdown.
    public var shutdownFlushNanoseconds: UInt64 = 2_000_000_000

    public init(
        configuration: DaemonConfiguration, reloadConfiguration: (@Sendable () throws -> DaemonConfiguration)?,
        replay: ReplayOptions?, noDevices: Bool, daemonVersion: String
    ) {
        self.configuration = configuration
        self.reloadConfiguration = reloadConfiguration
        self.replay = replay
        self.noDevices = noDevices
        self.daemonVersion = daemonVersion
    }
}

/// The daemon: one thread, one epoll loop over the listening socket, client sockets, signals (signalfd),
/// timers (timerfd: gesture deadlines, replay pacing, client close grace, systemd watchdog) and devices.
/// Without input, `epoll_wait` blocks with no timeout: the only periodic wake-up is the watchdog.
///
/// Every message is encoded once and its bytes shared by all client queues (docs/PROTOCOL.md).
public final class Daemon {
    var options: DaemonOptions
    var configuration: DaemonConfiguration
    var logger: Logger

    let epoll: Epoll
    private let signals: SignalFD
    private var replayTimer: TimerFD
    private var graceTimer: TimerFD
    private var watchdogTimer: TimerFD
    /// Gesture deadlines of live devices (tap, long press, churn debounce), on CLOCK_MONOTONIC like
    /// the kernel's event times.
    var deadlineTimer: TimerFD
    /// Live devices being served, by device id.
    var liveDevices: [Int: LiveSlot] = [:]
    var discovery: DeviceDiscovery?
    private var listener: ListeningSocket?
    /// The spare descriptor and rate-limited warning for EMFILE on accept (DescriptorLimit.swift).
    private var descriptorReserve = DescriptorReserve()

    private var clients: [Int: ClientSession] = [:]
    private var nextClientID = 1
    var nextDeviceID = 1
    let idSource = TouchIDSource()

    var replay: ReplayPass?
    private var replayStarted = false
    /// Frames per device id, for stats (present devices and the last `departedDevicesKept` departed ones).
    var framesByDevice: [Int: UInt64] = [:]
    var deviceNames: [Int: String] = [:]

    private var histogram = LatencyHistogram()
    private var samples = LatencySamples()
    /// Batches with output for a client whose queue was not empty: their last write happened later
    /// than the histogram's time (they are counted here, not in the histogram).
    private var deferredBatches: UInt64 = 0

    let notifier = SystemdNotifier.fromEnvironment(unsetEnvironment: true)
    private var lastStatus = ""
    private var stopRequested = false
    private var exitCode: Int32 = 0
    private var readScratch = [UInt8](repeating: 0, count: 64 * 1024)
    private var encodeScratch: [OutboundMessage] = []
    private let startTime = Sys.monotonicNanoseconds()

    enum Token {
        static let listener: UInt64 = 1
        static let signals: UInt64 = 2
        static let replay: UInt64 = 3
        static let grace: UInt64 = 4
        static let watchdog: UInt64 = 5
        static let discovery: UInt64 = 6
        static let deadline: UInt64 = 7
        static let deviceBase: UInt64 = 1 << 31
        static let clientBase: UInt64 = 1 << 32
    }

    public init(options: DaemonOptions, logger: Logger) throws {
        self.options = options
        configuration = options.configuration
        self.logger = logger
        epoll = try Epoll()
        signals = try SignalFD(signals: [SIGTERM, SIGINT, SIGHUP])
        replayTimer = try TimerFD()
        graceTimer = try TimerFD()
        watchdogTimer = try TimerFD()
        deadlineTimer = try TimerFD()
        // Writes to a vanished client must return EPIPE, not kill the daemon (send uses MSG_NOSIGNAL too).
        signal(SIGPIPE, SIG_IGN)
    }

    /// Opens the socket and runs until SIGTERM/SIGINT. Returns the exit status.
    /// - Throws: `ListenError` when the socket cannot be set up (another daemon, a non-socket file...).
    public func run() throws -> Int32 {
        limitMaximumClientsToDescriptors()
        let activated = SystemdSocketActivation.listenFDs()
        if let fd = activated.first {
            listener = try ListeningSocket.inherited(fd: fd)
            logger.info("socket: using socket from systemd socket activation", metadata: ["socket.fd": "\(fd)"])
        } else {
            listener = try ListeningSocket.bind(configuration.socket, logger: logger)
            logger.info(
                "socket: listening",
                metadata: [
                    "socket.path": "\(configuration.socket.path)",
                    "socket.mode": "\(String(configuration.socket.mode, radix: 8))",
                ])
        }
        guard let listenFD = listener?.fd else { return 1 }
        try epoll.add(listenFD, events: Epoll.readable, token: Token.listener)
        try epoll.add(signals.fd, events: Epoll.readable, token: Token.signals)
        try epoll.add(replayTimer.fd, events: Epoll.readable, token: Token.replay)
        try epoll.add(graceTimer.fd, events: Epoll.readable, token: Token.grace)
        try epoll.add(watchdogTimer.fd, events: Epoll.readable, token: Token.watchdog)
        try epoll.add(deadlineTimer.fd, events: Epoll.readable, token: Token.deadline)

        if let interval = notifier?.watchdogPingInterval {
            let ns = UInt64(interval.components.seconds) * 1_000_000_000
                + UInt64(interval.components.attoseconds / 1_000_000_000)
            watchdogTimer.arm(at: Sys.monotonicNanoseconds() + ns, interval: ns)
            logger.info("systemd: watchdog enabled", metadata: ["watchdog.interval_ms": "\(ns / 1_000_000)"])
        }
        if !options.noDevices { startLiveDevices() }
        if let replayOptions = options.replay, replayOptions.waitForSubscribers <= 0 { startReplayPass() }

        try? notifier?.ready()
        updateStatus()
        logger.info("daemon: ready", metadata: ["daemon.version": "\(options.daemonVersion)"])

        let capacity = 64
        let events = UnsafeMutableBufferPointer<epoll_event>.allocate(capacity: capacity)
        defer { events.deallocate() }
        while !stopRequested {
            let n = try epoll.wait(into: events, timeoutMilliseconds: -1)
            for i in 0..<n {
                let event = events[i]
                handle(token: event.data.u64, events: event.events)
            }
        }
        shutdown()
        return exitCode
    }

    // MARK: Dispatch

    private func handle(token: UInt64, events: UInt32) {
        switch token {
        case Token.listener: acceptClients()
        case Token.signals: handleSignals()
        case Token.replay:
            replayTimer.acknowledge()
            runReplay()
        case Token.grace:
            graceTimer.acknowledge()
            closeExpiredClients()
        case Token.watchdog:
            watchdogTimer.drain()
            try? notifier?.watchdogPing()
        case Token.discovery:
            handleHotplug()
        case Token.deadline:
            deadlineTimer.acknowledge()
            fireDeadlines()
        default:
            if token >= Token.clientBase, let client = clients[Int(token - Token.clientBase)] {
                handleClient(client, events: events)
            } else if token >= Token.deviceBase && token < Token.clientBase {
                readDevice(id: Int(token - Token.deviceBase))
            }
        }
    }

    private func handleSignals() {
        while let signal = signals.next() {
            switch signal {
            case SIGTERM, SIGINT:
                logger.info("daemon: stopping", metadata: ["signal": "\(signal == SIGTERM ? "SIGTERM" : "SIGINT")"])
                stopRequested = true
            case SIGHUP:
                reloadConfiguration()
            default:
                break
            }
        }
    }

    private func reloadConfiguration() {
        guard let reload = options.reloadConfiguration else {
            logger.notice("config: SIGHUP but the daemon runs on built-in defaults; nothing to reload")
            return
        }
        let fresh: DaemonConfiguration
        do {
            fresh = try reload()
        } catch {
            logger.error("config: reload failed; keeping the running configuration", metadata: ["error": "\(error)"])
            return
        }
        if fresh.socket != configuration.socket {
            logger.warning("config: [socket] changes take effect after a restart")
        }
        if fresh.gestures != configuration.gestures {
            logger.notice("config: new [gestures] settings apply to devices added from now on")
        }
        let old = configuration
        configuration = fresh
        configuration.socket = old.socket
        logger.logLevel = Logger.Level(fresh.logLevel)
        limitMaximumClientsToDescriptors()
        logger.info(
            "config: reloaded",
            metadata: [
                "clients.soft_queue_limit": "\(fresh.clients.softQueueLimit)",
                "clients.hard_queue_limit_bytes": "\(fresh.clients.hardQueueLimitBytes)",
            ])
    }

    // MARK: Replay

    var pipelineSettings: PipelineSettings { PipelineSettings(gestures: configuration.gestures) }

    private func startReplayPass() {
        guard let replayOptions = options.replay else { return }
        replayStarted = true
        let pass = ReplayPass(
            options: replayOptions, firstDeviceID: nextDeviceID, idSource: idSource, settings: pipelineSettings,
            now: Sys.monotonicNanoseconds())
        nextDeviceID += pass.deviceCount
        replay = pass
        for pipeline in pass.pipelines { registerDeviceStats(id: pipeline.deviceID, name: pipeline.info.name) }
        logger.info(
            "replay: starting", metadata: ["replay.source": "\(replayOptions.source)", "replay.speed": "\(replayOptions.speed)"])
        runReplay()
    }

    private func runReplay() {
        guard var pass = replay else { return }
        let now = Sys.monotonicNanoseconds()
        let next = pass.run(now: now, clock: Sys.monotonicNanoseconds) { batch, taken in
            dispatch(batch, readAt: taken)
        }
        for pipeline in pass.pipelines { framesByDevice[pipeline.deviceID] = pipeline.frameCount }
        replay = pass
        if let next {
            replayTimer.arm(at: next)
            return
        }
        updateStatus()
        if options.replay?.loop == true && !stopRequested {
            startReplayPass()
        } else {
            replay = nil
            logger.info("replay: finished")
        }
    }

    // MARK: Clients

    private func acceptClients() {
        guard let listenFD = listener?.fd else { return }
        // Level-triggered: take a bounded number per wake-up so a connection storm cannot starve devices.
        for _ in 0..<16 {
            let fd = multitouchd_accept(listenFD)
            if fd < 0 {
                let code = errno
                if code == EAGAIN || code == EWOULDBLOCK || code == EINTR || code == ECONNABORTED { return }
                if code == EMFILE || code == ENFILE {
                    var refusal = Array(errorLine(.tooManyClients, "the daemon is out of file descriptors", id: nil).utf8)
                    refusal.append(0x0A)
                    let outcome = descriptorReserve.handleExhaustion(
                        code: code, listenFD: listenFD, refusal: refusal, now: Sys.monotonicNanoseconds(), logger: logger)
                    switch outcome {
                    case .refusedOne: continue
                    case .nothingWaiting: return
                    case .pauseListener:
                        epoll.remove(listenFD)
                        return
                    }
                }
                logger.error("socket: accept failed", metadata: ["error": "\(SystemError("accept4", errno: code))"])
                return
            }
            let peer = PeerCredentials.of(fd: fd)
            if clients.count >= configuration.clients.maximumClients {
                logger.warning(
                    "client: refused, too many clients",
                    metadata: ["peer": "\(peer?.description ?? "unknown")"])
                var line = Array(errorLine(.tooManyClients, "the daemon serves at most \(configuration.clients.maximumClients) clients", id: nil).utf8)
                line.append(0x0A)
                _ = line.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
                Sys.close(fd)
                continue
            }
            let client = ClientSession(id: nextClientID, fd: fd, peer: peer)
            nextClientID += 1
            do {
                try epoll.add(fd, events: Epoll.readable, token: Token.clientBase + UInt64(client.id))
            } catch {
                logger.error("socket: cannot watch client", metadata: ["error": "\(error)"])
                Sys.close(fd)
                continue
            }
            clients[client.id] = client
            logger.info(
                "client: connected",
                metadata: [
                    "client.id": "\(client.id)", "client.pid": "\(peer?.pid ?? -1)",
                    "client.uid": "\(peer?.uid ?? UInt32.max)", "client.gid": "\(peer?.gid ?? UInt32.max)",
                ])
            reply(to: client, .hello(daemon: options.daemonVersion, devices: currentDevices()))
            updateStatus()
        }
    }

    /// Departed devices whose frame counts `stats` still reports; older ones are forgotten so a daemon
    /// that sees endless hotplug (or a `--loop` replay, a new device id per pass) stays bounded.
    static let departedDevicesKept = 16

    /// Starts the stats of a new device and forgets the oldest departed ones beyond the bound.
    func registerDeviceStats(id: Int, name: String) {
        deviceNames[id] = name
        framesByDevice[id] = 0
        let present = Set(currentDevices().map(\.id))
        let departed = framesByDevice.keys.filter { !present.contains($0) }.sorted()
        for old in departed.dropLast(Daemon.departedDevicesKept) {
            framesByDevice[old] = nil
            deviceNames[old] = nil
        }
    }

    func currentDevices() -> [DeviceInfo] {
        (replay?.deviceInfos ?? []) + liveDevices.keys.sorted().compactMap { liveDevices[$0]?.pipeline.info }
    }

    private func handleClient(_ client: ClientSession, events: UInt32) {
        if events & (EPOLLERR.rawValue | EPOLLHUP.rawValue) != 0 {
            disconnect(client, reason: "connection closed")
            return
        }
        if events & EPOLLOUT.rawValue != 0 {
            flush(client)
            if clients[client.id] == nil { return }
        }
        if events & (EPOLLIN.rawValue | EPOLLRDHUP.rawValue) != 0 && !client.closing {
            readRequests(client)
        }
    }

    private func readRequests(_ client: ClientSession) {
        switch client.readLines(maximumLineBytes: configuration.clients.maximumLineBytes, scratch: &readScratch) {
        case .closed:
            // The peer finished sending (EOF): answer what it asked, then close.
            beginClosing(client)
        case .lineTooLong:
            logger.notice("client: request line too long; closing", metadata: ["client.id": "\(client.id)"])
            fail(client, .lineTooLong, "request line longer than \(configuration.clients.maximumLineBytes) bytes")
        case .lines(let lines):
            for line in lines {
                guard clients[client.id] != nil, !client.closing else { return }
                handleRequest(line, from: client)
            }
        }
    }

    private func handleRequest(_ line: [UInt8], from client: ClientSession) {
        let request: ClientRequest
        do {
            request = try ClientRequest.parse(line: line)
        } catch {
            logger.debug(
                "client: bad request", metadata: ["client.id": "\(client.id)", "error.code": "\(error.code)", "error": "\(error.message)"])
            reply(to: client, line: errorLine(error.code, error.message, id: error.id))
            return
        }
        switch request {
        case .subscribe(let streams, let devices, let id):
            client.subscription = (MessageStreams(streams), devices)
            var fields = [
                JSONField("streams", .array(MessageStream.allCases.filter(streams.contains).map { .string($0.rawValue) })),
            ]
            switch devices {
            case .all: fields.append(JSONField("devices", .string("all")))
            case .ids(let ids): fields.append(JSONField("devices", .array(ids.sorted().map { .int(Int64($0)) })))
            }
            reply(to: client, .control(type: "subscribed", fields: withID(id, fields)))
            logger.debug("client: subscribed", metadata: ["client.id": "\(client.id)"])
            maybeStartReplay()
        case .unsubscribe(let id):
            client.subscription = nil
            reply(to: client, .control(type: "unsubscribed", fields: withID(id, [])))
        case .ping(let id):
            reply(to: client, .control(type: "pong", fields: withID(id, [])))
        case .stats(let id):
            reply(to: client, .control(type: "stats", fields: withID(id, statsFields())))
        case .resetTransform(let device, let id):
            setTransform(device: device, matrix: [1, 0, 0, 1, 0, 0], id: id, client: client)
        case .setTransform(let device, let matrix, let id):
            setTransform(device: device, matrix: matrix, id: id, client: client)
        }
    }

    private func maybeStartReplay() {
        guard let replayOptions = options.replay, !replayStarted else { return }
        let subscribed = clients.values.filter { $0.subscription != nil }.count
        if subscribed >= replayOptions.waitForSubscribers { startReplayPass() }
    }

    private func setTransform(device: Int, matrix: [Double], id: RequestJSON?, client: ClientSession) {
        guard let transform = AffineTransform(components: matrix) else {
            reply(to: client, line: errorLine(.badField, "matrix: expected 6 finite numbers", id: id))
            return
        }
        if let slot = liveDevices[device] {
            slot.pipeline.setTransform(transform)
        } else if var pass = replay, let index = pass.pipelines.firstIndex(where: { $0.deviceID == device }) {
            pass.setTransform(index: index, transform)
            replay = pass
        } else {
            reply(to: client, line: errorLine(.unknownDevice, "no device \(device)", id: id))
            return
        }
        let fields = [JSONField("device", .int(Int64(device))), JSONField("matrix", .array(matrix.map { .double($0) }))]
        reply(to: client, .control(type: "transform", fields: withID(id, fields)))
        // Everyone else drawing this device's content learns of the new base too.
        let notice = Message.control(type: "transform", fields: fields)
        var bytes: [UInt8] = []
        notice.encode(into: &bytes)
        let message = OutboundMessage(bytes: bytes, device: device, streams: .gestures, droppable: false)
        for other in clients.values where other !== client && other.wants(message) { deliver([message], to: other) }
    }

    private func withID(_ id: RequestJSON?, _ fields: [JSONField]) -> [JSONField] {
        guard let id else { return fields }
        return [JSONField("id", id.wireValue)] + fields
    }

    private func errorLine(_ code: ProtocolErrorCode, _ message: String, id: RequestJSON?) -> String {
        var fields = [
            JSONField("code", .string(code.rawValue)), JSONField("message", .string(message)),
            JSONField("fatal", .bool(code.closesConnection)),
        ]
        if let id { fields.append(JSONField("id", id.wireValue)) }
        return Message.control(type: "error", fields: fields).jsonLine()
    }

    private func statsFields() -> [JSONField] {
        let clientStats: [WireProtocol.JSONValue] = clients.values.sorted { $0.id < $1.id }.map { c in
            .object([
                JSONField("id", .int(Int64(c.id))),
                JSONField("pid", .int(Int64(c.peer?.pid ?? -1))),
                JSONField("uid", .int(Int64(c.peer?.uid ?? 0))),
                JSONField("subscribed", .bool(c.subscription != nil)),
                JSONField("queued", .int(Int64(c.queue.count))),
                JSONField("queuedBytes", .int(Int64(c.pendingBytes))),
                JSONField("delivered", .int(Int64(c.delivered))),
                JSONField("dropped", .int(Int64(c.queue.droppedTotal))),
            ])
        }
        let deviceStats: [WireProtocol.JSONValue] = framesByDevice.keys.sorted().map { id in
            .object([
                JSONField("device", .int(Int64(id))),
                JSONField("name", .string(deviceNames[id] ?? "")),
                JSONField("frames", .int(Int64(framesByDevice[id] ?? 0))),
                JSONField("active", .bool(currentDevices().contains { $0.id == id })),
            ])
        }
        var buckets: [WireProtocol.JSONValue] = []
        for (k, n) in histogram.buckets.enumerated() where n > 0 {
            buckets.append(
                .object([
                    JSONField("lt", .int(Int64(LatencyHistogram.upperBoundMicroseconds(k)))),
                    JSONField("count", .int(Int64(n))),
                ]))
        }
        var latency = [
            JSONField("unit", .string("us")),
            JSONField("count", .int(Int64(histogram.count))),
            JSONField("max", .double(Double(histogram.maximumNanoseconds) / 1000)),
            JSONField("buckets", .array(buckets)),
            JSONField("deferred", .int(Int64(deferredBatches))),
        ]
        if let p = samples.percentilesMicroseconds([0.5, 0.99]) {
            latency.append(JSONField("recent", .object([
                JSONField("samples", .int(Int64(samples.count))),
                JSONField("p50", .double(p[0])),
                JSONField("p99", .double(p[1])),
            ])))
        }
        return [
            JSONField("uptime", .double(Double(Sys.monotonicNanoseconds() - startTime) / 1e9)),
            JSONField("clients", .array(clientStats)),
            JSONField("devices", .array(deviceStats)),
            JSONField("latency", .object(latency)),
        ]
    }

    // MARK: Output

    /// Encodes each message once and hands the shared bytes to every client that wants them.
    func dispatch(_ messages: [Message], readAt: UInt64) {
        guard !messages.isEmpty else { return }
        encodeScratch.removeAll(keepingCapacity: true)
        for message in messages {
            var bytes: [UInt8] = []
            bytes.reserveCapacity(256)
            message.encode(into: &bytes)
            encodeScratch.append(
                OutboundMessage(
                    bytes: bytes, device: message.device ?? 0, streams: MessageStreams.of(message),
                    droppable: message.isDroppable))
        }
        var wrote = false
        var deferred = false
        for client in clients.values where client.subscription != nil && !client.closing {
            let backlogged = client.hasPendingOutput
            if deliver(encodeScratch, to: client) {
                wrote = true
                if backlogged || client.hasPendingOutput { deferred = true }
            }
        }
        if deferred {
            deferredBatches &+= 1
        } else if wrote {
            let latency = Sys.monotonicNanoseconds() &- readAt
            histogram.record(nanoseconds: latency)
            samples.record(nanoseconds: latency)
        }
    }

    /// Queues the messages the client wants and writes what the socket takes. Returns true when any
    /// message was for this client.
    @discardableResult
    private func deliver(_ messages: [OutboundMessage], to client: ClientSession) -> Bool {
        var any = false
        let limits = configuration.clients
        for message in messages where client.wants(message) {
            any = true
            client.queue.enqueue(message, softLimit: limits.softQueueLimit)
            client.delivered &+= 1
        }
        guard any else { return false }
        if client.pendingBytes > limits.hardQueueLimitBytes {
            logger.warning(
                "client: queue over the hard limit; disconnecting",
                metadata: [
                    "client.id": "\(client.id)", "client.pid": "\(client.peer?.pid ?? -1)",
                    "client.queued_bytes": "\(client.pendingBytes)", "client.dropped": "\(client.queue.droppedTotal)",
                ])
            fail(
                client, .queueOverflow,
                "client queue passed \(limits.hardQueueLimitBytes) bytes (the client does not read fast enough); disconnecting")
            return true
        }
        if !client.wantsWritable { flush(client) }
        return true
    }

    private func reply(to client: ClientSession, _ message: Message) {
        var bytes: [UInt8] = []
        message.encode(into: &bytes)
        enqueueReply(bytes, to: client)
    }

    private func reply(to client: ClientSession, line: String) {
        var bytes = Array(line.utf8)
        bytes.append(0x0A)
        enqueueReply(bytes, to: client)
    }

    private func enqueueReply(_ bytes: [UInt8], to client: ClientSession) {
        client.queue.enqueue(OutboundMessage(bytes: bytes, device: 0, streams: [], droppable: false), softLimit: .max)
        if client.pendingBytes > configuration.clients.hardQueueLimitBytes {
            fail(client, .queueOverflow, "client queue passed \(configuration.clients.hardQueueLimitBytes) bytes; disconnecting")
            return
        }
        if !client.wantsWritable { flush(client) }
    }

    private func flush(_ client: ClientSession) {
        let result = client.flush { message, missed in
            var bytes: [UInt8] = []
            Message.dropped(
                device: message.device == 0 ? nil : message.device, time: nil, count: missed, unit: "messages",
                reason: "client queue full"
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
        let events = (client.closing ? 0 : Epoll.readable) | (wanted ? Epoll.writable : 0)
        try? epoll.modify(client.fd, events: events, token: Token.clientBase + UInt64(client.id))
    }

    /// Sends a fatal error as the client's last line and closes it (after the line is written or a
    /// one-second grace, whichever comes first).
    private func fail(_ client: ClientSession, _ code: ProtocolErrorCode, _ message: String) {
        var line = Array(errorLine(code, message, id: nil).utf8)
        line.append(0x0A)
        client.replacePending(with: line)
        beginClosing(client)
    }

    private func beginClosing(_ client: ClientSession) {
        guard !client.closing else { return }
        client.closing = true
        // Five seconds for a client that is slow, not dead, to read its last line (the reason).
        client.closeDeadline = Sys.monotonicNanoseconds() + 5_000_000_000
        // Stop reading: only the remaining output matters now.
        let events = client.wantsWritable ? Epoll.writable : 0
        try? epoll.modify(client.fd, events: events, token: Token.clientBase + UInt64(client.id))
        armGraceTimer()
        flush(client)
    }

    private func armGraceTimer() {
        let deadline = clients.values.filter(\.closing).map(\.closeDeadline).min()
        graceTimer.arm(at: deadline)
    }

    private func closeExpiredClients() {
        let now = Sys.monotonicNanoseconds()
        for client in clients.values where client.closing && client.closeDeadline <= now {
            disconnect(client, reason: "final message not read within the grace time")
        }
        armGraceTimer()
    }

    private func disconnect(_ client: ClientSession, reason: String) {
        guard clients.removeValue(forKey: client.id) != nil else { return }
        epoll.remove(client.fd)
        Sys.close(client.fd)
        if descriptorReserve.clientLeft(), let listenFD = listener?.fd {
            try? epoll.add(listenFD, events: Epoll.readable, token: Token.listener)
        }
        client.queue.removeAll()
        logger.info(
            "client: disconnected",
            metadata: [
                "client.id": "\(client.id)", "client.pid": "\(client.peer?.pid ?? -1)", "reason": "\(reason)",
                "client.delivered": "\(client.delivered)", "client.dropped": "\(client.queue.droppedTotal)",
            ])
        updateStatus()
    }

    func updateStatus() {
        guard let notifier else { return }
        let status = "\(currentDevices().count) device(s), \(clients.count) client(s)"
        guard status != lastStatus else { return }
        lastStatus = status
        try? notifier.status(status)
    }

    // MARK: Shutdown

    /// Cancels every touch and gesture, flushes the queues for a bounded time, closes everything.
    private func shutdown() {
        try? notifier?.stopping()
        shutdownLiveDevices()
        if var pass = replay {
            let now = Sys.monotonicNanoseconds()
            let messages = pass.shutdown(now: now, reason: "shutdown")
            replay = pass
            dispatch(messages, readAt: now)
        }
        let deadline = Sys.monotonicNanoseconds() + options.shutdownFlushNanoseconds
        let capacity = 16
        let events = UnsafeMutableBufferPointer<epoll_event>.allocate(capacity: capacity)
        defer { events.deallocate() }
        while clients.values.contains(where: \.hasPendingOutput) {
            let now = Sys.monotonicNanoseconds()
            guard now < deadline else {
                logger.notice("daemon: shutdown flush timed out; some clients miss their last messages")
                break
            }
            let timeout = Int32(min(1000, (deadline - now) / 1_000_000 + 1))
            guard let n = try? epoll.wait(into: events, timeoutMilliseconds: timeout) else { break }
            for i in 0..<n {
                let token = events[i].data.u64
                if token >= Token.clientBase, let client = clients[Int(token - Token.clientBase)] {
                    if events[i].events & (EPOLLERR.rawValue | EPOLLHUP.rawValue) != 0 {
                        disconnect(client, reason: "connection closed")
                    } else if events[i].events & EPOLLOUT.rawValue != 0 {
                        flush(client)
                    }
                }
            }
        }
        for client in Array(clients.values) { disconnect(client, reason: "daemon shutdown") }
        if let listener = listener.take() { listener.close() }
        logger.info("daemon: stopped")
    }
}

extension MessageStreams {
    /// The streams a pipeline message belongs to (docs/PROTOCOL.md "Subscribing").
    static func of(_ message: Message) -> MessageStreams {
        switch message {
        case .touches: return .touches
        case .gesture: return .gestures
        case .deviceAdded, .deviceRemoved: return .devices
        // Lost input and recording notes concern every stream of the device.
        case .dropped, .error: return [.touches, .gestures, .devices]
        case .hello, .control: return []
        }
    }
}

extension RequestJSON {
    /// The value as the wire protocol's JSON value (ids are echoed as sent: integers stay integers).
    var wireValue: WireProtocol.JSONValue {
        switch self {
        case .null: return .null
        case .bool(let b): return .bool(b)
        case .number(let n, _):
            if n == n.rounded(), abs(n) < 9e15 { return .int(Int64(n)) }
            return .double(n)
        case .string(let s): return .string(s)
        case .array(let items): return .array(items.map(\.wireValue))
        case .object(let members): return .object(members.sorted { $0.key < $1.key }.map { JSONField($0.key, $0.value.wireValue) })
        }
    }
}

extension Logger.Level {
    /// The swift-log level for a configured `LogLevel` (the two enums name the same seven levels).
    public init(_ level: LogLevel) {
        switch level {
        case .trace: self = .trace
        case .debug: self = .debug
        case .info: self = .info
        case .notice: self = .notice
        case .warning: self = .warning
        case .error: self = .error
        case .critical: self = .critical
        }
    }
}
