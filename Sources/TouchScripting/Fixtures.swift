import MultitouchCore

/// The project's own recordings: scripted finger scenarios on the test devices. `multitouchctl generate`
/// writes them to checks/fixtures as evemu files (a test checks the committed files are current), the
/// README's demo serves one, and the CI checks replay every one.
public enum Fixtures {
    /// One fixture: a file name, a device and its events.
    public struct Fixture: Sendable {
        public var name: String
        public var summary: String
        public var device: DeviceDescription
        public var events: [InputEvent]
    }

    /// A fixture scripted on `device`: `script` lands, moves and lifts the fingers.
    static func scripted(
        _ name: String, _ summary: String, on device: DeviceDescription, script: (inout TouchScripter) -> Void
    ) -> Fixture {
        var s = TouchScripter(device: device)
        script(&s)
        return Fixture(name: name, summary: summary, device: device, events: s.events)
    }

    public static var all: [Fixture] {
        [
            pinchRotate(), mapTour(), panTapLongPress(), touchpadThreeFingers(), protocolA(), semiMT(),
            noResolution(), palm(), trackingIDReuse(), singleTouch(),
        ]
    }

    /// Two fingers pinch out to twice their spread, turn a quarter turn, one lifts and pans, it lands
    /// again and pinches back in: the 2 -> 1 -> 2 handoff.
    public static func pinchRotate() -> Fixture {
        scripted(
            "touchscreen-pinch-rotate", "pinch out 2x, quarter turn, 2->1 pan, 1->2 pinch in",
            on: TestDevices.touchscreen()
        ) { s in
            s.land([(0, 40, 50), (1, 60, 50)])
            s.move(fingers: [(0, 30, 50), (1, 70, 50)], steps: 20, durationMs: 320)
            // A quarter turn about the centroid (50, 50), radius 20 %, in 24 steps.
            for step in 1...24 {
                let angle = Double(step) / 24 * Double.pi / 2
                s.move(finger: 0, x: 50 - 20 * cosine(angle), y: 50 - 20 * sine(angle))
                s.move(finger: 1, x: 50 + 20 * cosine(angle), y: 50 + 20 * sine(angle))
                s.advance(ms: 16)
                s.frame()
            }
            s.lift(1, afterMs: 16)
            s.move(finger: 0, toX: 40, y: 20, steps: 15, durationMs: 240)
            s.land([(2, 60, 40)], afterMs: 16)
            s.move(fingers: [(0, 45, 25), (2, 55, 35)], steps: 15, durationMs: 240)
            s.lift(0, 2, afterMs: 16)
        }
    }

    /// A map-style tour for the demo: pan, pinch zoom toward the fingers, twist, lift a finger and keep
    /// panning, land it and keep zooming, a double tap and a long press.
    public static func mapTour() -> Fixture {
        scripted(
            "touchscreen-map-tour", "pan, pinch, twist, 2->1->2 handoffs, double tap, long press",
            on: TestDevices.touchscreen()
        ) { s in
            s.land([(0, 30, 60)])
            s.move(finger: 0, toX: 55, y: 45, steps: 30, durationMs: 480)
            s.land([(1, 70, 55)], afterMs: 16)
            s.move(fingers: [(0, 45, 40), (1, 80, 65)], steps: 30, durationMs: 480)
            for step in 1...30 {
                let angle = Double(step) / 30 * Double.pi / 3
                let c = (62.5, 52.5)
                s.move(finger: 0, x: c.0 - 19 * cosine(angle + 0.5), y: c.1 - 19 * sine(angle + 0.5))
                s.move(finger: 1, x: c.0 + 19 * cosine(angle + 0.5), y: c.1 + 19 * sine(angle + 0.5))
                s.advance(ms: 16)
                s.frame()
            }
            s.lift(0, afterMs: 16)
            s.move(finger: 1, toX: 40, y: 40, steps: 30, durationMs: 480)
            s.land([(3, 60, 60)], afterMs: 16)
            s.move(fingers: [(1, 48, 48), (3, 52, 52)], steps: 30, durationMs: 480)
            s.lift(1, 3, afterMs: 16)
            s.advance(ms: 600)
            s.tap(finger: 4, x: 50, y: 50, durationMs: 60)
            s.advance(ms: 120)
            s.tap(finger: 5, x: 50.5, y: 50.5, durationMs: 60)
            s.advance(ms: 700)
            s.hold(finger: 6, x: 25, y: 25, frames: 50, everyMs: 16)
        }
    }

