import Configuration
import DeviceInput
import Gestures
import Glibc
import Logging
import MultitouchCore
import TouchPipeline
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
                device: id, name: deviceNames[id] ?? "", frames: framesByDevice[id] ?? 0, active: present.contains(id))
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

    /// Starts the replay now unless it waits for subscribers.
    func startReplayIfNotWaiting() {
        if let replayOptions, replayOptions.waitForSubscribers <= 0 { startReplayPass() }
    }

    /// A client subscribed: a replay waiting for `subscribers` starts.
    func clientSubscribed(subscribers: Int) {
        guard let replayOptions, !replayStarted else { return }
        if subscribers >= replayOptions.waitForSubscribers { startReplayPass() }
    }

    private func startReplayPass() {
        guard let replayOptions else { return }
        replayStarted = true
        let pass = ReplayPass(
            options: replayOptions, firstDeviceID: nextDeviceID, idSource: idSource, settings: pipelineSettings,
            now: Sys.monotonicNanoseconds())
        nextDeviceID += pass.deviceCount
        replay = pass
        for pipeline in pass.pipelines { registerDeviceStats(id: pipeline.deviceID, name: pipeline.info.name) }
        logger.info(
            "replay: starting",
            metadata: ["replay.source": "\(replayOptions.source)", "replay.speed": "\(replayOptions.speed)"])
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
        let next = pass.run(now: now, clock: Sys.monotonicNanoseconds) { batch, taken in sink(batch, taken) }
        for pipeline in pass.pipelines { framesByDevice[pipeline.deviceID] = pipeline.frameCount }
        replay = pass
        if let next {
            replayTimer.arm(at: next)
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
        let pipeline = DevicePipeline(
            deviceID: id, description: device.description, source: path, settings: settings, idSource: idSource,
            logger: logger)
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
                    sink(batch, readAt)
                    batch.removeAll(keepingCapacity: true)
                }
            case .resynced:
                logger.notice("devices: SYN_DROPPED; resynced from the device state", metadata: ["device.id": "\(id)"])
                sink(batch, readAt)
                batch.removeAll(keepingCapacity: true)
            case .removed:
                removed = true
            }
        }
        if !batch.isEmpty { sink(batch, readAt) }
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
        sink(out, now)
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
        let deadline = liveDevices.values.compactMap(\.pipeline.nextDeadline).min()
        deadlineTimer.arm(at: deadline.map { UInt64(max(0, $0.microseconds)) * 1000 })
    }

    /// The deadline timer fired: every due gesture timer fires (the pipeline guarantees each deadline
    /// moves on).
    func fireDeadlines() {
        deadlineTimer.acknowledge()
        let now = Sys.monotonicNanoseconds()
        for slot in liveDevices.values {
            var out: [Message] = []
            while let deadline = slot.pipeline.nextDeadline, UInt64(max(0, deadline.microseconds)) * 1000 <= now {
                slot.pipeline.advance(to: deadline, into: &out)
            }
            if !out.isEmpty { sink(out, now) }
        }
        armDeadlineTimer()
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
            sink(messages, now)
        }
    }
}
