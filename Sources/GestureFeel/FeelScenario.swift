import Gestures
import MultitouchCore
import TouchScripting

/// One scripted hand movement: the device, its evdev events and the gesture configuration to replay
/// them with. Built with `FingerScript` (millimetres, fixed frame rate, virtual time).
public struct FeelScenario: Sendable {
    public var name: String
    public var device: DeviceDescription
    public var events: [InputEvent]
    public var configuration: GestureConfiguration

    public init(
        name: String, device: DeviceDescription, events: [InputEvent], configuration: GestureConfiguration = .default
    ) {
        self.name = name
        self.device = device
        self.events = events
        self.configuration = configuration
    }

    /// A scenario scripted on `device` at `rateHz`: `script` places, moves and lifts the fingers.
    public init(
        _ name: String, on device: DeviceDescription = TestDevices.touchscreen(), rateHz: Double = 60,
        configuration: GestureConfiguration = .default, script: (inout FingerScript) -> Void
    ) {
        var s = FingerScript(device: device, rateHz: rateHz)
        script(&s)
        self.init(name: name, device: s.scripter.device, events: s.events, configuration: configuration)
    }

    /// Two fingers `spread` mm apart from `start` drag together by `delta` mm per frame for `before`
    /// frames; the second lifts while the first moves on (one frame), which drags `after` frames
    /// more alone and lifts: a hand-off from two fingers to one, mid-motion.
    public static func handOff(
        _ name: String, from start: Point, spread: Double, delta: Point, before: Int, after: Int,
        configuration: GestureConfiguration
    ) -> FeelScenario {
        FeelScenario(name, configuration: configuration) { s in
            s.down(0, start.x, start.y)
            s.down(1, start.x + spread, start.y)
            s.emit()
            s.drag([(0, delta.x, delta.y), (1, delta.x, delta.y)], frames: before)
            s.liftMidMotion(1, moving: 0, by: delta)
            s.drag([(0, delta.x, delta.y)], frames: after)
            s.lift(0)
        }
    }
}

/// A `TouchScripter` driven the way a panel reports: one frame every `1 / rateHz` seconds, fingers
/// placed and moved in millimetres. `step` advances one frame period and emits the staged state.
public struct FingerScript {
    public var scripter: TouchScripter
    public let periodMs: Double

    public init(device: DeviceDescription, rateHz: Double = 60) {
        scripter = TouchScripter(device: device)
        periodMs = 1000 / rateHz
    }

    public mutating func down(
        _ finger: Int, _ x: Double, _ y: Double, touchMajor: Int32? = nil, touchMinor: Int32? = nil
    ) {
        scripter.down(finger: finger, mm: Point(x: x, y: y), touchMajor: touchMajor, touchMinor: touchMinor)
    }

    public mutating func up(_ finger: Int) { scripter.up(finger: finger) }

    public mutating func moveTo(_ finger: Int, _ x: Double, _ y: Double) {
        scripter.move(finger: finger, mm: Point(x: x, y: y))
    }

    public mutating func moveBy(_ finger: Int, _ dx: Double, _ dy: Double) {
        guard let p = scripter.millimeters(of: finger) else { return }
        scripter.move(finger: finger, mm: Point(x: p.x + dx, y: p.y + dy))
    }

    /// Where `finger` is, mm.
    public func position(_ finger: Int) -> Point { scripter.millimeters(of: finger) ?? .zero }

    /// Emits the staged state at the current time (no advance): for the first frame of a landing.
    public mutating func emit() { scripter.frame() }

    /// One frame period later, emits the staged state.
    public mutating func step() {
        scripter.advance(ms: periodMs)
        scripter.frame()
    }

    /// `frames` frames, each moving every listed finger by its per-frame delta (mm).
    public mutating func drag(_ deltas: [(finger: Int, dx: Double, dy: Double)], frames: Int) {
        for _ in 0..<frames {
            for d in deltas { moveBy(d.finger, d.dx, d.dy) }
            step()
        }
    }

    /// Virtual time passes without a frame (a resting finger sends nothing).
    public mutating func wait(ms: Double) { scripter.advance(ms: ms) }

    /// `fingers` lift together, one frame period later.
    public mutating func lift(_ fingers: Int...) {
        for finger in fingers { up(finger) }
        step()
    }

    /// `finger` lifts in the frame in which `other` moves on by `delta` (a hand-off mid-motion).
    public mutating func liftMidMotion(_ finger: Int, moving other: Int, by delta: Point) {
        up(finger)
        moveBy(other, delta.x, delta.y)
        step()
    }

    /// A tap of `finger` at (`x`, `y`): down, held `holdMs`, up; then `thenMs` pass without a frame.
    public mutating func tap(_ finger: Int, _ x: Double, _ y: Double, holdMs: Double, thenMs: Double) {
        down(finger, x, y)
        emit()
        wait(ms: holdMs)
        up(finger)
        emit()
        wait(ms: thenMs)
    }

    /// `ms` pass, and a frame with nothing staged says so (timers run out before the input ends).
    public mutating func idle(ms: Double) {
        wait(ms: ms)
        emit()
    }

    public var events: [InputEvent] { scripter.events }
}
