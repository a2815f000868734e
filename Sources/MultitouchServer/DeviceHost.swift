import Configuration
import DeviceInput
import Gestures
import Glibc
import Logging
import MultitouchCore
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
/// cancelled), the replay source and its pacing, the gesture deadline timer, device ids and per-device
/// statistics. Messages go out through `sink` (the client hub's fan-out) with the time of the read.
/// Owned by the loop thread.
final class DeviceHost {
    var configuration: DaemonConfiguration
    var logger: Logger
    private let replayOptions: ReplayOptions?
    private unowned let loop: EventLoop
    /// Where pipeline messages go, with the monotonic ns of the read that produced them.
    var sink: ([Message], UInt64) -> Void = { _, _ in }
    /// Where pipeline messages go, each already encoded, when some of them are routed: the whole-device
    /// messages for every subscriber (a routed connection skips its routed devices' ones) in pipeline
    /// order, each region's messages for its client right after the frame that caused them.
    var outboundSink: ([OutboundMessage], UInt64) -> Void = { _, _ in }
    /// Sees every batch the devices emit, whole-device messages only (the TUIO output, TUIOHook).
    var observer: (([Message]) -> Void)?
    /// Called when the set of devices changed (the systemd status line counts them).
    var devicesChanged: () -> Void = {}

    /// Gesture deadlines of live devices (tap, long press, churn debounce), on CLOCK_MONOTONIC like the
    /// kernel's event times.
    private var deadlineTimer: TimerFD
    private var replayTimer: TimerFD
    private var liveDevices: [Int: LiveSlot] = [:]
    private var discovery: DeviceDiscovery?
    private var replay: ReplayPass?
    private var replayStarted = false
    private var nextDeviceID = 1
    private let idSource = TouchIDSource()
    /// Frames per device id, for stats (present devices and the last `departedDevicesKept` departed ones).
    private var framesByDevice: [Int: UInt64] = [:]
    private var deviceNames: [Int: String] = [:]
    /// Touch routing of the devices on which some client declared regions (issue 12). A device without
    /// an entry is served exactly as before routing existed.
    private var routings: [Int: DeviceRouting] = [:]

    /// Departed devices whose frame counts `stats` still reports; older ones are forgotten so a daemon
    /// that sees endless hotplug (or a `--loop` replay, a new device id per pass) stays bounded.
    static let departedDevicesKept = 16

    init(
        configuration: DaemonConfiguration, replay: ReplayOptions?, logger: Logger, loop: EventLoop
    ) throws(SystemError) {
        self.configuration = configuration
        replayOptions = replay
        self.logger = logger
        self.loop = loop
        deadlineTimer = try TimerFD()
        replayTimer = try TimerFD()
        try loop.add(deadlineTimer.fd, .deadlineTimer)
        try loop.add(replayTimer.fd, .replayTimer)
    }

    var pipelineSettings: PipelineSettings { PipelineSettings(gestures: configuration.gestures) }

    /// Devices present now: the replay's, then the live ones by id.
    func currentDevices() -> [DeviceInfo] {
        (replay?.deviceInfos ?? []) + liveDevices.keys.sorted().compactMap { liveDevices[$0]?.pipeline.info }
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
        let pipeline = liveDevices[device]?.pipeline ?? replay?.pipelines.first { $0.deviceID == device }
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
        if var pass = replay {
            pass.predict(horizonMilliseconds: horizon)
            replay = pass
        }
    }

