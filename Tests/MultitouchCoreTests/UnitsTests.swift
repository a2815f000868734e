import MultitouchCore
import MultitouchTestKit
import Testing

@Suite("Contact tracker: units, shape and force")
struct UnitsTests {
    private func firstTouch(_ device: DeviceDescription, _ events: [(UInt16, UInt16, Int32)], output: OutputMapping? = nil, configuredSize: (Double, Double)? = nil) -> Touch? {
        var tracker = ContactTracker(
            description: device, mapper: CoordinateMapper(description: device, output: output, configuredSize: configuredSize))
        return tracker.process(rawFrame(0, events))?.touches.first
    }

    @Test("millimetres come from the axis resolution")
    func resolution() throws {
        let touch = try #require(
            firstTouch(TestDevices.touchpad(), [absEvent(AbsCode.mtTrackingID, 1), absEvent(AbsCode.mtPositionX, 3200), absEvent(AbsCode.mtPositionY, 640)]))
        #expect(touch.millimeters == Point(x: 100, y: 20))
        #expect(touch.normalized == Point(x: 1, y: 0.32))
        #expect(touch.location == touch.millimeters, "a touchpad publishes millimetres")
    }

    @Test("resolution 0: the nominal size gives square units, a configured size wins")
    func resolutionZero() throws {
        let device = TestDevices.touchscreenWithoutResolution()
        let events = [absEvent(AbsCode.mtTrackingID, 1), absEvent(AbsCode.mtPositionX, 32767), absEvent(AbsCode.mtPositionY, 32767)]
        let nominal = try #require(firstTouch(device, events))
        #expect(Swift.abs(nominal.millimeters.x - CoordinateMapper.nominalTouchscreenWidthMillimeters) < 1e-9)
        #expect(Swift.abs(nominal.millimeters.y - nominal.millimeters.x) < 1e-9, "square units")
        let configured = try #require(firstTouch(device, events, configuredSize: (200, 150)))
        #expect(Swift.abs(configured.millimeters.x - 200) < 1e-9)
        #expect(Swift.abs(configured.millimeters.y - 150) < 1e-9)
        #expect(configured.majorRadius == 0)
    }

    @Test("a mapped touchscreen publishes output pixels after calibration and rotation 90")
    func outputMapping() throws {
        let device = TestDevices.touchscreen()
        // Calibration halves x and shifts it by 0.1 (normalized), then the panel is turned 90 degrees.
        let output = OutputMapping(width: 1920, height: 1080, rotation: 90, calibration: [0.5, 0, 0.1, 0, 1, 0])
        let touch = try #require(
            firstTouch(device, [absEvent(AbsCode.mtTrackingID, 1), absEvent(AbsCode.mtPositionX, 1365), absEvent(AbsCode.mtPositionY, 2730)], output: output))
        let nx = 1365.0 / 4095
        let ny = 2730.0 / 4095
        let cx = 0.5 * nx + 0.1
        let cy = ny
        // Rotation 90 clockwise: x' = 1 - y, y' = x.
        #expect(Swift.abs(touch.location.x - (1 - cy) * 1920) < 1e-9)
        #expect(Swift.abs(touch.location.y - cx * 1080) < 1e-9)
        #expect(touch.millimeters == Point(x: 1365.0 / 16, y: 2730.0 / 16), "millimetres ignore the output")
        #expect(touch.previousLocation == touch.location)
    }

    @Test("a calibration matrix with NaN never leaks into locations")
    func badCalibration() throws {
        let output = OutputMapping(width: 100, height: 100, calibration: [.nan, 0, 0, 0, 1, 0])
        let touch = try #require(firstTouch(TestDevices.touchscreen(), [absEvent(AbsCode.mtTrackingID, 1)], output: output))
        #expect(touch.location.isFinite)
    }

    @Test("radii are half of touch major/minor in mm; orientation in radians; force normalized")
    func shape() throws {
        let touch = try #require(
            firstTouch(TestDevices.touchscreen(), [
                absEvent(AbsCode.mtTrackingID, 1), absEvent(AbsCode.mtTouchMajor, 160), absEvent(AbsCode.mtTouchMinor, 80),
                absEvent(AbsCode.mtOrientation, 45), absEvent(AbsCode.mtPressure, 51),
            ]))
        #expect(touch.majorRadius == 5)
        #expect(touch.minorRadius == 2.5)
        #expect(Swift.abs((touch.orientation ?? 0) - Double.pi / 4) < 1e-12)
        #expect(touch.force == 0.2)

        let left = try #require(firstTouch(TestDevices.touchscreen(), [absEvent(AbsCode.mtTrackingID, 1), absEvent(AbsCode.mtOrientation, -90)]))
        #expect(left.orientation == -Double.pi / 2)
        // Beyond max (true 360-degree devices) is clamped to half a turn; pressure beyond the axis to 1.
        let beyond = try #require(
            firstTouch(TestDevices.touchscreen(), [absEvent(AbsCode.mtTrackingID, 1), absEvent(AbsCode.mtOrientation, 900), absEvent(AbsCode.mtPressure, 9999)]))
        #expect(beyond.orientation == Double.pi)
        #expect(beyond.force == 1)
    }

    @Test("a [0, 1] orientation range means Y-aligned (0) or X-aligned (a quarter turn); no pressure axis, no force")
    func protocolAShape() throws {
        let touch = try #require(
            firstTouch(TestDevices.protocolATouchscreen(), [
                absEvent(AbsCode.mtPositionX, 100), absEvent(AbsCode.mtOrientation, 1), absEvent(AbsCode.mtTouchMajor, 360), mtReport,
            ]))
        #expect(touch.orientation == Double.pi / 2)
        #expect(touch.force == nil)
        let upp = CoordinateMapper(description: TestDevices.protocolATouchscreen()).unitsPerMillimeterX
        #expect(Swift.abs((touch.majorRadius ?? 0) - 180 / upp) < 1e-12)
        #expect(touch.minorRadius == 0)
        let pad = try #require(firstTouch(TestDevices.touchpad(), [absEvent(AbsCode.mtTrackingID, 1)]))
        #expect(pad.majorRadius == nil && pad.minorRadius == nil && pad.orientation == nil)
        #expect(pad.force == 0)
    }

    @Test("pressure changes alone make a touch moved (UIKit reports force changes as moves)")
    func pressureMoves() throws {
        let tracker = makeTracker(TestDevices.touchscreen())
        _ = tracker.process(rawFrame(0, [absEvent(AbsCode.mtTrackingID, 1), absEvent(AbsCode.mtPressure, 10)]))
        let frame = try #require(tracker.process(rawFrame(10, [absEvent(AbsCode.mtPressure, 20)])))
        #expect(frame.phases == [.moved])
        #expect(frame.touches[0].location == frame.touches[0].previousLocation)
    }
}

