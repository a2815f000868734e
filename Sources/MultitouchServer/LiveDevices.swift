import DeviceInput
import Glibc
import Logging
import MultitouchCore
import TouchPipeline
import WireProtocol

/// A live evdev device being served: its reader, its pipeline and a reusable read buffer. Owned by the
/// daemon's loop thread.
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

/// Live devices in the event loop: discovery and hotplug, reading whole frames into the same pipeline a
/// replay uses, SYN_DROPPED resync, removal (every touch and gesture cancelled, then deviceRemoved), and
/// the gesture deadline timer.
extension Daemon {
    /// Opens every event node present now and starts watching for hotplug (udev, else inotify).
    func startLiveDevices() {
        do {
            let discovery = try DeviceDiscovery()
            try epoll.add(discovery.fileDescriptor, events: Epoll.readable, token: Token.discovery)
            self.discovery = discovery
            logger.info("devices: watching for hotplug", metadata: ["devices.source": "\(discovery.source.rawValue)"])
            for path in discovery.enumerate() { openDevice(path) }
        } catch {
            logger.error("devices: cannot watch for devices; serving none", metadata: ["error": "\(error)"])
        }
        if liveDevices.isEmpty { logger.notice("devices: no touch device found yet; waiting for hotplug") }
    }

    func openDevice(_ path: String) {
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
            deviceID: id, description: device.description, source: path, settings: settings, idSource: idSource)
        do {
            try epoll.add(device.fileDescriptor, events: Epoll.readable, token: Token.deviceBase + UInt64(id))
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
        dispatch([.deviceAdded(pipeline.info)], readAt: Sys.monotonicNanoseconds())
        updateStatus()
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
                    dispatch(batch, readAt: readAt)
                    batch.removeAll(keepingCapacity: true)
                }
            case .resynced:
                logger.notice("devices: SYN_DROPPED; resynced from the device state", metadata: ["device.id": "\(id)"])
                dispatch(batch, readAt: readAt)
                batch.removeAll(keepingCapacity: true)
            case .removed:
                removed = true
            }
        }
        if !batch.isEmpty { dispatch(batch, readAt: readAt) }
        framesByDevice[id] = slot.pipeline.frameCount
        if removed { removeDevice(id: id, reason: "unplugged") }
        armDeadlineTimer()
    }

    /// Ends the device: touches and gestures cancelled, then deviceRemoved; nothing else is disturbed.
    func removeDevice(id: Int, reason: String) {
        guard let slot = liveDevices.removeValue(forKey: id) else { return }
        epoll.remove(slot.device.fileDescriptor)
        let now = Sys.monotonicNanoseconds()
        var out: [Message] = []
        // The kernel stamps events with CLOCK_MONOTONIC; so does this.
        let time = Timestamp(microseconds: Int64(now / 1000))
        slot.pipeline.finish(at: time, into: &out)
        out.append(.deviceRemoved(DeviceRemovedMessage(device: id, time: time, reason: reason)))
        dispatch(out, readAt: now)
        logger.info("devices: removed", metadata: ["device.id": "\(id)", "reason": "\(reason)"])
        updateStatus()
        armDeadlineTimer()
    }

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

    /// Arms the timerfd at the earliest gesture deadline of any live device (absolute CLOCK_MONOTONIC,
    /// the clock of the kernel's event times), or disarms it.
    func armDeadlineTimer() {
        let deadline = liveDevices.values.compactMap(\.pipeline.nextDeadline).min()
        deadlineTimer.arm(at: deadline.map { UInt64(max(0, $0.microseconds)) * 1000 })
    }

    /// Fires every gesture timer that is due (the pipeline guarantees each deadline moves on).
    func fireDeadlines() {
        let now = Sys.monotonicNanoseconds()
        for slot in liveDevices.values {
            var out: [Message] = []
            while let deadline = slot.pipeline.nextDeadline, UInt64(max(0, deadline.microseconds)) * 1000 <= now {
                slot.pipeline.advance(to: deadline, into: &out)
            }
            if !out.isEmpty { dispatch(out, readAt: now) }
        }
        armDeadlineTimer()
    }

    /// Daemon shutdown: every live device's touches and gestures end cancelled.
    func shutdownLiveDevices() {
        for id in liveDevices.keys.sorted() { removeDevice(id: id, reason: "shutdown") }
        if let discovery {
            epoll.remove(discovery.fileDescriptor)
            self.discovery = nil
        }
    }
}
