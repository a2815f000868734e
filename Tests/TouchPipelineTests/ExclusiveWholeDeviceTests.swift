import Gestures
import MultitouchCore
import MultitouchTestKit
import Publishing
import Testing
import TouchPipeline
import TouchRouting
import WireProtocol

/// The whole-device stream next to an `exclusive` region (a PIN pad): what clients without regions on
/// the device receive leaves out the touches bound to it and the whole-device gestures that saw them
/// (docs/SECURITY.md). Virtual time, no sockets.
@Suite("Whole-device stream and exclusive regions")
struct ExclusiveWholeDeviceTests {
    static let device = DeviceRoutingTests.device
    static let pinClient = ClientID(1)

    /// A tap on the PIN pad (the top-left quarter), a second later a tap outside it; each lasts 40 ms.
    static func padTapThenOutsideTap() -> TouchScripter {
        var s = TouchScripter(device: device, start: Timestamp(seconds: 10, microseconds: 0))
        s.down(finger: 0, x: 20, y: 20)
        s.frame()
        s.advance(ms: 40)
        s.up(finger: 0)
        s.frame()
        s.advance(ms: 1000)
        s.down(finger: 0, x: 80, y: 80)
        s.frame()
        s.advance(ms: 40)
        s.up(finger: 0)
        s.frame()
        return s
    }

    /// The pipeline's messages (to the end, every timer fired), the whole-device stream as the daemon
    /// sends it, and the routed messages.
    static func run(exclusive: Bool) -> (pipeline: [Message], whole: [Message], routed: [RoutedMessage]) {
        let pad = Region(
            id: "pin", shape: DeviceRoutingTests.rect(0, 0, 50, 50), z: 1, options: RegionOptions(exclusive: exclusive))
        let s = padTapThenOutsideTap()
        let (whole, routed) = play(s.events, end: s.time, regions: [pad])
        // The same input through a pipeline without a routing stage: everything the engine made.
        let (all, _) = play(s.events, end: s.time, regions: [])
        return (all, whole, routed)
    }

    /// Plays `events` through a pipeline on which the PIN client declared `regions` (none: no routing
    /// stage), to the end; returns the whole-device stream and the routed messages.
    static func play(_ events: [InputEvent], end: Timestamp, regions: [Region]) -> ([Message], [RoutedMessage]) {
        var pipeline = DevicePipeline(deviceID: 1, description: device)
        if !regions.isEmpty {
            pipeline.startRouting()
            let outcome = pipeline.withRouting { $0.replace(client: pinClient, with: regions) }
            #expect(outcome == .inForce(regions.map(\.id), []))
        }
        var outputs: [PipelineOutput] = []
        for event in events { pipeline.push(event, into: &outputs) }
        pipeline.end(at: end, reason: .endOfRecording, into: &outputs)
        var whole: [Message] = []
        var routed: [RoutedMessage] = []
        PipelineMessages.append(outputs, to: &whole)
        PipelineMessages.appendRouted(outputs, to: &routed)
        // The end's own message is not part of the stream these tests compare.
        whole.removeAll { if case .deviceRemoved = $0 { true } else { false } }
        return (whole, routed)
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

    @Test func thePadsTouchAndItsTapAreNotInTheWholeDeviceStream() throws {
        let (all, whole, routed) = Self.run(exclusive: true)
        // The pad's owner got its touch and its tap.
        let padIDs = Set(
            routed.flatMap { r -> [UInt64] in
                guard r.client == Self.pinClient, case .touches(let t) = r.message else { return [] }
                return t.touches.map(\.id)
            })
        #expect(padIDs.count == 1)
        #expect(
            routed.contains { r in if case .gesture(let g) = r.message, case .tap = g.event { true } else { false } })
        // The pipeline saw two taps; the whole-device stream shows only the one outside the pad.
        let allTaps = Self.events(all).compactMap { e -> Point? in
            if case .tap(_, _, let p, _, _) = e { p } else { nil }
        }
        #expect(allTaps.count == 2)
        let taps = Self.events(whole).compactMap { e -> Point? in if case .tap(_, _, let p, _, _) = e { p } else { nil }
        }
        #expect(taps.count == 1)
        #expect(taps.allSatisfy { $0.x > 50 && $0.y > 50 })
        let shown = Self.points(whole)
        #expect(!shown.isEmpty)
        #expect(shown.allSatisfy { !padIDs.contains($0.id) && $0.location.x > 50 })
        // Sessions stay paired: the pad's session is withheld whole.
        let began = Self.events(whole).filter { if case .sessionBegan = $0 { true } else { false } }.count
        let ended = Self.events(whole).filter { if case .sessionEnded = $0 { true } else { false } }.count
        #expect(began == 1 && ended == 1)
        // Nothing else is touched: every other message goes out as the pipeline made it.
        let kept = all.filter { m in
            switch m {
            case .touches(let t): return !t.touches.contains { padIDs.contains($0.id) }
            case .gesture(let g): return Self.events(whole).contains(g.event)
            default: return true
            }
        }
        #expect(whole == kept)
    }

