import CLinuxSystem
import Configuration
import DeviceInput
import Glibc
import Logging
import MultitouchCore
import Publishing
import TUIOOutput
import TouchPipeline
import TouchRouting
import TouchVocabulary
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

/// The daemon: one thread, one event loop. `run()` turns every wake-up into a `LoopInput` and handles
/// it in one exhaustive switch; the state lives in the rooms that own it: the `EventLoop` (epoll and
/// registrations), the `ClientHub` (coordinating `ClientConnections`, `RequestServer` and `ClientFanOut`)
/// and the `Devices` (live devices in `DeviceHost`, the replay, their pipelines, ids and stats). The
/// daemon itself keeps only signals, reload, the systemd notifier and watchdog, and shutdown.
/// Without input, `epoll_wait` blocks with no timeout: the only periodic wake-up is the watchdog.
///
/// Every message is encoded once and its bytes shared by all client queues (docs/PROTOCOL.md).
public final class Daemon {
    private let options: DaemonOptions
    private var configuration: DaemonConfiguration
    private var logger: Logger

    private let loop: EventLoop
    private let signals: SignalFD
    private var graceTimer: TimerFD
    private var watchdogTimer: TimerFD
    private var listener: ListeningSocket?
    private let watcher: LoopClientWatcher
    /// The clients' side and the devices' side (internal for `FramePathBench`, which serves its
    /// scripted device and socket-pair clients through them).
    let hub: ClientHub
    let devices: Devices
    /// What the last `epoll_wait` reported (reused every turn).
    private var inputs: [LoopInput] = []

    private let notifier = SystemdNotifier.fromEnvironment(unsetEnvironment: true)
    private var lastStatus = ""
    private var stopRequested = false
    private var exitCode: Int32 = 0
    /// The TUIO output of the current configuration (docs/TUIO.md), replaced on reload.
    private var tuio: TUIOBroadcaster?
    /// The `[[tuio.region]]` output (docs/TUIO.md), replaced on reload.
    private var tuioRegions: TUIORegionSender?

    public init(options: DaemonOptions, logger: Logger) throws {
        if let problem = options.replay?.problem { throw ReplayOptionsError(description: problem) }
        self.options = options
        configuration = options.configuration
        self.logger = logger
        loop = try EventLoop()
        signals = try SignalFD(signals: [SIGTERM, SIGINT, SIGHUP])
        graceTimer = try TimerFD()
        watchdogTimer = try TimerFD()
        watcher = LoopClientWatcher(loop: loop)
        hub = ClientHub(
            configuration: options.configuration.clients, daemonVersion: options.daemonVersion, logger: logger,
            watcher: watcher)
        hub.access = options.configuration.access
        devices = Devices(
            configuration: options.configuration, replay: options.replay, logger: logger,
            loop: try EventLoopDevices(loop: loop))
        hub.host = devices
        devices.onClientsChanged = { [unowned self] in updateStatus() }
        hub.closingChanged = { [unowned self] in graceTimer.arm(at: hub.nextCloseDeadline) }
        devices.sink = { [unowned hub] outputs, readAt in hub.dispatch(outputs, readAt: readAt) }
        devices.devicesChanged = { [unowned self] in updateStatus() }
        devices.predictions = { [unowned hub] device in hub.predictionRequests(device: device) }
        devices.replayFinished = { [unowned self] in
            // As SIGTERM: the queues are flushed (bounded) and the connections closed; exit status 0.
            logger.info("daemon: stopping: the replay is done (--exit-when-done)")
            stopRequested = true
        }
        startTUIO()
        // Writes to a vanished client must return EPIPE, not kill the daemon (send uses MSG_NOSIGNAL too).
        Sys.ignoreSignal(SIGPIPE)
    }

    /// Opens the socket and runs until SIGTERM/SIGINT. Returns the exit status.
    /// - Throws: `ListenError` when the socket cannot be set up (another daemon, a non-socket file...).
    public func run() throws -> Int32 {
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
        hub.limitMaximumClientsToDescriptors()
        guard let listenFD = listener?.fd else { return 1 }
        try loop.add(listenFD, .listener)
        try loop.add(signals.fd, .signals)
        try loop.add(graceTimer.fd, .graceTimer)
        try loop.add(watchdogTimer.fd, .watchdogTimer)

        if let interval = notifier?.watchdogPingInterval {
            let ns =
                UInt64(interval.components.seconds) * 1_000_000_000
                + UInt64(interval.components.attoseconds / 1_000_000_000)
            watchdogTimer.arm(at: Sys.monotonicNanoseconds() + ns, interval: ns)
            logger.info("systemd: watchdog enabled", metadata: ["watchdog.interval_ms": "\(ns / 1_000_000)"])
        }
        if !options.noDevices { devices.live.startLiveDevices() }
        devices.startReplayIfNotWaiting()

        try? notifier?.ready()
        updateStatus()
        logger.info("daemon: ready", metadata: ["daemon.version": "\(options.daemonVersion)"])

        while !stopRequested { try turn() }
        shutdown()
        return exitCode
    }

