import Configuration
import Gestures
import MultitouchCore
import MultitouchTestKit
import Publishing
import Testing
import TouchPipeline
import TouchRouting
import WireProtocol

/// One connection's publishing rules without a socket: which messages it takes, and how it switches
/// between a device's whole-device stream and its regions' streams (only where no whole-device session
/// is open, as the `Publisher` accounts it).
@Suite("Subscriber")
struct SubscriberTests {
    static let t = Timestamp(seconds: 5, microseconds: 0)

    static func touches(_ phase: TouchPhase, device: Int = 1) -> Message {
        let point = TouchPoint(
            id: 1, phase: phase, location: Point(x: 10, y: 10), previousLocation: Point(x: 10, y: 10),
            normalized: Point(x: 0.1, y: 0.1), millimeters: Point(x: 10, y: 10), slot: 0, tapCount: 1, type: .direct)
        return .touches(
            TouchesMessage(
                device: device, time: t, fingers: phase.isTerminal ? 0 : 1, isSemiMT: false, touches: [point]))
    }

    static func session(_ began: Bool) -> Message {
        .gesture(
            GestureMessage(
                device: 1,
                event: began ? .sessionBegan(session: 1, time: t) : .sessionEnded(session: 1, time: t, cancelled: false)
            ))
    }

    static func subscribed(_ id: Int, grant: AccessGrant = .everything) -> Subscriber {
        var s = Subscriber(id: id, grant: grant)
        s.subscription = (MessageStreams(Set(MessageStream.allCases)), .all)
        return s
    }

    @Test func aRegionRequestDuringAnOpenSessionSwitchesRightAfterTheSessionEnds() {
        var publisher = Publisher()
        var batch = Publisher.Batch()
        var subscriber = Self.subscribed(4)
        publisher.publish([Self.touches(.began), Self.session(true)], into: &batch)
        #expect(batch.encoded.allSatisfy { subscriber.wants($0) })

        subscriber.regionsChanged(device: 1, routed: true, sessionOpen: publisher.hasOpenSession(device: 1))
        #expect(subscriber.routedDevices.isEmpty)
        #expect(subscriber.hasRoutingState)

        publisher.publish([Self.touches(.ended), Self.session(false)], into: &batch)
        let queued = subscriber.queue.count
        let took = subscriber.take(batch, softLimit: 256)
        #expect(took)
        // The session it saw begin ends for it; from there on the device is routed for it.
        #expect(subscriber.queue.count == queued + 2)
        #expect(subscriber.delivered == 2)
        #expect(subscriber.routedDevices == [1])
        publisher.publish([Self.touches(.began)], into: &batch)
        #expect(!subscriber.wants(batch.encoded[0]))

        // With nothing open, giving up its regions takes effect at once.
        subscriber.regionsChanged(device: 1, routed: false, sessionOpen: publisher.hasOpenSession(device: 1))
        #expect(subscriber.routedDevices.isEmpty && !subscriber.hasRoutingState)
        #expect(subscriber.wants(batch.encoded[0]))
    }

    @Test func takeSwitchesAtTheLastSessionsEndAlsoWhenItDoesNotTakeThatMessage() {
        var publisher = Publisher()
        var batch = Publisher.Batch()
        var subscriber = Subscriber(id: 4, grant: .everything)
        subscriber.subscription = (MessageStreams.touches, .all)
        publisher.publish([Self.touches(.began), Self.session(true)], into: &batch)
        subscriber.regionsChanged(device: 1, routed: true, sessionOpen: publisher.hasOpenSession(device: 1))
        publisher.publish([Self.session(false)], into: &batch)
        #expect(batch.encoded.count == 1 && batch.encoded[0].closesLastSession)
        let took = subscriber.take(batch, softLimit: 256)
        #expect(!took, "a gesture message, not its stream")
        #expect(subscriber.queue.isEmpty)
        #expect(subscriber.routedDevices == [1])
    }

    @Test func routedMessagesReachOnlyTheirClientAndWithoutObserveOnlyThose() {
        let routed = OutboundMessage(Self.touches(.began), client: 2, region: "map")
        let whole = OutboundMessage(Self.touches(.began))
        #expect(Self.subscribed(2).wants(routed))
        #expect(!Self.subscribed(3).wants(routed))
        var noObserve = AccessGrant.everything
        noObserve.rights.remove(.observe)
        #expect(!Self.subscribed(2, grant: noObserve).wants(whole))
        #expect(Self.subscribed(2, grant: noObserve).wants(routed))
        // Replies need no subscription; streams do.
        let pong = OutboundMessage.reply(.pong(PongMessage(id: nil)))
        #expect(Subscriber(id: 9).wants(pong))
        #expect(!Subscriber(id: 9).wants(whole))
        var other = Self.subscribed(5)
        other.subscription = (MessageStreams(Set(MessageStream.allCases)), DeviceFilter.ids([2]))
        #expect(!other.wants(whole))
        #expect(other.wants(OutboundMessage(Self.touches(.began, device: 2))))
    }

