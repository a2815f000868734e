import Configuration
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

/// Issue 29 items 1, 5 and 6 on virtual time: a replay that waits for named regions (not for a count of
/// connections), that ends the daemon when it is done, whose clock a `frame` request's monotonic time
/// is converted to, regions the configuration holds, and `listRegions` (root sees every region, anyone
/// else its own user's).
@Suite("Rehearsals: regions to wait for, the replay's clock, the end, who owns what")
struct RehearsalFeaturesTests {
    typealias VirtualLoop = DevicesTests.VirtualLoop

    static let recording: Recording = {
        let fixture = Fixtures.pinchRotate()
        return Recording(format: .evemu, devices: [RecordedDevice(description: fixture.device, events: fixture.events)])
    }()

    /// The whole screen of the fixture's device (256 mm square) and more.
    static func region(_ id: String, z: Int = 0, exclusive: Bool = false) -> Region {
        Region(
            id: id, shape: .rectangle(RegionRect(x: -10, y: -10, width: 300, height: 300)), z: z,
            options: RegionOptions(exclusive: exclusive))
    }

    static func devices(
        _ options: ReplayOptions, configuration: DaemonConfiguration = DaemonConfiguration(), loop: VirtualLoop
    ) -> Devices {
        Devices(
            configuration: configuration, replay: options, logger: Logger(label: "test"), loop: loop,
            clock: { [unowned loop] in loop.now })
    }

