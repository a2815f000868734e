import Configuration
import DeviceInput
import Gestures
import Glibc
import Logging
import MultitouchCore
import Publishing
import TouchPipeline
import TouchRouting
import WireProtocol

/// A live evdev device being served: its reader, its pipeline and a reusable read buffer.
final class LiveSlot {
    let device: LiveDevice
    var pipeline: DevicePipeline
    var readings: [DeviceReading] = []

    init(device: LiveDevice, pipeline: DevicePipeline) {
        self.device = device
        self.pipeline = pipeline
        readings.reserveCapacity(256)
    }
}

/// The devices' side of the daemon, owning their state: live devices (discovery and hotplug, reading
/// whole frames through the pipeline, SYN_DROPPED resync, removal with every touch and gesture
/// cancelled), the gesture deadline timer, device ids and per-device statistics, the replay source
/// (a `ReplayDriver`), and the region requests of clients (each pipeline's routing stage). The pipelines' typed
/// output goes out through `sink` (the client hub's fan-out) with the time of the read. Owned by the loop
/// thread.
final class DeviceHost {
    var configuration: DaemonConfiguration
    var logger: Logger
    private let loop: any DeviceLoop
    /// CLOCK_MONOTONIC ns (the clock of the kernel's event times); a virtual clock in tests.
    private let clock: () -> UInt64
    /// Where the pipelines' output goes (whole-device and routed alike, in pipeline order), with the
    /// monotonic ns of the read that produced it.
    var sink: ([PipelineOutput], UInt64) -> Void = { _, _ in }
    /// Sees every batch the devices emit, after the clients' fan-out (the TUIO output, TUIOHook).
    var observer: (([PipelineOutput]) -> Void)?
    /// Called when the set of devices changed (the systemd status line counts them).
    var devicesChanged: () -> Void = {}

    private var liveDevices: [Int: LiveSlot] = [:]
    /// One timer for every live pipeline's gesture deadlines.
    private let deadlineTimer: GestureDeadlineTimer
    private var discovery: DeviceDiscovery?
    private var replay: ReplayDriver?
    private var nextDeviceID = 1
    private let idSource = TouchIDSource()
    /// Frames per device id, for stats (present devices and the last `departedDevicesKept` departed ones).
    private var framesByDevice: [Int: UInt64] = [:]
    private var deviceNames: [Int: String] = [:]

    /// Departed devices whose frame counts `stats` still reports; older ones are forgotten so a daemon
    /// that sees endless hotplug (or a `--loop` replay, a new device id per pass) stays bounded.
    static let departedDevicesKept = 16

    /// - Parameters:
    ///   - loop: where the devices' descriptors are watched and the gesture deadline and replay timers
    ///     armed (gesture deadlines on CLOCK_MONOTONIC, like the kernel's event times).
    ///   - clock: CLOCK_MONOTONIC ns.
    init(
        configuration: DaemonConfiguration, replay: ReplayOptions?, logger: Logger, loop: any DeviceLoop,
        clock: @escaping () -> UInt64 = Sys.monotonicNanoseconds
    ) {
        self.configuration = configuration
        self.logger = logger
        self.loop = loop
        self.clock = clock
        deadlineTimer = GestureDeadlineTimer(loop: loop)
        guard let replay else { return }
        let driver = ReplayDriver(options: replay, loop: loop, clock: clock, logger: logger, idSource: idSource)
        driver.emit = { [unowned self] batch, taken in emit(batch, taken) }
        driver.allocateDevices = { [unowned self] count in
            defer { nextDeviceID += count }
            return nextDeviceID
        }
        driver.pipelinesChanged = { [unowned self] pipelines in
            for pipeline in pipelines {
                if framesByDevice[pipeline.deviceID] == nil {
                    registerDeviceStats(id: pipeline.deviceID, name: pipeline.device.name)
                }
                framesByDevice[pipeline.deviceID] = pipeline.frameCount
            }
        }
        driver.devicesChanged = { [unowned self] in devicesChanged() }
        driver.settings = { [unowned self] in pipelineSettings }
        self.replay = driver
    }

    var pipelineSettings: PipelineSettings { PipelineSettings(gestures: configuration.gestures) }

    /// Devices present now: the replay's, then the live ones by id.
    func currentDevices() -> [DeviceInfo] {
        ((replay?.devices ?? []) + liveDevices.keys.sorted().compactMap { liveDevices[$0]?.pipeline.device })
            .map(PipelineMessages.deviceInfo)
    }

    /// Frame counts of present and recently departed devices, for `stats`.
    func deviceStatistics() -> [DeviceStatistics] {
        let present = Set(currentDevices().map(\.id))
        return framesByDevice.keys.sorted().map { id in
            DeviceStatistics(
                device: id, name: deviceNames[id] ?? "", frames: framesByDevice[id] ?? 0, active: present.contains(id),
                prediction: predictionStatistics(device: id))
        }
    }

