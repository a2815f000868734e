/// Writes small evemu recordings of a 10-slot protocol-B touchscreen (1000 x 600 units at 10 units/mm),
/// finger by finger, for the end-to-end tests. Times advance 10 ms per frame.
struct EvemuScript {
    private var lines: [String] = []
    private var microseconds: Int64 = 1_000_000
    private var nextTrackingID = 1
    private var slotOf: [Int: Int] = [:]
    private var currentSlot = -1

    static let header = """
        # EVEMU 1.3
        # Input device name: "multitouchd test touchscreen"
        N: multitouchd test touchscreen
        I: 0018 0000 0000 0000
        P: 02 00 00 00 00 00 00 00
        B: 00 0b 00 00 00 00 00 00 00
        B: 01 00 00 00 00 00 00 00 00
        B: 01 00 00 00 00 00 00 00 00
        B: 01 00 00 00 00 00 00 00 00
        B: 01 00 00 00 00 00 00 00 00
        B: 01 00 00 00 00 00 00 00 00
        B: 01 00 04 00 00 00 00 00 00
        B: 01 00 00 00 00 00 00 00 00
        B: 01 00 00 00 00 00 00 00 00
        B: 01 00 00 00 00 00 00 00 00
        B: 01 00 00 00 00 00 00 00 00
        B: 01 00 00 00 00 00 00 00 00
        B: 01 00 00 00 00 00 00 00 00
        B: 02 00 00 00 00 00 00 00 00
        B: 03 03 00 00 00 00 80 60 02
        B: 04 00 00 00 00 00 00 00 00
        B: 05 00 00 00 00 00 00 00 00
        B: 11 00 00 00 00 00 00 00 00
        B: 12 00 00 00 00 00 00 00 00
        B: 14 00 00 00 00 00 00 00 00
        B: 15 00 00 00 00 00 00 00 00
        B: 15 00 00 00 00 00 00 00 00
        A: 00 0 1000 0 0 10
        A: 01 0 600 0 0 10
        A: 2f 0 9 0 0 0
        A: 35 0 1000 0 0 10
        A: 36 0 600 0 0 10
        A: 39 0 65535 0 0 0

        """

    private mutating func event(_ type: Int, _ code: Int, _ value: Int) {
        let seconds = microseconds / 1_000_000
        let fraction = String(microseconds % 1_000_000)
        let time = "\(seconds)." + String(repeating: "0", count: 6 - fraction.count) + fraction
        let hexType = String(type, radix: 16)
        let hexCode = String(code, radix: 16)
        lines.append(
            "E: \(time) \(String(repeating: "0", count: 4 - hexType.count))\(hexType) \(String(repeating: "0", count: 4 - hexCode.count))\(hexCode) \(value)"
        )
    }

    private mutating func select(_ slot: Int) {
        if slot != currentSlot {
            event(3, 0x2f, slot)
            currentSlot = slot
        }
    }

    /// Finger `finger` lands at (x, y) in device units.
    mutating func down(_ finger: Int, x: Int, y: Int) {
        let slot = (0..<10).first { s in !slotOf.values.contains(s) } ?? 0
        slotOf[finger] = slot
        select(slot)
        event(3, 0x39, nextTrackingID)
        nextTrackingID += 1
        event(3, 0x35, x)
        event(3, 0x36, y)
        if slotOf.count == 1 { event(1, 0x14a, 1) }
    }

    mutating func move(_ finger: Int, x: Int, y: Int) {
        guard let slot = slotOf[finger] else { return }
        select(slot)
        event(3, 0x35, x)
        event(3, 0x36, y)
    }

    mutating func up(_ finger: Int) {
        guard let slot = slotOf.removeValue(forKey: finger) else { return }
        select(slot)
        event(3, 0x39, -1)
        if slotOf.isEmpty { event(1, 0x14a, 0) }
    }

    /// Closes the frame (SYN_REPORT) and advances time.
    mutating func frame(ms: Int64 = 10) {
        event(0, 0, 0)
        microseconds += ms * 1000
    }

    var text: String { EvemuScript.header + lines.joined(separator: "\n") + "\n" }

    /// A two-finger pinch-and-rotate of `frames` frames, then a one-finger pan, then lift.
    static func pinchThenPan(frames: Int) -> String {
        var s = EvemuScript()
        s.down(0, x: 400, y: 300)
        s.down(1, x: 600, y: 300)
        s.frame()
        for i in 1...frames {
            let spread = 100 + (i % 200)
            let angle = Double(i) * 0.01
            let dx = Int(Double(spread) * cos(angle))
            let dy = Int(Double(spread) * sin(angle))
            s.move(0, x: 500 - dx, y: 300 - dy)
            s.move(1, x: 500 + dx, y: 300 + dy)
            s.frame()
        }
        s.up(1)
        s.frame()
        for i in 1...20 {
            s.move(0, x: 400 + i * 5, y: 300)
            s.frame()
        }
        s.up(0)
        s.frame()
        return s.text
    }

    /// `count` quick taps at alternating places (every one a run of non-droppable messages).
    static func taps(count: Int) -> String {
        var s = EvemuScript()
        for i in 0..<count {
            let x = 200 + (i % 2) * 400
            s.down(0, x: x, y: 300)
            s.frame(ms: 40)
            s.up(0)
            s.frame(ms: 400)
        }
        return s.text
    }

    /// Two fingers down and moving for `frames` frames, never lifted (the recording ends mid-gesture).
    static func heldPinch(frames: Int, ms: Int64 = 10) -> String {
        var s = EvemuScript()
        s.down(0, x: 400, y: 300)
        s.down(1, x: 600, y: 300)
        s.frame(ms: ms)
        for i in 1...frames {
            let spread = 100 + (i % 50)
            s.move(0, x: 500 - spread, y: 300)
            s.move(1, x: 500 + spread, y: 300)
            s.frame(ms: ms)
        }
        return s.text
    }
}

#if canImport(Glibc)
import Glibc
#endif
