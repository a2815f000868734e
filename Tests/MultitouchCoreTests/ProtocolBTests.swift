import MultitouchCore
import MultitouchTestKit
import Testing

@Suite("Contact tracker: protocol B")
struct ProtocolBTests {
    let screen = TestDevices.touchscreen()

    @Test("slot 0 is implied before any ABS_MT_SLOT")
    func impliedSlotZero() throws {
        let tracker = makeTracker(screen)
        let frame = try #require(
            tracker.process(
                rawFrame(
                    0,
                    [
                        absEvent(AbsCode.mtTrackingID, 5), absEvent(AbsCode.mtPositionX, 1600),
                        absEvent(AbsCode.mtPositionY, 800),
                    ])))
        #expect(frame.touches.count == 1)
        let touch = frame.touches[0]
        #expect(touch.slot == 0)
        #expect(touch.trackingID == 5)
        #expect(touch.phase == .began)
        #expect(touch.millimeters == Point(x: 100, y: 50))
        #expect(touch.previousLocation == touch.location)
        #expect(touch.type == .direct)
        #expect(frame.fingerCount == 1)
        #expect(tracker.activeTouchCount == 1)
    }

    @Test("tracking id -1 ends the touch; the slot keeps its values for the next touch")
    func trackingIDEnds() throws {
        let tracker = makeTracker(screen)
        _ = tracker.process(
            rawFrame(
                0,
                [
                    absEvent(AbsCode.mtTrackingID, 1), absEvent(AbsCode.mtPositionX, 160),
                    absEvent(AbsCode.mtPositionY, 320),
                ]))
        let ended = try #require(tracker.process(rawFrame(10, [absEvent(AbsCode.mtTrackingID, -1)])))
        #expect(ended.phases == [.ended])
        #expect(ended.touches[0].millimeters == Point(x: 10, y: 20))
        #expect(ended.fingerCount == 0)
        #expect(tracker.activeTouchCount == 0)
        // The kernel does not re-send unchanged values: a new touch in the slot starts where the slot was.
        let again = try #require(tracker.process(rawFrame(20, [absEvent(AbsCode.mtTrackingID, 2)])))
        #expect(again.phases == [.began])
        #expect(again.touches[0].millimeters == Point(x: 10, y: 20))
        #expect(again.touches[0].id > ended.touches[0].id)
    }

    @Test("a new tracking id on an active slot ends the old touch and begins a new one in one frame")
    func trackingIDReuse() throws {
        let tracker = makeTracker(screen)
        let first = try #require(
            tracker.process(rawFrame(0, [absEvent(AbsCode.mtTrackingID, 1), absEvent(AbsCode.mtPositionX, 100)])))
        let oldID = first.touches[0].id
        let frame = try #require(
            tracker.process(rawFrame(10, [absEvent(AbsCode.mtTrackingID, 2), absEvent(AbsCode.mtPositionX, 900)])))
        #expect(frame.touches.count == 2)
        let old = try #require(frame.touch(oldID))
        #expect(old.phase == .ended)
        #expect(old.location == first.touches[0].location, "the old touch ends where it was")
        let new = try #require(frame.touches.first { $0.id != oldID })
        #expect(new.phase == .began)
        #expect(new.trackingID == 2)
        #expect(new.slot == 0)
        #expect(new.normalized.x == 900.0 / 4095.0)
        #expect(frame.fingerCount == 1)
        #expect(TouchFrames.problems(in: [first, frame]).filter { !$0.contains("never ended") }.isEmpty)
    }

    @Test("MT_TOOL_PALM cancels the touch; the slot stays ignored until its tracking id ends")
    func palmCancels() throws {
        let tracker = makeTracker(screen)
        _ = tracker.process(rawFrame(0, [absEvent(AbsCode.mtTrackingID, 1), absEvent(AbsCode.mtPositionX, 100)]))
        let cancelled = try #require(tracker.process(rawFrame(10, [absEvent(AbsCode.mtToolType, MTToolType.palm)])))
        #expect(cancelled.phases == [.cancelled])
        #expect(cancelled.fingerCount == 0)
        #expect(tracker.process(rawFrame(20, [absEvent(AbsCode.mtPositionX, 500)])) == nil)
        #expect(
            tracker.process(rawFrame(30, [absEvent(AbsCode.mtToolType, MTToolType.finger)])) == nil, "no resurrection")
        #expect(tracker.process(rawFrame(40, [absEvent(AbsCode.mtTrackingID, -1)])) == nil)
        let next = try #require(tracker.process(rawFrame(50, [absEvent(AbsCode.mtTrackingID, 2)])))
        #expect(next.phases == [.began])
    }

    @Test("a touch that lands as a palm is never reported; a new tracking id in the slot is")
    func palmFromTheStart() throws {
        let tracker = makeTracker(screen)
        #expect(
            tracker.process(
                rawFrame(0, [absEvent(AbsCode.mtTrackingID, 1), absEvent(AbsCode.mtToolType, MTToolType.palm)])) == nil)
        let next = try #require(
            tracker.process(
                rawFrame(10, [absEvent(AbsCode.mtTrackingID, 2), absEvent(AbsCode.mtToolType, MTToolType.finger)])))
        #expect(next.phases == [.began])
    }

    @Test("touches that end in a resync frame are cancelled")
    func resyncCancels() throws {
        let tracker = makeTracker(screen)
        _ = tracker.process(
            rawFrame(
                0,
                [
                    absEvent(AbsCode.mtTrackingID, 1), absEvent(AbsCode.mtSlot, 1), absEvent(AbsCode.mtTrackingID, 2),
                ]))
        let frame = try #require(
            tracker.process(
                rawFrame(
                    10,
                    [
                        absEvent(AbsCode.mtSlot, 0), absEvent(AbsCode.mtTrackingID, -1), absEvent(AbsCode.mtSlot, 1),
                        absEvent(AbsCode.mtTrackingID, 3),
                    ], resync: true)))
        #expect(frame.phases == [.cancelled, .cancelled, .began])
        #expect(frame.fingerCount == 1)
    }

    @Test("slot numbers out of range are ignored until a valid ABS_MT_SLOT")
    func outOfRangeSlots() throws {
        let tracker = makeTracker(screen)
        #expect(
            tracker.process(
                rawFrame(
                    0,
                    [absEvent(AbsCode.mtSlot, 10), absEvent(AbsCode.mtTrackingID, 1), absEvent(AbsCode.mtPositionX, 5)])
            ) == nil)
        #expect(tracker.process(rawFrame(1, [absEvent(AbsCode.mtSlot, -3), absEvent(AbsCode.mtTrackingID, 1)])) == nil)
        #expect(
            tracker.process(rawFrame(2, [absEvent(AbsCode.mtSlot, Int32.max), absEvent(AbsCode.mtTrackingID, 1)]))
                == nil)
        let frame = try #require(
            tracker.process(rawFrame(3, [absEvent(AbsCode.mtSlot, 9), absEvent(AbsCode.mtTrackingID, 4)])))
        #expect(frame.touches.map(\.slot) == [9])
    }

    @Test("frames without a change return nil; unchanged re-sent values are stationary")
    func noChangeIsNil() throws {
        let tracker = makeTracker(screen)
        _ = tracker.process(rawFrame(0, [absEvent(AbsCode.mtTrackingID, 1), absEvent(AbsCode.mtPositionX, 100)]))
        #expect(tracker.process(rawFrame(10, [(EventType.msc, MscCode.timestamp, 10000)])) == nil)
        #expect(tracker.process(rawFrame(20, [])) == nil)
        #expect(tracker.process(rawFrame(30, [absEvent(AbsCode.mtPositionX, 100)])) == nil)
        #expect(tracker.process(rawFrame(40, [keyEvent(KeyCode.btnTouch, 1)])) == nil)
        let moved = try #require(tracker.process(rawFrame(50, [absEvent(AbsCode.mtPositionX, 101)])))
        #expect(moved.phases == [.moved])
        #expect(moved.touches[0].timestamp == Timestamp(microseconds: 50000))
    }

    @Test("every active touch is in every frame: the unchanged ones as stationary, sorted by id")
    func stationaryTouches() throws {
        var script = TouchScripter(device: screen)
        script.down(finger: 0, x: 20, y: 20)
        script.down(finger: 1, x: 80, y: 80)
        script.frame()
        script.advance(ms: 10)
        script.move(finger: 1, x: 70, y: 80)
        script.frame()
        let frames = TouchFrames.track(script.events, device: screen, cancelAtEnd: false)
        #expect(frames.count == 2)
        #expect(frames[0].phases == [.began, .began])
        #expect(frames[1].phases == [.stationary, .moved])
        #expect(frames[1].touches[0].previousLocation == frames[1].touches[0].location)
        #expect(frames[1].touches[1].previousLocation == frames[0].touches[1].location)
        #expect(frames[1].touches.map(\.id) == frames[0].touches.map(\.id))
    }

    @Test("BTN_TOOL_TRIPLETAP gives 3 fingers on a 2-slot touchpad")
    func toolFingerCount() throws {
        let pad = TestDevices.touchpad(slots: 2)
        var script = TouchScripter(device: pad)
        script.down(finger: 0, x: 30, y: 50)
        script.down(finger: 1, x: 50, y: 50)
        script.frame()
        script.advance(ms: 10)
        script.down(finger: 2, x: 70, y: 50)
        script.frame()
        script.advance(ms: 10)
        script.up(finger: 2)
        script.frame()
        script.advance(ms: 10)
        script.up(finger: 0)
        script.up(finger: 1)
        script.frame()
        let frames = TouchFrames.track(script.events, device: pad)
        #expect(frames.map(\.fingerCount) == [2, 3, 2, 0])
        #expect(frames.map { $0.activeTouches.count } == [2, 2, 2, 0])
        #expect(frames[1].phases == [.stationary, .stationary], "only the count changed")
        #expect(frames[0].touches.allSatisfy { $0.type == .indirect })
        #expect(TouchFrames.problems(in: frames).isEmpty)
    }

    @Test("no fingers are counted without a touch, whatever the tool keys say")
    func toolKeysAlone() {
        let tracker = makeTracker(TestDevices.touchpad(slots: 2))
        #expect(tracker.process(rawFrame(0, [keyEvent(KeyCode.btnToolTripleTap, 1)])) == nil)
    }

    @Test("a palm is not counted as a finger by BTN_TOOL_*")
    func palmNotCounted() throws {
        let tracker = makeTracker(screen)
        _ = tracker.process(
            rawFrame(
                0, [absEvent(AbsCode.mtTrackingID, 1), absEvent(AbsCode.mtSlot, 1), absEvent(AbsCode.mtTrackingID, 2)]))
        let frame = try #require(tracker.process(rawFrame(10, [absEvent(AbsCode.mtToolType, MTToolType.palm)])))
        #expect(frame.phases == [.stationary, .cancelled])
        #expect(frame.fingerCount == 1)
    }

    @Test("a semi-mt pad is served as one, and the bounding box plus BTN_TOOL_TRIPLETAP give 3 fingers")
    func semiMT() throws {
        let pad = TestDevices.semiMTClickpad()
        var script = TouchScripter(device: pad)
        script.down(finger: 0, x: 30, y: 60)
        script.frame()
        script.advance(ms: 10)
        script.down(finger: 1, x: 60, y: 40)
        script.frame()
        script.advance(ms: 10)
        script.down(finger: 2, x: 45, y: 80)
        script.frame()
        let frames = TouchFrames.track(script.events, device: pad)
        #expect(pad.kind == .semiMTTouchpad)
        #expect(ContactTracker(description: pad, mapper: CoordinateMapper(description: pad)).kind == .semiMTTouchpad)
        #expect(frames.map(\.fingerCount) == [1, 2, 3, 0])
        let box = frames[2].activeTouches.map(\.normalized)
        #expect(box.count == 2)
        #expect(Swift.abs(box[0].x - 0.3) < 0.001 && Swift.abs(box[0].y - 0.4) < 0.002)
        #expect(Swift.abs(box[1].x - 0.6) < 0.001 && Swift.abs(box[1].y - 0.8) < 0.002)
        #expect(TouchFrames.problems(in: frames).isEmpty)
        #expect(screen.kind == .touchscreen)
    }

    @Test("a touch that begins and ends in one frame: began now, ended with the next frame")
    func beganAndEndedInOneFrame() throws {
        let tracker = makeTracker(screen)
        let frame = try #require(
            tracker.process(rawFrame(0, [absEvent(AbsCode.mtTrackingID, 1), absEvent(AbsCode.mtTrackingID, -1)])))
        #expect(frame.phases == [.began])
        #expect(frame.fingerCount == 1)
        #expect(tracker.hasDeferredEnds)
        #expect(tracker.activeTouchCount == 1)
        let next = try #require(tracker.process(rawFrame(10, [])))
        #expect(next.phases == [.ended])
        #expect(next.touches[0].id == frame.touches[0].id)
        #expect(next.fingerCount == 0)
        #expect(!tracker.hasDeferredEnds)
        #expect(tracker.process(rawFrame(20, [])) == nil)
    }

    @Test("a deferred end can be taken at once, and cancelAll delivers it too")
    func deferredEndTaken() throws {
        let tracker = makeTracker(screen)
        _ = tracker.process(
            rawFrame(
                0,
                [
                    absEvent(AbsCode.mtSlot, 1), absEvent(AbsCode.mtTrackingID, 8), absEvent(AbsCode.mtSlot, 0),
                    absEvent(AbsCode.mtTrackingID, 1), absEvent(AbsCode.mtTrackingID, 2),
                ]))
        let ends = try #require(tracker.takeDeferredEnds())
        #expect(ends.phases == [.ended, .stationary, .stationary], "the touch that ended first got its id first")
        #expect(ends.fingerCount == 2)
        #expect(tracker.takeDeferredEnds() == nil)

        let other = makeTracker(screen)
        _ = other.process(rawFrame(0, [absEvent(AbsCode.mtTrackingID, 1), absEvent(AbsCode.mtTrackingID, -1)]))
        let cancelled = try #require(other.cancelAll(at: Timestamp(microseconds: 5)))
        #expect(cancelled.phases == [.ended])
    }

    @Test("cancelAll cancels every touch; a slot still down stays ignored until it ends")
    func cancelAll() throws {
        let tracker = makeTracker(screen)
        _ = tracker.process(
            rawFrame(
                0, [absEvent(AbsCode.mtTrackingID, 1), absEvent(AbsCode.mtSlot, 3), absEvent(AbsCode.mtTrackingID, 2)]))
        let frame = try #require(tracker.cancelAll(at: Timestamp(microseconds: 7000)))
        #expect(frame.phases == [.cancelled, .cancelled])
        #expect(frame.fingerCount == 0)
        #expect(frame.time == Timestamp(microseconds: 7000))
        #expect(frame.touches.allSatisfy { $0.timestamp == frame.time })
        #expect(tracker.activeTouchCount == 0)
        #expect(tracker.cancelAll(at: Timestamp(microseconds: 8000)) == nil)
        #expect(tracker.process(rawFrame(10, [absEvent(AbsCode.mtPositionX, 300)])) == nil)
        #expect(tracker.process(rawFrame(20, [absEvent(AbsCode.mtTrackingID, -1)])) == nil)
        let next = try #require(tracker.process(rawFrame(30, [absEvent(AbsCode.mtTrackingID, 5)])))
        #expect(next.phases == [.began])
        #expect(next.touches[0].slot == 3)
    }

    @Test("touch ids come from the shared source and never repeat across trackers")
    func sharedIDSource() throws {
        let source = TouchIDSource(first: 40)
        let a = TrackerBox(
            ContactTracker(description: screen, mapper: CoordinateMapper(description: screen), idSource: source))
        let b = TrackerBox(
            ContactTracker(description: screen, mapper: CoordinateMapper(description: screen), idSource: source))
        let first = try #require(a.process(rawFrame(0, [absEvent(AbsCode.mtTrackingID, 1)])))
        let second = try #require(b.process(rawFrame(0, [absEvent(AbsCode.mtTrackingID, 1)])))
        #expect(first.touches[0].id == 40)
        #expect(second.touches[0].id == 41)
    }
}

