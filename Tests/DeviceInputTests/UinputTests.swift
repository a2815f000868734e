import Configuration
import Glibc
import MultitouchCore
import SystemCalls
import Testing

@testable import DeviceInput

// These need /dev/uinput: they are skipped (reported as skipped, not passed) on a host without it and
// run on a real kernel in the guest (checks/guest/run-checks.sh runs this bundle there).

/// Waits (bounded) until `device` has something to read; the kernel delivers uinput writes
/// synchronously, so this only guards against a missing event, never against timing.
func waitReadable(_ device: LiveDevice, milliseconds: Int32 = 2000) -> Bool {
    var pfd = pollfd(fd: device.fileDescriptor, events: Int16(POLLIN), revents: 0)
    return poll(&pfd, 1, milliseconds) > 0
}

func events(_ readings: [DeviceReading]) -> [InputEvent] {
    readings.compactMap {
        if case .event(let event) = $0 { return event }
        return nil
    }
}

@Suite(.serialized, .enabled(if: VirtualDevice.isAvailable, "needs /dev/uinput (runs in the guest)"))
struct UinputTests {
    @Test func liveDescriptionEqualsTheCreatedOne() throws {
        let created = touchscreenDescription(name: "uinput describe test")
        let virtual = try VirtualDevice(description: created)
        let node = try #require(virtual.devnode)
        let live = try LiveDevice(path: node)
        #expect(live.description.name == created.name)
        #expect(live.description.identity == created.identity)
        #expect(live.description.properties == created.properties)
        #expect(live.description.axes == created.axes)
        #expect(live.description.codes[EventType.key] == created.codes[EventType.key])
        #expect(live.description.deviceClass == .touchscreen)
        // The whole description, as a recording reader would produce it for this device.
        var expected = created
        expected.codes[EventType.syn] = Set(0...EventType.maxCode(for: EventType.syn))
        #expect(live.description == expected)
    }

    @Test func readsFramesWithMonotonicTimestamps() throws {
        let virtual = try VirtualDevice(description: touchscreenDescription(name: "uinput read test"))
        let live = try LiveDevice(path: try #require(virtual.devnode))
        #expect(try live.read().isEmpty)
        try virtual.write(frame: [
            (EventType.abs, AbsCode.mtTrackingID, 5), (EventType.abs, AbsCode.mtPositionX, 100),
            (EventType.abs, AbsCode.mtPositionY, 200), (EventType.key, KeyCode.btnTouch, 1),
        ])
        try virtual.write(frame: [(EventType.abs, AbsCode.mtPositionX, 110)])
        #expect(waitReadable(live))
        let got = events(try live.read())
        let codes = got.map { [$0.type, $0.code] }
        #expect(
            codes == [
                [EventType.abs, AbsCode.mtTrackingID], [EventType.abs, AbsCode.mtPositionX],
                [EventType.abs, AbsCode.mtPositionY],
                [EventType.key, KeyCode.btnTouch], [EventType.syn, SynCode.report],
                [EventType.abs, AbsCode.mtPositionX], [EventType.syn, SynCode.report],
            ])
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let monotonic = Timestamp(seconds: Int64(now.tv_sec), microseconds: Int64(now.tv_nsec / 1000))
        let first = try #require(got.first)
        // CLOCK_MONOTONIC, not CLOCK_REALTIME: the event time is before now and within this boot.
        #expect(first.time <= monotonic)
        #expect(first.time.microseconds > 0)
        #expect(monotonic.microseconds - first.time.microseconds < 600_000_000)
    }

