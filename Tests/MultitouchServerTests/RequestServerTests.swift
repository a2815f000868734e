import Configuration
import Gestures
import Logging
import Publishing
import Testing
import TouchRouting
import WireProtocol

@testable import MultitouchServer

/// Request serving without a socket: lines in, `RequestServer.Effect`s out, on a virtual clock.
@Suite("RequestServer")
struct RequestServerTests {
    /// The other clients and the fan-out, as a request sees them.
    final class Context: RequestContext {
        var sessions: [ClientSession] = []
        var openSessions: Set<Int> = []
        func hasOpenSession(device: Int) -> Bool { openSessions.contains(device) }
        func latencyStatistics() -> LatencyStatistics {
            LatencyStatistics(count: 0, maximum: 0, buckets: [], deferred: 0, recent: nil)
        }
    }

    /// A device side that accepts every region request and counts them.
    final class RegionHost: ClientHubHost {
        var regionRequests = 0
        var transforms = 0
        func currentDevices() -> [DeviceInfo] { [] }
        func deviceStatistics() -> [DeviceStatistics] { [] }
        func setTransform(device: Int, matrix: AffineTransform) -> Bool {
            transforms += 1
            return device == 1
        }
        func clientSubscribed(subscribers: Int) {}
        func clientsChanged() {}
        func regions(
            _ request: DeviceHost.RegionRequest, client: Int, device: Int, grant: RoutingGrant
        ) -> DeviceHost.RegionAnswer? {
            regionRequests += 1
            return .inForce(["a"], [])
        }
    }

    final class Clock {
        var now: UInt64 = 1_000_000_000
    }

    let clock = Clock()
    let host = RegionHost()
    let context = Context()
    let server: RequestServer

    init() {
        server = RequestServer(
            maximumLineBytes: 1 << 20, logger: Logger(label: "test"), clock: { [clock] in clock.now })
        server.host = host
    }

    /// A session with no socket (fd -1): the server never touches it.
    func session(id: Int, uid: UInt32, grant: AccessGrant = .everything) -> ClientSession {
        let s = ClientSession(id: id, fd: -1, peer: PeerCredentials(pid: Int32(id), uid: uid, gid: uid), grant: grant)
        context.sessions.append(s)
        return s
    }

    func serve(_ line: String, _ client: ClientSession) -> [RequestServer.Effect] {
        var effects: [RequestServer.Effect] = []
        server.serve(Array(line.utf8), from: client, context: context, into: &effects)
        return effects
    }

    func replies(_ effects: [RequestServer.Effect]) -> [Message] {
        effects.compactMap { if case .reply(let m) = $0 { m } else { nil } }
    }

    @Test func pingIsAnsweredWithItsID() {
        let c = session(id: 1, uid: 1000)
        #expect(replies(serve(#"{"type":"ping","id":7}"#, c)) == [.pong(PongMessage(id: 7))])
    }

    @Test func subscribeTakesEffectThenRepliesThenCounts() {
        let c = session(id: 1, uid: 1000)
        let effects = serve(#"{"type":"subscribe","streams":["touches"],"id":1}"#, c)
        #expect(c.subscriber.subscription != nil)
        #expect(effects.count == 3)
        guard effects.count == 3 else { return }
        if case .subscriptionsChanged = effects[0] {} else { Issue.record("horizon first: \(effects[0])") }
        if case .reply(.subscribed) = effects[1] {} else { Issue.record("then the reply: \(effects[1])") }
        if case .subscribed = effects[2] {} else { Issue.record("then the count: \(effects[2])") }
    }

    @Test func aBadLineIsAnErrorAndChangesNothing() {
        let c = session(id: 1, uid: 1000)
        let r = replies(serve(#"{"type":"subscribe""#, c))
        #expect(r.count == 1)
        if case .error = r.first {} else { Issue.record("an error: \(r)") }
        #expect(c.subscriber.subscription == nil)
    }

    @Test func regionRequestsAreLimitedPerUserAcrossItsClientsUntilTimePasses() {
        let a = session(id: 1, uid: 1000)
        let b = session(id: 2, uid: 1000)
        let other = session(id: 3, uid: 2000)
        let line = #"{"type":"declareRegions","device":1,"regions":[{"id":"a","rect":[0,0,10,10]}],"id":1}"#
        let limit = RequestServer.regionRequestsPerSecondPerUser
        for i in 0..<limit { _ = serve(line, i.isMultiple(of: 2) ? a : b) }
        #expect(host.regionRequests == limit)
        let refused = replies(serve(line, b))
        #expect(host.regionRequests == limit, "refused before the device side is asked")
        guard case .error(let e)? = refused.first else {
            Issue.record("over budget expected: \(refused)")
            return
        }
        #expect(e.code == .overBudget)
        // Another user has its own budget; a second later the first has room again.
        _ = serve(line, other)
        #expect(host.regionRequests == limit + 1)
        clock.now += 1_000_000_000
        _ = serve(line, a)
        #expect(host.regionRequests == limit + 2)
    }

    @Test func aRoutedDeviceSwitchesOnlyOnceNoSessionIsOpen() {
        let c = session(id: 1, uid: 1000)
        let line = #"{"type":"declareRegions","device":1,"regions":[{"id":"a","rect":[0,0,10,10]}],"id":1}"#
        context.openSessions = [1]
        _ = serve(line, c)
        #expect(c.subscriber.routedDevices.isEmpty)
        #expect(c.subscriber.routingSwitch[1] == true, "pending while a whole-device session is open")
        context.openSessions = []
        _ = serve(line, session(id: 2, uid: 1001))
        #expect(context.sessions[1].subscriber.routedDevices == [1])
    }

    @Test func aTransformWithoutTheRightIsForbiddenAndTheDeviceSideIsNotAsked() {
        let c = session(id: 1, uid: 1000, grant: AccessGrant(rights: []))
        let r = replies(serve(#"{"type":"setTransform","device":1,"matrix":[2,0,0,2,0,0],"id":1}"#, c))
        guard case .error(let e)? = r.first else {
            Issue.record("forbidden expected: \(r)")
            return
        }
        #expect(e.code == .forbidden)
        #expect(host.transforms == 0)
    }

    @Test func aTransformIsAnsweredAndToldToTheOthers() {
        let c = session(id: 1, uid: 1000)
        let effects = serve(#"{"type":"setTransform","device":1,"matrix":[2,0,0,2,0,0],"id":1}"#, c)
        #expect(host.transforms == 1)
        #expect(effects.count == 2)
        if case .reply(.transform) = effects.first {} else { Issue.record("the reply first: \(effects)") }
        if case .toOthers = effects.last {} else { Issue.record("then the others: \(effects)") }
    }
}