    /// A present device's live prediction error, while predictions are on.
    private func predictionStatistics(device: Int) -> PredictionStatistics? {
        let pipeline = liveDevices[device]?.pipeline ?? replay?.withPipeline(device: device) { $0 }
        guard let (horizon, error) = pipeline?.predictionError else { return nil }
        return PredictionStatistics(
            horizonMilliseconds: horizon, count: error.count, meanMillimeters: error.mean,
            maximumMillimeters: error.maximum)
    }

    /// The prediction horizon (ms) subscribed clients asked for; nil when none did.
    private var predictionHorizon: Int?

    /// The clients' prediction horizon changed: every device predicts this far ahead (or not) from now.
    func predictionHorizon(_ horizon: Int?) {
        predictionHorizon = horizon
        for slot in liveDevices.values { slot.pipeline.predict(horizonMilliseconds: horizon) }
        replay?.predict(horizonMilliseconds: horizon)
    }

    /// Replaces a device's cumulative transform; false when there is no such device.
    func setTransform(device: Int, matrix: AffineTransform) -> Bool {
        withPipeline(device) { $0.setTransform(matrix) } != nil
    }

    /// Starts the stats of a new device and forgets the oldest departed ones beyond the bound.
    private func registerDeviceStats(id: Int, name: String) {
        deviceNames[id] = name
        framesByDevice[id] = 0
        let present = Set(currentDevices().map(\.id))
        let departed = framesByDevice.keys.filter { !present.contains($0) }.sorted()
        for old in departed.dropLast(DeviceHost.departedDevicesKept) {
            framesByDevice[old] = nil
            deviceNames[old] = nil
        }
    }

    // MARK: Replay

    /// Starts the replay (if there is one) now, unless it waits for subscribers (`ReplayDriver`).
    func startReplayIfNotWaiting() { replay?.startIfNotWaiting() }

    /// A client subscribed: a replay waiting for `subscribers` starts.
    func clientSubscribed(subscribers: Int) { replay?.clientSubscribed(subscribers: subscribers) }

    /// The replay timer fired.
    func runReplay(stopping: Bool) { replay?.run(stopping: stopping) }

    // MARK: Live devices

    /// Opens every event node present now and starts watching for hotplug (udev, else inotify).
    func startLiveDevices() {
        do {
            let discovery = try DeviceDiscovery()
            try loop.watchHotplug(fd: discovery.fileDescriptor)
            self.discovery = discovery
            logger.info("devices: watching for hotplug", metadata: ["devices.source": "\(discovery.source.rawValue)"])
            for path in discovery.enumerate() { openDevice(path) }
        } catch {
            logger.error("devices: cannot watch for devices; serving none", metadata: ["error": "\(error)"])
        }
        if liveDevices.isEmpty { logger.notice("devices: no touch device found yet; waiting for hotplug") }
    }

    private func openDevice(_ path: String) {
        guard !liveDevices.values.contains(where: { $0.device.path == path }) else { return }
        let matcher = DeviceMatcher(configuration: configuration.devices)
        switch DeviceOpening.open(path: path, matcher: matcher) {
        case .failed(let error):
            // Most of /dev/input is not ours or not readable by us; say why at debug, not as an error.
            logger.debug("devices: cannot open", metadata: ["device.path": "\(path)", "error": "\(error)"])
        case .skipped(let decision):
            logger.debug("devices: not served", metadata: ["device.path": "\(path)", "reason": "\(decision.reason)"])
        case .served(let device, let decision):
            serve(device, decision: decision, path: path)
        }
    }

    private func serve(_ device: LiveDevice, decision: DeviceDecision, path: String) {
        let id = nextDeviceID
        nextDeviceID += 1
        var settings = pipelineSettings
        settings.output = decision.output
        settings.sizeMillimeters = decision.sizeMillimeters
        var pipeline = DevicePipeline(
            deviceID: id, description: device.description, source: path, settings: settings, idSource: idSource,
            logger: logger)
        if let predictionHorizon { pipeline.predict(horizonMilliseconds: predictionHorizon) }
        do {
            try loop.watch(device: id, fd: device.fileDescriptor)
        } catch {
            logger.error("devices: cannot watch device", metadata: ["device.path": "\(path)", "error": "\(error)"])
            return
        }
        liveDevices[id] = LiveSlot(device: device, pipeline: pipeline)
        registerDeviceStats(id: id, name: device.description.name)
        let size = pipeline.device.mapper.sizeMillimeters
        logger.info(
            "devices: serving",
            metadata: [
                "device.id": "\(id)", "device.path": "\(path)", "device.name": "\(device.description.name)",
                "device.grab": "\(decision.grabs)", "reason": "\(decision.reason)",
                // Where the mm scale came from: a device without resolution gets a nominal size (said here).
                "device.size": "\(size.width)x\(size.height) mm (\(pipeline.device.mapper.scaleSource))",
            ])
        emit([.deviceAdded(pipeline.device)], clock())
        devicesChanged()
    }

