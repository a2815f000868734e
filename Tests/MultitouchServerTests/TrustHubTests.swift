import Configuration
import Gestures
import Glibc
import Logging
import MultitouchCore
import MultitouchTestKit
import Publishing
import Recordings
import Testing
import TouchPipeline
import TouchRouting
import WireProtocol

@testable import MultitouchServer

/// Issue 28 items 4 and 5 through the whole daemon side, in-process: a `ClientHub` over a real
/// `Devices` replaying a touchscreen on virtual time, socket pairs with peer uids, and the access
/// policy docs/SECURITY.md recommends for several programs on one screen.
@Suite("Trust between programs: shares and bands")
struct TrustHubTests {
    /// SECURITY.md's configuration: every program its own regions in z 0...99, the shell (uid 1500)
    /// everything up to z 1000.
    static let recommended = AccessPolicy(
        defaultGrant: AccessGrant(rights: [.regions], zBand: 0...99),
        rules: [AccessRule(uid: 1500, grant: AccessGrant(rights: Set(AccessRight.allCases), zBand: 0...1000))])

    let loop = DevicesTests.VirtualLoop()
    let watcher = ClientHubTests.RecordingWatcher()
    let deviceHost: Devices
    let hub: ClientHub

    /// A 100 x 100 mm touchscreen (published in mm): 3 s without touches, then a tap at (20, 20) mm,
    /// four times, 300 ms apart.
    static func taps() -> Recording {
        var s = TouchScripter(device: EvemuScript.device, start: Timestamp(seconds: 1, microseconds: 0))
        s.frame()
        s.advance(ms: 3000)
        for _ in 0..<4 {
            s.down(finger: 0, x: 20, y: 20)
            s.frame()
            s.advance(ms: 40)
            s.up(finger: 0)
            s.frame()
            s.advance(ms: 300)
        }
        return Recording(format: .evemu, devices: [RecordedDevice(description: EvemuScript.device, events: s.events)])
    }

    init() {
        deviceHost = DevicesTests.host(Self.taps(), wait: 2, loop: loop)
        var configuration = ClientsConfiguration()
        configuration.maximumClients = 64
        let loop = self.loop
        hub = ClientHub(
            configuration: configuration, daemonVersion: "multitouchd test", logger: Logger(label: "test"),
            watcher: watcher, clock: { loop.now })
        hub.host = deviceHost
        hub.access = Self.recommended
        let hub = self.hub
        deviceHost.sink = { outputs, readAt in hub.dispatch(outputs, readAt: readAt) }
        deviceHost.startReplayIfNotWaiting()
    }

    func connect(uid: UInt32) throws -> ClientHubTests.Peer {
        try .adopted(by: hub, credentials: PeerCredentials(pid: Int32(uid), uid: uid, gid: uid), skippingHello: true)
    }

    /// Sends one request and returns the reply line.
    func request(_ peer: inout ClientHubTests.Peer, _ line: String) -> String {
        peer.send(line + "\n")
        hub.handle(client: peer.id, readable: true, writable: false, hangUp: false)
        return peer.lines().last ?? ""
    }

    static func tiny(_ prefix: String, _ count: Int, observers: Int) -> String {
        (0..<count).map { k in
            let x = Double(k % 16) * 6
            let y = Double(k / 16) * 6
            return #"{"id":"\#(prefix)\#(k)","rect":[\#(x),\#(y),1,1]\#(k < observers ? #","mode":"observer""# : "")}"#
        }.joined(separator: ",")
    }

    /// Item 4: four connections of one untrusted uid with 256 tiny regions each (16 observers each)
    /// filled the per-device budget, and the PIN pad's and the map's declarations were refused. A
    /// uid's connections now share one client's budget, and the device keeps room for later programs.
    @Test func oneUserCannotTakeADevicesWholeBudget() throws {
        var untrusted: [ClientHubTests.Peer] = try (0..<4).map { _ in try connect(uid: 1001) }
        var answers: [String] = []
        for k in untrusted.indices {
            answers.append(
                request(
                    &untrusted[k],
                    #"{"type":"declareRegions","device":1,"id":\#(k),"regions":[\#(Self.tiny("c\(k)r", 256, observers: 16))]}"#
                ))
        }
        #expect(answers[0].hasPrefix(#"{"type":"regions""#), "\(answers[0].prefix(200))")
        for answer in answers.dropFirst() {
            #expect(answer.contains(#""code":"over-budget""#), "\(answer.prefix(200))")
            #expect(answer.contains("_per_user"), "\(answer.prefix(300))")
        }
        var pad = try connect(uid: 1002)
        var map = try connect(uid: 1003)
        let padAnswer = request(
            &pad, #"{"type":"declareRegions","device":1,"id":"pad","regions":[\#(Self.tiny("key", 12, observers: 0))]}"#
        )
        #expect(padAnswer.hasPrefix(#"{"type":"regions""#), "\(padAnswer.prefix(300))")
        let mapAnswer = request(
            &map,
            #"{"type":"declareRegions","device":1,"id":"map","regions":[{"id":"map","rect":[0,0,100,100]},{"id":"fx","rect":[0,0,100,100],"mode":"observer"}]}"#
        )
        #expect(mapAnswer.hasPrefix(#"{"type":"regions""#), "\(mapAnswer.prefix(300))")
    }

    /// Item 5: with the recommended bands (every program in z 0...99) an untrusted program declared a
    /// z 99 region over another program's exclusive PIN pad and received every key press
    /// with its position; the pad received none. Only the owner (and a client granted `cover`, the
    /// shell) can now receive a touch that lands on an exclusive region.
    @Test func noProgramCanCoverAnotherProgramsExclusiveRegion() throws {
        var pad = try connect(uid: 1002)
        var untrusted = try connect(uid: 1001)
        let padAnswer = request(
            &pad,
            #"{"type":"declareRegions","device":1,"regions":[{"id":"pin","rect":[10,10,20,20],"z":5,"exclusive":true}]}"#
        )
        #expect(padAnswer.hasPrefix(#"{"type":"regions""#), "\(padAnswer)")
        let coverAnswer = request(
            &untrusted,
            #"{"type":"declareRegions","device":1,"regions":[{"id":"over","rect":[0,0,100,100],"z":99}]}"#
        )
        #expect(coverAnswer.hasPrefix(#"{"type":"regions""#), "\(coverAnswer)")
        _ = request(&pad, #"{"type":"subscribe"}"#)
        _ = request(&untrusted, #"{"type":"subscribe"}"#)
        DevicesTests.play(deviceHost, loop)
        func began(_ lines: [String]) -> Int {
            lines.filter { $0.hasPrefix(#"{"type":"touches""#) && $0.contains(#""phase":"began""#) }.count
        }
        let padLines = pad.lines()
        let untrustedLines = untrusted.lines()
        #expect(began(untrustedLines) == 0, "the untrusted program received \(began(untrustedLines)) key presses")
        #expect(began(padLines) == 4, "the pad received \(began(padLines)) of 4 key presses")
    }
}
