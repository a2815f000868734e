import Gestures
import MultitouchCore
import MultitouchTestKit
import Publishing
import Recordings
import Testing
import TouchPipeline
import TouchRouting
import WireProtocol

/// A device pipeline with its routing stage (`DeviceRouting`), in virtual time: what the daemon does per
/// routed device, without sockets.
@Suite("Device routing")
struct DeviceRoutingTests {
    /// 100 x 100 mm, published in millimetres.
    static let device = TestDevices.touchscreen(slots: 10, maximum: 1000, resolution: 10)
    static let toolbarClient = ClientID(1)
    static let mapClient = ClientID(2)
    static let observerClient = ClientID(3)

    static func rect(_ x: Double, _ y: Double, _ w: Double, _ h: Double) -> RegionShape {
        .rectangle(RegionRect(x: x, y: y, width: w, height: h))
    }

    /// A pipeline whose routing stage has a toolbar (z 2, top 15 mm) over a map (z 1, everything) over
    /// an observer.
    static func setUp() -> DevicePipeline {
        var pipeline = DevicePipeline(deviceID: 1, description: device)
        pipeline.startRouting()
        _ = pipeline.withRouting { declareLayout(&$0) }
        return pipeline
    }

    /// The toolbar, map and observer clients declare their regions.
    static func declareLayout(_ routing: inout DeviceRouting) {
        #expect(
            routing.replace(client: toolbarClient, with: [Region(id: "toolbar", shape: rect(0, 0, 100, 15), z: 2)])
                == .inForce(["toolbar"], []))
        #expect(
            routing.replace(client: mapClient, with: [Region(id: "map", shape: rect(0, 0, 100, 100), z: 1)])
                == .inForce(["map"], []))
        #expect(
            routing.replace(
                client: observerClient, with: [Region(id: "fx", shape: rect(0, 0, 100, 100), mode: .observer)])
                == .inForce(["fx"], []))
    }

    /// Runs the scripter's events through the pipeline; returns the whole-device messages and the
    /// routed ones.
    static func run(_ s: TouchScripter, _ pipeline: inout DevicePipeline) -> (whole: [Message], routed: [RoutedMessage])
    {
        var outputs: [PipelineOutput] = []
        for event in s.events { pipeline.push(event, into: &outputs) }
        var whole: [Message] = []
        var routed: [RoutedMessage] = []
        PipelineMessages.append(outputs, to: &whole)
        PipelineMessages.appendRouted(outputs, to: &routed)
        return (whole, routed)
    }

    /// Two fingers pinch on the map; a third taps the toolbar meanwhile.
    static func tapDuringPinch() -> TouchScripter {
        var s = TouchScripter(device: device, start: Timestamp(seconds: 10, microseconds: 0))
        s.down(finger: 0, x: 40, y: 60)
        s.down(finger: 1, x: 60, y: 60)
        s.frame()
        for i in 1...20 {
            s.advance(ms: 10)
            if i == 3 { s.down(finger: 2, x: 20, y: 5) }
            if i == 8 { s.up(finger: 2) }
            s.move(finger: 0, x: 40 - Double(i), y: 60)
            s.move(finger: 1, x: 60 + Double(i), y: 60)
            s.frame()
        }
        s.advance(ms: 10)
        s.up(finger: 0)
        s.up(finger: 1)
        s.frame()
        return s
    }

    static func gestures(_ routed: [RoutedMessage], for client: ClientID) -> [GestureMessage] {
        routed.compactMap { r in
            guard r.client == client, case .gesture(let g) = r.message else { return nil }
            return g
        }
    }

    static func touches(_ routed: [RoutedMessage], for client: ClientID) -> [TouchesMessage] {
        routed.compactMap { r in
            guard r.client == client, case .touches(let t) = r.message else { return nil }
            return t
        }
    }

    @Test func eachOwningRegionHasItsOwnGestureSessionOverOnlyItsTouches() {
        var pipeline = Self.setUp()
        let (whole, routed) = Self.run(Self.tapDuringPinch(), &pipeline)

        // The whole device saw three fingers at once; the map's pinch never more than two.
        let wholeFingers = whole.compactMap { m -> Int? in
            if case .gesture(let g) = m, case .update(let u) = g.event { return u.fingers }
            return nil
        }
        #expect(wholeFingers.max() == 3)
        let map = Self.gestures(routed, for: Self.mapClient)
        let mapUpdates = map.compactMap { g -> GestureUpdate? in
            if case .update(let u) = g.event { return u }
            return nil
        }
        #expect(!mapUpdates.isEmpty)
        #expect(mapUpdates.allSatisfy { $0.fingers == 2 && $0.mode == .pinchRotate })
        #expect(map.allSatisfy { $0.region == "map" })
        #expect(!map.contains { if case .tap = $0.event { return true } else { return false } })

        // The toolbar's session is one tap at its finger.
        let toolbar = Self.gestures(routed, for: Self.toolbarClient)
        let taps = toolbar.compactMap { g -> Point? in
            if case .tap(_, _, let location, _, _) = g.event { return location }
            return nil
        }
        #expect(taps == [Point(x: 20, y: 5)])
        #expect(toolbar.allSatisfy { $0.region == "toolbar" })

        // The observer gets every touch, no gestures.
        #expect(Self.gestures(routed, for: Self.observerClient).isEmpty)
        let observed = Set(Self.touches(routed, for: Self.observerClient).flatMap { $0.touches.map(\.id) })
        let owned = Set(
            (Self.touches(routed, for: Self.mapClient) + Self.touches(routed, for: Self.toolbarClient))
                .flatMap { $0.touches.map(\.id) })
        #expect(observed == owned)
        #expect(observed.count == 3)
        // `fingers` counts the region's own touches that are down.
        #expect(Self.touches(routed, for: Self.toolbarClient).map(\.fingers) == [1, 0])
        #expect(pipeline.routing?.router.boundTouchCount == 0)
    }

    /// The routing stage is fed the tracked frame itself: a routed touch is the whole-device touch,
    /// kernel tracking id and time included (read back from a `touches` message, as routing once was, the
    /// tracking id was -1).
    @Test func theRoutingStageRoutesTheTrackedFrameAsItIs() {
        var pipeline = Self.setUp()
        var s = TouchScripter(device: Self.device, start: Timestamp(seconds: 3, microseconds: 0))
        s.down(finger: 0, x: 12.5, y: 80)
        s.down(finger: 1, x: 70, y: 20)
        s.frame()
        var outputs: [PipelineOutput] = []
        for event in s.events { pipeline.push(event, into: &outputs) }
        guard case .frame(let f)? = outputs.first else {
            Issue.record("no frame")
            return
        }
        #expect(f.frame.fingerCount == 2)
        let routed = f.routed.flatMap { d -> [Touch] in if case .touches(let t) = d { t.touches } else { [] } }
        #expect(!routed.isEmpty)
        for touch in routed {
            #expect(f.frame.touches.contains(touch))
            #expect(touch.trackingID != -1)
        }
    }

    @Test func theDeviceGoingCancelsWhatIsOpenForEveryRecipient() {
        var pipeline = Self.setUp()
        var s = TouchScripter(device: Self.device, start: Timestamp(seconds: 10, microseconds: 0))
        s.down(finger: 0, x: 50, y: 50)
        s.frame()
        _ = Self.run(s, &pipeline)
        let deliveries = pipeline.withRouting { $0.finish() } ?? []
        var gone: [RoutedMessage] = []
        PipelineMessages.appendRouted(
            [.routed(RoutedOutput(device: 1, deliveries: deliveries))], to: &gone)
        let cancelled = gone.compactMap { r -> (ClientID, TouchesMessage)? in
            guard case .touches(let t) = r.message else { return nil }
            return (r.client, t)
        }
        #expect(cancelled.map(\.0).sorted() == [Self.mapClient, Self.observerClient])
        #expect(
            cancelled.allSatisfy { $0.1.routing?.reason == .deviceGone && $0.1.touches.map(\.phase) == [.cancelled] })
        // The map's session ends too (it had one; the observer has none).
        #expect(
            Self.gestures(gone, for: Self.mapClient).contains {
                if case .sessionEnded = $0.event { return true } else { return false }
            })
    }

    @Test func regionRequestsAreAtomicAndUpdatesMergeByID() {
        let pipeline = DevicePipeline(deviceID: 1, description: Self.device)
        var routing = DeviceRouting(
            device: 1, surface: pipeline.gestureSurface, gestures: pipeline.gestureConfiguration)
        Self.declareLayout(&routing)
        let bad = routing.replace(
            client: Self.mapClient,
            with: [Region(id: "a", shape: Self.rect(0, 0, 10, 10)), Region(id: "a", shape: Self.rect(0, 0, 5, 5))])
        guard case .rejected(let error) = bad else {
            Issue.record("a duplicate id was accepted")
            return
        }
        #expect(error.problems.contains { $0.contains("declared twice") })
        #expect(routing.regionIDs(of: Self.mapClient) == ["map"])
        let added = routing.update(
            client: Self.mapClient, upserting: [Region(id: "legend", shape: Self.rect(80, 80, 20, 20), z: 3)],
            removing: [])
        #expect(added == .inForce(["map", "legend"], []))
        #expect(routing.update(client: Self.mapClient, upserting: [], removing: ["nope"]) != .inForce([], []))
        #expect(routing.update(client: Self.mapClient, upserting: [], removing: ["map", "legend"]) == .inForce([], []))
        #expect(!routing.isRouted(Self.mapClient))
    }
}