    /// Drains a readable device: every whole frame goes through the pipeline and out to the clients at
    /// once (the latency histogram measures from here).
    func readDevice(id: Int) {
        guard let slot = liveDevices[id] else { return }
        let readAt = clock()
        slot.readings.removeAll(keepingCapacity: true)
        var removed = false
        do {
            try slot.device.read(into: &slot.readings)
        } catch {
            logger.error("devices: read failed; removing", metadata: ["device.id": "\(id)", "error": "\(error)"])
            removed = true
        }
        var batch: [PipelineOutput] = []
        for reading in slot.readings {
            switch slot.pipeline.push(reading, into: &batch) {
            case .pending:
                break
            case .frame:
                if !batch.isEmpty {
                    emit(batch, readAt)
                    batch.removeAll(keepingCapacity: true)
                }
            case .resynced:
                logger.notice("devices: SYN_DROPPED; resynced from the device state", metadata: ["device.id": "\(id)"])
                emit(batch, readAt)
                batch.removeAll(keepingCapacity: true)
            case .removed:
                removed = true
            }
        }
        if !batch.isEmpty { emit(batch, readAt) }
        framesByDevice[id] = slot.pipeline.frameCount
        if removed { removeDevice(id: id, reason: .unplugged) }
        armDeadlineTimer()
    }

    /// Ends the device: touches and gestures cancelled, then deviceRemoved; nothing else is disturbed.
    private func removeDevice(id: Int, reason: DeviceEndReason) {
        guard let slot = liveDevices.removeValue(forKey: id) else { return }
        loop.unwatch(fd: slot.device.fileDescriptor)
        let now = clock()
        var out: [PipelineOutput] = []
        // The kernel stamps events with CLOCK_MONOTONIC; so does this.
        let time = Timestamp(microseconds: Int64(now / 1000))
        slot.pipeline.end(at: time, reason: reason, into: &out)
        emit(out, now)
        logger.info("devices: removed", metadata: ["device.id": "\(id)", "reason": "\(reason)"])
        devicesChanged()
        armDeadlineTimer()
    }

    /// Hotplug notifications arrived.
    func handleHotplug() {
        guard let discovery else { return }
        let events: [HotplugEvent]
        do {
            events = try discovery.receive()
        } catch {
            logger.error("devices: hotplug read failed", metadata: ["error": "\(error)"])
            return
        }
        for event in events {
            switch event {
            case .added(let path), .changed(let path):
                openDevice(path)
            case .removed(let path):
                if let id = liveDevices.first(where: { $0.value.device.path == path })?.key {
                    removeDevice(id: id, reason: .unplugged)
                }
            }
        }
    }

    // MARK: Deadlines

    /// Arms the deadline timer at the earliest gesture deadline of any live device, or disarms it.
    private func armDeadlineTimer() {
        deadlineTimer.arm(for: liveDevices.values.lazy.map(\.pipeline))
    }

    /// The deadline timer fired: every due gesture timer (the devices' and their regions') fires at its
    /// deadline.
    func fireDeadlines() {
        deadlineTimer.acknowledge()
        let now = clock()
        for slot in liveDevices.values {
            var out: [PipelineOutput] = []
            GestureDeadlineTimer.advanceDue(&slot.pipeline, now: now, into: &out)
            if !out.isEmpty { emit(out, now) }
        }
        armDeadlineTimer()
    }

    // MARK: Output

    /// Sends a batch of pipeline output to the clients, then to the observer (the socket clients'
    /// latency does not include the TUIO sends).
    private func emit(_ batch: [PipelineOutput], _ readAt: UInt64) {
        sink(batch, readAt)
        observer?(batch)
    }

    // MARK: Routing

    /// What a client asks of its regions on a device.
    enum RegionRequest {
        /// `declareRegions`: replace them all (empty: routing off for the device).
        case declare([Region])
        /// `updateRegions`: add or replace some by id, remove others.
        case update([Region], remove: [String])
    }

    /// What a region request did: the client's region ids now in force (empty: not routed any more)
    /// and what the change cancelled (for that client), or why it was refused.
    enum RegionAnswer {
        case inForce([String], [RoutedMessage])
        case rejected(RoutingRequestError)
    }