    @Test func withoutAnExclusiveRegionTheWholeDeviceStreamIsThePipelines() {
        let (all, whole, _) = Self.run(exclusive: false)
        #expect(Self.events(all).contains { if case .tap = $0 { true } else { false } })
        #expect(whole == all)
    }

    /// The pad's client leaves with its finger down: the rest of that touch stays hidden, and the
    /// routing is idle (the daemon drops it) only once the touch has ended.
    @Test func aTouchStaysHiddenAfterItsRegionsClientLeft() {
        var pipeline = DevicePipeline(deviceID: 1, description: Self.device)
        let pad = Region(
            id: "pin", shape: DeviceRoutingTests.rect(0, 0, 50, 50), z: 1, options: RegionOptions(exclusive: true))
        pipeline.startRouting()
        _ = pipeline.withRouting { $0.replace(client: Self.pinClient, with: [pad]) }
        var s = TouchScripter(device: Self.device, start: Timestamp(seconds: 10, microseconds: 0))
        var whole: [Message] = []
        var idleWhileDown: [Bool] = []
        func play(_ s: inout TouchScripter, from start: Int) {
            for event in s.events[start...] { pipeline.push(event, into: &whole) }
        }
        s.down(finger: 0, x: 20, y: 20)
        s.frame()
        play(&s, from: 0)
        _ = pipeline.withRouting { $0.clientGone(Self.pinClient) }
        // The pipeline drops its routing stage once it is idle.
        idleWhileDown.append(pipeline.routing == nil)
        var mark = s.events.count
        for i in 1...5 {
            s.advance(ms: 10)
            s.move(finger: 0, x: 20 + Double(i), y: 20)
            s.frame()
        }
        play(&s, from: mark)
        idleWhileDown.append(pipeline.routing == nil)
        mark = s.events.count
        s.advance(ms: 10)
        s.up(finger: 0)
        s.frame()
        play(&s, from: mark)
        #expect(idleWhileDown == [false, false])
        #expect(pipeline.routing == nil)
        #expect(Self.points(whole).isEmpty)
        #expect(Self.events(whole).isEmpty)
    }

    /// A finger pans outside the pad; meanwhile a second finger lands on the pad. The whole-device
    /// session was shown before the pad's touch joined it: it still ends, but nothing of it after the
    /// join is sent (its updates would count and follow the pad's finger).
    @Test func aShownSessionThatAPadTouchJoinsEndsWithoutItsLaterUpdates() {
        let pad = Region(
            id: "pin", shape: DeviceRoutingTests.rect(0, 0, 50, 50), z: 1, options: RegionOptions(exclusive: true))
        var s = TouchScripter(device: Self.device, start: Timestamp(seconds: 10, microseconds: 0))
        s.down(finger: 0, x: 60, y: 60)
        s.frame()
        for i in 1...30 {
            s.advance(ms: 10)
            if i == 15 { s.down(finger: 1, x: 20, y: 20) }
            if i == 25 { s.up(finger: 1) }
            s.move(finger: 0, x: 60 + Double(i), y: 60)
            s.frame()
        }
        s.advance(ms: 10)
        s.up(finger: 0)
        s.frame()
        let (whole, _) = Self.play(s.events, end: s.time, regions: [pad])
        let (all, _) = Self.play(s.events, end: s.time, regions: [])
        let joined = Timestamp(seconds: 10, microseconds: 150_000)
        // The pipeline's session went on with updates after the join; the whole-device stream's did not.
        #expect(Self.events(all).contains { if case .update = $0, $0.time >= joined { true } else { false } })
        #expect(!Self.events(whole).contains { if case .update = $0, $0.time >= joined { true } else { false } })
        #expect(Self.events(whole).contains { if case .update = $0 { true } else { false } })
        let sessions = Self.events(whole).compactMap { e -> String? in
            switch e {
            case .sessionBegan: return "began"
            case .sessionEnded: return "ended"
            default: return nil
            }
        }
        #expect(sessions == ["began", "ended"])
        // The panning finger is all the whole device shows, one finger throughout.
        #expect(Set(Self.points(whole).map(\.slot)) == [0])
        #expect(whole.allSatisfy { m in if case .touches(let t) = m { t.fingers <= 1 } else { true } })
    }
}
