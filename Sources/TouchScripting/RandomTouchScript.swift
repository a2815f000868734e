import MultitouchCore

/// Random but seeded finger scenarios for property tests: fingers land, wander, turn into palms and
/// lift in any order (churn), between 1 and `maximumFingers` at a time.
public enum RandomTouchScript {
    /// Events of `frames` frames on `device`, ending with every finger lifted.
    ///
    /// - Parameters:
    ///   - maximumFingers: at most this many fingers down at once (1...10).
    ///   - palmChance: chance per frame that one finger becomes a palm (devices with a tool type axis).
    public static func events(
        device: DeviceDescription, seed: UInt64, frames: Int, maximumFingers: Int = 5, palmChance: Double = 0.01,
        contactOrder: TouchScripter.ContactOrder = .rotating
    ) -> [InputEvent] {
        var rng = SplitMix64(seed: seed)
        var script = TouchScripter(device: device, emitsTimestamps: true)
        script.contactOrder = contactOrder
        let limit = min(10, max(1, maximumFingers))
        var nextFinger = 0
        for _ in 0..<frames {
            let down = script.activeFingers
            let roll = Double.random(in: 0..<1, using: &rng)
            if down.count < limit && (down.isEmpty || roll < 0.08) {
                script.down(
                    finger: nextFinger, x: Double.random(in: 5...95, using: &rng),
                    y: Double.random(in: 5...95, using: &rng),
                    pressure: Double.random(in: 10...90, using: &rng))
                nextFinger += 1
            } else if !down.isEmpty && roll < 0.14, let finger = down.randomElement(using: &rng) {
                script.up(finger: finger)
            } else if !down.isEmpty && roll < 0.14 + palmChance, let finger = down.randomElement(using: &rng) {
                script.setPalm(finger: finger)
            }
            for finger in script.activeFingers {
                guard let state = script.finger(finger), Bool.random(using: &rng) else { continue }
                script.move(
                    finger: finger, x: min(100, max(0, state.x + Double.random(in: -2...2, using: &rng))),
                    y: min(100, max(0, state.y + Double.random(in: -2...2, using: &rng))))
            }
            script.frame()
            script.advance(ms: Double(Int.random(in: 5...15, using: &rng)))
        }
        for finger in script.activeFingers { script.up(finger: finger) }
        script.frame()
        return script.events
    }

    /// Random events with no meaning at all (types, codes and values anywhere, `SYN_REPORT`s in
    /// between, times that jump back and forth): for robustness tests.
    public static func garbage(seed: UInt64, count: Int) -> [InputEvent] {
        var rng = SplitMix64(seed: seed)
        var events: [InputEvent] = []
        events.reserveCapacity(count)
        let interestingValues: [Int32] = [-1, 0, 1, 2, Int32.min, Int32.max, 65535, -65536]
        for _ in 0..<count {
            let time = Timestamp(microseconds: Int64.random(in: -1_000_000...1_000_000_000, using: &rng))
            let type: UInt16 =
                Bool.random(using: &rng)
                ? UInt16.random(in: 0...4, using: &rng) : UInt16.random(in: 0...UInt16.max, using: &rng)
            let code: UInt16 =
                type == EventType.abs
                ? UInt16.random(in: 0...0x3f, using: &rng)
                : type == EventType.key
                    ? UInt16.random(in: 0x140...0x150, using: &rng) : UInt16.random(in: 0...4, using: &rng)
            let value: Int32 =
                Bool.random(using: &rng)
                ? interestingValues[Int.random(in: 0..<interestingValues.count, using: &rng)]
                : Int32.random(in: -40...5000, using: &rng)
            events.append(InputEvent(time: time, type: type, code: code, value: value))
        }
        return events
    }
}
