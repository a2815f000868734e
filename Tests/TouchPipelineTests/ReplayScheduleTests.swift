import Gestures
import MultitouchCore
import MultitouchTestKit
import Publishing
import Recordings
import Testing
import TouchPipeline
import WireProtocol

/// The one replay order (`ReplaySchedule`) that `multitouchctl replay` and `multitouchd --replay` share.
@Suite("Replay schedule")
struct ReplayScheduleTests {
    /// Device 1: one finger lands and holds still (no frames) long enough for a long press; device 2: a
    /// finger keeps moving meanwhile. The long press is due at 1000.5 s.
    static func holdAndMove() -> Recording {
        let start = Timestamp(seconds: 1000, microseconds: 0)
        var hold = TouchScripter(device: TestDevices.touchscreen(), start: start)
        hold.down(finger: 0, x: 30, y: 30)
        hold.frame()
        hold.advance(ms: 1500)
        hold.up(finger: 0)
        hold.frame()
        var move = TouchScripter(device: TestDevices.touchscreen(), start: start.adding(milliseconds: 100))
        move.down(finger: 0, x: 60, y: 60)
        move.frame()
        move.move(finger: 0, toX: 80, y: 60, steps: 20, durationMs: 1000)
        move.up(finger: 0)
        move.frame()
        return Recording(
            format: .evemu,
            devices: [
                RecordedDevice(description: TestDevices.touchscreen(), events: hold.takeEvents()),
                RecordedDevice(description: TestDevices.touchscreen(), events: move.takeEvents()),
            ])
    }

    /// Before the shared schedule, the offline replay fired device 1's long press only with device 1's
    /// next frame (the lift at 1001.5 s), after a second of device 2's frames, while the daemon sent it
    /// at its deadline: `replay --json` and a socket client disagreed. Now both send it in time order.
    @Test func aTimerOfOneDeviceFiresAtItsDeadlineBetweenAnotherDevicesFrames() throws {
        let messages = MessageReplay.messages(recording: Self.holdAndMove(), source: "two")
        let longPress = try #require(messages.firstIndex { $0.kind == .longPress })
        guard case .gesture(let press) = messages[longPress] else { return }
        #expect(press.device == 1)
        #expect(press.event.time == Timestamp(seconds: 1000, microseconds: 500_000))
        var previous = Timestamp(microseconds: 0)
        for message in messages {
            guard let time = Self.time(of: message), message.kind != .deviceRemoved else { continue }
            #expect(time >= previous, "message at \(time) after one at \(previous): \(message.jsonLine())")
            previous = time
        }
        let laterFrameOfDevice2 = messages.firstIndex {
            if case .touches(let t) = $0 { return t.device == 2 && t.time > press.event.time }
            return false
        }
        #expect(laterFrameOfDevice2.map { $0 > longPress } == true)
    }

    static func time(of message: Message) -> Timestamp? {
        switch message {
        case .touches(let m): return m.time
        case .gesture(let m): return m.event.time
        case .dropped(let m): return m.time
        case .deviceRemoved(let m): return m.time
        case .hello, .deviceAdded, .error, .pong, .subscribed, .unsubscribed, .stats, .transform, .regions, .recognized,
            .regionList:
            return nil
        }
    }

