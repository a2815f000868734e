import Configuration
import DeviceInput
import Glibc
import Logging
import MultitouchCore
import Prediction
import Publishing
import TouchPipeline
import TouchRouting
import TouchVocabulary
import WireProtocol

/// What `DeviceHost` reads a served device through: a `LiveDevice` (an evdev node through libevdev),
/// or the scripted device of `FramePathBench`, which measures everything after the read.
protocol DeviceReader: AnyObject {
    /// The node (or the benchmark's name for its device).
    var path: String { get }
    /// The descriptor the loop watches: readable means `read(into:)` has something.
    var fileDescriptor: Int32 { get }
    var description: DeviceDescription { get }
    /// Appends everything pending (`LiveDevice.read(into:)`).
    func read(into out: inout [DeviceReading]) throws(SystemError)
}

extension LiveDevice: DeviceReader {}

/// A device being served: its reader, its pipeline, and the buffers a read reuses (the readings and
/// the pipeline's output: a frame allocates nothing once they have grown to its size).
final class LiveSlot {
    let device: any DeviceReader
    var pipeline: DevicePipeline
    var readings: [DeviceReading] = []
    var outputs: [PipelineOutput] = []

    init(device: any DeviceReader, pipeline: DevicePipeline) {
        self.device = device
        self.pipeline = pipeline
        readings.reserveCapacity(256)
        outputs.reserveCapacity(16)
    }
}

/// The live devices, one job: discovery and hotplug (udev, else inotify), reading whole frames through
/// each device's pipeline, SYN_DROPPED resync, removal with every touch and gesture cancelled, and the
/// one gesture deadline timer of their pipelines. Device ids, touch ids, statistics and the replay are
/// `Devices`'; clients' requests reach a pipeline here through `withPipeline`. The pipelines' typed
/// output goes out through `emit` with the time of the read. Owned by the loop thread.
final class DeviceHost {
    var configuration: DaemonConfiguration
    var logger: Logger
    private let loop: any DeviceLoop
    /// CLOCK_MONOTONIC ns (the clock of the kernel's event times); a virtual clock in tests.
    private let clock: () -> UInt64
    /// Where the pipelines' output goes, with the monotonic ns of the read that produced it.
    var emit: ([PipelineOutput], UInt64) -> Void = { _, _ in }
    /// Called when the set of devices changed (the systemd status line counts them).
    var devicesChanged: () -> Void = {}
    /// A fresh device id.
    var allocateDevice: () -> Int = { 1 }
    /// Who asked for predictions of a device (a new device's pipeline starts with it).
    var predictions: (Int) -> PredictionRequests = { _ in .none }
    /// A device left, with its last frame count (for the statistics of departed devices).
    var departed: (PipelineDevice, UInt64) -> Void = { _, _ in }

    private var liveDevices: [Int: LiveSlot] = [:]
    /// One timer for every live pipeline's gesture deadlines.
    private let deadlineTimer: GestureDeadlineTimer
    private var discovery: DeviceDiscovery?
    private let idSource: TouchIDSource

    /// - Parameters:
    ///   - loop: where the devices' descriptors are watched and the gesture deadline timer armed
    ///     (gesture deadlines on CLOCK_MONOTONIC, like the kernel's event times).
    ///   - clock: CLOCK_MONOTONIC ns.
    ///   - idSource: touch ids shared with every other device of the daemon.
    init(
        configuration: DaemonConfiguration, logger: Logger, loop: any DeviceLoop, idSource: TouchIDSource,
        clock: @escaping () -> UInt64 = Sys.monotonicNanoseconds
    ) {
        self.configuration = configuration
        self.logger = logger
        self.loop = loop
        self.clock = clock
        self.idSource = idSource
        deadlineTimer = GestureDeadlineTimer(loop: loop)
    }

    /// The live devices, by id.
    var devices: [PipelineDevice] { liveDevices.keys.sorted().compactMap { liveDevices[$0]?.pipeline.device } }