/// `RoutedReplay`: a recording replayed with clients' regions, offline (`multitouchctl replay/check
/// --regions`).
@Suite("Routed replay")
struct RoutedReplayTests {
    static let layoutJSON = """
        [[{"id":"toolbar","rect":[0,0,100,15],"z":2}],
         [{"id":"map","rect":[0,0,100,100],"z":1}],
         [{"id":"fx","rect":[0,0,100,100],"mode":"observer"}]]
        """

    static func recording() -> Recording {
        Recording(
            format: .evemu,
            devices: [
                RecordedDevice(
                    description: DeviceRoutingTests.device, events: DeviceRoutingTests.tapDuringPinch().events)
            ])
    }

    @Test func aLayoutReplaysWithTheRoutingInvariantsHolding() throws {
        let layout = try RegionLayout.decode(Array(Self.layoutJSON.utf8))
        #expect(layout.map { $0.map(\.id) } == [["toolbar"], ["map"], ["fx"]])
        let result = RoutedReplay.run(recording: Self.recording(), layout: layout)
        #expect(result.violations.isEmpty)
        #expect(result.touchMessages > 0 && result.gestureEvents > 0)
        let clients = Set(result.messages.map(\.client))
        #expect(clients == [ClientID(1), ClientID(2), ClientID(3)])
        // The same as `DeviceRouting` driven by hand.
        var pipeline = DeviceRoutingTests.setUp()
        let byHand = DeviceRoutingTests.run(DeviceRoutingTests.tapDuringPinch(), &pipeline).routed
        #expect(result.messages.filter { $0.client == ClientID(2) } == byHand.filter { $0.client == ClientID(2) })
        // Deterministic.
        #expect(RoutedReplay.run(recording: Self.recording(), layout: layout).messages == result.messages)
    }