    /// One-finger pan past the slop, a tap, a double tap, a long press.
    public static func panTapLongPress() -> Fixture {
        scripted("touchscreen-pan-tap-longpress", "pan, tap, double tap, long press", on: TestDevices.touchscreen()) {
            s in
            s.land([(0, 20, 20)])
            s.move(finger: 0, toX: 60, y: 30, steps: 25, durationMs: 400)
            s.lift(0, afterMs: 16)
            s.advance(ms: 500)
            s.tap(finger: 1, x: 50, y: 50, durationMs: 70)
            s.advance(ms: 600)
            s.tap(finger: 2, x: 30, y: 70, durationMs: 60)
            s.advance(ms: 150)
            s.tap(finger: 3, x: 30.3, y: 70.2, durationMs: 60)
            s.advance(ms: 600)
            s.hold(finger: 4, x: 70, y: 70, frames: 45, everyMs: 20)
        }
    }

    /// A two-slot touchpad counting three fingers through BTN_TOOL_TRIPLETAP.
    public static func touchpadThreeFingers() -> Fixture {
        scripted(
            "touchpad-three-fingers-two-slots", "2 slots, 3 fingers via BTN_TOOL_TRIPLETAP",
            on: TestDevices.touchpad(slots: 2)
        ) { s in
            s.land([(0, 30, 40), (1, 50, 40)])
            s.move(fingers: [(0, 30, 60), (1, 50, 60)], steps: 10, durationMs: 160)
            s.land([(2, 70, 60)], afterMs: 16)
            s.move(fingers: [(0, 30, 70), (1, 50, 70), (2, 70, 70)], steps: 10, durationMs: 160)
            s.lift(2, afterMs: 16)
            s.move(fingers: [(0, 35, 70), (1, 45, 70)], steps: 10, durationMs: 160)
            s.lift(0, 1, afterMs: 16)
        }
    }

    /// Protocol A (anonymous contacts), listed in a different order every frame.
    public static func protocolA() -> Fixture {
        scripted(
            "protocol-a-two-fingers", "protocol A, contacts reordered every frame",
            on: TestDevices.protocolATouchscreen()
        ) { s in
            s.contactOrder = .rotating
            s.land([(0, 30, 30)])
            s.move(finger: 0, toX: 35, y: 35, steps: 5, durationMs: 80)
            s.land([(1, 60, 60)], afterMs: 16)
            s.move(fingers: [(0, 25, 25), (1, 70, 70)], steps: 15, durationMs: 240)
            s.lift(0, afterMs: 16)
            s.lift(1, afterMs: 16)
        }
    }

    /// A semi-mt clickpad: two fingers then three (the bounding box collapses).
    public static func semiMT() -> Fixture {
        scripted("semi-mt-clickpad", "semi-mt bounding box, 2 then 3 fingers", on: TestDevices.semiMTClickpad()) { s in
            s.land([(0, 30, 40), (1, 60, 60)])
            s.move(fingers: [(0, 20, 40), (1, 70, 60)], steps: 10, durationMs: 160)
            s.land([(2, 45, 20)], afterMs: 16)
            s.move(fingers: [(0, 25, 45), (1, 65, 55), (2, 45, 25)], steps: 10, durationMs: 160)
            s.lift(0, 1, 2, afterMs: 16)
        }
    }

