import Configuration
import Glibc
import Logging
import MultitouchCore
import Publishing
import Testing
import WireProtocol

@testable import MultitouchServer

/// Issue 19: the hub enforces the access policy by peer credentials (socket pairs, fake peers).
@Suite("ClientHub access policy")
struct AccessPolicyHubTests {
    let watcher = ClientHubTests.RecordingWatcher()
    let host = ClientHubTests.FakeHost()
    let hub: ClientHub

    init() {
        hub = ClientHub(
            configuration: ClientsConfiguration(), daemonVersion: "multitouchd test", logger: Logger(label: "test"),
            watcher: watcher, clock: { 1 })
        host.devices = [ClientHubTests.device]
        hub.host = host
        host.hub = hub
        // A multi-program deployment: nobody gets anything by default, uid 1000 gets everything.
        hub.access = AccessPolicy(
            defaultGrant: AccessGrant(rights: []), rules: [AccessRule(uid: 1000, grant: .everything)])
    }

    func connect(uid: UInt32, pid: Int32) throws -> ClientHubTests.Peer {
        try .adopted(by: hub, credentials: PeerCredentials(pid: pid, uid: uid, gid: uid), skippingHello: true)
    }

    func request(_ peer: ClientHubTests.Peer, _ line: String) {
        peer.send(line + "\n")
        hub.handle(client: peer.id, readable: true, writable: false, hangUp: false)
    }

    @Test func aClientWithoutObserveGetsNoWholeDeviceTouches() throws {
        var owner = try connect(uid: 1000, pid: 10)
        var snoop = try connect(uid: 2000, pid: 20)
        request(owner, #"{"type":"subscribe"}"#)
        request(snoop, #"{"type":"subscribe"}"#)
        _ = owner.lines()
        _ = snoop.lines()
        hub.dispatch([ClientHubRoutingTests.wholeTouches(.began)], readAt: 1)
        #expect(owner.lines().count == 1)
        #expect(snoop.lines().isEmpty, "touches of the whole device need the observe right")
    }

    @Test func requestsNeedingARightAreForbiddenNamingIt() throws {
        var snoop = try connect(uid: 2000, pid: 20)
        request(snoop, #"{"type":"setTransform","device":1,"matrix":[2,0,0,2,0,0],"id":1}"#)
        request(snoop, #"{"type":"resetTransform","device":1,"id":2}"#)
        request(
            snoop,
            #"{"type":"declareRegions","device":1,"regions":[{"id":"a","rect":[0,0,10,10]}],"id":3}"#)
        let lines = snoop.lines()
        #expect(lines.count == 3, "\(lines)")
        #expect(
            lines[0].contains(#""code":"forbidden""#) && lines[0].contains(#"missing right \"transform\""#),
            "\(lines[0])")
        #expect(lines[0].contains(#""id":1"#))
        #expect(lines[1].contains(#"missing right \"transform\""#))
        #expect(lines[2].contains(#"missing right \"regions\""#))
        #expect(host.transforms.isEmpty, "nothing moved")
    }

    @Test func statsShowOtherClientsPidAndUidToRootOnly() throws {
        var root = try connect(uid: 0, pid: 1)
        var user = try connect(uid: 1000, pid: 10)
        request(user, #"{"type":"stats","id":1}"#)
        let seen = try #require(user.lines().first)
        #expect(seen.contains(#""pid":10,"uid":1000"#), "its own")
        #expect(seen.contains(#""pid":-1,"uid":-1"#), "root's hidden")
        #expect(!seen.contains(#""pid":1,"#))
        request(root, #"{"type":"stats","id":2}"#)
        let all = try #require(root.lines().first)
        #expect(all.contains(#""pid":1,"uid":0"#) && all.contains(#""pid":10,"uid":1000"#))
    }
}

/// Issue 19: one user's region requests are rate-limited (each rebuilds a hit index on the loop).
@Suite("ClientHub region request rate")
struct RegionRequestRateTests {
    @Test func aUsersClientsShareTheRateAndItRefills() throws {
        let clock = ClientHubTests.VirtualClock()
        let host = ClientHubTests.FakeHost()
        host.devices = [ClientHubTests.device]
        let watcher = ClientHubTests.RecordingWatcher()  // the hub holds it unowned
        defer { withExtendedLifetime(watcher) {} }
        let hub = ClientHub(
            configuration: ClientsConfiguration(), daemonVersion: "multitouchd test", logger: Logger(label: "test"),
            watcher: watcher, clock: { clock.now })
        hub.host = host
        host.hub = hub
        var peers: [ClientHubTests.Peer] = []
        for pid in 0..<2 {
            peers.append(
                try .adopted(
                    by: hub, credentials: PeerCredentials(pid: Int32(pid), uid: 1000, gid: 1000), skippingHello: true))
        }
        func update(_ k: Int) -> String {
            let peer = peers[k % 2]
            peer.send(#"{"type":"updateRegions","device":9,"regions":[],"remove":["a"],"id":\#(k)}"# + "\n")
            hub.handle(client: peer.id, readable: true, writable: false, hangUp: false)
            return peers[k % 2].lines().last ?? ""
        }
        let limit = RequestServer.regionRequestsPerSecondPerUser
        for k in 0..<limit { #expect(update(k).contains("unknown-device"), "request \(k) is served") }
        let refused = update(limit)
        #expect(refused.contains(#""code":"over-budget""#) && refused.contains("region_requests_per_second_per_user"))
        clock.advance(seconds: 0.5)
        #expect(update(limit + 1).contains("unknown-device"), "half a second refills half the budget")
    }
}

/// Issue 19: large request lines are charged by size before they are parsed.
@Suite("ClientHub large request bytes")
struct LargeRequestBytesTests {
    @Test func aFloodOfLargeLinesIsRefusedUnparsedWithItsID() throws {
        let clock = ClientHubTests.VirtualClock()
        let watcher = ClientHubTests.RecordingWatcher()  // the hub holds it unowned
        defer { withExtendedLifetime(watcher) {} }
        let hub = ClientHub(
            configuration: ClientsConfiguration(), daemonVersion: "multitouchd test", logger: Logger(label: "test"),
            watcher: watcher, clock: { clock.now })
        var peer = try ClientHubTests.Peer.adopted(
            by: hub, credentials: PeerCredentials(pid: 1, uid: 1000, gid: 1000), skippingHello: true)
        let id = peer.id
        // 60 KB of padding in an unknown field: parsed, it is a bad-field error; refused by size, over-budget.
        let padding = String(repeating: "x", count: 60_000)
        var codes: [String] = []
        for k in 0..<4 {
            peer.send(#"{"type":"ping","pad":"\#(padding)","id":\#(k)}"# + "\n")
            hub.handle(client: id, readable: true, writable: false, hangUp: false)
            let line = peer.lines().last ?? ""
            #expect(line.contains(#""id":\#(k)"#), "\(line.prefix(200))")
            codes.append(line.contains("over-budget") ? "over-budget" : line.contains("bad-field") ? "bad-field" : line)
        }
        // The burst is two of the longest lines (128 KiB): the third is refused unparsed.
        #expect(codes == ["bad-field", "bad-field", "over-budget", "over-budget"])
        clock.advance(seconds: 0.2)  // 100 KiB back
        peer.send(#"{"type":"ping","pad":"\#(padding)","id":9}"# + "\n")
        hub.handle(client: id, readable: true, writable: false, hangUp: false)
        #expect(peer.lines().last?.contains("bad-field") == true)
    }
}