    /// Replaces a device's cumulative transform; false when there is no such device.
    func setTransform(device: Int, matrix: AffineTransform) -> Bool {
        if let slot = liveDevices[device] {
            slot.pipeline.setTransform(matrix)
            return true
        }
        if var pass = replay, let index = pass.pipelines.firstIndex(where: { $0.deviceID == device }) {
            pass.setTransform(index: index, matrix)
            replay = pass
            return true
        }
        return false
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

    /// Starts the replay now unless it waits for subscribers; a waiting replay's devices are announced
    /// now, so they are in every client's hello (as a live device present at connect is, with no
    /// `deviceAdded` after it) and accept regions before the first frame plays.
    func startReplayIfNotWaiting() {
        guard let replayOptions else { return }
        if replayOptions.waitForSubscribers <= 0 {
            startReplayPass()
        } else {
            var pass = makeReplayPass(replayOptions)
            emit(pass.announceDevices(), Sys.monotonicNanoseconds())
            replay = pass
            devicesChanged()
        }
    }

    /// A client subscribed: a replay waiting for `subscribers` starts.
    func clientSubscribed(subscribers: Int) {
        guard let replayOptions, !replayStarted else { return }
        guard subscribers >= replayOptions.waitForSubscribers else { return }
        if var pass = replay {
            // Announced while waiting: its pacing starts now.
            pass.start(now: Sys.monotonicNanoseconds())
            replay = pass
            replayStarted = true
            logStart(replayOptions)
            replayTimer.arm(at: Sys.monotonicNanoseconds())
        } else {
            startReplayPass()
        }
    }

    /// A new pass over the recording (fresh device ids), registered for stats, not yet run.
    private func makeReplayPass(_ replayOptions: ReplayOptions) -> ReplayPass {
        var pass = ReplayPass(
            options: replayOptions, firstDeviceID: nextDeviceID, idSource: idSource, settings: pipelineSettings,
            now: Sys.monotonicNanoseconds())
        if let predictionHorizon { pass.predict(horizonMilliseconds: predictionHorizon) }
        nextDeviceID += pass.deviceCount
        replay = pass
        for pipeline in pass.pipelines { registerDeviceStats(id: pipeline.deviceID, name: pipeline.info.name) }
        return pass
    }

    private func logStart(_ replayOptions: ReplayOptions) {
        logger.info(
            "replay: starting",
            metadata: ["replay.source": "\(replayOptions.source)", "replay.speed": "\(replayOptions.speed)"])
    }

    private func startReplayPass() {
        guard let replayOptions else { return }
        replayStarted = true
        replay = makeReplayPass(replayOptions)
        logStart(replayOptions)
        // The pass runs from the event loop, never from here: a `--loop` pass that takes no time then
        // starts the next one on the next turn of the loop (serving clients and signals in between)
        // instead of recursing.
        replayTimer.arm(at: Sys.monotonicNanoseconds())
    }

    /// The replay timer fired: takes the steps that are due and arms the timer for the next one.
    func runReplay(stopping: Bool) {
        replayTimer.acknowledge()
        guard var pass = replay else { return }
        let now = Sys.monotonicNanoseconds()
        let next = pass.run(now: now, clock: Sys.monotonicNanoseconds) { batch, taken in emit(batch, taken) }
        for pipeline in pass.pipelines { framesByDevice[pipeline.deviceID] = pipeline.frameCount }
        // The regions' gesture timers of the replay's devices, in recording time, once every step due
        // now is taken (a burst cut short comes back at once; its frames fire the timers before them).
        var routingNext: UInt64?
        if !routings.isEmpty {
            let caughtUp = next.map { $0 > now } ?? true
            for id in pass.pipelines.map(\.deviceID) where routings.index(forKey: id) != nil {
                var rounds = 0
                while caughtUp, rounds < 1000, let deadline = routings[id]?.nextDeadline, pass.playTime(deadline) <= now
                {
                    emitRouted(routings[id]?.advance(to: deadline) ?? [], now)
                    rounds += 1
                }
                if let deadline = routings[id]?.nextDeadline {
                    let due = max(pass.playTime(deadline), now + 1)
                    routingNext = min(routingNext ?? due, due)
                }
            }
        }
        replay = pass
        if let next {
            replayTimer.arm(at: min(next, routingNext ?? next))
            return
        }
        devicesChanged()
        if replayOptions?.loop == true && !stopping {
            startReplayPass()
        } else {
            replay = nil
            logger.info("replay: finished")
        }
    }

    // MARK: Live devices

    /// Opens every event node present now and starts watching for hotplug (udev, else inotify).
    func startLiveDevices() {
        do {
            let discovery = try DeviceDiscovery()
            try loop.add(discovery.fileDescriptor, .hotplug)
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
            try loop.add(device.fileDescriptor, .device(id))
        } catch {
            logger.error("devices: cannot watch device", metadata: ["device.path": "\(path)", "error": "\(error)"])
            return
        }
        liveDevices[id] = LiveSlot(device: device, pipeline: pipeline)
        registerDeviceStats(id: id, name: device.description.name)
        logger.info(
            "devices: serving",
            metadata: [
                "device.id": "\(id)", "device.path": "\(path)", "device.name": "\(device.description.name)",
                "device.grab": "\(decision.grabs)", "reason": "\(decision.reason)",
            ])
        sink([.deviceAdded(pipeline.info)], Sys.monotonicNanoseconds())
        devicesChanged()
    }

    /// Drains a readable device: every whole frame goes through the pipeline and out to the clients at
    /// once (the latency histogram measures from here).
    func readDevice(id: Int) {
        guard let slot = liveDevices[id] else { return }
        let readAt = Sys.monotonicNanoseconds()
        slot.readings.removeAll(keepingCapacity: true)
        var removed = false
        do {
            try slot.device.read(into: &slot.readings)
        } catch {
            logger.error("devices: read failed; removing", metadata: ["device.id": "\(id)", "error": "\(error)"])
            removed = true
        }
        var batch: [Message] = []
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
        if removed { removeDevice(id: id, reason: "unplugged") }
        armDeadlineTimer()
    }

    /// Ends the device: touches and gestures cancelled, then deviceRemoved; nothing else is disturbed.
    private func removeDevice(id: Int, reason: String) {
        guard let slot = liveDevices.removeValue(forKey: id) else { return }
        loop.remove(slot.device.fileDescriptor)
        let now = Sys.monotonicNanoseconds()
        var out: [Message] = []
        // The kernel stamps events with CLOCK_MONOTONIC; so does this.
        let time = Timestamp(microseconds: Int64(now / 1000))
        slot.pipeline.finish(at: time, into: &out)
        out.append(.deviceRemoved(DeviceRemovedMessage(device: id, time: time, reason: reason)))
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
                    removeDevice(id: id, reason: "unplugged")
                }
            }
        }
    }

    // MARK: Deadlines

    /// Arms the timerfd at the earliest gesture deadline of any live device (absolute CLOCK_MONOTONIC,
    /// the clock of the kernel's event times), or disarms it.
    private func armDeadlineTimer() {
        var deadlines = liveDevices.values.compactMap(\.pipeline.nextDeadline)
        for id in liveDevices.keys { if let d = routings[id]?.nextDeadline { deadlines.append(d) } }
        let deadline = deadlines.min()
        deadlineTimer.arm(at: deadline.map { UInt64(max(0, $0.microseconds)) * 1000 })
    }

    /// The deadline timer fired: every due gesture timer fires (the pipeline guarantees each deadline
    /// moves on).
    func fireDeadlines() {
        deadlineTimer.acknowledge()
        let now = Sys.monotonicNanoseconds()
        for (id, slot) in liveDevices {
            var out: [Message] = []
            while let deadline = slot.pipeline.nextDeadline, UInt64(max(0, deadline.microseconds)) * 1000 <= now {
                slot.pipeline.advance(to: deadline, into: &out)
            }
            if !out.isEmpty { emit(out, now) }
            if routings.index(forKey: id) != nil {
                emitRouted(routings[id]?.advance(to: Timestamp(microseconds: Int64(now / 1000))) ?? [], now)
            }
        }
        armDeadlineTimer()
    }

    // MARK: Routing

    /// Sends a batch of pipeline messages: straight to `sink` when no device is routed (the path every
    /// connection without regions always took), else through the routed devices' `DeviceRouting`.
    private func emit(_ batch: [Message], _ readAt: UInt64) {
        // The whole-device messages as sent, for the TUIO output, when an exclusive region withheld some.
        var shownBatch: [Message] = []
        var withheld = false
        // After the clients' fan-out: the socket clients' latency does not include the TUIO sends.
        defer { observer?(withheld ? shownBatch : batch) }
        guard !routings.isEmpty else {
            sink(batch, readAt)
            return
        }
        var out: [OutboundMessage] = []
        out.reserveCapacity(batch.count * 2)
        // Predictions reach only the whole-device stream of devices nobody routes (docs/PREDICTION.md).
        let batch = predictionHorizon == nil ? batch : batch.map(\.withoutPredictions)
        for message in batch {
            guard let device = message.device, routings.index(forKey: device) != nil else {
                out.append(OutboundMessage(message))
                shownBatch.append(message)
                continue
            }
            // In place (`routings[device]?`): a copy of the router would copy every region's engine.
            let routed = routings[device]?.observe(message) ?? []
            if case .deviceRemoved = message {
                // Everything the device's regions had open ends before the device does.
                routings[device] = nil
                Self.append(routed, to: &out)
                out.append(OutboundMessage(message))
                shownBatch.append(message)
            } else {
                // The whole-device stream (and the TUIO output) leaves out what exclusive regions hold
                // (docs/SECURITY.md).
                let shown = routings[device]?.wholeDevice(message)
                if let shown {
                    out.append(OutboundMessage(shown))
                    shownBatch.append(shown)
                }
                if shown != message { withheld = true }
                Self.append(routed, to: &out)
                // Kept past its regions' clients while it hides an exclusive touch; dropped once that ends.
                if case .touches = message, routings[device]?.isIdle == true { routings[device] = nil }
            }
        }
        outboundSink(out, readAt)
    }

    private func emitRouted(_ routed: [RoutedMessage], _ readAt: UInt64) {
        guard !routed.isEmpty else { return }
        var out: [OutboundMessage] = []
        Self.append(routed, to: &out)
        outboundSink(out, readAt)
    }

    static func append(_ routed: [RoutedMessage], to out: inout [OutboundMessage]) {
        for r in routed {
            out.append(OutboundMessage(r.message, client: Int(truncatingIfNeeded: r.client.rawValue), region: r.region))
        }
    }

    /// What a client asks of its regions on a device.
    enum RegionRequest {
        /// `declareRegions`: replace them all (empty: routing off for the device).
        case declare([Region])
        /// `updateRegions`: add or replace some by id, remove others.
        case update([Region], remove: [String])
    }

    /// Applies a client's region request on a device (the device's router is made on the first
    /// declaration and dropped when no client has regions there any more). Returns nil for a device
    /// that is not present; the outcome's messages are for the client only.
    func regions(
        _ request: RegionRequest, client: Int, device: Int, grant: RoutingGrant = .all
    ) -> DeviceRouting.Outcome? {
        guard currentDevices().contains(where: { $0.id == device }) else { return nil }
        let key = ClientID(UInt64(client))
        if routings.index(forKey: device) == nil {
            switch request {
            case .declare(let list) where list.isEmpty:
                return .inForce([], [])
            case .update(let list, let remove) where list.isEmpty && remove.isEmpty:
                return .inForce([], [])
            case .declare, .update:
                break
            }
            guard let pipeline = pipeline(of: device) else { return nil }
            routings[device] = DeviceRouting(
                device: device, surface: pipeline.gestureSurface, gestures: pipeline.gestureConfiguration)
        }
        routings[device]?.setGrant(grant, for: key)
        let outcome: DeviceRouting.Outcome?
        switch request {
        case .declare(let list):
            outcome = routings[device]?.replace(client: key, with: list)
        case .update(let list, let remove):
            outcome = routings[device]?.update(client: key, upserting: list, removing: remove)
        }
        dropIdleRouting(device)
        armDeadlineTimer()
        return outcome
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
        guard currentDevices().contains(where: { $0.id == device }) else { return .failure(.unknownDevice) }
        guard let routed = routings[device]?.recognized(client: ClientID(UInt64(client)), region: region) else {
            return .failure(.refused("no region \"\(region)\" of this client on device \(device)"))
        }
        armDeadlineTimer()
        return .success(routed)
    }

    /// Sets (`matrix`) or resets (nil) a region's cumulative transform.
    func setRegionTransform(
        client: Int, device: Int, region: String, matrix: AffineTransform?
    )
        -> Result<AffineTransform, RegionFailure>
    {
        guard currentDevices().contains(where: { $0.id == device }) else { return .failure(.unknownDevice) }
        let key = ClientID(UInt64(client))
        guard routings[device]?.isRouted(key) == true,
            let outcome = routings[device]?.setTransform(client: key, region: region, matrix ?? .identity)
        else {
            return .failure(.refused("no region \"\(region)\" of this client on device \(device)"))
        }
        switch outcome {
        case .set(let m): return .success(m)
        case .rejected(let error): return .failure(.refused(error.description))
        }
    }

    /// The client disconnected: its regions vanish everywhere.
    func clientGone(_ client: Int) {
        guard !routings.isEmpty else { return }
        for device in Array(routings.keys) {
            routings[device]?.clientGone(ClientID(UInt64(client)))
            dropIdleRouting(device)
        }
        armDeadlineTimer()
    }

    /// A device on which no client has regions any more is served without a router again.
    private func dropIdleRouting(_ device: Int) {
        if let routing = routings[device], routing.isIdle { routings[device] = nil }
    }

    private func pipeline(of device: Int) -> DevicePipeline? {
        if let slot = liveDevices[device] { return slot.pipeline }
        return replay?.pipelines.first { $0.deviceID == device }
    }

    // MARK: Shutdown

    /// Every live device's and the replay's touches and gestures end cancelled; devices are removed.
    func shutdown() {
        for id in liveDevices.keys.sorted() { removeDevice(id: id, reason: "shutdown") }
        if let discovery {
            loop.remove(discovery.fileDescriptor)
            self.discovery = nil
        }
        if var pass = replay {
            let now = Sys.monotonicNanoseconds()
            let messages = pass.shutdown(now: now, reason: "shutdown")
            replay = pass
            emit(messages, now)
        }
    }
}
