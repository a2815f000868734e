import MultitouchCore
import MultitouchTestKit
import Testing

@Suite("Contact tracker: properties over random input")
struct PropertyTests {
    static let devices = TestDevices.all.map(\.name)

    private static func device(_ name: String) -> DeviceDescription {
        TestDevices.all.first { $0.name == name }!.description
    }

    @Test("phases are well formed over random finger scripts (churn, palms, 1 to 10 fingers)", arguments: devices)
    func randomScripts(deviceName: String) {
        let device = Self.device(deviceName)
        for seed: UInt64 in 1...12 {
            let events = RandomTouchScript.events(
                device: device, seed: seed, frames: 400, maximumFingers: Int(seed % 10) + 1, palmChance: 0.03)
            // The script ends with every finger up, so every touch must end without a cancelAll.
            let frames = TouchFrames.track(events, device: device, cancelAtEnd: false)
            let problems = TouchFrames.problems(in: frames)
            #expect(problems.isEmpty, "seed \(seed): \(problems.prefix(5))")
            let began = frames.reduce(0) { $0 + $1.touches.filter { $0.phase == .began }.count }
            // Semi-mt and single-touch devices carry at most two (one) touches, whatever the fingers.
            let minimum = device.isSemiMT || device.multitouchProtocol == .singleTouch ? 1 : 10
            #expect(began >= minimum, "the script exercises the tracker (seed \(seed): \(began) touches)")
            #expect(frames.last?.fingerCount == 0)
        }
    }

    @Test(
        "the number of active touches follows the fingers the script holds down",
        arguments: ["touchscreen", "protocol-a"])
    func touchCountFollowsScript(deviceName: String) {
        let device = Self.device(deviceName)
        var rng = SplitMix64(seed: 99)
        var script = TouchScripter(device: device)
        var tracker = ContactTracker(description: device, mapper: CoordinateMapper(description: device))
        var next = 0
        for _ in 0..<500 {
            // Keep fingers at least 5% apart so that protocol A matching is unambiguous.
            if script.activeFingers.count < 6 && Bool.random(using: &rng) {
                script.down(finger: next, x: Double(next % 16) * 6 + 5, y: Double.random(in: 10...90, using: &rng))
                next += 1
            } else if let finger = script.activeFingers.randomElement(using: &rng) {
                script.up(finger: finger)
            }
            script.frame()
            script.advance(ms: 8)
            for frame in TouchFrames.frames(of: script.takeEvents()) { _ = tracker.process(frame) }
            #expect(tracker.activeTouchCount == script.activeFingers.count)
        }
    }

    @Test("garbage never crashes the tracker, and what comes out is still well formed", arguments: devices)
    func garbage(deviceName: String) {
        let device = Self.device(deviceName)
        let output = OutputMapping(width: 800, height: 600, rotation: 270, calibration: [1, 0.1, 0, -0.1, 1, 0])
        var produced = 0
        for seed: UInt64 in 1...6 {
            var tracker = ContactTracker(
                description: device, mapper: CoordinateMapper(description: device, output: output))
            var rng = SplitMix64(seed: seed &* 31)
            var frames: [TouchFrame] = []
            var time = Timestamp(microseconds: 0)
            for frame in TouchFrames.frames(of: RandomTouchScript.garbage(seed: seed, count: 20_000)) {
                var frame = frame
                frame.isResync = Int.random(in: 0..<20, using: &rng) == 0
                time = frame.time
                if let touches = tracker.process(frame) { frames.append(touches) }
                if Int.random(in: 0..<200, using: &rng) == 0, let cancelled = tracker.cancelAll(at: time) {
                    frames.append(cancelled)
                }
            }
            if let cancelled = tracker.cancelAll(at: time) { frames.append(cancelled) }
            #expect(tracker.activeTouchCount == 0)
            // Garbage timestamps jump around, so only the per-touch rules apply here.
            let problems = TouchFrames.problems(in: frames, timeOrdered: false)
            #expect(problems.isEmpty, "seed \(seed): \(problems.prefix(5))")
            produced += frames.count
        }
        #expect(produced > 0, "the garbage reached the touch logic")
    }

    @Test("a description with absurd axes (huge slot range, empty ranges) does not crash")
    func absurdDescription() {
        let device = DeviceDescription(
            name: "bad", identity: DeviceIdentity(bustype: 0, vendor: 0, product: 0, version: 0),
            axes: [
                AbsCode.mtSlot: AxisInfo(minimum: Int32.min, maximum: Int32.max),
                AbsCode.mtPositionX: AxisInfo(minimum: 5, maximum: 5),
                AbsCode.mtPositionY: AxisInfo(minimum: 10, maximum: -10),
                AbsCode.mtOrientation: AxisInfo(minimum: 0, maximum: 0),
                AbsCode.mtPressure: AxisInfo(minimum: 3, maximum: 3),
            ])
        var tracker = ContactTracker(description: device, mapper: CoordinateMapper(description: device))
        var frames: [TouchFrame] = []
        for frame in TouchFrames.frames(of: RandomTouchScript.garbage(seed: 5, count: 5000)) {
            if let touches = tracker.process(frame) { frames.append(touches) }
        }
        #expect(TouchFrames.problems(in: frames, timeOrdered: false).allSatisfy { $0.hasSuffix("never ended") })
        #expect(frames.allSatisfy { $0.touches.allSatisfy { $0.force == nil && $0.orientation == nil } })
    }

    @Test("tracking is deterministic: the same events give the same frames")
    func deterministic() {
        let device = TestDevices.touchpad()
        let events = RandomTouchScript.events(device: device, seed: 3, frames: 300, maximumFingers: 5)
        #expect(TouchFrames.track(events, device: device) == TouchFrames.track(events, device: device))
        #expect(
            RandomTouchScript.events(device: device, seed: 3, frames: 300)
                == RandomTouchScript.events(device: device, seed: 3, frames: 300))
    }
}
