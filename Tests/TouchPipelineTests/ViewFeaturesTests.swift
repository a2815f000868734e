import Gestures
import MultitouchCore
import MultitouchTestKit
import Publishing
import Testing
import TouchPipeline
import TouchRouting
import WireProtocol

/// Every stream a client holds is a view with every per-client feature (DESIGN.md invariant 12): the
/// whole-device view keeps its subscribers' predictions when some client declares a region, each
/// region's view predicts at its own client's horizon, and each region's gesture session runs with
/// the region's own settings. Issue 27's defects, each checked on the pipeline's typed output.
@Suite("Views: every stream gets every feature")
struct ViewFeaturesTests {
    static let device = DeviceRoutingTests.device
    static let map = ClientID(1)
    static let pad = ClientID(2)

    /// One finger panning right across the middle for 200 ms (10 ms frames), then lifting while fast.
    static func fling(
        from x: Double, y: Double, start: Timestamp = Timestamp(seconds: 10, microseconds: 0)
    )
        -> TouchScripter
    {
        var s = TouchScripter(device: device, start: start)
        s.down(finger: 0, x: x, y: y)
        s.frame()
        for i in 1...20 {
            s.advance(ms: 10)
            s.move(finger: 0, x: x + Double(i) * 1.5, y: y)
            s.frame()
        }
        s.up(finger: 0)
        s.frame()
        return s
    }

    static func run(_ pipeline: inout DevicePipeline, _ s: TouchScripter) -> [PipelineOutput] {
        var out: [PipelineOutput] = []
        for event in s.events { pipeline.push(event, into: &out) }
        pipeline.end(at: Timestamp(seconds: 40, microseconds: 0), reason: .endOfRecording, into: &out)
        return out
    }

    static func declare(_ pipeline: inout DevicePipeline, _ client: ClientID, _ regions: [Region]) {
        var out: [PipelineOutput] = []
        pipeline.handle(.declareRegions(client: client, regions: regions, grant: .all), token: 1, into: &out)
        #expect(out.first == .answer(PipelineAnswer(token: 1, device: 1, outcome: .regions(regions.map(\.id)))))
    }

    /// Issue 27: a whole-device subscriber with `predictMs` 16 got no `predicted` once another client
    /// declared a region.
    @Test func wholeDevicePredictionsSurviveARegionElsewhere() {
        var pipeline = DevicePipeline(deviceID: 1, description: Self.device)
        pipeline.setPredictions(PredictionRequests(wholeDevice: [16]))
        Self.declare(
            &pipeline, Self.pad,
            [Region(id: "pin", shape: DeviceRoutingTests.rect(0, 0, 20, 20), options: RegionOptions(exclusive: true))])
        let messages = PipelineMessages.messages(Self.run(&pipeline, Self.fling(from: 30, y: 60)), horizon: 16)
        var live = 0
        var updates = 0
        for message in messages {
            switch message {
            case .touches(let t):
                for p in t.touches where !p.phase.isTerminal {
                    live += 1
                    #expect(p.predicted != nil)
                }
            case .gesture(let g):
                if case .update = g.event {
                    updates += 1
                    #expect(g.predictedMatrix != nil)
                }
            default: break
            }
        }
        #expect(live > 15 && updates > 5)
    }

    /// Issue 27: a region's connection accepted `predictMs` and then got no `predicted`: now its view
    /// predicts at its client's horizon, touches and matrix alike; another client's region predicts at
    /// its own (8 and 33 ms from one filter state).
    @Test func eachRegionsViewPredictsAtItsClientsHorizon() throws {
        var pipeline = DevicePipeline(deviceID: 1, description: Self.device)
        pipeline.setPredictions(PredictionRequests(clients: [Self.map: 33, Self.pad: 8]))
        Self.declare(&pipeline, Self.map, [Region(id: "map", shape: DeviceRoutingTests.rect(0, 0, 100, 50))])
        Self.declare(&pipeline, Self.pad, [Region(id: "pad", shape: DeviceRoutingTests.rect(0, 50, 100, 50))])
        var out = Self.run(&pipeline, Self.fling(from: 10, y: 25))
        var second = pipeline
        out += Self.run(&second, Self.fling(from: 10, y: 75, start: Timestamp(seconds: 20, microseconds: 0)))
        var routed: [RoutedMessage] = []
        PipelineMessages.appendRouted(out, to: &routed)
        func lead(_ client: ClientID) -> [Double] {
            routed.compactMap { r -> Double? in
                guard r.client == client, case .touches(let t) = r.message, let p = t.touches.first,
                    !p.phase.isTerminal, let predicted = p.predicted
                else { return nil }
                return predicted.x - p.location.x
            }
        }
        let mapLead = lead(Self.map)
        let padLead = lead(Self.pad)
        #expect(mapLead.count > 15 && padLead.count > 15)
        // A finger at 150 mm/s: the 33 ms horizon leads it farther than the 8 ms one.
        let mapMean = mapLead.suffix(10).reduce(0, +) / 10
        let padMean = padLead.suffix(10).reduce(0, +) / 10
        #expect(mapMean > padMean * 2, "map \(mapMean) mm ahead at 33 ms, pad \(padMean) mm at 8 ms")
        let mapUpdates = routed.compactMap { r -> GestureMessage? in
            guard r.client == Self.map, case .gesture(let g) = r.message, case .update = g.event else { return nil }
            return g
        }
        #expect(!mapUpdates.isEmpty && mapUpdates.allSatisfy { $0.predictedMatrix != nil })
    }

