import Gestures
import MultitouchCore
import MultitouchTestKit
import Publishing
import Testing
import TouchPipeline
import TouchRouting
import WireProtocol

/// Secure input (DESIGN.md invariant 11): a touch that begins in an `exclusive` region (a PIN pad) exists
/// for that region's client only, from `began`. What everyone else receives is exactly what they would
/// receive had the touch never happened: the same scenario scripted without the pad's finger gives the
/// same whole-device bytes (ids, slots, tap counts, gestures, timers). Virtual time, no sockets.
@Suite("Secure input: exclusive regions")
struct ExclusiveWholeDeviceTests {
    static let device = DeviceRoutingTests.device
    static let pinClient = ClientID(1)
    static let pad = Region(
        id: "pin", shape: DeviceRoutingTests.rect(0, 0, 50, 50), z: 1, options: RegionOptions(exclusive: true))

    /// A scripted session: `withPad` false leaves the pad's finger out (its frames keep their times).
    typealias Script = @Sendable (inout TouchScripter, _ withPad: Bool) -> Void

    static func scripted(_ script: Script, withPad: Bool) -> TouchScripter {
        var s = TouchScripter(device: device, start: Timestamp(seconds: 10, microseconds: 0))
        script(&s, withPad)
        return s
    }

    /// Plays `events` through a pipeline on which the PIN client declared `regions` (none: no routing
    /// stage), to the end; returns the whole-device stream and the routed messages.
    static func play(
        _ events: [InputEvent], end: Timestamp, regions: [Region], settings: PipelineSettings = .init()
    ) -> ([Message], [RoutedMessage]) {
        var pipeline = DevicePipeline(deviceID: 1, description: device, settings: settings)
        var outputs: [PipelineOutput] = []
        if !regions.isEmpty {
            pipeline.handle(
                .declareRegions(client: pinClient, regions: regions, grant: .all), token: 1, into: &outputs)
            #expect(outputs == [.answer(PipelineAnswer(token: 1, device: 1, outcome: .regions(regions.map(\.id))))])
            outputs.removeAll()
        }
        for event in events { pipeline.push(event, into: &outputs) }
        pipeline.end(at: end, reason: .endOfRecording, into: &outputs)
        var whole: [Message] = []
        var routed: [RoutedMessage] = []
        PipelineMessages.append(outputs, to: &whole)
        PipelineMessages.appendRouted(outputs, to: &routed)
        return (whole, routed)
    }

    /// The whole-device stream with the pad declared, and without the pad's finger at all.
    static func compare(
        _ script: Script, settings: PipelineSettings = .init()
    )
        -> (whole: [Message], withoutPad: [Message], routed: [RoutedMessage])
    {
        let s = scripted(script, withPad: true)
        let (whole, routed) = play(s.events, end: s.time, regions: [pad], settings: settings)
        let t = scripted(script, withPad: false)
        let (withoutPad, _) = play(t.events, end: t.time, regions: [pad], settings: settings)
        return (whole, withoutPad, routed)
    }

    static func points(_ messages: [Message]) -> [TouchPoint] {
        messages.flatMap { m -> [TouchPoint] in
            guard case .touches(let t) = m else { return [] }
            return t.touches
        }
    }

    static func events(_ messages: [Message]) -> [GestureEvent] {
        messages.compactMap { m in
            guard case .gesture(let g) = m else { return nil }
            return g.event
        }
    }

    /// A tap on the PIN pad (the top-left quarter), then a tap just outside it: the second lands within
    /// the double-tap distance of the first, so a device-wide tap count would call it the second tap.
    static let padTapThenOutsideTap: Script = { s, withPad in
        if withPad { s.down(finger: 0, x: 45, y: 45) }
        s.frame()
        s.advance(ms: 40)
        if withPad { s.up(finger: 0) }
        s.frame()
        s.advance(ms: 100)
        s.down(finger: 1, x: 52, y: 45)
        s.frame()
        s.advance(ms: 40)
        s.up(finger: 1)
        s.frame()
    }

