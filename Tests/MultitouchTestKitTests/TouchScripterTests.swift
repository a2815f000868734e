import MultitouchCore
import MultitouchTestKit
import Testing

@Suite("Touch scripter encoding")
struct TouchScripterTests {
    private func codes(_ events: [InputEvent]) -> [String] {
        events.map { "\($0.type):\($0.code)=\($0.value)" }
    }

    @Test("protocol B: slot 0 implied, ABS_MT_SLOT only on change, only changed values, BTN_TOUCH, MSC_TIMESTAMP")
    func protocolB() {
        var script = TouchScripter(device: TestDevices.touchscreen(), emitsTimestamps: true)
        script.down(finger: 0, x: 0, y: 100, pressure: 100)
        script.frame()
        let first = script.takeEvents()
        #expect(
            first.first == InputEvent(time: script.time, type: EventType.abs, code: AbsCode.mtTrackingID, value: 100))
        #expect(!first.contains { $0.code == AbsCode.mtSlot && $0.type == EventType.abs })
        #expect(
            first.contains(InputEvent(time: script.time, type: EventType.abs, code: AbsCode.mtPositionY, value: 4095)))
        #expect(
            first.contains(InputEvent(time: script.time, type: EventType.abs, code: AbsCode.mtPressure, value: 255)))
        #expect(first.contains(InputEvent(time: script.time, type: EventType.key, code: KeyCode.btnTouch, value: 1)))
        #expect(first.contains(InputEvent(time: script.time, type: EventType.msc, code: MscCode.timestamp, value: 0)))
        #expect(first.last?.isSynReport == true)
        script.advance(ms: 10)
        script.move(finger: 0, x: 50, y: 100)
        script.down(finger: 1, x: 10, y: 10)
        script.frame()
        let t = script.time
        #expect(
            codes(script.takeEvents())
                == codes([
                    InputEvent(time: t, type: EventType.abs, code: AbsCode.mtPositionX, value: 2048),
                    InputEvent(time: t, type: EventType.abs, code: AbsCode.mtSlot, value: 1),
                    InputEvent(time: t, type: EventType.abs, code: AbsCode.mtTrackingID, value: 101),
                    InputEvent(time: t, type: EventType.abs, code: AbsCode.mtPositionX, value: 410),
                    InputEvent(time: t, type: EventType.abs, code: AbsCode.mtPositionY, value: 410),
                    InputEvent(time: t, type: EventType.abs, code: AbsCode.mtPressure, value: 128),
                    InputEvent(time: t, type: EventType.abs, code: AbsCode.x, value: 2048),
                    InputEvent(time: t, type: EventType.msc, code: MscCode.timestamp, value: 10000),
                    InputEvent(time: t, type: EventType.syn, code: SynCode.report, value: 0),
                ]))
    }

    @Test("a slot freed and taken in the same frame changes its tracking id without -1 (the kernel's way)")
    func slotReuse() {
        let device = TestDevices.touchscreen()
        var script = TouchScripter(device: device)
        script.down(finger: 0, x: 10, y: 10)
        script.frame()
        script.advance(ms: 10)
        script.up(finger: 0)
        script.down(finger: 1, x: 90, y: 90)
        script.frame()
        let second = Array(script.events.drop { !$0.isSynReport }.dropFirst())
        #expect(second.filter { $0.code == AbsCode.mtTrackingID && $0.type == EventType.abs }.map(\.value) == [101])
        let frames = TouchFrames.track(script.events, device: device)
        #expect(frames[1].touches.map(\.phase) == [.ended, .began])
        #expect(TouchFrames.problems(in: frames).isEmpty)
    }

    @Test("protocol A: every contact every frame, each closed by SYN_MT_REPORT; a lone one on release")
    func protocolA() {
        var script = TouchScripter(device: TestDevices.protocolATouchscreen())
        script.down(finger: 0, x: 10, y: 10)
        script.down(finger: 1, x: 20, y: 20)
        script.frame()
        script.advance(ms: 10)
        script.frame()
        script.up(finger: 0)
        script.up(finger: 1)
        script.frame()
        script.frame()
        let frames = TouchFrames.frames(of: script.events)
        let reports = frames.map { $0.events.filter { $0.type == EventType.syn && $0.code == SynCode.mtReport }.count }
        #expect(reports == [2, 2, 1, 0])
        #expect(
            frames[0].events.contains {
                $0.type == EventType.key && $0.code == KeyCode.btnToolDoubleTap && $0.value == 1
            })
        #expect(frames[2].events.contains { $0.type == EventType.key && $0.code == KeyCode.btnTouch && $0.value == 0 })
    }

    @Test("fingers beyond the slots are only counted by BTN_TOOL_*; percent is clamped to the axis")
    func beyondSlots() {
        var script = TouchScripter(device: TestDevices.touchpad(slots: 2))
        for finger in 0..<5 { script.down(finger: finger, x: Double(finger) * 30 - 10, y: 150) }
        script.frame()
        let events = script.events
        #expect(events.filter { $0.code == AbsCode.mtTrackingID && $0.type == EventType.abs }.count == 2)
        #expect(events.contains { $0.type == EventType.key && $0.code == KeyCode.btnToolQuintTap && $0.value == 1 })
        #expect(
            events.filter { $0.code == AbsCode.mtPositionX && $0.type == EventType.abs }.map(\.value) == [640],
            "x 0 (clamped from -10%) equals the slot's initial value, so it is not sent")
        #expect(
            events.filter { $0.code == AbsCode.mtPositionY && $0.type == EventType.abs }.allSatisfy { $0.value == 2000 }
        )
    }

    @Test("SplitMix64 is reproducible and matches the reference sequence")
    func splitMix() {
        var a = SplitMix64(seed: 0)
        var b = SplitMix64(seed: 0)
        // First output of the reference implementation for seed 0.
        #expect(a.next() == 0xE220_A839_7B1D_CDAF)
        _ = b.next()
        #expect(a.next() == b.next())
    }
}

@Suite("Touch scripter transform")
struct TouchScripterTransformTests {
    @Test("transform rotates and scales in millimetres about the centre, on a non-square touchpad")
    func rigidTransform() throws {
        let device = TestDevices.touchpad()
        var script = TouchScripter(device: device)
        script.down(finger: 0, x: 40, y: 50)
        script.down(finger: 1, x: 60, y: 50)
        script.frame()
        script.transform(
            fingers: [0, 1], center: (50, 50), scale: 1.5, rotationDegrees: 90, steps: 30, durationMs: 300)
        let frames = TouchFrames.track(script.events, device: device, cancelAtEnd: false)
        let start = frames[0].touches.map(\.millimeters)
        let end = try #require(frames.last).touches.map(\.millimeters)
        let before = start[1] - start[0]
        let after = end[1] - end[0]
        // 20 mm apart along x becomes 30 mm apart along y (y grows downwards: clockwise on screen).
        #expect(Swift.abs(before.length - 20) < 0.1)
        #expect(Swift.abs(after.length - 30) < 0.1)
        #expect(Swift.abs(after.x) < 0.1 && after.y > 29.9)
        #expect(Swift.abs((end[0] + end[1]).x / 2 - 50) < 0.1, "the centre stays put")
    }
}
