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

    /// Two fingers of a pinch on a touchpad, one frame at kernel time `ms` with the device's scan time
    /// `scanMicroseconds` (nil: no `MSC_TIMESTAMP`), the fingers `spread` mm either side of x = 40.
    private func pinch(
        _ ms: Double, scan scanMicroseconds: Int64?, spread: Double, first: Bool = false
    ) -> EventFrame {
        var events: [(UInt16, UInt16, Int32)] = []
        for (slot, sign) in [(0, -1.0), (1, 1.0)] {
            events.append(absEvent(AbsCode.mtSlot, Int32(slot)))
            if first { events.append(absEvent(AbsCode.mtTrackingID, Int32(20 + slot))) }
            events.append(absEvent(AbsCode.mtPositionX, Int32(((40 + sign * spread) * 32).rounded())))
            if first { events.append(absEvent(AbsCode.mtPositionY, 30 * 32)) }
        }
        if let scanMicroseconds {
            events.append((EventType.msc, MscCode.timestamp, Int32(truncatingIfNeeded: scanMicroseconds)))
        }
        return rawFrame(ms, events)
    }

    /// Plays a two-finger pinch on a touchpad: frames the sensor scanned 10 ms apart, each finger
    /// 0.3 mm further out per frame; from the 6th frame on, the machine stalled and the frames reach
    /// the reader 0.3 ms apart. Returns the touch ids seen and how many frames ended a touch.
    private func burstAfterStall(scanStart: Int64?) throws -> (ids: Set<UInt64>, ends: Int) {
        let tracker = makeTracker(TestDevices.touchpad())
        var ids = Set<UInt64>()
        var ends = 0
        var kernelMs = 0.0
        for step in 0..<40 {
            kernelMs += step == 0 ? 0 : (step < 6 ? 10 : 0.3)
            let scan = scanStart.map { $0 + Int64(step) * 10_000 }
            let frame = try #require(
                tracker.process(pinch(kernelMs, scan: scan, spread: 5 + 0.3 * Double(step), first: step == 0)))
            for touch in frame.touches {
                ids.insert(touch.id)
                if touch.phase == .ended { ends += 1 }
            }
        }
        return (ids, ends)
    }

    @Test("a burst of ordinary frames after a stall is judged by the device's scan time: no jumps")
    func burstAfterStallKeepsTouches() throws {
        let result = try burstAfterStall(scanStart: 1_000_000)
        #expect(result.ids.count == 2)
        #expect(result.ends == 0)
    }

    @Test("the scan time wraps at 2^32: the interval across the wrap is the device's 10 ms")
    func scanTimeWraps() throws {
        let tracker = makeTracker(TestDevices.touchpad())
        let beforeWrap = Int64(UInt32.max) - 4_999
        _ = tracker.process(pinch(0, scan: beforeWrap - 10_000, spread: 5, first: true))
        let calm = try #require(tracker.process(pinch(0.3, scan: beforeWrap, spread: 5.3)))
        #expect(calm.phases == [.moved, .moved])
        // Across the wrap (scan time 5_000 after 2^32 - 5_000): 10 ms of device time, so a 30 mm step
        // is a jump; read as a negative interval it would not be judged at all.
        let jumped = try #require(tracker.process(pinch(0.6, scan: beforeWrap + 10_000, spread: 35.3)))
        #expect(jumped.touches.filter { $0.phase == .ended }.count == 2)
    }

    @Test("without MSC_TIMESTAMP the event time judges: a burst's steps then look like jumps")
    func burstWithoutScanTimeUsesEventTime() throws {
        // What the rule can know without the device's time: 0.3 mm in 0.3 ms is 12 mm per 12 ms.
        // This is the behaviour the scan time fixes for devices that report one.
        let result = try burstAfterStall(scanStart: nil)
        #expect(result.ids.count > 2)
        #expect(result.ends > 0)
    }

    @Test("a scan time of 0 (the kernel's restart after a second without reports) falls back to event time")
    func scanTimeRestart() throws {
        let tracker = makeTracker(TestDevices.touchpad())
        _ = tracker.process(pinch(0, scan: 5_000_000, spread: 5, first: true))
        _ = tracker.process(pinch(10, scan: 5_010_000, spread: 5.3))
        // Restart at 0: the interval is the event time's 12 ms (a 30 mm step is a jump), not
        // 0 - 5_010_000 modulo 2^32 (over an hour: not judged).
        let restarted = try #require(tracker.process(pinch(22, scan: 0, spread: 35.3)))
        #expect(restarted.touches.filter { $0.phase == .ended }.count == 2)
        // The count goes on from 0: the next frame's interval is the device's again.
        let next = try #require(tracker.process(pinch(22.3, scan: 10_000, spread: 35.6)))
        #expect(next.phases == [.moved, .moved])
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