/// Small fixed scenarios shared by several suites.
enum TouchScripterFixtures {
    static func twoFingers(on device: DeviceDescription) -> [InputEvent] {
        var script = TouchScripter(device: device)
        script.down(finger: 0, x: 40, y: 50)
        script.down(finger: 1, x: 60, y: 50)
        script.frame()
        script.move(fingers: [(0, 30, 50), (1, 70, 50)], steps: 5, durationMs: 50)
        script.up(finger: 0)
        script.up(finger: 1)
        script.advance(ms: 10)
        script.frame()
        return script.events
    }
}

/// The class a device is served as is chosen once, from its description (`DeviceDescription.kind`):
/// the stages are configured with it (issue 32).
@Suite("Device class")
struct DeviceKindTests {
    @Test func eachTestDeviceIsServedAsItsClass() {
        #expect(TestDevices.touchscreen(slots: 10, maximum: 1000, resolution: 10).kind == .touchscreen)
        #expect(TestDevices.semiMTClickpad().kind == .semiMTTouchpad)
        for (name, device) in TestDevices.all {
            #expect(device.kind.deviceClass == device.deviceClass, "\(name)")
            #expect(device.kind.isSemiMT == (device.deviceClass == .touchpad && device.isSemiMT), "\(name)")
            #expect(device.kind.touchType == (device.deviceClass == .touchscreen ? .direct : .indirect), "\(name)")
        }
    }

