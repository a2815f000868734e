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

    public var events: [InputEvent] { scripter.events }
}
