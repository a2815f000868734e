import MultitouchCore
import MultitouchTestKit
import Recordings

#if canImport(Glibc)
import Glibc
#endif

/// Small recordings for the end-to-end tests: scripted with the test kit's `TouchScripter` on a 10-slot
/// touchscreen of 1000 x 1000 units at 10 units/mm (100 mm square), written with the project's own
/// `EvemuWriter`. Frames are 10 ms apart unless a scenario says otherwise.
enum EvemuScript {
    static let device = TestDevices.touchscreen(slots: 10, maximum: 1000, resolution: 10)

    /// Device units (0...1000) as the scripter's percent of the axis.
    private static func percent(_ units: Int) -> Double { Double(units) / 10 }

    private static func script() -> TouchScripter {
        TouchScripter(device: device, start: Timestamp(seconds: 1, microseconds: 0))
    }

    private static func text(_ s: TouchScripter) -> String {
        EvemuWriter.write(description: device, events: s.events)
    }

    /// The device header and no events at all (passes `check`).
    static func noEvents() -> String { EvemuWriter.write(description: device, events: []) }

    /// One frame: a finger lands, and the recording ends (every event at one timestamp).
    static func oneTimestamp() -> String {
        var s = script()
        s.down(finger: 0, x: 50, y: 50)
        s.frame()
        return text(s)
    }

    /// A tap whose down and up are `microseconds` apart: a recording that lasts almost no time.
    static func tap(lastingMicroseconds microseconds: Int64) -> String {
        var s = script()
        s.down(finger: 0, x: 50, y: 50)
        s.frame()
        s.advance(ms: Double(microseconds) / 1000)
        s.up(finger: 0)
        s.frame()
        return text(s)
    }

    /// A two-finger pinch-and-rotate of `frames` frames, then a one-finger pan, then lift.
    static func pinchThenPan(frames: Int) -> String {
        var s = script()
        s.down(finger: 0, x: 40, y: 30)
        s.down(finger: 1, x: 60, y: 30)
        s.frame()
        for i in 1...frames {
            let spread = Double(100 + (i % 200))
            let angle = Double(i) * 0.01
            let dx = Int(spread * cos(angle))
            let dy = Int(spread * sin(angle))
            s.advance(ms: 10)
            s.move(finger: 0, x: percent(500 - dx), y: percent(300 - dy))
            s.move(finger: 1, x: percent(500 + dx), y: percent(300 + dy))
            s.frame()
        }
        s.advance(ms: 10)
        s.up(finger: 1)
        s.frame()
        for i in 1...20 {
            s.advance(ms: 10)
            s.move(finger: 0, x: percent(400 + i * 5), y: 30)
            s.frame()
        }
        s.advance(ms: 10)
        s.up(finger: 0)
        s.frame()
        return text(s)
    }

    /// `count` quick taps at alternating places (every one a run of non-droppable messages).
    static func taps(count: Int) -> String {
        var s = script()
        for i in 0..<count {
            s.down(finger: 0, x: percent(200 + (i % 2) * 400), y: 30)
            s.frame()
            s.advance(ms: 40)
            s.up(finger: 0)
            s.frame()
            s.advance(ms: 400)
        }
        return text(s)
    }

    /// Two fingers down and moving for `frames` frames, never lifted (the recording ends mid-gesture).
    static func heldPinch(frames: Int, ms: Double = 10) -> String {
        var s = script()
        s.down(finger: 0, x: 40, y: 30)
        s.down(finger: 1, x: 60, y: 30)
        s.frame()
        for i in 1...frames {
            let spread = 100 + (i % 50)
            s.advance(ms: ms)
            s.move(finger: 0, x: percent(500 - spread), y: 30)
            s.move(finger: 1, x: percent(500 + spread), y: 30)
            s.frame()
        }
        return text(s)
    }
}
