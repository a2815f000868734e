import MultitouchCore
import MultitouchTestKit
import Recordings

/// The test kit's seeded PRNG, by its short name for every file of these tests.
typealias SplitMix64 = MultitouchTestKit.SplitMix64

enum Generated {
    static let names = [
        "Probe MT Touchscreen", "Advanced Silicon S.A. CoolTouch® System", "SynPS/2 Synaptics TouchPad", "",
        " leading space", "trailing space ", "hash # in name", "タッチパネル", "tab\tinside", "E: not an event",
    ]

    /// A random device whose description survives the evemu format unchanged: EV_SYN with every SYN
    /// code, no event type without codes, an axis for every ABS code.
    /// - Parameter kernelValid: only codes, types and properties the kernel (and so libevemu) knows.
    static func device(_ rng: inout SplitMix64, kernelValid: Bool = false) -> DeviceDescription {
        var codes: [UInt16: Set<UInt16>] = [EventType.syn: Set(0...0x0f)]
        if Bool.random(using: &rng) {
            codes[EventType.key] = Set(
                (0..<Int.random(in: 1...12, using: &rng)).map { _ in
                    UInt16.random(in: 0...0x2ff, using: &rng)
                })
        }
        if Int.random(in: 0..<4, using: &rng) == 0 { codes[EventType.rel] = [0, 1, 8] }
        if Int.random(in: 0..<4, using: &rng) == 0 { codes[EventType.msc] = [4, 5] }
        if Int.random(in: 0..<6, using: &rng) == 0 { codes[EventType.ff] = [0x50, 0x7f] }
        // EV_PWR: a type evemu does not write.
        if !kernelValid && Int.random(in: 0..<8, using: &rng) == 0 { codes[EventType.pwr] = [0] }
        if !kernelValid && Int.random(in: 0..<8, using: &rng) == 0 {
            codes[EventType.key, default: []].insert(0x300)  // beyond KEY_MAX
        }
        var axes: [UInt16: AxisInfo] = [:]
        for _ in 0..<Int.random(in: 0...10, using: &rng) {
            let code = UInt16.random(in: 0...0x3f, using: &rng)
            let minimum = Int32.random(in: -5000...5000, using: &rng)
            axes[code] = AxisInfo(
                minimum: Int.random(in: 0..<10, using: &rng) == 0 ? Int32.min : minimum,
                maximum: Int.random(in: 0..<10, using: &rng) == 0
                    ? Int32.max : minimum + Int32.random(in: 0...70000, using: &rng),
                fuzz: Int32.random(in: 0...8, using: &rng), flat: Int32.random(in: 0...8, using: &rng),
                resolution: Int32.random(in: 0...100, using: &rng))
        }
        var properties = Set<UInt16>()
        for _ in 0..<Int.random(in: 0...3, using: &rng) {
            properties.insert(
                UInt16.random(in: 0...(kernelValid || Bool.random(using: &rng) ? 0x1f : 0x7f), using: &rng))
        }
        return DeviceDescription(
            name: names.randomElement(using: &rng) ?? "x",
            identity: DeviceIdentity(
                bustype: .random(in: 0...0xffff, using: &rng), vendor: .random(in: 0...0xffff, using: &rng),
                product: .random(in: 0...0xffff, using: &rng), version: .random(in: 0...0xffff, using: &rng)),
            properties: properties, codes: codes, axes: axes)
    }

    /// Random frames of random events in non-decreasing time, each closed by SYN_REPORT.
    static func events(_ rng: inout SplitMix64, frames: Int, start: Int64? = nil) -> [InputEvent] {
        var time = start ?? (Bool.random(using: &rng) ? 0 : Int64.random(in: 0...1_700_000_000_000_000, using: &rng))
        var events: [InputEvent] = []
        for _ in 0..<frames {
            time += Int64.random(in: 0...20_000, using: &rng)
            let t = Timestamp(microseconds: time)
            for _ in 0..<Int.random(in: 0...6, using: &rng) {
                let value: Int32
                switch Int.random(in: 0..<10, using: &rng) {
                case 0: value = -1
                case 1: value = .min
                case 2: value = .max
                default: value = .random(in: -70000...70000, using: &rng)
                }
                events.append(
                    InputEvent(
                        time: t, type: .random(in: 0...0x1f, using: &rng), code: .random(in: 0...0xffff, using: &rng),
                        value: value))
            }
            events.append(InputEvent(time: t, type: EventType.syn, code: SynCode.report, value: 0))
        }
        return events
    }

    /// A touchscreen with two slots and a short two-finger motion, the fixture most tests start from.
    static let touchscreen = DeviceDescription(
        name: "Test Touchscreen", identity: DeviceIdentity(bustype: 0x18, vendor: 0x1234, product: 0xabcd, version: 1),
        properties: [InputProperty.direct],
        codes: [EventType.syn: Set(0...0x0f), EventType.key: [KeyCode.btnTouch]],
        axes: [
            AbsCode.x: AxisInfo(minimum: 0, maximum: 4095, resolution: 16),
            AbsCode.y: AxisInfo(minimum: 0, maximum: 2047, resolution: 16),
            AbsCode.mtSlot: AxisInfo(minimum: 0, maximum: 1),
            AbsCode.mtPositionX: AxisInfo(minimum: 0, maximum: 4095, resolution: 16),
            AbsCode.mtPositionY: AxisInfo(minimum: 0, maximum: 2047, resolution: 16),
            AbsCode.mtTrackingID: AxisInfo(minimum: 0, maximum: 65535),
        ])

    static func touchscreenEvents(frames: Int = 10) -> [InputEvent] {
        var events: [InputEvent] = []
        for f in 0..<frames {
            let t = Timestamp(microseconds: 1_000_000 + Int64(f) * 12_000)
            if f == 0 {
                events.append(InputEvent(time: t, type: EventType.abs, code: AbsCode.mtTrackingID, value: 7))
                events.append(InputEvent(time: t, type: EventType.key, code: KeyCode.btnTouch, value: 1))
            }
            events.append(
                InputEvent(time: t, type: EventType.abs, code: AbsCode.mtPositionX, value: Int32(100 + f * 10)))
            events.append(InputEvent(time: t, type: EventType.abs, code: AbsCode.mtPositionY, value: 200))
            if f == frames - 1 {
                events.append(InputEvent(time: t, type: EventType.abs, code: AbsCode.mtTrackingID, value: -1))
                events.append(InputEvent(time: t, type: EventType.key, code: KeyCode.btnTouch, value: 0))
            }
            events.append(InputEvent(time: t, type: EventType.syn, code: SynCode.report, value: 0))
        }
        return events
    }
}