    /// Applies a client's region request on a device (the device pipeline's routing stage is made on
    /// the first declaration and dropped when no client has regions there any more). Returns nil for a
    /// device that is not present; the answer's messages are for the client only.
    func regions(
        _ request: RegionRequest, client: Int, device: Int, grant: RoutingGrant = .all
    ) -> RegionAnswer? {
        let key = ClientID(UInt64(client))
        let outcome: DeviceRouting.Outcome?? = withPipeline(device) { pipeline in
            if pipeline.routing == nil {
                switch request {
                case .declare(let list) where list.isEmpty:
                    return .inForce([], [])
                case .update(let list, let remove) where list.isEmpty && remove.isEmpty:
                    return .inForce([], [])
                case .declare, .update:
                    pipeline.startRouting()
                }
            }
            return pipeline.withRouting { routing in
                routing.setGrant(grant, for: key)
                switch request {
                case .declare(let list): return routing.replace(client: key, with: list)
                case .update(let list, let remove):
                    return routing.update(client: key, upserting: list, removing: remove)
                }
            }
        }
        guard let found = outcome, let outcome = found else { return nil }
        routingChanged()
        switch outcome {
        case .inForce(let ids, let cancelled):
            return .inForce(ids, messages(cancelled, device: device))
        case .rejected(let error):
            return .rejected(error)
        }
    }

    /// Why a request about one region failed.
    enum RegionFailure: Error {
        /// No such device.
        case unknownDevice
        /// The client has no such region there, or the router refused (the words say which).
        case refused(String)
    }

    /// The client's own recogniser recognised a gesture in its region: what that cancels, to deliver.
    func recognized(client: Int, device: Int, region: String) -> Result<[RoutedMessage], RegionFailure> {
        guard
            let found = withPipeline(
                device,
                { pipeline in
                    pipeline.withRouting { $0.recognized(client: ClientID(UInt64(client)), region: region) }
                })
        else { return .failure(.unknownDevice) }
        guard let cancelled = found ?? nil else {
            return .failure(.refused("no region \"\(region)\" of this client on device \(device)"))
        }
        routingChanged()
        return .success(messages(cancelled, device: device))
    }

    /// Sets (`matrix`) or resets (nil) a region's cumulative transform.
    func setRegionTransform(
        client: Int, device: Int, region: String, matrix: AffineTransform?
    )
        -> Result<AffineTransform, RegionFailure>
    {
        let key = ClientID(UInt64(client))
        guard
            let found = withPipeline(
                device,
                { pipeline in
                    pipeline.withRouting { routing -> DeviceRouting.TransformOutcome? in
                        guard routing.isRouted(key) else { return nil }
                        return routing.setTransform(client: key, region: region, matrix ?? .identity)
                    }
                })
        else { return .failure(.unknownDevice) }
        guard let outcome = found ?? nil else {
            return .failure(.refused("no region \"\(region)\" of this client on device \(device)"))
        }
        switch outcome {
        case .set(let m): return .success(m)
        case .rejected(let error): return .failure(.refused(error.description))
        }
    }

    /// The client disconnected: its regions vanish everywhere.
    func clientGone(_ client: Int) {
        let key = ClientID(UInt64(client))
        for id in liveDevices.keys { _ = withPipeline(id) { $0.withRouting { $0.clientGone(key) } } }
        for id in replay?.pipelines.map(\.deviceID) ?? [] {
            _ = withPipeline(id) { $0.withRouting { $0.clientGone(key) } }
        }
        routingChanged()
    }

    /// Runs `body` on the pipeline of a present device; nil when there is none.
    private func withPipeline<R>(_ device: Int, _ body: (inout DevicePipeline) -> R) -> R? {
        if let slot = liveDevices[device] { return body(&slot.pipeline) }
        return replay?.withPipeline(device: device, body)
    }

    /// A routing stage came, went or has new deadlines: the timers that serve them are armed anew.
    private func routingChanged() {
        armDeadlineTimer()
        replay?.wake()
    }

    /// Routed deliveries of `device` as messages for their clients.
    private func messages(_ deliveries: [RoutingDelivery], device: Int) -> [RoutedMessage] {
        guard !deliveries.isEmpty else { return [] }
        let isSemiMT = withPipeline(device) { $0.gestureSurface.isSemiMT } ?? false
        return PipelineMessages.routedMessages(deliveries, device: device, isSemiMT: isSemiMT)
    }

    // MARK: Shutdown

    /// Every live device's and the replay's touches and gestures end cancelled; devices are removed.
    func shutdown() {
        for id in liveDevices.keys.sorted() { removeDevice(id: id, reason: .shutdown) }
        if let discovery {
            loop.unwatch(fd: discovery.fileDescriptor)
            self.discovery = nil
        }
        if let outputs = replay?.shutdown(), !outputs.isEmpty { emit(outputs, clock()) }
    }
}
