import MultitouchCore
import MultitouchTestKit
import Testing

/// Issue 23: a touchpad contact that moves further in one frame than a finger can (libinput's
/// tp_detect_jumps rule) is re-based as a new contact; touchscreens keep every motion.
@Suite("Contact tracker: sensor jumps")
struct SensorJumpTests {
    /// One finger in slot 0 at (x, y) mm on a device of `unitsPerMM`.
    private func place(_ ms: Double, _ x: Double, _ y: Double, unitsPerMM: Double, first: Bool = false) -> EventFrame {
        var events: [(UInt16, UInt16, Int32)] = []
        if first { events.append(absEvent(AbsCode.mtTrackingID, 7)) }
        events.append(absEvent(AbsCode.mtPositionX, Int32(x * unitsPerMM)))
        events.append(absEvent(AbsCode.mtPositionY, Int32(y * unitsPerMM)))
        return rawFrame(ms, events)
    }

    @Test("a 38 mm jump on a touchpad ends the touch and begins a new one where the sensor puts it")
    func touchpadJumpRebases() throws {
        let tracker = makeTracker(TestDevices.touchpad())
        let landed = try #require(tracker.process(place(0, 10, 10, unitsPerMM: 32, first: true)))
        let id = try #require(landed.touches.first?.id)
        let moved = try #require(tracker.process(place(12, 11, 10, unitsPerMM: 32)))
        #expect(moved.phases == [.moved])
        let jumped = try #require(tracker.process(place(24, 49, 10, unitsPerMM: 32)))
        #expect(jumped.touches.count == 2)
        let ended = try #require(jumped.touch(id))
        #expect(ended.phase == .ended)
        #expect(ended.millimeters == Point(x: 11, y: 10))
        let fresh = try #require(jumped.touches.first { $0.id != id })
        #expect(fresh.phase == .began)
        #expect(fresh.millimeters == Point(x: 49, y: 10))
        #expect(jumped.fingerCount == 1)
        // The new contact moves on as any other.
        let after = try #require(tracker.process(place(36, 50, 10, unitsPerMM: 32)))
        #expect(after.phases == [.moved])
        #expect(after.touches.first?.id == fresh.id)
    }

    @Test("fast but steady touchpad motion and irregular frames are no jumps")
    func steadyMotionIsNoJump() throws {
        let tracker = makeTracker(TestDevices.touchpad())
        _ = tracker.process(place(0, 10, 10, unitsPerMM: 32, first: true))
        // 6 mm per 12 ms, growing by less than 7 mm per frame: a fast swipe.
        var x = 10.0
        for step in 1...5 {
            x += 6
            let frame = try #require(tracker.process(place(Double(step) * 12, x, 10, unitsPerMM: 32)))
            #expect(frame.phases == [.moved])
        }
        // 25 mm after 40 ms: more than 30 ms since the last frame, not judged.
        let late = try #require(tracker.process(place(100, x + 25, 10, unitsPerMM: 32)))
        #expect(late.phases == [.moved])
    }

    @Test("a touchscreen keeps a 38 mm frame as motion (a fast flick is real there)")
    func touchscreenKeepsMotion() throws {
        let tracker = makeTracker(TestDevices.touchscreen())
        _ = tracker.process(place(0, 10, 10, unitsPerMM: 16, first: true))
        _ = tracker.process(place(12, 11, 10, unitsPerMM: 16))
        let flick = try #require(tracker.process(place(24, 49, 10, unitsPerMM: 16)))
        #expect(flick.phases == [.moved])
        #expect(flick.touches.first?.millimeters == Point(x: 49, y: 10))
    }
}