    /// A touchscreen with resolution 0 (the nominal-size fallback).
    public static func noResolution() -> Fixture {
        scripted(
            "touchscreen-no-resolution", "resolution 0: nominal size", on: TestDevices.touchscreenWithoutResolution()
        ) { s in
            s.land([(0, 40, 40), (1, 60, 60)])
            s.move(fingers: [(0, 35, 35), (1, 65, 65)], steps: 10, durationMs: 160)
            s.lift(0, 1, afterMs: 16)
        }
    }

    /// A finger that turns into a palm mid-gesture (cancelled), the other finger carries on.
    public static func palm() -> Fixture {
        scripted("touchscreen-palm", "MT_TOOL_PALM cancels one touch", on: TestDevices.touchscreen()) { s in
            s.land([(0, 40, 50), (1, 60, 50)])
            s.move(fingers: [(0, 35, 50), (1, 65, 50)], steps: 8, durationMs: 128)
            s.advance(ms: 16)
            s.setPalm(finger: 1)
            s.frame()
            s.move(finger: 0, toX: 30, y: 40, steps: 8, durationMs: 128)
            s.lift(1, afterMs: 16)
            s.lift(0, afterMs: 16)
        }
    }

    /// A slot whose tracking id changes while it is active (end plus begin in one frame), written the
    /// way some firmware does it: no -1 in between.
    public static func trackingIDReuse() -> Fixture {
        let device = TestDevices.touchscreen()
        var t = Timestamp(seconds: 1000, microseconds: 0)
        var events: [InputEvent] = []
        func add(_ type: UInt16, _ code: UInt16, _ value: Int32) {
            events.append(InputEvent(time: t, type: type, code: code, value: value))
        }
        add(EventType.abs, AbsCode.mtTrackingID, 10)
        add(EventType.abs, AbsCode.mtPositionX, 1000)
        add(EventType.abs, AbsCode.mtPositionY, 1000)
        add(EventType.key, KeyCode.btnTouch, 1)
        add(EventType.syn, SynCode.report, 0)
        for step in 1...5 {
            t = t.adding(milliseconds: 16)
            add(EventType.abs, AbsCode.mtPositionX, Int32(1000 + step * 20))
            add(EventType.syn, SynCode.report, 0)
        }
        t = t.adding(milliseconds: 16)
        add(EventType.abs, AbsCode.mtTrackingID, 11)
        add(EventType.abs, AbsCode.mtPositionX, 3000)
        add(EventType.abs, AbsCode.mtPositionY, 3000)
        add(EventType.syn, SynCode.report, 0)
        for step in 1...5 {
            t = t.adding(milliseconds: 16)
            add(EventType.abs, AbsCode.mtPositionY, Int32(3000 - step * 20))
            add(EventType.syn, SynCode.report, 0)
        }
        t = t.adding(milliseconds: 16)
        add(EventType.abs, AbsCode.mtTrackingID, -1)
        add(EventType.key, KeyCode.btnTouch, 0)
        add(EventType.syn, SynCode.report, 0)
        return Fixture(
            name: "touchscreen-tracking-id-reuse", summary: "new tracking id on an active slot", device: device,
            events: events)
    }

    /// A single-touch device (ABS_X/ABS_Y and BTN_TOUCH only).
    public static func singleTouch() -> Fixture {
        scripted("single-touch", "ABS_X/ABS_Y single-touch device", on: TestDevices.singleTouch()) { s in
            s.land([(0, 20, 20)])
            s.move(finger: 0, toX: 80, y: 80, steps: 20, durationMs: 320)
            s.lift(0, afterMs: 16)
        }
    }
}

#if canImport(Glibc)
import Glibc
private func cosine(_ x: Double) -> Double { Glibc.cos(x) }
private func sine(_ x: Double) -> Double { Glibc.sin(x) }
#elseif canImport(Darwin)
import Darwin
private func cosine(_ x: Double) -> Double { Darwin.cos(x) }
private func sine(_ x: Double) -> Double { Darwin.sin(x) }
#endif