    @Test func aLayoutARouterRefusesIsReportedAndABadFileIsAnError() throws {
        let duplicate = try RegionLayout.decode(
            Array(#"[[{"id":"a","rect":[0,0,10,10]},{"id":"a","rect":[0,0,5,5]}]]"#.utf8))
        let result = RoutedReplay.run(recording: Self.recording(), layout: duplicate)
        #expect(result.violations.count == 1)
        #expect(result.violations.first?.contains("declared twice") == true)
        #expect(throws: WireDecodingError.self) { try RegionLayout.decode(Array("{}".utf8)) }
        #expect(throws: WireDecodingError.self) {
            try RegionLayout.decode(Array(#"[[{"id":"a","rect":[0,0,-1,1]}]]"#.utf8))
        }
    }
}

extension RoutedReplayTests {
    /// Opaque toolbar over a passthrough HUD (solid on its left half only) over the map, with an
    /// observer: a finger on the HUD's solid half is the HUD's, one on its transparent half passes
    /// through to the map, and the observer sees both.
    @Test func aPassthroughRegionOwnsWhereItsMaskIsSolidAndPassesTheRestThrough() throws {
        let layout = try RegionLayout.decode(
            Array(
                """
                [[{"id":"toolbar","rect":[0,0,100,15],"z":3}],
                 [{"id":"hud","rect":[0,20,100,40],"z":2,"mode":"passthrough",
                   "mask":{"columns":2,"rows":1,"bits":"gA=="}}],
                 [{"id":"map","rect":[0,0,100,100],"z":1}],
                 [{"id":"fx","rect":[0,0,100,100],"mode":"observer"}]]
                """.utf8))
        var s = TouchScripter(device: DeviceRoutingTests.device, start: Timestamp(seconds: 1, microseconds: 0))
        s.down(finger: 0, x: 25, y: 40)
        s.frame()
        s.advance(ms: 20)
        s.down(finger: 1, x: 75, y: 40)
        s.frame()
        s.advance(ms: 40)
        s.up(finger: 0)
        s.up(finger: 1)
        s.frame()
        let recording = Recording(
            format: .evemu, devices: [RecordedDevice(description: DeviceRoutingTests.device, events: s.events)])
        let result = RoutedReplay.run(recording: recording, layout: layout)
        #expect(result.violations.isEmpty)
        func touchIDs(_ client: UInt64) -> [UInt64] {
            var ids: [UInt64] = []
            for m in DeviceRoutingTests.touches(result.messages, for: ClientID(client)) {
                for t in m.touches where t.phase == .began { ids.append(t.id) }
            }
            return ids
        }
        let hud = touchIDs(2)
        let map = touchIDs(3)
        #expect(touchIDs(1).isEmpty)
        #expect(hud.count == 1 && map.count == 1 && hud != map)
        #expect(touchIDs(4).sorted() == (hud + map).sorted())
        let hudTouch = DeviceRoutingTests.touches(result.messages, for: ClientID(2)).first?.touches.first
        #expect(hudTouch?.location == Point(x: 25, y: 40))
    }
}
