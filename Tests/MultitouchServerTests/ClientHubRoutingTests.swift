import Configuration
import Gestures
import Glibc
import Logging
import MultitouchCore
import Publishing
import Testing
import TouchPipeline
import TouchRouting
import WireProtocol

@testable import MultitouchServer

/// The hub's side of touch routing, in-process with socket pairs: region replies, and where a
/// connection switches between the whole-device stream and its regions' streams.
@Suite("ClientHub routing")
struct ClientHubRoutingTests {
    let watcher = ClientHubTests.RecordingWatcher()
    /// Device 1 accepts any region request (an id "bad" is refused) and answers through the hub.
    let host = ClientHubTests.FakeHost()
    let hub: ClientHub

    init() {
        hub = ClientHub(
            configuration: ClientsConfiguration(), daemonVersion: "multitouchd test", logger: Logger(label: "test"),
            watcher: watcher, clock: { 1 })
        host.devices = [ClientHubTests.device]
        hub.host = host
        host.hub = hub
    }

    func connect() throws -> ClientHubTests.Peer { try .adopted(by: hub, credentials: nil) }

    func request(_ peer: ClientHubTests.Peer, _ line: String) {
        peer.send(line + "\n")
        hub.handle(client: peer.id, readable: true, writable: false, hangUp: false)
    }

    static let t = Timestamp(microseconds: 5_000_000)

    static func touch(_ id: UInt64, _ phase: TouchPhase) -> TouchPoint {
        TouchPoint(
            id: id, phase: phase, location: Point(x: 10, y: 10), previousLocation: Point(x: 10, y: 10),
            normalized: Point(x: 0.1, y: 0.1), millimeters: Point(x: 10, y: 10), slot: 0, tapCount: 1, type: .direct)
    }

    static func wholeTouches(_ phase: TouchPhase, id: UInt64 = 1) -> Message {
        .touches(
            TouchesMessage(
                device: 1, time: t, fingers: phase.isTerminal ? 0 : 1, isSemiMT: false, touches: [touch(id, phase)]))
    }

    static func session(_ began: Bool, _ n: UInt64 = 1) -> Message {
        .gesture(
            GestureMessage(
                device: 1,
                event: began ? .sessionBegan(session: n, time: t) : .sessionEnded(session: n, time: t, cancelled: false)
            ))
    }

    @Test func theHelloAnnouncesRegionsAndRequestsAreAnswered() throws {
        var peer = try connect()
        #expect(peer.lines().first?.hasSuffix(#","features":["regions"]}"#) == true)
        request(peer, #"{"type":"declareRegions","device":1,"id":1,"regions":[{"id":"map","rect":[0,0,100,100]}]}"#)
        request(peer, #"{"type":"declareRegions","device":1,"id":2,"regions":[{"id":"bad","rect":[0,0,1,1]}]}"#)
        request(peer, #"{"type":"updateRegions","device":7,"id":3,"remove":["map"]}"#)
        #expect(
            peer.lines() == [
                #"{"type":"regions","id":1,"device":1,"regions":["map"]}"#,
                #"{"type":"error","code":"bad-field","message":"bad one","fatal":false,"id":2}"#,
                #"{"type":"error","code":"unknown-device","message":"no device 7","fatal":false,"id":3}"#,
            ])
        // A routed connection that leaves takes its regions with it.
        hub.handle(client: peer.id, readable: false, writable: false, hangUp: true)
        #expect(host.gone == [peer.id])
    }

    @Test func aConnectionRoutedMidSessionKeepsTheWholeDeviceStreamUntilTheSessionEnds() throws {
        var peer = try connect()
        request(peer, #"{"type":"subscribe","streams":["touches","gestures"]}"#)
        _ = peer.lines()
        hub.dispatch([Self.wholeTouches(.began), Self.session(true)], readAt: 1)
        #expect(peer.lines().count == 2)

        request(peer, #"{"type":"declareRegions","device":1,"regions":[{"id":"map","rect":[0,0,100,100]}]}"#)
        #expect(peer.lines() == [#"{"type":"regions","device":1,"regions":["map"]}"#])
        // Still whole-device: the touch it saw begin moves and ends for it, and the session ends.
        hub.dispatch([Self.wholeTouches(.moved)], readAt: 1)
        hub.dispatch([Self.wholeTouches(.ended), Self.session(false)], readAt: 1)
        let ending = peer.lines()
        #expect(ending.count == 3)
        #expect(ending.last == #"{"type":"session","device":1,"time":5.000000,"session":1,"phase":"ended"}"#)

        // From there on only its regions' messages reach it.
        let recipient = Recipient(key: RegionKey(client: ClientID(UInt64(peer.id)), region: "map"), role: .owner)
        let p = Point(x: 10, y: 10)
        let touch = Touch(
            id: 2, slot: 0, trackingID: 2, phase: .began, location: p, previousLocation: p, millimeters: p,
            normalized: Point(x: 0.1, y: 0.1), timestamp: Self.t, type: .direct)
        let routed = PipelineOutput.routed(
            RoutedOutput(
                device: 1,
                deliveries: [.touches(RoutedTouches(recipient: recipient, time: Self.t, touches: [touch]))]))
        var expected: [RoutedMessage] = []
        PipelineMessages.appendRouted([routed], to: &expected)
        hub.dispatch([Self.wholeTouches(.began, id: 2), Self.session(true, 2)], readAt: 1)
        hub.dispatch([routed], readAt: 1)
        #expect(peer.lines() == expected.map { $0.message.jsonLine() })

        // Removing its regions mid-session: back to the whole device only once that session is over.
        request(peer, #"{"type":"declareRegions","device":1,"id":5,"regions":[]}"#)
        #expect(peer.lines() == [#"{"type":"regions","id":5,"device":1,"regions":[]}"#])
        hub.dispatch([Self.wholeTouches(.ended, id: 2), Self.session(false, 2)], readAt: 1)
        #expect(peer.lines().isEmpty)
        hub.dispatch([Self.wholeTouches(.began, id: 3), Self.session(true, 3)], readAt: 1)
        #expect(peer.lines().count == 2)
    }

    @Test func anotherConnectionsRegionMessagesNeverReachThisOne() throws {
        var plain = try connect()
        var routed = try connect()
        request(plain, #"{"type":"subscribe"}"#)
        request(routed, #"{"type":"subscribe"}"#)
        request(routed, #"{"type":"declareRegions","device":1,"regions":[{"id":"map","rect":[0,0,100,100]}]}"#)
        _ = plain.lines()
        _ = routed.lines()
        let recipient = Recipient(key: RegionKey(client: ClientID(UInt64(routed.id)), region: "map"), role: .owner)
        let mine = Message.gesture(
            GestureMessage(device: 1, event: .sessionBegan(session: 1, time: Self.t), region: "map"))
        hub.dispatch([Self.wholeTouches(.began), Self.session(true)], readAt: 1)
        hub.dispatch(
            [
                .routed(
                    RoutedOutput(
                        device: 1,
                        deliveries: [.gesture(recipient, .sessionBegan(session: 1, time: Self.t), predictedMatrix: nil)]
                    ))
            ], readAt: 1)
        #expect(plain.lines().count == 2)
        #expect(routed.lines() == [mine.jsonLine()])
    }
}