    @Test func anOverflowIsReportedAsOneResyncFrameThatEndsTheLostTouch() throws {
        let virtual = try VirtualDevice(description: touchscreenDescription(name: "uinput overflow test"))
        let live = try LiveDevice(path: try #require(virtual.devnode))
        try virtual.write(frame: [
            (EventType.abs, AbsCode.mtTrackingID, 1), (EventType.abs, AbsCode.mtPositionX, 10),
            (EventType.abs, AbsCode.mtPositionY, 10), (EventType.key, KeyCode.btnTouch, 1),
        ])
        #expect(waitReadable(live))
        #expect(events(try live.read()).count == 5)
        // Far more frames than the evdev client buffer holds, then the finger lifts unseen.
        for i in 0..<2000 { try virtual.write(frame: [(EventType.abs, AbsCode.mtPositionX, Int32(11 + i % 1000))]) }
        try virtual.write(frame: [(EventType.abs, AbsCode.mtTrackingID, -1), (EventType.key, KeyCode.btnTouch, 0)])
        #expect(waitReadable(live))
        let readings = try live.read()
        let resyncs = readings.compactMap { reading -> EventFrame? in
            if case .resync(let frame, _) = reading { return frame }
            return nil
        }
        #expect(resyncs.count == 1)
        #expect(live.droppedCount == 1)
        let frame = try #require(resyncs.first)
        #expect(frame.isResync)
        #expect(frame.events.contains { $0.type == EventType.abs && $0.code == AbsCode.mtTrackingID && $0.value == -1 })
        #expect(frame.events.contains { $0.type == EventType.key && $0.code == KeyCode.btnTouch && $0.value == 0 })
        #expect(!readings.contains(.removed))
    }

    @Test func destroyingTheDeviceReportsRemoval() throws {
        let virtual = try VirtualDevice(description: touchscreenDescription(name: "uinput removal test"))
        let live = try LiveDevice(path: try #require(virtual.devnode))
        virtual.destroy()
        #expect(waitReadable(live))
        let readings = try live.read()
        #expect(readings.last == .removed)
        #expect(live.isRemoved)
        #expect(try live.read().isEmpty)
    }

    @Test func aGrabbedDeviceIsNotSeenByASecondReader() throws {
        let virtual = try VirtualDevice(description: touchscreenDescription(name: "uinput grab test"))
        let node = try #require(virtual.devnode)
        let grabber = try LiveDevice(path: node, grab: true)
        let other = try LiveDevice(path: node)
        #expect(grabber.isGrabbed)
        #expect {
            try other.grab()
        } throws: { error in
            (error as? SystemError)?.kind == .busy
        }
        try virtual.write(frame: [(EventType.abs, AbsCode.mtTrackingID, 3), (EventType.key, KeyCode.btnTouch, 1)])
        #expect(waitReadable(grabber))
        #expect(events(try grabber.read()).count == 3)
        #expect(try other.read().isEmpty)
        try grabber.ungrab()
        // After the ungrab the second reader sees new input (a new contact: libevdev drops events
        // that repeat the state it already has, so a lift of the contact it never saw would vanish).
        try virtual.write(frame: [(EventType.abs, AbsCode.mtTrackingID, 4), (EventType.abs, AbsCode.mtPositionX, 500)])
        #expect(waitReadable(other))
        let seen = events(try other.read())
        #expect(seen.contains { $0.code == AbsCode.mtTrackingID && $0.value == 4 })
        #expect(seen.last?.isSynReport == true)
    }

    @Test func discoverySeesADeviceCreatedAfterStartAndItsRemoval() throws {
        let discovery = try DeviceDiscovery()
        let before = Set(discovery.enumerate())
        var virtual: VirtualDevice? = try VirtualDevice(
            description: touchscreenDescription(name: "uinput hotplug test"))
        let node = try #require(virtual?.devnode)
        #expect(!before.contains(node))
        var pfd = pollfd(fd: discovery.fileDescriptor, events: Int16(POLLIN), revents: 0)
        #expect(poll(&pfd, 1, 5000) > 0)
        let added = try discovery.receive()
        #expect(added.contains(.added(node)))
        virtual = nil
        #expect(poll(&pfd, 1, 5000) > 0)
        var removed = try discovery.receive()
        // udev may report the change before the remove; read until the removal arrives.
        while !removed.contains(.removed(node)), poll(&pfd, 1, 5000) > 0 { removed += try discovery.receive() }
        #expect(removed.contains(.removed(node)))
    }
}

@Suite(.serialized, .enabled(if: VirtualDevice.isAvailable, "needs /dev/uinput (runs in the guest)"))
struct DeviceOpeningUinputTests {
    @Test func servesATouchscreenGrabbedAsTheRuleSaysAndSkipsAKeyboard() throws {
        let screen = try VirtualDevice(description: touchscreenDescription(name: "uinput opening screen"))
        let keyboard = try VirtualDevice(description: keyboardDescription())
        var rule = DeviceRule()
        rule.action = .include
        rule.name = "uinput opening*"
        rule.grab = true
        var configuration = DevicesConfiguration()
        configuration.rules = [rule]
        let matcher = DeviceMatcher(configuration: configuration)
        switch DeviceOpening.open(path: try #require(screen.devnode), matcher: matcher) {
        case .served(let device, let decision):
            #expect(device.isGrabbed)
            #expect(decision.ruleIndex == 0)
        case .skipped(let decision): Issue.record("skipped: \(decision.reason)")
        case .failed(let error): Issue.record("failed: \(error)")
        }
        switch DeviceOpening.open(path: try #require(keyboard.devnode), matcher: matcher) {
        case .served: Issue.record("a keyboard was served")
        case .skipped(let decision): #expect(decision.deviceClass == .other)
        case .failed(let error): Issue.record("failed: \(error)")
        }
    }
}
