import Foundation
import Gestures
import MultitouchCore
import MultitouchTestKit
import Publishing
import Recordings
import Testing
import TouchPipeline
import WireProtocol

/// The replay path end to end: recordings in, the wire messages out, as `multitouchctl replay --json`
/// prints them and socket clients receive them.
@Suite struct ReplayTests {
    private func lines(_ recording: Recording, settings: PipelineSettings = .init()) -> [String] {
        MessageReplay.messages(recording: recording, source: "test", settings: settings).map { $0.jsonLine() }
    }

    private func objects(_ lines: [String]) throws -> [[String: Any]] {
        try lines.map { line in
            try #require(
                try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not an object: \(line)")
        }
    }

    private func recording(_ fixture: Fixtures.Fixture) -> Recording {
        Recording(format: .evemu, devices: [RecordedDevice(description: fixture.device, events: fixture.events)])
    }

    @Test(arguments: Fixtures.all.map(\.name))
    func everyFixtureReplaysDeterministicallyToValidJSON(name: String) throws {
        let fixture = try #require(Fixtures.all.first { $0.name == name })
        let first = lines(recording(fixture))
        let second = lines(recording(fixture))
        #expect(first == second)
        let parsed = try objects(first)
        #expect(parsed.first?["type"] as? String == "deviceAdded")
        #expect(parsed.last?["type"] as? String == "deviceRemoved")
        #expect(!first.contains { $0.contains("null") }, "a non-finite number was written")
        // Within a frame the touches message comes before that frame's gesture messages.
        var lastTouchesTime: String?
        for (line, object) in zip(first, parsed) where object["type"] as? String == "touches" {
            lastTouchesTime = line
        }
        #expect(lastTouchesTime != nil)
    }

