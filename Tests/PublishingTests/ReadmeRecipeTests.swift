import Gestures
import MultitouchCore
import MultitouchTestKit
import Testing
import TouchPipeline
import TouchRouting
import WireProtocol

@testable import Configuration

/// Issue 29 item 7: the README promised "the feel of an iPhone map" while `momentum` and the
/// double-tap zoom are off by default. The README now says what the defaults do and gives two recipes
/// (the daemon's `[gestures]`, one region's `"gestures"`); these tests read both recipes out of
/// README.md and run a fling and a double tap through the pipeline with each: the recipe gives
/// momentum and a zoom by two, the defaults give neither.
@Suite("README: the iPhone-map recipes do what they say")
struct ReadmeRecipeTests {
    static let device = TestDevices.touchscreen(slots: 10, maximum: 1000, resolution: 10)

    /// The fenced block right after the README comment `<!-- iphone-feel: NAME recipe ...`.
    static func recipe(_ name: String) throws -> String {
        let root = String(#filePath).split(separator: "/").dropLast(3).joined(separator: "/")
        let readme = try #require(try? readTextFile("/" + root + "/README.md").get(), "README.md")
        let lines = readme.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let marker = try #require(
            lines.firstIndex { $0.hasPrefix("<!-- iphone-feel: \(name) recipe") },
            "README.md has no \"iphone-feel: \(name) recipe\" block")
        let open = try #require(lines[(marker + 1)...].firstIndex { $0.hasPrefix("```") })
        let close = try #require(lines[(open + 1)...].firstIndex { $0.hasPrefix("```") })
        return lines[(open + 1)..<close].joined(separator: "\n")
    }

    /// A fast one-finger fling across the middle, a pause, then a double tap at (30, 30) mm.
    static func flingThenDoubleTap() -> TouchScripter {
        var s = TouchScripter(device: device, start: Timestamp(seconds: 10, microseconds: 0))
        s.down(finger: 0, x: 20, y: 50)
        s.frame()
        for i in 1...20 {
            s.advance(ms: 10)
            s.move(finger: 0, x: 20 + Double(i) * 2, y: 50)
            s.frame()
        }
        s.up(finger: 0)
        s.frame()
        s.advance(ms: 3000)
        for _ in 0..<2 {
            s.down(finger: 0, x: 30, y: 30)
            s.frame()
            s.advance(ms: 40)
            s.up(finger: 0)
            s.frame()
            s.advance(ms: 120)
        }
        return s
    }

    /// What a run's gesture events show: momentum updates, and the largest scale of the matrix after
    /// the double tap.
    struct Feel {
        var momentumUpdates = 0
        var doubleTaps = 0
        var finalScale = 1.0

        mutating func take(_ event: GestureEvent) {
            switch event {
            case .update(let u):
                if u.mode == .momentum { momentumUpdates += 1 }
                finalScale = (u.matrix.a * u.matrix.a + u.matrix.b * u.matrix.b).squareRoot()
            case .doubleTap:
                doubleTaps += 1
            case .sessionBegan, .sessionEnded, .tap, .longPress:
                break
            }
        }
    }

    static func run(_ pipeline: inout DevicePipeline) -> [PipelineOutput] {
        var out: [PipelineOutput] = []
        for event in flingThenDoubleTap().events { pipeline.push(event, into: &out) }
        pipeline.end(at: Timestamp(seconds: 60, microseconds: 0), reason: .endOfRecording, into: &out)
        return out
    }

    /// The whole-device view's gesture events.
    static func wholeDevice(_ gestures: GestureConfiguration) -> Feel {
        var pipeline = DevicePipeline(deviceID: 1, description: device, settings: PipelineSettings(gestures: gestures))
        var feel = Feel()
        for output in run(&pipeline) {
            switch output {
            case .frame(let f): f.events.forEach { feel.take($0) }
            case .timers(_, let events, _): events.forEach { feel.take($0) }
            default: break
            }
        }
        return feel
    }

    @Test func theDaemonRecipeGivesMomentumAndTheDoubleTapZoom() throws {
        let configuration = try DaemonConfiguration.parse(text: try Self.recipe("daemon"), source: "README.md")
        let recipe = Self.wholeDevice(configuration.gestures)
        #expect(recipe.momentumUpdates > 5, "momentum after the fling")
        #expect(recipe.doubleTaps == 1)
        #expect(abs(recipe.finalScale - 2) < 1e-6, "the double tap zooms by two: \(recipe.finalScale)")
        // What the README says the defaults do: the double tap is reported, nothing moves by itself.
        let defaults = Self.wholeDevice(.default)
        #expect(defaults.momentumUpdates == 0 && defaults.doubleTaps == 1)
        #expect(abs(defaults.finalScale - 1) < 1e-9)
    }

    @Test func theRegionRecipeGivesMomentumAndTheZoomToItsRegionOnly() throws {
        let line = #"{"type":"declareRegions","device":1,"regions":["# + (try Self.recipe("region")) + "]}"
        guard case .declareRegions(_, let regions) = try ClientRequest(decoding: Array(line.utf8)).action else {
            Issue.record("the README's region is not a declareRegions region")
            return
        }
        var pipeline = DevicePipeline(deviceID: 1, description: Self.device)
        var answer: [PipelineOutput] = []
        pipeline.handle(.declareRegions(client: ClientID(7), regions: regions, grant: .all), token: 1, into: &answer)
        #expect(answer.first == .answer(PipelineAnswer(token: 1, device: 1, outcome: .regions(["map"]))))
        var region = Feel()
        var whole = Feel()
        for output in Self.run(&pipeline) {
            var routed: [RoutingDelivery] = []
            switch output {
            case .frame(let f):
                f.events.forEach { whole.take($0) }
                routed = f.routed
            case .timers(_, let events, _): events.forEach { whole.take($0) }
            case .routed(let r): routed = r.deliveries
            default: break
            }
            for case .gesture(_, let event, _) in routed { region.take(event) }
        }
        #expect(region.momentumUpdates > 5, "the map region's momentum")
        #expect(region.doubleTaps == 1 && abs(region.finalScale - 2) < 1e-6, "its zoom: \(region.finalScale)")
        // The device's own settings (the defaults) stay in force for everyone else.
        #expect(whole.momentumUpdates == 0 && abs(whole.finalScale - 1) < 1e-9)
    }
}