@Suite("Tap counting")
struct TapCountTests {
    let screen = TestDevices.touchscreen()

    private func tapCounts(_ build: (inout TouchScripter) -> Void) -> [Int] {
        var script = TouchScripter(device: screen)
        build(&script)
        return TouchFrames.track(script.events, device: screen).flatMap { $0.touches.filter { $0.phase == .began }.map(\.tapCount) }
    }

    @Test("quick taps on the same spot count up")
    func tripleTap() {
        #expect(tapCounts { script in
            for _ in 0..<3 {
                script.tap(x: 50, y: 50, durationMs: 60)
                script.advance(ms: 150)
            }
        } == [1, 2, 3])
    }

    @Test("too late, too far, too long or moved: the count starts again")
    func seriesBreaks() {
        #expect(tapCounts { script in
            script.tap(x: 50, y: 50)
            script.advance(ms: 400)
            script.tap(x: 50, y: 50)
        } == [1, 1])
        #expect(tapCounts { script in
            script.tap(x: 20, y: 50)
            script.advance(ms: 100)
            script.tap(x: 50, y: 50)  // 30% of 256 mm away
        } == [1, 1])
        #expect(tapCounts { script in
            script.tap(x: 50, y: 50, durationMs: 500)
            script.advance(ms: 100)
            script.tap(x: 50, y: 50)
        } == [1, 1])
        #expect(tapCounts { script in
            script.down(finger: 0, x: 50, y: 50)
            script.frame()
            script.move(finger: 0, to: (53, 50), steps: 2, durationMs: 20)
            script.up(finger: 0)
            script.frame()
            script.advance(ms: 100)
            script.tap(x: 53, y: 50)
        } == [1, 1])
    }

    @Test("a two-finger double tap counts 2 for both fingers")
    func twoFingerDoubleTap() {
        #expect(tapCounts { script in
            for _ in 0..<2 {
                script.down(finger: 0, x: 40, y: 50)
                script.down(finger: 1, x: 60, y: 50)
                script.frame()
                script.advance(ms: 50)
                script.up(finger: 0)
                script.up(finger: 1)
                script.frame()
                script.advance(ms: 100)
            }
        } == [1, 1, 2, 2])
    }

    @Test("a cancelled touch is no tap")
    func cancelledIsNoTap() throws {
        let tracker = makeTracker(screen)
        _ = tracker.process(rawFrame(0, [absEvent(AbsCode.mtTrackingID, 1)]))
        _ = tracker.process(rawFrame(10, [absEvent(AbsCode.mtTrackingID, -1)], resync: true))
        let next = try #require(tracker.process(rawFrame(50, [absEvent(AbsCode.mtTrackingID, 2)])))
        #expect(next.touches[0].tapCount == 1)
    }
}