    @Test func committedFixturesAreCurrent() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        for fixture in Fixtures.all {
            let path = root.appendingPathComponent("checks/fixtures/\(fixture.name).evemu").path
            let committed = try String(contentsOfFile: path, encoding: .utf8)
            let fresh = EvemuWriter.write(description: fixture.device, events: fixture.events)
            #expect(committed == fresh, "\(fixture.name): run `multitouchctl generate` and commit checks/fixtures")
        }
    }

    @Test func fixturesReadBackToTheSameEvents() throws {
        for fixture in Fixtures.all {
            let text = EvemuWriter.write(description: fixture.device, events: fixture.events)
            let read = try RecordingReader.parse(text: text, name: fixture.name)
            #expect(read.devices.first?.events == fixture.events)
            let device = try #require(read.devices.first?.description)
            #expect(device.name == fixture.device.name)
            #expect(device.identity == fixture.device.identity)
            #expect(device.properties == fixture.device.properties)
            #expect(device.axes == fixture.device.axes)
            // EV_SYN's row in evemu is the bitmask of event types, so compare the other types' codes.
            for type in [EventType.key, EventType.abs, EventType.msc] {
                #expect(device.codes[type] ?? [] == fixture.device.codes[type] ?? [], "type \(type) of \(fixture.name)")
            }
        }
    }

    @Test func touchesComeFirstInAFrameThenItsGestures() throws {
        let parsed = try objects(lines(recording(Fixtures.pinchRotate())))
        // Every gesture message at the time T of a frame comes after that frame's touches message.
        // Timers fire between frames: here one, the debounce after the first lift (ended + began).
        var frameTimes = Set<String>()
        for object in parsed where object["type"] as? String == "touches" {
            if let time = object["time"] as? Double { frameTimes.insert(String(format: "%.6f", time)) }
        }
        var seen = Set<String>()
        var betweenFrames: [String] = []
        for object in parsed {
            guard let type = object["type"] as? String, let time = object["time"] as? Double else { continue }
            let key = String(format: "%.6f", time)
            if type == "touches" {
                seen.insert(key)
            } else if type == "gesture" || type == "session" {
                if frameTimes.contains(key) {
                    #expect(seen.contains(key), "\(type) at \(key) before its touches")
                } else {
                    betweenFrames.append("\(object["mode"] ?? "").\(object["phase"] ?? "")")
                }
            }
        }
        #expect(betweenFrames == ["pinchRotate.ended", "pan.began"])
    }

    @Test func aTouchThatLandsAndLiftsInOneFrameBeginsThenEnds() throws {
        var s = TouchScripter(device: TestDevices.touchscreen())
        s.down(finger: 0, x: 50, y: 50)
        s.up(finger: 0)  // staged down and up: the frame carries a tracking id and its -1
        var events = s.events
        // Write the frame by hand: tracking id, position, then -1, in one SYN_REPORT.
        let t = Timestamp(seconds: 5, microseconds: 0)
        events = [
            InputEvent(time: t, type: EventType.abs, code: AbsCode.mtTrackingID, value: 7),
            InputEvent(time: t, type: EventType.abs, code: AbsCode.mtPositionX, value: 2000),
            InputEvent(time: t, type: EventType.abs, code: AbsCode.mtPositionY, value: 2000),
            InputEvent(time: t, type: EventType.abs, code: AbsCode.mtTrackingID, value: -1),
            InputEvent(time: t, type: EventType.syn, code: SynCode.report, value: 0),
        ]
        let messages = MessageReplay.messages(
            recording: Recording(
                format: .evemu, devices: [RecordedDevice(description: TestDevices.touchscreen(), events: events)]))
        let phases = messages.compactMap { message -> [TouchPhase]? in
            if case .touches(let frame) = message { return frame.touches.map(\.phase) }
            return nil
        }
        #expect(phases == [[.began], [.ended]])
    }

    @Test func aRecordingThatEndsWithFingersDownCancelsThem() throws {
        var s = TouchScripter(device: TestDevices.touchscreen())
        s.down(finger: 0, x: 40, y: 50)
        s.down(finger: 1, x: 60, y: 50)
        s.frame()
        s.move(fingers: [(0, 30, 50), (1, 70, 50)], steps: 5, durationMs: 80)
        let parsed = try objects(
            lines(
                Recording(
                    format: .evemu, devices: [RecordedDevice(description: TestDevices.touchscreen(), events: s.events)])
            ))
        let lastTouches = try #require(parsed.last { $0["type"] as? String == "touches" })
        let touches = try #require(lastTouches["touches"] as? [[String: Any]])
        #expect(touches.map { $0["phase"] as? String } == ["cancelled", "cancelled"])
        let session = try #require(parsed.last { $0["type"] as? String == "session" })
        #expect(session["phase"] as? String == "cancelled")
        let lastGesture = try #require(parsed.last { $0["type"] as? String == "gesture" })
        #expect(lastGesture["phase"] as? String == "cancelled")
    }

    @Test func aTrailingPartialFrameIsReportedDropped() throws {
        var events = Fixtures.palm().events
        let t = events.last?.time ?? Timestamp(microseconds: 0)
        events.append(InputEvent(time: t, type: EventType.abs, code: AbsCode.mtPositionX, value: 5))
        events.append(InputEvent(time: t, type: EventType.abs, code: AbsCode.mtPositionY, value: 5))
        let parsed = try objects(
            lines(
                Recording(
                    format: .evemu, devices: [RecordedDevice(description: TestDevices.touchscreen(), events: events)])))
        let dropped = try #require(parsed.first { $0["type"] as? String == "dropped" })
        #expect(dropped["count"] as? Int == 2)
        #expect((dropped["reason"] as? String)?.contains("partial frame") == true)
    }

    @Test func synDroppedInARecordingIsReportedWithItsDiscardedEvents() throws {
        var events = Fixtures.pinchRotate().events
        let index = events.count / 2
        let t = events[index].time
        events.insert(InputEvent(time: t, type: EventType.syn, code: SynCode.dropped, value: 0), at: index)
        let parsed = try objects(
            lines(
                Recording(
                    format: .evemu, devices: [RecordedDevice(description: TestDevices.touchscreen(), events: events)])))
        let dropped = try #require(parsed.first { $0["type"] as? String == "dropped" })
        #expect(dropped["reason"] as? String == "SYN_DROPPED")
        #expect((dropped["count"] as? Int ?? 0) > 0)
    }

    @Test func severalDevicesReplayAsSeveralDevicesInTimeOrder() throws {
        let a = Fixtures.pinchRotate()
        var b = Fixtures.touchpadThreeFingers()
        // Shift the touchpad by 5 ms so the two streams interleave.
        b.events = b.events.map {
            var e = $0
            e.time = e.time.adding(milliseconds: 5)
            return e
        }
        let recording = Recording(
            format: .libinputRecord,
            devices: [
                RecordedDevice(description: a.device, events: a.events),
                RecordedDevice(description: b.device, events: b.events),
            ])
        let parsed = try objects(lines(recording))
        let added = parsed.filter { $0["type"] as? String == "deviceAdded" }
        #expect(added.count == 2)
        var lastTime = -Double.infinity
        var devicesSeen = Set<Int>()
        for object in parsed where object["type"] as? String == "touches" {
            let time = try #require(object["time"] as? Double)
            #expect(time >= lastTime)
            lastTime = time
            devicesSeen.insert(try #require(object["device"] as? Int))
        }
        #expect(devicesSeen == [1, 2])
        // Touch ids are unique across the devices.
        var ids = Set<Int>()
        var began = 0
        for object in parsed where object["type"] as? String == "touches" {
            for touch in object["touches"] as? [[String: Any]] ?? [] where touch["phase"] as? String == "began" {
                began += 1
                ids.insert(touch["id"] as? Int ?? -1)
            }
        }
        #expect(ids.count == began)
    }

    @Test func recordingCheckPassesFixturesAndReportsGestureStatistics() throws {
        let report = RecordingCheck.run(recording: recording(Fixtures.pinchRotate()), name: "pinch")
        #expect(report.passed, "\(report.failures)")
        let device = try #require(report.devices.first)
        #expect(device.touches.touchesBegun == 3)
        #expect(device.gestures.pinchRotateSegments == 2)
        #expect(device.gestures.panSegments == 1)
        #expect(abs(device.gestures.finalRotation - Double.pi / 2) < 0.05)
    }

    @Test func recordingCheckCatchesABrokenStream() throws {
        // A tracking id that jumps slots is fine; a touch frame that goes back in time is not: feed the
        // checker directly to prove it can fail.
        var checker = TouchInvariantChecker()
        let touch = Touch(
            id: 1, slot: 0, trackingID: 1, phase: .moved, location: .zero, previousLocation: .zero, millimeters: .zero,
            normalized: .zero, timestamp: Timestamp(microseconds: 0), type: .direct)
        checker.observe(TouchFrame(time: Timestamp(microseconds: 10), touches: [touch], fingerCount: 1))
        checker.finish()
        #expect(checker.violations.contains { $0.contains("without began") })
    }
}
