import Configuration
import DeviceInput
import Logging
import MultitouchCore
import MultitouchTestKit
import SystemCalls
import Testing
import TouchPipeline
import TouchVocabulary

@testable import MultitouchServer

/// The gesture deadline timer alone: armed at the earliest pipeline deadline, firing only what is due.
@Suite("GestureDeadlineTimer")
struct GestureDeadlineTimerTests {
    /// A pipeline with one finger down: its long-press deadline is pending.
    static func pipelineHolding(id: Int, downAtMilliseconds ms: Double) -> DevicePipeline {
        var s = TouchScripter(device: TestDevices.touchscreen())
        s.advance(ms: ms)
        s.down(finger: 0, x: 40, y: 40)
        s.frame()
        var pipeline = DevicePipeline(deviceID: id, description: TestDevices.touchscreen())
        var out: [PipelineOutput] = []
        for event in s.takeEvents() { _ = pipeline.push(.event(event), into: &out) }
        return pipeline
    }

    @Test func armsAtTheEarliestDeadlineAndDisarmsWithoutOne() throws {
        let loop = DevicesTests.VirtualLoop()
        let timer = GestureDeadlineTimer(loop: loop)
        let early = Self.pipelineHolding(id: 1, downAtMilliseconds: 0)
        let late = Self.pipelineHolding(id: 2, downAtMilliseconds: 100)
        let earlyDeadline = try #require(early.nextDeadline)
        let lateDeadline = try #require(late.nextDeadline)
        #expect(earlyDeadline < lateDeadline)
        timer.arm(for: [late, early])
        #expect(loop.deadlinesAt == GestureDeadlineTimer.nanoseconds(earlyDeadline))
        timer.arm(for: [DevicePipeline]())
        #expect(loop.deadlinesAt == nil)
    }

    @Test func advancesOnlyThroughWhatIsDueAndTheDeadlineMovesOn() throws {
        var pipeline = Self.pipelineHolding(id: 1, downAtMilliseconds: 0)
        let deadline = try #require(pipeline.nextDeadline)
        let due = GestureDeadlineTimer.nanoseconds(deadline)
        var out: [PipelineOutput] = []
        GestureDeadlineTimer.advanceDue(&pipeline, now: due - 1, into: &out)
        #expect(out.isEmpty)
        #expect(pipeline.nextDeadline == deadline)
        GestureDeadlineTimer.advanceDue(&pipeline, now: due, into: &out)
        #expect(!out.isEmpty, "the long press fires at its deadline")
        #expect(pipeline.nextDeadline.map { $0 > deadline } ?? true)
    }
}

/// A served device whose timer and input become due in the same loop wake-up: the live output equals
/// the replay of the same events, whichever the loop handles first.
@Suite("DeviceHost deadlines after a slow wake-up")
struct DeviceHostDeadlineOrderTests {
    /// Readings queued as a kernel queues them; a read takes everything pending.
    final class QueuedDevice: DeviceReader {
        let path = "queued"
        let fileDescriptor: Int32 = -1
        let description: DeviceDescription
        var pending: [DeviceReading] = []

        init(description: DeviceDescription) { self.description = description }

        func read(into out: inout [DeviceReading]) throws(SystemError) {
            out += pending
            pending.removeAll()
        }
    }

    @Test func eventsQueuedBeforeADueTimerGoFirstAsInTheReplay() throws {
        let description = TestDevices.touchscreen()
        var s = TouchScripter(device: description)
        s.advance(ms: 1000)
        s.down(finger: 0, x: 40, y: 40)
        s.frame()
        let landing = s.takeEvents()
        var replay = DevicePipeline(deviceID: 1, description: description)
        var expected: [PipelineOutput] = []
        for event in landing { _ = replay.push(.event(event), into: &expected) }
        let longPress = try #require(replay.nextDeadline, "a held finger arms the long-press timer")
        // The finger slides far away 10 ms before the long press would fire, and the loop only wakes
        // 50 ms after the deadline, with both the timer and the device ready.
        s.advance(ms: Double(longPress.microseconds - landing[0].time.microseconds) / 1000 - 10)
        s.move(finger: 0, x: 90, y: 90)
        s.frame()
        let slide = s.takeEvents()
        let wake = GestureDeadlineTimer.nanoseconds(longPress) + 50_000_000
        for event in slide { _ = replay.push(.event(event), into: &expected) }
        GestureDeadlineTimer.advanceDue(&replay, now: wake, into: &expected)

        var clockNow: UInt64 = 0
        let loop = DevicesTests.VirtualLoop()
        let host = DeviceHost(
            configuration: DaemonConfiguration(), logger: Logger(label: "test"), loop: loop,
            idSource: TouchIDSource(), clock: { clockNow })
        var live: [PipelineOutput] = []
        host.emit = { outputs, _ in live += outputs }
        let device = QueuedDevice(description: description)
        let decision = DeviceMatcher(configuration: DaemonConfiguration().devices).decide(
            path: device.path, links: [], description: description)
        let id = try #require(host.serve(device, decision: decision, path: device.path))
        live.removeAll()
        device.pending = landing.map { .event($0) }
        clockNow = GestureDeadlineTimer.nanoseconds(landing[0].time)
        host.readDevice(id: id)
        #expect(loop.deadlinesAt == GestureDeadlineTimer.nanoseconds(longPress))
        device.pending = slide.map { .event($0) }
        clockNow = wake
        host.fireDeadlines()
        host.readDevice(id: id)

        #expect(live == expected.filter { if case .deviceAdded = $0 { false } else { true } })
        let longPressed = live.contains {
            guard case .timers(_, let events, _) = $0 else { return false }
            return events.contains { if case .longPress = $0 { true } else { false } }
        }
        #expect(!longPressed, "the slide before the deadline cancels the long press")
    }
}