    @Test func stepsComeInTheDocumentedOrderAndTheScheduleFinishes() {
        var schedule = ReplaySchedule(recording: Self.holdAndMove(), source: "two", settings: .init())
        #expect(schedule.nextStep == .announce)
        #expect(schedule.presentDevices.isEmpty)
        var steps: [ReplaySchedule.Step] = []
        var out: [Message] = []
        while let step = schedule.nextStep {
            steps.append(step)
            schedule.take(step, into: &out)
            if step == .announce { #expect(schedule.presentDevices.map(\.id) == [1, 2]) }
        }
        #expect(schedule.isFinished)
        #expect(schedule.presentDevices.isEmpty)
        #expect(steps.first == .announce)
        #expect(steps.suffix(2).map { if case .end(let i, _) = $0 { return i } else { return -1 } } == [0, 1])
        #expect(steps.contains { if case .timer(0, _) = $0 { return true } else { return false } })
        // Timed steps never go back in time.
        let times = steps.compactMap(\.time)
        #expect(times == times.sorted())
        #expect(out == MessageReplay.messages(recording: Self.holdAndMove(), source: "two"))
    }

    @Test func stoppingMidwayEndsOnlyTheDevicesStillPresent() {
        var schedule = ReplaySchedule(recording: Self.holdAndMove(), source: "two", settings: .init())
        var out: [Message] = []
        for _ in 0..<4 {
            if let step = schedule.nextStep { schedule.take(step, into: &out) }
        }
        let stopped = schedule.stop(at: Timestamp(seconds: 1000, microseconds: 200_000), reason: .shutdown)
        let removed = stopped.compactMap { if case .ended(let device, _, _) = $0 { return device } else { return nil } }
        #expect(removed == [1, 2])
        #expect(schedule.isFinished)
        #expect(schedule.nextStep == nil)
        #expect(schedule.stop(at: Timestamp(seconds: 1001, microseconds: 0), reason: .shutdown).isEmpty)
    }

    @Test func aRecordingWithoutEventsStillAnnouncesAndEndsItsDevice() {
        let recording = Recording(
            format: .evemu, devices: [RecordedDevice(description: TestDevices.touchscreen(), events: [])])
        #expect(ReplaySchedule(recording: recording, source: "empty", settings: .init()).origin == nil)
        let kinds = MessageReplay.messages(recording: recording, source: "empty").map(\.kind)
        #expect(kinds == [.deviceAdded, .deviceRemoved])
    }
}

/// The pipeline's own guarantees that every driver (daemon, listen, replay) relies on.
@Suite("Device pipeline")
struct DevicePipelineTests {
    /// Drivers loop `while let d = nextDeadline, d <= now { advance(to: d) }` with no guard of their
    /// own (three had one): after advancing to a deadline the next one is later, on every fixture.
    @Test(arguments: Fixtures.all.map(\.name) + ["holdAndMove"])
    func deadlinesAlwaysMoveOnAfterAnAdvance(name: String) throws {
        let recording: Recording
        if name == "holdAndMove" {
            recording = ReplayScheduleTests.holdAndMove()
        } else {
            let fixture = try #require(Fixtures.all.first { $0.name == name })
            recording = Recording(
                format: .evemu, devices: [RecordedDevice(description: fixture.device, events: fixture.events)])
        }
        var schedule = ReplaySchedule(recording: recording, source: name, settings: .init())
        var out: [Message] = []
        var timers = 0
        while let step = schedule.nextStep {
            schedule.take(step, into: &out)
            if case .timer(let index, let deadline) = step {
                timers += 1
                let next = schedule.pipelines[index].nextDeadline
                #expect(next.map { $0 > deadline } ?? true, "deadline \(deadline) did not move on")
            }
        }
        if name == "holdAndMove" { #expect(timers > 0) }
    }

    @Test func aResyncReadingIsAnnouncedAsDroppedThenFedAsAFrame() {
        var s = TouchScripter(device: TestDevices.touchscreen())
        s.down(finger: 0, x: 40, y: 40)
        s.frame()
        let events = s.takeEvents()
        var pipeline = DevicePipeline(deviceID: 3, description: TestDevices.touchscreen())
        var out: [Message] = []
        var outcomes: [ReadingOutcome] = []
        for event in events { outcomes.append(pipeline.push(.event(event), into: &out)) }
        #expect(outcomes.last == .frame)
        #expect(outcomes.dropLast().allSatisfy { $0 == .pending })
        out.removeAll()
        // The finger moved while the kernel buffer overflowed: libevdev's state difference comes as one frame.
        s.move(finger: 0, x: 60, y: 40)
        s.frame()
        let moved = s.takeEvents()
        let time = moved.last?.time ?? Timestamp(microseconds: 0)
        let frame = EventFrame(events: moved.filter { !$0.isSynReport }, time: time)
        #expect(pipeline.push(.resync(frame, droppedAt: time), into: &out) == .resynced)
        guard case .dropped(let dropped)? = out.first else {
            Issue.record("expected a dropped message first, got \(out.map(\.kind))")
            return
        }
        #expect(dropped.device == 3)
        #expect(dropped.unit == .overflows)
        #expect(out.contains { $0.kind == .touches })
        out.removeAll()
        #expect(pipeline.push(.removed, into: &out) == .removed)
        #expect(out.isEmpty)
    }

    /// `listen --record` and `record` write what a live session read; replaying the file must give what
    /// the live session printed, across an overflow too (the guest's exact check depends on it).
    @Test func aRecordedResyncReplaysExactlyAsTheLivePathProcessedIt() throws {
        let device = TestDevices.touchscreen()
        var s = TouchScripter(device: device)
        var readings: [DeviceReading] = []
        s.down(finger: 0, x: 40, y: 40)
        s.frame()
        s.advance(ms: 16)
        s.move(finger: 0, x: 40.2, y: 40.1)
        s.frame()
        readings += s.takeEvents().map { .event($0) }
        // The reader was stopped past the long-press deadline; meanwhile the buffer overflowed, finger 0
        // lifted and finger 1 landed: libevdev's difference.
        s.advance(ms: 900)
        s.up(finger: 0)
        s.down(finger: 1, x: 70, y: 60)
        s.frame()
        let difference = s.takeEvents()
        let resyncTime = difference.last?.time ?? Timestamp(microseconds: 0)
        readings.append(
            .resync(
                EventFrame(events: difference.filter { !$0.isSynReport }, time: resyncTime, isResync: true),
                droppedAt: resyncTime.adding(milliseconds: -3)))
        s.advance(ms: 16)
        s.move(finger: 1, x: 72, y: 62)
        s.frame()
        s.advance(ms: 16)
        s.up(finger: 1)
        s.frame()
        readings += s.takeEvents().map { .event($0) }

        // The live path as `listen` runs it, its timers not advanced while the reader was stopped.
        var live = DevicePipeline(deviceID: 1, description: device)
        var liveOut: [Message] = []
        for reading in readings { _ = live.push(reading, into: &liveOut) }
        live.end(at: s.time, reason: .endOfRecording, into: &liveOut)
        liveOut.removeAll { $0.kind == .deviceRemoved }

        let text = EvemuWriter.write(description: device, events: readings.flatMap(\.recordedEvents))
        #expect(text.contains(" 0000 0003 0001\n"), "the resync is marked with SYN_DROPPED value 1")
        let recording = try RecordingReader.parse(text: text, name: "resync.evemu")
        let replayOut = MessageReplay.messages(recording: recording).filter {
            $0.kind != .deviceAdded && $0.kind != .deviceRemoved
        }

        #expect(replayOut == liveOut)
        let order = liveOut.map(\.kind).filter { $0 == .longPress || $0 == .dropped }
        #expect(order.first == .longPress, "the long press due before the overflow comes first: \(order)")
        let drops = liveOut.compactMap { message -> DroppedMessage? in
            if case .dropped(let m) = message { return m }
            return nil
        }
        #expect(drops.map(\.unit) == [.overflows])
        let phases = liveOut.flatMap { message -> [TouchPhase] in
            if case .touches(let m) = message { return m.touches.map(\.phase) }
            return []
        }
        #expect(phases.contains(.cancelled), "the touch that lifted unseen is cancelled")
        #expect(phases.filter { $0 == .ended }.count == 1, "only the touch seen lifting ends")
    }
}