    /// Runs `body` on the pipeline of a live device; nil when there is none. Re-arms the deadline timer
    /// (a request may have given a region's engine a deadline).
    func withPipeline<R>(_ device: Int, _ body: (inout DevicePipeline) -> R) -> R? {
        guard let slot = liveDevices[device] else { return nil }
        let result = body(&slot.pipeline)
        armDeadlineTimer()
        return result
    }

    /// Every pipeline reads who asked for predictions anew (a subscription changed).
    func predictionsChanged() {
        for (id, slot) in liveDevices { slot.pipeline.setPredictions(predictions(id)) }
    }

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

    /// Serves an opened device as `decision` says; returns its id, nil when the loop cannot watch it.
    @discardableResult
    func serve(_ device: any DeviceReader, decision: DeviceDecision, path: String) -> Int? {
        let id = allocateDevice()
        var settings = PipelineSettings(gestures: configuration.gestures)
        settings.output = decision.output
        settings.sizeMillimeters = decision.sizeMillimeters
        var pipeline = DevicePipeline(
            deviceID: id, description: device.description, source: path, settings: settings, idSource: idSource,
            logger: logger)
        pipeline.setPredictions(predictions(id))
        do {
            try loop.watch(device: id, fd: device.fileDescriptor)
        } catch {
            logger.error("devices: cannot watch device", metadata: ["device.path": "\(path)", "error": "\(error)"])
            return nil
        }
        liveDevices[id] = LiveSlot(device: device, pipeline: pipeline)
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
        return id
    }

    /// Frames the live device `id` has seen.
    func frameCount(_ id: Int) -> UInt64? { liveDevices[id]?.pipeline.frameCount }

    /// The live device's prediction errors, per horizon.
    func predictionErrors(_ id: Int) -> [(horizonMilliseconds: Int, error: RunningPredictionError)]? {
        liveDevices[id]?.pipeline.predictionErrors
    }

    /// Drains a readable device: every whole frame goes through the pipeline and out to the clients at
    /// once (the latency histogram measures from here). The steady state allocates nothing: the
    /// readings and the output batch are the slot's, reused (docs/PERFORMANCE.md).
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
        // Taken out of the slot while the pipeline appends to it (one owner: no copy on write).
        var batch = slot.outputs
        slot.outputs = []
        batch.removeAll(keepingCapacity: true)
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
        batch.removeAll(keepingCapacity: true)
        slot.outputs = batch
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
        departed(slot.pipeline.device, slot.pipeline.frameCount)
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
    /// Read in place (after every read): a pipeline copied out of its slot costs a retain and a
    /// release of each of its parts.
    private func armDeadlineTimer() {
        var earliest: Timestamp?
        for slot in liveDevices.values {
            guard let deadline = Self.nextDeadline(&slot.pipeline) else { continue }
            earliest = earliest.map { min($0, deadline) } ?? deadline
        }
        deadlineTimer.arm(at: earliest)
    }

    /// The pipeline's next deadline, read through an inout access: a getter called on a class's stored
    /// struct copies the struct first (about 50 retains and as many releases per frame here).
    private static func nextDeadline(_ pipeline: inout DevicePipeline) -> Timestamp? { pipeline.nextDeadline }

    /// The deadline timer fired: every due gesture timer (the devices' and their regions') fires at its
    /// deadline. What the devices queued before `now` is read first: those events carry earlier times
    /// than the timers due now, and a replay of them puts them first (when the loop was slow, the
    /// timer and a device become ready in the same wait, and the timer may come first).
    func fireDeadlines() {
        deadlineTimer.acknowledge()
        let now = clock()
        for id in liveDevices.keys { readDevice(id: id) }
        for slot in liveDevices.values {
            var out: [PipelineOutput] = []
            GestureDeadlineTimer.advanceDue(&slot.pipeline, now: now, into: &out)
            if !out.isEmpty { emit(out, now) }
        }
        armDeadlineTimer()
    }

    // MARK: Shutdown

    /// Every live device's touches and gestures end cancelled; devices are removed; hotplug stops.
    func shutdown() {
        for id in liveDevices.keys.sorted() { removeDevice(id: id, reason: .shutdown) }
        if let discovery {
            loop.unwatch(fd: discovery.fileDescriptor)
            self.discovery = nil
        }
    }
}
