import DeviceInput
import Glibc
import MultitouchCore
import TouchPipeline
import WireProtocol

/// A live evdev device being served: its reader and its pipeline.
final class LiveSlot {
    let device: LiveDevice
    var pipeline: DevicePipeline
    var readings: [DeviceReading] = []
    /// A deadline the engine did not move past when advanced to it (its bug): not re-armed, so the loop
    /// cannot spin on it.
    var stuckDeadline: Timestamp?
    init(device: LiveDevice, pipeline: DevicePipeline) {
        self.device = device
        self.pipeline = pipeline
        readings.reserveCapacity(256)
    }
}

extension Daemon {
    /// Opens every event node present now and starts watching for hotplug.
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
    }

    func openDevice(_ path: String) {
        guard !liveDevices.values.contains(where: { $0.device.path == path }) else { return }
        let device: LiveDevice
        do {
            device = try LiveDevice(path: path)
        } catch {
            // Unreadable nodes (permissions, not evdev) are normal: most of /dev/input is not ours.
            logger.debug("devices: cannot open", metadata: ["device.path": "\(path)", "error": "\(error)"])
            return
        }
        let decision = DeviceMatcher(configuration: configuration.devices).decide(
            path: path, links: DeviceLinks.links(to: path), description: device.description)
        guard decision.serves else {
            logger.debug("devices: not served", metadata: ["device.path": "\(path)", "reason": "\(decision.reason)"])
            return
        }
        if decision.grabs {
            do { try device.grab() } catch {
                logger.warning("devices: grab failed; serving without it", metadata: ["device.path": "\(path)", "error": "\(error)"])
            }
        }
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
        deviceNames[id] = device.description.name
        framesByDevice[id] = 0
        logger.info(
            "devices: serving", metadata: ["device.id": "\(id)", "device.path": "\(path)", "device.name": "\(device.description.name)", "reason": "\(decision.reason)"])
        dispatch([.deviceAdded(pipeline.info)], readAt: Sys.monotonicNanoseconds())
        updateStatus()
    }

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
            switch reading {
            case .event(let event):
                slot.pipeline.push(event, into: &batch)
                if event.isSynReport && !batch.isEmpty {
                    dispatch(batch, readAt: readAt)
                    batch.removeAll(keepingCapacity: true)
                }
            case .resync(let frame, _):
                logger.notice("devices: SYN_DROPPED; resynced", metadata: ["device.id": "\(id)"])
                slot.pipeline.push(resync: frame, into: &batch)
                dispatch(batch, readAt: readAt)
                batch.removeAll(keepingCapacity: true)
            case .removed:
                removed = true
            }
        }
        dispatch(batch, readAt: readAt)
        framesByDevice[id] = slot.pipeline.frameCount
        if removed { removeDevice(id: id, reason: "unplugged") }
        armDeadlineTimer()
    }

    func removeDevice(id: Int, reason: String) {
        guard let slot = liveDevices.removeValue(forKey: id) else { return }
        epoll.remove(slot.device.fileDescriptor)
        let now = Sys.monotonicNanoseconds()
        var out: [Message] = []
        let time = Timestamp(microseconds: Int64(now / 1000))
        slot.pipeline.finish(at: time, into: &out)
        out.append(.deviceRemoved(device: id, time: time, reason: reason))
        dispatch(out, readAt: now)
        logger.info("devices: removed", metadata: ["device.id": "\(id)", "reason": "\(reason)"])
        updateStatus()
    }

    func handleHotplug() {
        guard let discovery else { return }
        let events: [HotplugEvent]
        do { events = try discovery.receive() } catch {
            logger.error("devices: hotplug read failed", metadata: ["error": "\(error)"])
            return
        }
        for event in events {
            switch event {
            case .added(let path), .changed(let path): openDevice(path)
            case .removed(let path):
                if let id = liveDevices.first(where: { $0.value.device.path == path })?.key {
                    removeDevice(id: id, reason: "unplugged")
                }
            }
        }
    }

    /// Live devices stamp events with CLOCK_MONOTONIC, the clock the timerfd runs on.
    func armDeadlineTimer() {
        let deadline = liveDevices.values.compactMap { slot in
            slot.pipeline.nextDeadline.flatMap { $0 == slot.stuckDeadline ? nil : $0 }
        }.min()
        deadlineTimer.arm(at: deadline.map { UInt64(max(0, $0.microseconds)) * 1000 })
    }

    func fireDeadlines() {
        let now = Sys.monotonicNanoseconds()
        for (id, slot) in liveDevices {
            var out: [Message] = []
            var guardCount = 0
            while let deadline = slot.pipeline.nextDeadline, UInt64(max(0, deadline.microseconds)) * 1000 <= now, guardCount < 16 {
                slot.pipeline.advance(to: deadline, into: &out)
                guardCount += 1
                if slot.pipeline.nextDeadline == deadline {
                    slot.stuckDeadline = deadline
                    logger.error("multitouchd bug: gesture deadline did not advance", metadata: ["device.id": "\(id)"])
                    break
                }
            }
            dispatch(out, readAt: now)
            framesByDevice[id] = slot.pipeline.frameCount
        }
        armDeadlineTimer()
    }

    func shutdownLiveDevices() {
        for id in liveDevices.keys.sorted() { removeDevice(id: id, reason: "shutdown") }
    }
}
