import Configuration
import Gestures
import Logging
import Publishing
import Testing
import TouchPipeline
import TouchRouting
import WireProtocol

@testable import MultitouchServer

/// Request serving without a socket: lines in, `RequestServer.Effect`s out, on a virtual clock.
@Suite("RequestServer")
struct RequestServerTests {
    /// The other clients, the devices and the fan-out, as a request sees them.
    final class Context: RequestContext {
        var sessions: [ClientSession] = []
        var openSessions: Set<Int> = []
        var devices: Set<Int> = [1]
        func hasOpenSession(device: Int) -> Bool { openSessions.contains(device) }
        func hasDevice(_ device: Int) -> Bool { devices.contains(device) }
        func deviceFigures() -> [DeviceFigures] { [] }
        func latencyStatistics() -> LatencyStatistics {
            LatencyStatistics(count: 0, maximum: 0, buckets: [], deferred: 0, recent: nil)
        }
    }

    final class Clock {
        var now: UInt64 = 1_000_000_000
    }

    let clock = Clock()
    let context = Context()
    let server: RequestServer

    init() {
        server = RequestServer(
            maximumLineBytes: 1 << 20, logger: Logger(label: "test"), clock: { [clock] in clock.now })
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

    /// The requests sent to a device's pipeline, with their tokens.
    func deviceRequests(_ effects: [RequestServer.Effect]) -> [(PipelineRequest, Int, UInt64)] {
        effects.compactMap { if case .device(let r, let d, let t) = $0 { (r, d, t) } else { nil } }
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
        var sent = 0
        for i in 0..<limit { sent += deviceRequests(serve(line, i.isMultiple(of: 2) ? a : b)).count }
        #expect(sent == limit)
        let refusedEffects = serve(line, b)
        #expect(deviceRequests(refusedEffects).isEmpty, "refused before the device side is asked")
        let refused = replies(refusedEffects)
        guard case .error(let e)? = refused.first else {
            Issue.record("over budget expected: \(refused)")
            return
        }
        #expect(e.code == .overBudget)
        // Another user has its own budget; a second later the first has room again.
        #expect(deviceRequests(serve(line, other)).count == 1)
        clock.now += 1_000_000_000
        #expect(deviceRequests(serve(line, a)).count == 1)
    }

    /// A region request travels typed: the pipeline request names the client, its regions and its
    /// grant; the pipeline's typed answer (by its token) becomes the asker's reply, and the connection
    /// switches streams on the device only once no whole-device session is open there.
    @Test func aRegionAnswerIsTheAskersReplyAndSwitchesOnlyOnceNoSessionIsOpen() throws {
        let c = session(id: 1, uid: 1000)
        let line = #"{"type":"declareRegions","device":1,"regions":[{"id":"a","rect":[0,0,10,10]}],"id":1}"#
        context.openSessions = [1]
        let sent = try #require(deviceRequests(serve(line, c)).first)
        guard case .declareRegions(let client, let regions, _) = sent.0 else {
            Issue.record("a region declaration: \(sent.0)")
            return
        }
        #expect(client == ClientID(1) && regions.map(\.id) == ["a"] && sent.1 == 1)
        let reply = try #require(
            server.reply(to: PipelineAnswer(token: sent.2, device: 1, outcome: .regions(["a"])), context: context))
        #expect(reply.client == 1)
        #expect(reply.message == .regions(RegionsMessage(id: 1, device: 1, regions: ["a"])))
        #expect(c.subscriber.routedDevices.isEmpty)
        #expect(c.subscriber.routingSwitch[1] == true, "pending while a whole-device session is open")
        // The token is spent: a second answer to it is nobody's.
        #expect(
            server.reply(to: PipelineAnswer(token: sent.2, device: 1, outcome: .regions([])), context: context) == nil)
        context.openSessions = []
        let d = session(id: 2, uid: 1001)
        let second = try #require(deviceRequests(serve(line, d)).first)
        _ = server.reply(to: PipelineAnswer(token: second.2, device: 1, outcome: .regions(["a"])), context: context)
        #expect(d.subscriber.routedDevices == [1])
    }

    @Test func aRequestForADeviceThatIsNotPresentIsAnsweredAtOnce() {
        let c = session(id: 1, uid: 1000)
        let effects = serve(#"{"type":"declareRegions","device":7,"regions":[],"id":3}"#, c)
        #expect(deviceRequests(effects).isEmpty)
        #expect(
            replies(effects) == [.error(ErrorMessage(.unknownDevice, "no device 7", id: 3))])
    }

    @Test func aTransformWithoutTheRightIsForbiddenAndTheDeviceSideIsNotAsked() {
        let c = session(id: 1, uid: 1000, grant: AccessGrant(rights: []))
        let effects = serve(#"{"type":"setTransform","device":1,"matrix":[2,0,0,2,0,0],"id":1}"#, c)
        let r = replies(effects)
        guard case .error(let e)? = r.first else {
            Issue.record("forbidden expected: \(r)")
            return
        }
        #expect(e.code == .forbidden)
        #expect(deviceRequests(effects).isEmpty)
    }

    @Test func aTransformIsAnsweredAndToldToTheOthers() throws {
        let c = session(id: 1, uid: 1000)
        let effects = serve(#"{"type":"setTransform","device":1,"matrix":[2,0,0,2,0,0],"id":1}"#, c)
        let sent = try #require(deviceRequests(effects).first)
        let matrix = AffineTransform(a: 2, b: 0, c: 0, d: 2, tx: 0, ty: 0)
        #expect(sent.0 == .setTransform(matrix))
        let reply = try #require(
            server.reply(to: PipelineAnswer(token: sent.2, device: 1, outcome: .transform(matrix)), context: context))
        #expect(reply.message == .transform(TransformMessage(id: 1, device: 1, matrix: matrix)))
        #expect(reply.notice == .transform(TransformMessage(id: nil, device: 1, matrix: matrix)))
    }

    /// `stats`: a client sees its own figures and rights; another client's figures only as root
    /// (issue 27: an exclusive region's client's `delivered` would time its key presses).
    @Test func statsShowOtherClientsFiguresToRootOnly() throws {
        let pad = session(id: 1, uid: 1001)
        pad.subscriber.delivered = 12
        let shell = session(id: 2, uid: 1002)
        let root = session(id: 3, uid: 0)
        guard case .stats(let seen)? = replies(serve(#"{"type":"stats"}"#, shell)).first,
            case .stats(let all)? = replies(serve(#"{"type":"stats"}"#, root)).first
        else {
            Issue.record("stats replies expected")
            return
        }
        let padSeen = try #require(seen.clients.first { $0.id == 1 })
        #expect(padSeen.delivered == nil && padSeen.queued == nil && padSeen.uid == -1 && padSeen.rights == nil)
        let own = try #require(seen.clients.first { $0.id == 2 })
        #expect(own.delivered != nil && own.uid == 1002 && own.rights == ["cover", "observe", "regions", "transform"])
        #expect(all.clients.first { $0.id == 1 }?.delivered == 12)
    }
}