    @Test func thePadsTouchAndTapExistForItsOwnerOnly() throws {
        let (whole, withoutPad, routed) = Self.compare(Self.padTapThenOutsideTap)
        #expect(whole == withoutPad)
        // The pad's owner got its touch (a secure id, apart from the public ones) and its tap.
        let padPoints = routed.flatMap { r -> [TouchPoint] in
            guard r.client == Self.pinClient, case .touches(let t) = r.message else { return [] }
            return t.touches
        }
        #expect(!padPoints.isEmpty && padPoints.allSatisfy { $0.id >= TouchIDSource.firstSecureID })
        #expect(
            routed.contains { r in if case .gesture(let g) = r.message, case .tap = g.event { true } else { false } })
        // The outside touch is public touch 1, its tap its first (no tap count from the pad's tap).
        let shown = Self.points(whole)
        #expect(Set(shown.map(\.id)) == [1])
        #expect(shown.allSatisfy { $0.tapCount == 1 && $0.slot == 0 })
    }

    @Test func withoutAnExclusiveRegionTheWholeDeviceStreamIsThePipelines() {
        let s = Self.scripted(Self.padTapThenOutsideTap, withPad: true)
        var open = Self.pad
        open.options.exclusive = false
        let (routedWhole, _) = Self.play(s.events, end: s.time, regions: [open])
        let (plain, _) = Self.play(s.events, end: s.time, regions: [])
        #expect(Self.events(plain).contains { if case .tap = $0 { true } else { false } })
        #expect(routedWhole == plain)
    }

    /// The pad's client leaves with its finger down: that touch stays secure to its end (it is secure
    /// by its id), though the routing stage goes at once.
    @Test func aTouchStaysHiddenAfterItsRegionsClientLeft() {
        var pipeline = DevicePipeline(deviceID: 1, description: Self.device)
        var outputs: [PipelineOutput] = []
        pipeline.handle(
            .declareRegions(client: Self.pinClient, regions: [Self.pad], grant: .all), token: 1, into: &outputs)
        var s = TouchScripter(device: Self.device, start: Timestamp(seconds: 10, microseconds: 0))
        var whole: [Message] = []
        s.down(finger: 0, x: 20, y: 20)
        s.frame()
        for event in s.events { pipeline.push(event, into: &whole) }
        pipeline.handle(.clientGone(Self.pinClient), token: 2, into: &outputs)
        #expect(pipeline.routing == nil)
        var mark = s.events.count
        for i in 1...5 {
            s.advance(ms: 10)
            s.move(finger: 0, x: 20 + Double(i), y: 20)
            s.frame()
        }
        s.advance(ms: 10)
        s.up(finger: 0)
        s.frame()
        for event in s.events[mark...] { pipeline.push(event, into: &whole) }
        mark = s.events.count
        // A public touch after it is public touch 1.
        s.advance(ms: 10)
        s.down(finger: 0, x: 80, y: 80)
        s.frame()
        for event in s.events[mark...] { pipeline.push(event, into: &whole) }
        #expect(Self.points(whole).map(\.id) == [1])
        #expect(Self.events(whole).allSatisfy { if case .sessionBegan = $0 { true } else { false } })
    }

    /// A finger pans outside the pad; meanwhile a second finger lands on the pad and lifts. The
    /// whole-device session never sees it: no segment change, no finger count, the pan goes on as if
    /// it never happened (issue 27: before, a 30 mm slide on the pad moved the next whole-device
    /// gesture's translation).
    @Test func aPadTouchDuringAWholeDevicePanChangesNothingOfIt() {
        let script: Script = { s, withPad in
            s.down(finger: 0, x: 60, y: 60)
            s.frame()
            for i in 1...30 {
                s.advance(ms: 10)
                if withPad && i == 15 { s.down(finger: 1, x: 10, y: 10) }
                if withPad && i > 15 && i < 25 { s.move(finger: 1, x: 10 + Double(i - 15) * 3.3, y: 10) }
                if withPad && i == 25 { s.up(finger: 1) }
                s.move(finger: 0, x: 60 + Double(i), y: 60)
                s.frame()
            }
            s.advance(ms: 10)
            s.up(finger: 0)
            s.frame()
        }
        let (whole, withoutPad, _) = Self.compare(script)
        #expect(whole == withoutPad)
        #expect(Set(Self.points(whole).map(\.slot)) == [0])
        #expect(whole.allSatisfy { m in if case .touches(let t) = m { t.fingers <= 1 } else { true } })
    }

    /// Issue 27: with `double_tap_zoom_factor = 2`, a double tap on a key zoomed the whole-device
    /// matrix about the key (recoverable from the next gesture). Now the whole-device engine never
    /// sees the pad's taps: its matrix stays where the public fingers put it.
    @Test func aDoubleTapOnThePadLeavesNoMarkOnTheWholeDeviceMatrix() {
        var settings = PipelineSettings()
        settings.gestures.doubleTapZoomFactor = 2
        let script: Script = { s, withPad in
            for _ in 0..<2 {
                if withPad { s.down(finger: 0, x: 20, y: 20) }
                s.frame()
                s.advance(ms: 40)
                if withPad { s.up(finger: 0) }
                s.frame()
                s.advance(ms: 80)
            }
            s.advance(ms: 400)
            s.down(finger: 1, x: 70, y: 70)
            s.frame()
            for i in 1...10 {
                s.advance(ms: 10)
                s.move(finger: 1, x: 70 + Double(i), y: 70)
                s.frame()
            }
            s.up(finger: 1)
            s.frame()
        }
        let (whole, withoutPad, routed) = Self.compare(script, settings: settings)
        #expect(whole == withoutPad)
        #expect(
            routed.contains { r in
                if case .gesture(let g) = r.message, case .doubleTap = g.event { true } else { false }
            })
        let matrices = Self.events(whole).compactMap { e -> AffineTransform? in
            if case .update(let u) = e { u.matrix } else { nil }
        }
        #expect(matrices.allSatisfy { abs($0.scaleFactor - 1) < 1e-12 })
    }

    /// Issue 27: a pad that goes away right after its last key must not let whole-device timers
    /// publish that key (a tap waiting for its double-tap wait, momentum).
    @Test func aPadThatGoesAwayLeavesNoPendingWholeDeviceTimer() {
        var settings = PipelineSettings()
        settings.gestures.singleTapWaitsForDoubleTap = true
        settings.gestures.momentum = true
        var pipeline = DevicePipeline(deviceID: 1, description: Self.device, settings: settings)
        var outputs: [PipelineOutput] = []
        pipeline.handle(
            .declareRegions(client: Self.pinClient, regions: [Self.pad], grant: .all), token: 1, into: &outputs)
        var s = TouchScripter(device: Self.device, start: Timestamp(seconds: 10, microseconds: 0))
        s.down(finger: 0, x: 20, y: 40)
        s.frame()
        for i in 1...5 {
            s.advance(ms: 8)
            s.move(finger: 0, x: 20 + Double(i) * 4, y: 40)
            s.frame()
        }
        s.up(finger: 0)
        s.frame()
        for event in s.events { pipeline.push(event, into: &outputs) }
        pipeline.handle(.declareRegions(client: Self.pinClient, regions: [], grant: .all), token: 2, into: &outputs)
        pipeline.end(at: Timestamp(seconds: 30, microseconds: 0), reason: .endOfRecording, into: &outputs)
        var whole: [Message] = []
        PipelineMessages.append(outputs, to: &whole)
        #expect(Self.events(whole).isEmpty)
        #expect(Self.points(whole).isEmpty)
    }
}