    /// Every client has its own horizon (issue 27: a map asking 8 ms beside a live view asking 16); a
    /// subscription the access policy leaves without the whole device says so in its reply.
    @Test func eachClientItsOwnHorizonAndMissingRightsAreNamed() {
        var first = Subscriber(id: 1)
        var second = Subscriber(id: 2)
        let all = Set(MessageStream.allCases)
        let a = first.subscribe(
            streams: all, devices: .all, predictMilliseconds: 16, frameAligned: false, id: nil, uid: 0)
        let b = second.subscribe(
            streams: all, devices: .all, predictMilliseconds: 8, frameAligned: true, id: nil, uid: 0)
        #expect(a.predictMilliseconds == 16 && b.predictMilliseconds == 8 && b.frameAligned)
        #expect(a.withheld == nil && b.withheld == nil)
        #expect(first.predictMilliseconds == 16 && second.predictMilliseconds == 8 && second.frames != nil)
        first.unsubscribe()
        #expect(first.subscription == nil && first.predictMilliseconds == nil)

        var noObserve = AccessGrant.everything
        noObserve.rights.remove(.observe)
        var regionsOnly = Subscriber(id: 3, grant: noObserve)
        let reply = regionsOnly.subscribe(
            streams: all, devices: .all, predictMilliseconds: nil, frameAligned: false, id: 5, uid: 1000)
        #expect(reply.withheld?.contains("missing right \"observe\"") == true)
        #expect(reply.withheld?.contains("uid 1000") == true)
        #expect(!regionsOnly.predictsWholeDevice(1))

        var noRegions = AccessGrant.everything
        noRegions.rights.remove(.regions)
        let limited = Subscriber(id: 3, grant: noRegions)
        #expect(limited.refusal(missing: .observe, uid: 1000, id: nil) == nil)
        let forbidden = limited.refusal(missing: .regions, uid: 1000, id: nil)
        #expect(forbidden?.code == .forbidden)
        #expect(forbidden?.message.contains("uid 1000") == true)
    }
}

/// Frame alignment on region streams (issue 27: a region's connection accepted `"frames": true` and
/// then got every sample as it came).
@Suite("Subscriber: frames on region streams")
struct SubscriberFramedRegionTests {
    @Test func aFrameAlignedClientsRegionTouchesWaitForItsFrame() throws {
        let device = TestDevices.touchscreen(slots: 10, maximum: 1000, resolution: 10)
        var pipeline = DevicePipeline(deviceID: 1, description: device)
        var outputs: [PipelineOutput] = []
        pipeline.handle(
            .declareRegions(
                client: ClientID(7),
                regions: [Region(id: "map", shape: .rectangle(RegionRect(x: 0, y: 0, width: 100, height: 100)))],
                grant: .all), token: 1, into: &outputs)
        var s = TouchScripter(device: device, start: Timestamp(seconds: 1, microseconds: 0))
        s.down(finger: 0, x: 10, y: 10)
        s.frame()
        for i in 1...4 {
            s.advance(ms: 4)
            s.move(finger: 0, x: 10 + Double(i), y: 10)
            s.frame()
        }
        for event in s.events { pipeline.push(event, into: &outputs) }
        var publisher = Publisher()
        var batch = Publisher.Batch()
        publisher.publish(outputs, into: &batch)
        var subscriber = Subscriber(id: 7)
        _ = subscriber.subscribe(
            streams: Set(MessageStream.allCases), devices: .all, predictMilliseconds: nil, frameAligned: true, id: nil,
            uid: 0)
        // Its region answer made the connection routed on the device (as `RequestServer` does).
        subscriber.regionsChanged(device: 1, routed: true, sessionOpen: false)
        let streamed = subscriber.take(batch, softLimit: 256)
        #expect(!streamed, "nothing streamed: the region's touches wait for a frame")
        var frame: [Message] = []
        subscriber.frames?.frame(at: Timestamp(microseconds: 1_000_000 + 16_000 + FrameAligner.latency), into: &frame)
        let touches = frame.compactMap { m -> TouchesMessage? in if case .touches(let t) = m { t } else { nil } }
        #expect(touches.count == 1)
        #expect(touches.first?.routing?.region == "map")
        #expect(touches.first?.touches.first?.coalesced?.count == 5, "the five raw samples, coalesced")
    }
}