    /// One turn of the loop: what epoll reported, then one more share for each client with request
    /// lines left (round-robin, issue 28), each client's output written once at the end. With lines
    /// left, or `blocking` false, the wait only polls.
    func turn(blocking: Bool = true) throws {
        try loop.wait(into: &inputs, timeoutMilliseconds: blocking && !hub.hasBacklog ? -1 : 0)
        hub.batch {
            for input in inputs { handle(input) }
            hub.serveBacklog()
        }
    }

    // MARK: Dispatch

    /// The one handler of everything the loop reports.
    private func handle(_ input: LoopInput) {
        switch input {
        case .listenerReadable:
            if let fd = listener?.fd { hub.acceptClients(listenFD: fd) }
        case .signal:
            handleSignals()
        case .replayDue:
            devices.runReplay(stopping: stopRequested)
        case .graceDue:
            graceTimer.acknowledge()
            hub.closeExpiredClients()
        case .watchdogDue:
            watchdogTimer.drain()
            try? notifier?.watchdogPing()
        case .devicesChanged:
            devices.live.handleHotplug()
        case .deadlineDue:
            devices.live.fireDeadlines()
        case .deviceReadable(let id):
            devices.live.readDevice(id: id)
        case .client(let id, let readable, let writable, let hangUp):
            hub.handle(client: id, readable: readable, writable: writable, hangUp: hangUp)
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
        if fresh.tuio.regions != old.tuio.regions {
            // The devices' pipelines hold the regions they were made with: new ones, a move or a
            // new target need the devices made again.
            logger.warning("config: [[tuio.region]] changes take effect after a restart")
            configuration.tuio.regions = old.tuio.regions
        }
        logger.logLevel = Logger.Level(fresh.logLevel)
        hub.configuration = configuration.clients
        hub.access = configuration.access
        hub.limitMaximumClientsToDescriptors()
        hub.logLevel = logger.logLevel
        devices.configuration = configuration
        devices.live.logger.logLevel = logger.logLevel
        if configuration.tuio != old.tuio { startTUIO() }
        logger.info(
            "config: reloaded",
            metadata: [
                "clients.soft_queue_limit": "\(fresh.clients.softQueueLimit)",
                "clients.hard_queue_limit_bytes": "\(fresh.clients.hardQueueLimitBytes)",
            ])
    }

    /// (Re)starts the TUIO output from `configuration.tuio`; the old one (if any) reports and closes.
    private func startTUIO() {
        if let tuio { TUIOHook.summary(tuio, logger: logger) }
        if let tuioRegions { TUIOHook.summary(tuioRegions, logger: logger) }
        tuio = TUIOHook.start(configuration.tuio, devices: devices, logger: logger)
        tuioRegions = TUIOHook.startRegions(configuration.tuio, logger: logger)
        switch (tuio, tuioRegions) {
        case (nil, nil): devices.observer = nil
        case (let whole?, nil): devices.observer = { whole.observe($0) }
        case (nil, let regions?): devices.observer = { regions.observe($0) }
        case (let whole?, let regions?):
            devices.observer = {
                whole.observe($0)
                regions.observe($0)
            }
        }
    }

    private func updateStatus() {
        guard let notifier else { return }
        let status = "\(devices.currentDevices().count) device(s), \(hub.clientCount) client(s)"
        guard status != lastStatus else { return }
        lastStatus = status
        try? notifier.status(status)
    }

    // MARK: Shutdown

    /// Cancels every touch and gesture, flushes the queues for a bounded time, closes everything.
    private func shutdown() {
        try? notifier?.stopping()
        devices.shutdown()
        hub.batch { hub.deliverHeldFrames() }
        if let tuio { TUIOHook.summary(tuio, logger: logger) }
        if let tuioRegions { TUIOHook.summary(tuioRegions, logger: logger) }
        let deadline = Sys.monotonicNanoseconds() + options.shutdownFlushNanoseconds
        while hub.hasPendingOutput {
            let now = Sys.monotonicNanoseconds()
            guard now < deadline else {
                logger.notice("daemon: shutdown flush timed out; some clients miss their last messages")
                break
            }
            let timeout = Int32(min(1000, (deadline - now) / 1_000_000 + 1))
            guard let inputs = try? loop.wait(timeoutMilliseconds: timeout) else { break }
            for input in inputs {
                // Only the clients' output matters now.
                if case .client(let id, _, let writable, let hangUp) = input {
                    hub.handle(client: id, readable: false, writable: writable, hangUp: hangUp)
                }
            }
        }
        hub.disconnectAll(reason: "daemon shutdown")
        if let listener = listener.take() { listener.close() }
        logger.info("daemon: stopped")
    }
}

/// Client sockets watched through the daemon's event loop.
final class LoopClientWatcher: ClientSocketWatcher {
    private unowned let loop: EventLoop

    init(loop: EventLoop) { self.loop = loop }

    func watch(client id: Int, fd: Int32) throws(SystemError) { try loop.add(fd, .client(id)) }
    func update(fd: Int32, readable: Bool, writable: Bool) { loop.modify(fd, readable: readable, writable: writable) }
    func unwatch(fd: Int32) { loop.remove(fd) }
    func watchListener(fd: Int32) { try? loop.add(fd, .listener) }
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
