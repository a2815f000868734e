import MultitouchCore

#if canImport(Glibc)
import Glibc
#endif

/// Generated recordings for `multitouchctl bench`: steady multi-finger gestures of 1, 2, 5 and 10
/// fingers (every finger moves in every frame, the heaviest case per frame) and a long session with
/// churn (fingers land, wander, turn into palms and lift in any order). Deterministic: the same
/// recording every run, so instruction counts compare across builds.
public enum BenchmarkRecordings {
    /// One generated recording.
    public struct Recording: Sendable {
        public var name: String
        public var device: DeviceDescription
        public var events: [InputEvent]
    }

    /// fingers-1, fingers-2, fingers-5, fingers-10 and churn.
    public static var all: [Recording] {
        [fingers(1), fingers(2), fingers(5), fingers(10), churn()]
    }

    /// `count` fingers (1...10) on a touchscreen land on a circle, turn a full turn while their
    /// spread breathes in and out (a rotating pinch; a one-finger circle for 1), and lift: 482 frames
    /// at 8 ms (a 125 Hz panel).
    public static func fingers(_ count: Int, frames: Int = 480) -> Recording {
        let n = min(10, max(1, count))
        let device = TestDevices.touchscreen(slots: 10)
        var s = TouchScripter(device: device, emitsTimestamps: true)
        func place(_ step: Int) {
            let t = Double(step) / Double(frames)
            let radius = 20 + 8 * sin(t * 6 * Double.pi)
            for finger in 0..<n {
                let angle = 2 * Double.pi * (t + Double(finger) / Double(n))
                let x = 50 + radius * cos(angle)
                let y = 50 + radius * sin(angle)
                if step == 0 { s.down(finger: finger, x: x, y: y) } else { s.move(finger: finger, x: x, y: y) }
            }
        }
        place(0)
        s.frame()
        for step in 1...max(1, frames) {
            s.advance(ms: 8)
            place(step)
            s.frame()
        }
        s.advance(ms: 8)
        for finger in 0..<n { s.up(finger: finger) }
        s.frame()
        return Recording(name: "fingers-\(n)", device: device, events: s.events)
    }

    /// A long session with churn: up to 10 fingers, 20,000 frames (RandomTouchScript, seed 13).
    public static func churn(frames: Int = 20_000) -> Recording {
        let device = TestDevices.touchscreen(slots: 10)
        let events = RandomTouchScript.events(device: device, seed: 13, frames: frames, maximumFingers: 10)
        return Recording(name: "churn", device: device, events: events)
    }
}