    /// Issue 27: `[gestures]` was global, so momentum for the map gave the PIN pad momentum too. Each
    /// region's session now runs with its own settings over the device's.
    @Test func eachRegionsSessionRunsWithItsOwnSettings() throws {
        var momentum = GestureSettings()
        let set = momentum.set("momentum", flag: true)
        #expect(set == nil)
        let unknown = momentum.set("no_such_setting", flag: true)
        let negative = momentum.set("double_tap_zoom_factor", number: -1)
        #expect(unknown?.contains("unknown gesture setting") == true)
        #expect(negative?.contains("positive") == true)
        var pipeline = DevicePipeline(deviceID: 1, description: Self.device)
        Self.declare(
            &pipeline, Self.map,
            [
                Region(
                    id: "map", shape: DeviceRoutingTests.rect(0, 0, 100, 50), options: RegionOptions(settings: momentum)
                )
            ])
        Self.declare(&pipeline, Self.pad, [Region(id: "pad", shape: DeviceRoutingTests.rect(0, 50, 100, 50))])
        var out = Self.run(&pipeline, Self.fling(from: 10, y: 25))
        var second = pipeline
        out += Self.run(&second, Self.fling(from: 10, y: 75, start: Timestamp(seconds: 20, microseconds: 0)))
        var routed: [RoutedMessage] = []
        PipelineMessages.appendRouted(out, to: &routed)
        func momentumUpdates(_ client: ClientID) -> Int {
            routed.reduce(0) { n, r in
                guard r.client == client, case .gesture(let g) = r.message, case .update(let u) = g.event,
                    u.mode == .momentum
                else { return n }
                return n + 1
            }
        }
        #expect(momentumUpdates(Self.map) > 5)
        #expect(momentumUpdates(Self.pad) == 0)
        // The whole-device view keeps the device's settings: no momentum there either.
        #expect(
            !PipelineMessages.messages(out).contains { m in
                if case .gesture(let g) = m, case .update(let u) = g.event { u.mode == .momentum } else { false }
            })
    }

    /// The region object's `gestures` on the wire: true/false as before, or an object of `[gestures]`
    /// keys, checked like the configuration file (a typo or a bad value is refused, naming it).
    @Test func regionGestureSettingsRoundTripAndAreChecked() throws {
        let line =
            #"{"type":"declareRegions","device":1,"regions":[{"id":"map","rect":[0,0,10,10],"gestures":{"momentum":true,"double_tap_zoom_factor":2}}]}"#
        let request = try ClientRequest(decoding: Array(line.utf8))
        guard case .declareRegions(_, let regions) = request.action, let region = regions.first else {
            Issue.record("not a region declaration: \(request)")
            return
        }
        #expect(region.options.gestures && region.options.settings.flags["momentum"] == true)
        #expect(region.options.settings.numbers["double_tap_zoom_factor"] == 2)
        #expect(try ClientRequest(decoding: Array(request.jsonLine().utf8)) == request)
        for bad in [
            #"{"momentm":true}"#, #"{"double_tap_zoom_factor":0}"#, #"{"momentum":1}"#, #""fast""#,
        ] {
            let text =
                #"{"type":"declareRegions","device":1,"regions":[{"id":"map","rect":[0,0,10,10],"gestures":"#
                + bad + "}]}"
            #expect(throws: RequestError.self) { try ClientRequest(decoding: Array(text.utf8)) }
        }
    }
}