    /// A client with regions and a subscription is what a program that is ready looks like; the replay
    /// starts only once every named region is in force and its client subscribed, however many other
    /// connections there are (the map of issue 29 opened two).
    @Test func theReplayWaitsForEveryNamedRegionOfASubscribedClient() throws {
        let loop = VirtualLoop()
        let host = Self.devices(
            ReplayOptions(recording: Self.recording, source: "fixture", speed: 4, waitForRegions: ["map", "pin"]),
            loop: loop)
        var published: [PipelineOutput] = []
        host.sink = { outputs, _ in published += outputs }
        host.startReplayIfNotWaiting()
        #expect(host.currentDevices().map(\.id) == [1], "announced while waiting")
        #expect(loop.replayAt == nil)
        let map = ClientID(5)
        let mapSecondConnection = ClientID(6)
        let pin = ClientID(7)
        #expect(
            host.apply(.declareRegions(client: map, regions: [Self.region("map")], grant: .all), device: 1, token: 1))
        host.clientSubscribed(subscribers: 2)
        host.readinessChanged(subscribed: [map, mapSecondConnection])
        #expect(loop.replayAt == nil, "two subscribers, but no pin pad yet")
        #expect(
            host.apply(
                .declareRegions(client: pin, regions: [Self.region("pin", z: 1, exclusive: true)], grant: .all),
                device: 1, token: 2))
        host.readinessChanged(subscribed: [map, mapSecondConnection])
        #expect(loop.replayAt == nil, "the pin pad declared its region but has not subscribed")
        host.readinessChanged(subscribed: [map, mapSecondConnection, pin])
        #expect(loop.replayAt != nil, "every named region is in force: the replay starts")
        published.removeAll()
        DevicesTests.play(host, loop)
        var routed: [RoutedMessage] = []
        PipelineMessages.appendRouted(published, to: &routed)
        // The pin pad, on top, gets every touch from the first frame on: nothing played before it was ready.
        guard case .touches(let first)? = routed.first(where: { $0.client == pin })?.message else {
            Issue.record("the pin pad got no touches")
            return
        }
        #expect(first.touches.allSatisfy { $0.phase == .began } && !first.touches.isEmpty)
    }

    /// A region the configuration holds is in force from the announcement: a replay waiting only for it
    /// starts at once.
    @Test func aConfiguredRegionIsReadyFromTheStart() {
        let loop = VirtualLoop()
        var configuration = DaemonConfiguration()
        configuration.tuio.regions = [TUIORegionTarget(id: "qt", target: TUIOTarget(port: 9), rect: [0, 0, 10, 10])]
        let host = Self.devices(
            ReplayOptions(recording: Self.recording, source: "fixture", waitForRegions: ["qt"]),
            configuration: configuration, loop: loop)
        host.startReplayIfNotWaiting()
        #expect(loop.replayAt != nil)
    }

    @Test(arguments: [false, true])
    func theDaemonIsToldToStopOnlyAfterTheLastPassWhenAsked(exitWhenDone: Bool) {
        let loop = VirtualLoop()
        let host = Self.devices(
            ReplayOptions(recording: Self.recording, source: "fixture", speed: 4, exitWhenDone: exitWhenDone),
            loop: loop)
        var finished = 0
        host.replayFinished = { finished += 1 }
        host.startReplayIfNotWaiting()
        #expect(finished == 0)
        DevicesTests.play(host, loop)
        #expect(host.currentDevices().isEmpty)
        #expect(finished == (exitWhenDone ? 1 : 0))
    }

    /// A `frame` request's time is the client's display time on CLOCK_MONOTONIC; the replay's messages
    /// carry the recording's clock. While a pass is present the daemon converts one to the other.
    @Test func frameTimesAreConvertedToTheReplaysClock() throws {
        let loop = VirtualLoop()
        let waiting = Self.devices(
            ReplayOptions(recording: Self.recording, source: "fixture", speed: 4, waitForSubscribers: 1), loop: loop)
        waiting.startReplayIfNotWaiting()
        let origin = try #require(Self.recording.devices.first?.events.first?.time)
        let now = Timestamp(microseconds: Int64(loop.now / 1000))
        #expect(waiting.messageTime(atMonotonic: now) == origin, "a waiting replay stands at its origin")

        let host = Self.devices(ReplayOptions(recording: Self.recording, source: "fixture", speed: 4), loop: loop)
        host.startReplayIfNotWaiting()
        let later = Timestamp(microseconds: now.microseconds + 100_000)
        #expect(host.messageTime(atMonotonic: later) == Timestamp(microseconds: origin.microseconds + 400_000))
        DevicesTests.play(host, loop)
        #expect(
            host.messageTime(atMonotonic: later) == Timestamp(microseconds: origin.microseconds + 400_000),
            "after the pass its clock runs on: a frame-aligned client still takes its last touches")
        let live = Self.devices(ReplayOptions(recording: Self.recording, source: "fixture"), loop: loop)
        #expect(live.messageTime(atMonotonic: later) == later, "before any pass: the monotonic clock itself")
    }

    // MARK: listRegions through the hub

    func connect(_ hub: ClientHub, uid: UInt32, pid: Int32) throws -> ClientHubTests.Peer {
        try .adopted(by: hub, credentials: PeerCredentials(pid: pid, uid: uid, gid: uid), skippingHello: true)
    }

    func request(_ hub: ClientHub, _ peer: ClientHubTests.Peer, _ line: String) {
        peer.send(line + "\n")
        hub.batch { hub.handle(client: peer.id, readable: true, writable: false, hangUp: false) }
    }

    /// The regions a `regionList` reply lists: id and owner.
    func listed(_ hub: ClientHub, _ peer: inout ClientHubTests.Peer) throws -> [String: RegionOwner] {
        request(hub, peer, #"{"type":"listRegions","device":1,"id":"l"}"#)
        let line = try #require(peer.lines().last)
        guard case .regionList(let list) = try Message(decoding: Array(line.utf8)) else {
            Issue.record("not a regionList: \(line)")
            return [:]
        }
        #expect(list.id == "l" && list.device == 1)
        #expect(list.regions.map(\.z) == list.regions.map(\.z).sorted(by: >), "topmost first")
        return Dictionary(uniqueKeysWithValues: list.regions.map { ($0.region, $0.owner) })
    }

    @Test func rootSeesEveryRegionAndAnyoneElseTheirOwnUsers() throws {
        let loop = VirtualLoop()
        var configuration = DaemonConfiguration()
        configuration.tuio.regions = [
            TUIORegionTarget(id: "qt", target: TUIOTarget(port: 9), rect: [0, 0, 10, 10], z: 3, owner: "qt-app")
        ]
        let devices = Self.devices(
            ReplayOptions(recording: Self.recording, source: "fixture", waitForRegions: ["never"]),
            configuration: configuration, loop: loop)
        // The hub holds its watcher unowned (the daemon's loop outlives it): kept here.
        let watcher = ClientHubTests.RecordingWatcher()
        let hub = ClientHub(
            configuration: ClientsConfiguration(), daemonVersion: "multitouchd test", logger: Logger(label: "test"),
            watcher: watcher, clock: { [unowned loop] in loop.now })
        hub.host = devices
        devices.sink = { [unowned hub] outputs, readAt in hub.dispatch(outputs, readAt: readAt) }
        devices.startReplayIfNotWaiting()

        var root = try connect(hub, uid: 0, pid: 1)
        var map = try connect(hub, uid: 1000, pid: 10)
        var toolbar = try connect(hub, uid: 1000, pid: 11)
        var pin = try connect(hub, uid: 2000, pid: 20)
        func declare(_ peer: inout ClientHubTests.Peer, _ region: String, z: Int, exclusive: Bool = false) {
            request(
                hub, peer,
                #"{"type":"declareRegions","device":1,"regions":[{"id":"\#(region)","rect":[0,0,50,50],"z":\#(z),"exclusive":\#(exclusive)}]}"#
            )
            #expect(peer.lines().last?.contains(#""type":"regions""#) == true)
        }
        declare(&map, "map", z: 1)
        declare(&toolbar, "toolbar", z: 2)
        declare(&pin, "pin", z: 5, exclusive: true)

        let all = try listed(hub, &root)
        #expect(
            all == [
                "pin": .client(id: pin.id, pid: 20, uid: 2000), "qt": .configuration("tuio.region[1] for qt-app"),
                "toolbar": .client(id: toolbar.id, pid: 11, uid: 1000), "map": .client(id: map.id, pid: 10, uid: 1000),
            ])
        #expect(
            try listed(hub, &map)
                == [
                    "toolbar": .client(id: toolbar.id, pid: 11, uid: 1000),
                    "map": .client(id: map.id, pid: 10, uid: 1000),
                ], "its own user's programs, not uid 2000's pin pad nor the configuration's")
        #expect(try listed(hub, &pin) == ["pin": .client(id: pin.id, pid: 20, uid: 2000)])
        request(hub, root, #"{"type":"listRegions","device":9,"id":2}"#)
        #expect(root.lines().last?.contains(#""code":"unknown-device""#) == true)
        withExtendedLifetime(watcher) {}
    }
}
