import Configuration
import Logging
import MultitouchCore
import MultitouchTestKit
import Publishing
import Recordings
import Testing
import TouchPipeline
import TouchRouting

@testable import MultitouchServer

/// `Devices` built in a test: no epoll, no timerfd, a virtual clock. Its replay driver, paced by the
/// timer it arms, publishes exactly `replay --json`'s messages, and a region declared before the replay
/// plays gets its answer and its routed messages through the same sink.
@Suite("Devices on virtual time")
struct DevicesTests {
    /// Records what the host arms and watches; the test plays the loop.
    final class VirtualLoop: DeviceLoop {
        var now: UInt64 = 1_000_000_000
        var replayAt: UInt64?
        var deadlinesAt: UInt64?
        var watched: [Int32] = []
        func watch(device id: Int, fd: Int32) throws(SystemError) { watched.append(fd) }
        func watchHotplug(fd: Int32) throws(SystemError) { watched.append(fd) }
        func unwatch(fd: Int32) { watched.removeAll { $0 == fd } }
        func armDeadlines(at deadline: UInt64?) { deadlinesAt = deadline }
        func acknowledgeDeadlines() {}
        func armReplay(at deadline: UInt64?) { replayAt = deadline }
        func acknowledgeReplay() {}
    }

    static func host(_ recording: Recording, wait: Int, loop: VirtualLoop) -> Devices {
        Devices(
            configuration: DaemonConfiguration(),
            replay: ReplayOptions(recording: recording, source: "fixture", speed: 4, waitForSubscribers: wait),
            logger: Logger(label: "test"), loop: loop, clock: { [unowned loop] in loop.now })
    }

    /// Runs the replay timer until the pass is over, the clock jumping to each armed time.
    static func play(_ host: Devices, _ loop: VirtualLoop) {
        var turns = 0
        while let due = loop.replayAt, turns < 1_000_000 {
            loop.now = max(loop.now, due)
            loop.replayAt = nil
            host.runReplay(stopping: false)
            turns += 1
        }
    }

    @Test(arguments: Fixtures.all.map(\.name))
    func theReplayDriverPublishesWhatReplayPrints(name: String) throws {
        let fixture = try #require(Fixtures.all.first { $0.name == name })
        let recording = Recording(
            format: .evemu, devices: [RecordedDevice(description: fixture.device, events: fixture.events)])
        let loop = VirtualLoop()
        let host = Self.host(recording, wait: 0, loop: loop)
        var published: [PipelineOutput] = []
        var readTimes: [UInt64] = []
        host.sink = { outputs, readAt in
            published += outputs
            readTimes.append(readAt)
        }
        host.startReplayIfNotWaiting()
        Self.play(host, loop)
        #expect(PipelineMessages.messages(published) == MessageReplay.messages(recording: recording, source: "fixture"))
        #expect(readTimes == readTimes.sorted(), "the virtual clock only moves forward")
        #expect(host.currentDevices().isEmpty)
    }

    @Test func aRegionDeclaredBeforeTheReplayStartsIsServedThroughTheSameSink() throws {
        let fixture = Fixtures.pinchRotate()
        let recording = Recording(
            format: .evemu, devices: [RecordedDevice(description: fixture.device, events: fixture.events)])
        let loop = VirtualLoop()
        let host = Self.host(recording, wait: 1, loop: loop)
        var published: [PipelineOutput] = []
        host.sink = { outputs, _ in published += outputs }
        host.startReplayIfNotWaiting()
        #expect(host.currentDevices().map(\.id) == [1])
        let region = Region(id: "all", shape: .rectangle(RegionRect(x: -1e6, y: -1e6, width: 2e6, height: 2e6)))
        #expect(host.apply(.declareRegions(client: ClientID(5), regions: [region], grant: .all), device: 1, token: 9))
        guard case .answer(let answer)? = published.last, answer.token == 9, answer.outcome == .regions(["all"]) else {
            Issue.record("the region was not accepted: \(published.last.map { "\($0)" } ?? "nothing")")
            return
        }
        #expect(!host.apply(.declareRegions(client: ClientID(5), regions: [], grant: .all), device: 7, token: 10))
        published.removeLast()
        host.clientSubscribed(subscribers: 1)
        Self.play(host, loop)
        var routed: [RoutedMessage] = []
        PipelineMessages.appendRouted(published, to: &routed)
        #expect(!routed.isEmpty)
        #expect(routed.allSatisfy { $0.client == ClientID(5) && $0.region == "all" })
        // The whole-device stream is unchanged by the routing stage (no exclusive region).
        #expect(
            PipelineMessages.messages(published)
                == MessageReplay.messages(recording: recording, source: "fixture"))
    }
}

/// Issue 27 item 4: `multitouchd --replay FILE --config C` published millimetres where `multitouchctl
/// replay --config C` published the device rule's output pixels, so regions rehearsed offline landed
/// elsewhere live. The replay's devices take the rule that matches them, as a live device does.
@Suite("Devices: one mapping path")
struct ReplayMappingTests {
    @Test func aReplayTakesTheDeviceRuleThatMatchesIt() throws {
        let fixture = Fixtures.pinchRotate()
        let recording = Recording(
            format: .evemu, devices: [RecordedDevice(description: fixture.device, events: fixture.events)])
        var configuration = DaemonConfiguration()
        var rule = DeviceRule()
        rule.name = fixture.device.name
        rule.output = OutputMapping(width: 1920, height: 1080, rotation: 90)
        configuration.devices.rules = [rule]
        let loop = DevicesTests.VirtualLoop()
        let devices = Devices(
            configuration: configuration,
            replay: ReplayOptions(recording: recording, source: "pinch.evemu", path: "/tmp/pinch.evemu", speed: 4),
            logger: Logger(label: "test"), loop: loop, clock: { [unowned loop] in loop.now })
        var published: [PipelineOutput] = []
        devices.sink = { outputs, _ in published += outputs }
        devices.startReplayIfNotWaiting()
        DevicesTests.play(devices, loop)
        // What `multitouchctl replay --config` prints for the same file: the same settings, the same lines.
        let settings = PipelineSettings(gestures: configuration.gestures, output: rule.output)
        let offline = MessageReplay.messages(recording: recording, source: "pinch.evemu", settings: settings)
        #expect(PipelineMessages.messages(published) == offline)
        guard case .deviceAdded(let device)? = published.first else {
            Issue.record("no device announced")
            return
        }
        #expect(PipelineMessages.deviceInfo(device).units == .pixels)
    }
}
