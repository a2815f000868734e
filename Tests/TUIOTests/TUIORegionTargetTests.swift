import Configuration
import MultitouchCore
import TUIO
import TUIOOutput
import Testing
import TouchPipeline
import TouchRouting
import TouchScripting

/// Issue 29 item 5: the daemon's `[tuio]` had whole-device targets only, so every Qt program sharing a
/// screen needed an unsupervised `multitouchctl tuio --region`. A `[[tuio.region]]` is a region the
/// daemon holds itself (`ConfiguredRegion`, declared by the pipeline from its settings): its touches
/// go, normalized to its rectangle, to its own target, and an exclusive one's touches nowhere else.
@Suite struct TUIORegionTargetTests {
    /// 100 x 100 mm.
    static let device = TestDevices.touchscreen(slots: 10, maximum: 1000, resolution: 10)

    /// A finger down at (25, 75) mm in the region, one at (75, 25) mm outside it, both moving.
    static func script() -> TouchScripter {
        var s = TouchScripter(device: device, start: Timestamp(seconds: 5, microseconds: 0))
        s.down(finger: 0, x: 25, y: 75)
        s.down(finger: 1, x: 75, y: 25)
        s.frame()
        for i in 1...5 {
            s.advance(ms: 10)
            s.move(finger: 0, x: 25 + Double(i), y: 75)
            s.move(finger: 1, x: 75 - Double(i), y: 25)
            s.frame()
        }
        s.up(finger: 0)
        s.up(finger: 1)
        s.frame()
        return s
    }

    static func run(exclusive: Bool) -> [PipelineOutput] {
        let target = TUIORegionTarget(
            id: "qt", target: TUIOTarget(port: 9), rect: [0, 50, 50, 50], z: 3, exclusive: exclusive, owner: "qt-app")
        var settings = PipelineSettings()
        let region = Region(
            id: target.id, shape: .rectangle(RegionRect(x: 0, y: 50, width: 50, height: 50)), z: target.z,
            options: RegionOptions(exclusive: exclusive, gestures: false))
        settings.configuredRegions = [ConfiguredRegion(client: .configured(0), region: region, label: "qt")]
        var pipeline = DevicePipeline(deviceID: 4, description: device, settings: settings)
        var out: [PipelineOutput] = [.deviceAdded(pipeline.device)]
        for event in script().events { pipeline.push(event, into: &out) }
        pipeline.end(at: Timestamp(seconds: 6, microseconds: 0), reason: .endOfRecording, into: &out)
        return out
    }

    @Test(arguments: [false, true])
    func theRegionsTouchesGoToItsTargetNormalizedToIt(exclusive: Bool) throws {
        let receiver = try LoopbackReceiver()
        let target = TUIORegionTarget(
            id: "qt", target: TUIOTarget(port: receiver.port), rect: [0, 50, 50, 50], exclusive: exclusive)
        let sender = try TUIORegionSender(regions: [target], host: "h", maximumDatagramBytes: 1472) {
            (t: TUIOTarget) throws(UDPSenderError) -> UDPDatagramSender in try UDPDatagramSender(targets: [t])
        }
        let outputs = Self.run(exclusive: exclusive)
        var bundles: [[DecodedMessage]] = []
        for start in stride(from: 0, to: outputs.count, by: 8) {
            sender.observe(Array(outputs[start..<min(outputs.count, start + 8)]))
            while let datagram = receiver.receive() { bundles.append(try decodeBundle(datagram)) }
        }
        // began, 5 moves, the lift: one bundle each, one session only (the finger that began inside).
        #expect(bundles.count == 7, "\(bundles.count) bundles")
        #expect(bundles.first?.first?.arguments == [.string("source"), .string("multitouchd:4/qt@h")])
        #expect(bundles.map(fseq) == (1...7).map { Int32($0) })
        let first = try #require(bundles.first.map(sets))
        #expect(first.count == 1)
        // (25, 75) mm in the rectangle x 0...50, y 50...100: (0.5, 0.5).
        #expect(first.values.first.map { Array($0.prefix(2)) } == [.float(0.5), .float(0.5)])
        #expect(bundles.last.map(alive) == [])
        #expect(sender.statistics.datagrams == 7)
        // The whole-device view keeps the region's touches unless the region is exclusive.
        let wholeDeviceIDs = Set(
            outputs.flatMap { output -> [UInt64] in
                guard case .frame(let f) = output, !f.isWithheld else { return [] }
                return f.frame.touches.map(\.id)
            })
        #expect(wholeDeviceIDs.count == (exclusive ? 1 : 2))
    }

    /// The configuration: one table per region, every problem named, ids unique.
    @Test func tuioRegionTablesParse() throws {
        let configuration = try DaemonConfiguration.parse(
            text: """
                [tuio]
                [[tuio.region]]
                id = "qt"
                target = "3334"
                rect = [0, 780, 700, 300]
                z = 20
                exclusive = true
                owner = "qt-app"
                name = "*Touchscreen*"
                """)
        let region = try #require(configuration.tuio.regions.first)
        #expect(region.id == "qt" && region.target == TUIOTarget(port: 3334) && region.rect == [0, 780, 700, 300])
        #expect(region.z == 20 && region.exclusive && region.owner == "qt-app")
        #expect(region.match.name == "*Touchscreen*" && region.match.deviceClass == .touchscreen)
        let bad = """
            [tuio]
            [[tuio.region]]
            id = "a"
            target = "0"
            rect = [0, 0, 0, 10]
            [[tuio.region]]
            target = "3335"
            rect = [0, 0, 10, 10]
            colour = "red"
            """
        do {
            _ = try DaemonConfiguration.parse(text: bad)
            Issue.record("a bad [[tuio.region]] was accepted")
        } catch {
            let text = "\(error)"
            for words in ["tuio.region[1].target", "tuio.region[1].rect", "tuio.region[2].id", "tuio.region[2].colour"]
            {
                #expect(text.contains(words), "\(words) in \(text)")
            }
        }
    }
}