    /// The kernel sets INPUT_PROP_SEMI_MT on touchpads only; on a direct device it describes no box.
    @Test func semiMTOnlySplitsTouchpads() {
        var screen = TestDevices.touchscreen(slots: 2, maximum: 1000, resolution: 10)
        screen.properties.insert(InputProperty.semiMT)
        #expect(screen.isSemiMT && screen.kind == .touchscreen)
        var pen = DeviceDescription(
            name: "pen", identity: DeviceIdentity(bustype: 3, vendor: 1, product: 2, version: 1))
        pen.codes[EventType.key] = [KeyCode.btnToolPen, KeyCode.btnTouch]
        pen.axes[AbsCode.x] = AxisInfo(minimum: 0, maximum: 100)
        pen.axes[AbsCode.y] = AxisInfo(minimum: 0, maximum: 100)
        pen.properties = [InputProperty.direct]
        #expect(pen.kind == .other && pen.kind.touchType == .indirect && !pen.kind.isSemiMT)
    }

    /// The tracker reads the class it is given: its touches' type and its contact source follow it.
    @Test func theTrackerIsConfiguredWithTheClassItIsGiven() throws {
        let pad = TestDevices.semiMTClickpad()
        var script = TouchScripter(device: pad)
        script.down(finger: 0, x: 30, y: 60)
        script.frame()
        var tracker = ContactTracker(description: pad, mapper: CoordinateMapper(description: pad))
        var assembler = FrameAssembler()
        var frames: [TouchFrame] = []
        for event in script.events {
            if case .frame(let frame)? = assembler.push(event), let touches = tracker.process(frame) {
                frames.append(touches)
            }
        }
        #expect(tracker.kind == .semiMTTouchpad)
        #expect(frames.first?.touches.first?.type == .indirect)
    }
}
