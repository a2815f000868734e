import Configuration
import Gestures
import Glibc
import Logging
import MultitouchCore
import MultitouchTestKit
import Publishing
import Testing
import TouchPipeline
import TouchRouting
import WireProtocol

@testable import MultitouchServer

/// The client hub in-process: socket pairs instead of connections, a hand-driven loop, virtual time.
@Suite("ClientHub")
struct ClientHubTests {
    final class VirtualClock: @unchecked Sendable {
        var now: UInt64 = 1_000_000_000
        func advance(seconds: Double) { now += UInt64(seconds * 1e9) }
    }

    /// Records what the hub asks the loop to watch.
    final class RecordingWatcher: ClientSocketWatcher {
        var watched: [Int32: (readable: Bool, writable: Bool)] = [:]
        func watch(client id: Int, fd: Int32) throws(SystemError) { watched[fd] = (true, false) }
        func update(fd: Int32, readable: Bool, writable: Bool) { watched[fd] = (readable, writable) }
        func unwatch(fd: Int32) { watched[fd] = nil }
        func watchListener(fd: Int32) { watched[fd] = (true, false) }
    }

    /// A device side whose pipelines answer at once: transforms are taken (and counted), regions are
    /// accepted (an id "bad" is refused), every answer goes back through the hub's `dispatch`, as the
    /// daemon's `Devices` sends it through its sink.
    final class FakeHost: ClientHubHost {
        var devices: [PipelineDevice] = []
        var transforms: [(Int, AffineTransform)] = []
        var subscriberCounts: [Int] = []
        var gone: [Int] = []
        var changes = 0
        var predictionChanges = 0
        weak var hub: ClientHub?
        func currentDevices() -> [PipelineDevice] { devices }
        func deviceFigures() -> [DeviceFigures] {
            devices.map { DeviceFigures(device: $0, frames: 7, active: true, predictionErrors: []) }
        }
        func apply(_ request: PipelineRequest, device: Int, token: UInt64) -> Bool {
            guard devices.contains(where: { $0.id == device }) else { return false }
            let outcome: PipelineAnswer.Outcome
            switch request {
            case .setTransform(let m):
                transforms.append((device, m))
                outcome = .transform(m)
            case .declareRegions(_, let regions, _):
                outcome =
                    regions.contains { $0.id == "bad" }
                    ? .rejected(RoutingRequestError(problems: ["bad one"])) : .regions(regions.map(\.id))
            case .updateRegions(_, let regions, _, _):
                outcome = .regions(regions.map(\.id))
            case .recognized:
                outcome = .recognized
            case .setRegionTransform(_, _, let m):
                outcome = .transform(m ?? .identity)
            case .clientGone:
                outcome = .done
            case .listRegions:
                outcome = .listing([])
            }
            hub?.dispatch([.answer(PipelineAnswer(token: token, device: device, outcome: outcome))], readAt: 1)
            return true
        }
        func clientSubscribed(subscribers: Int) { subscriberCounts.append(subscribers) }
        func clientsChanged() { changes += 1 }
        func clientGone(_ client: ClientID) { gone.append(Int(client.rawValue)) }
        func predictionsChanged() { predictionChanges += 1 }
    }

    /// The test's end of one connection.
    struct Peer {
        let fd: Int32
        let id: Int
        /// The hub's end.
        var hubFD: Int32 = -1
        var buffer: [UInt8] = []

        /// A socket pair: `hub` adopts one end as a client with `credentials`, the test keeps the other.
        /// `buffer` shrinks both sides' socket buffers (a client that reads nothing then fills its queue
        /// in the hub, not the kernel). With `skippingHello`, the greeting is read and dropped.
        static func adopted(
            by hub: ClientHub, credentials: PeerCredentials?, buffer: Int32? = nil, skippingHello: Bool = false
        ) throws -> Peer {
            let ends = try Sys.socketPair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue))
            let fds = [ends.0, ends.1]
            try Sys.setNonBlocking(fds[0])
            if var size = buffer {
                setsockopt(fds[1], SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
                setsockopt(fds[0], SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
            }
            let id = try #require(hub.adopt(fd: fds[0], peer: credentials))
            var peer = Peer(fd: fds[1], id: id, hubFD: fds[0])
            if skippingHello { _ = peer.lines() }
            return peer
        }

        /// Everything the hub has written so far, as lines.
        mutating func lines() -> [String] {
            var chunk = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
                if n <= 0 { break }
                buffer.append(contentsOf: chunk[0..<n])
            }
            var out: [String] = []
            while let newline = buffer.firstIndex(of: 0x0A) {
                out.append(String(decoding: buffer[..<newline], as: UTF8.self))
                buffer.removeFirst(newline + 1)
            }
            return out
        }

        func send(_ text: String) {
            let bytes = Array(text.utf8)
            _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }

        /// True when the hub closed its end (EOF after any remaining bytes).
        func isClosedByHub() -> Bool {
            var byte: UInt8 = 0
            return recv(fd, &byte, 1, Int32(MSG_DONTWAIT | MSG_PEEK)) == 0
        }
    }

    let clock = VirtualClock()
    let watcher = RecordingWatcher()
    let host = FakeHost()
    let hub: ClientHub

    /// 100 x 100 mm, published in millimetres.
    static let device = DevicePipeline(
        deviceID: 1, description: TestDevices.touchscreen(slots: 10, maximum: 1000, resolution: 10), source: "test"
    ).device

    /// A whole-device frame of device 1 with one touch (id 1) at `x` mm, for the typed path.
    static func frame(_ ms: Int64, _ phase: TouchPhase, x: Double) -> PipelineOutput {
        let time = Timestamp(microseconds: ms * 1000)
        let p = Point(x: x, y: 0)
        let touch = Touch(
            id: 1, slot: 0, trackingID: 1, phase: phase, location: p, previousLocation: p, millimeters: p,
            normalized: Point(x: x / 100, y: 0), timestamp: time, type: .direct)
        return .frame(
            PipelineFrame(
                device: 1, frame: TouchFrame(time: time, touches: [touch], fingerCount: phase.isTerminal ? 0 : 1),
                events: []))
    }

    init() {
        var configuration = ClientsConfiguration()
        configuration.maximumClients = 2
        configuration.softQueueLimit = 4
        configuration.hardQueueLimitBytes = 4096
        let clock = self.clock
        hub = ClientHub(
            configuration: configuration, daemonVersion: "multitouchd test", logger: Logger(label: "test"),
            watcher: watcher, clock: { clock.now })
        host.devices = [Self.device]
        hub.host = host
        host.hub = hub
    }

    /// A socket pair: the hub adopts one end, the test keeps the other.
    func connect(receiveBuffer: Int32? = nil) throws -> Peer {
        try Peer.adopted(by: hub, credentials: nil, buffer: receiveBuffer)
    }

    /// The client sent something: the loop would report it readable.
    func deliverRequests(_ peer: Peer) { hub.handle(client: peer.id, readable: true, writable: false, hangUp: false) }

    @Test func aNewClientIsGreetedAndRepliesEchoTheirIDs() throws {
        var peer = try connect()
        let hello = peer.lines()
        #expect(hello.count == 1)
        #expect(
            hello.first?.hasPrefix(#"{"type":"hello","protocol":2,"daemon":"multitouchd test","devices":[{"id":1,"#)
                == true)
        peer.send("{\"type\":\"ping\",\"id\":9007199254740993}\n{\"type\":\"ping\",\"id\":-0}\n")
        deliverRequests(peer)
        #expect(peer.lines() == [#"{"type":"pong","id":9007199254740993}"#, #"{"type":"pong","id":-0}"#])
        #expect(host.changes == 1)
    }

    @Test func onlySubscribersGetStreamedMessagesAndOnlyTheStreamsAndDevicesTheyChose() throws {
        var gestures = try connect()
        var idle = try connect()
        _ = gestures.lines()
        _ = idle.lines()
        gestures.send(#"{"type":"subscribe","streams":["gestures"],"devices":[1],"id":1}"# + "\n")
        deliverRequests(gestures)
        #expect(gestures.lines() == [#"{"type":"subscribed","id":1,"streams":["gestures"],"devices":[1]}"#])
        #expect(host.subscriberCounts == [1])
        let time = Timestamp(microseconds: 5_000_000)
        hub.dispatch(
            [
                .touches(TouchesMessage(device: 1, time: time, fingers: 0, isSemiMT: false, touches: [])),
                .gesture(GestureMessage(device: 1, event: .sessionBegan(session: 1, time: time))),
                .gesture(GestureMessage(device: 2, event: .sessionBegan(session: 2, time: time))),
            ], readAt: clock.now)
        #expect(gestures.lines() == [#"{"type":"session","device":1,"time":5.000000,"session":1,"phase":"began"}"#])
        #expect(idle.lines().isEmpty)
    }

    /// A frame-aligned subscriber gets no touches or gestures as they come; a `frame` request delivers
    /// them, resampled from the typed frames; a plain subscriber is not affected; a `frame` without
    /// `"frames": true` is refused.
    @Test func aFrameAlignedSubscriberGetsItsTouchesOnlyOnAFrame() throws {
        var framed = try connect()
        var plain = try connect()
        _ = framed.lines()
        _ = plain.lines()
        plain.send(#"{"type":"frame","time":1.0,"id":3}"# + "\n")
        deliverRequests(plain)
        #expect(plain.lines().first?.contains(#""code":"bad-field""#) == true)
        framed.send(#"{"type":"subscribe","streams":["touches","gestures"],"frames":true,"id":1}"# + "\n")
        plain.send(#"{"type":"subscribe","streams":["touches","gestures"],"id":2}"# + "\n")
        deliverRequests(framed)
        deliverRequests(plain)
        _ = framed.lines()
        _ = plain.lines()
        hub.dispatch([Self.frame(0, .began, x: 0)], readAt: clock.now)
        hub.dispatch([Self.frame(10, .moved, x: 10)], readAt: clock.now)
        hub.dispatch([Self.frame(20, .moved, x: 20)], readAt: clock.now)
        #expect(plain.lines().count == 3)
        #expect(framed.lines().isEmpty)
        framed.send(#"{"type":"frame","time":0.020}"# + "\n")
        deliverRequests(framed)
        let frame = framed.lines()
        #expect(frame.count == 1)
        let message = try #require(frame.first.map { try Message(decoding: Array($0.utf8)) })
        guard case .touches(let m) = message else {
            Issue.record("not touches: \(message)")
            return
        }
        #expect(m.time == Timestamp(microseconds: 15_000))
        #expect(m.touches.map(\.phase) == [.began])
        #expect(m.touches.first?.location.x == 15)
        #expect(m.touches.first?.coalesced?.map(\.time.microseconds) == [0, 10_000])
    }

    @Test func aTransformReachesTheRequesterWithItsIDAndTheOtherSubscribersWithout() throws {
        var a = try connect()
        var b = try connect()
        b.send(#"{"type":"subscribe","streams":["gestures"]}"# + "\n")
        deliverRequests(b)
        _ = a.lines()
        _ = b.lines()
        a.send(#"{"type":"setTransform","device":1,"matrix":[2,0,0,2,1,1],"id":"t"}"# + "\n")
        a.send(#"{"type":"resetTransform","device":5,"id":6}"# + "\n")
        deliverRequests(a)
        #expect(
            a.lines() == [
                #"{"type":"transform","id":"t","device":1,"matrix":[2,0,0,2,1,1]}"#,
                #"{"type":"error","code":"unknown-device","message":"no device 5","fatal":false,"id":6}"#,
            ])
        #expect(b.lines() == [#"{"type":"transform","device":1,"matrix":[2,0,0,2,1,1]}"#])
        #expect(host.transforms.count == 1)
    }

    /// Issue 11: `[1,0,0,1,1.7e308,1.7e308]` is finite and invertible, yet it made the device's later
    /// gesture matrices overflow. It is refused as `bad-field` and never reaches the device.
    @Test func aSetTransformOutsideTheBoundsIsRefusedAndNeverReachesTheDevice() throws {
        var a = try connect()
        _ = a.lines()
        a.send(#"{"type":"setTransform","device":1,"matrix":[1,0,0,1,1.7e308,1.7e308],"id":"big"}"# + "\n")
        deliverRequests(a)
        #expect(
            a.lines() == [
                #"{"type":"error","code":"bad-field","message":"\"matrix\" entry tx = 1.7e+308 is out of range; |tx| and |ty| must be at most 1e9","fatal":false,"id":"big"}"#
            ])
        #expect(host.transforms.isEmpty)
    }

    @Test func oneClientMoreThanTheLimitIsToldWhyAndClosed() throws {
        _ = try connect()
        _ = try connect()
        var fds: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
        #expect(hub.adopt(fd: fds[0], peer: nil) == nil)
        var third = Peer(fd: fds[1], id: -1)
        #expect(third.lines().first?.contains(#""code":"too-many-clients""#) == true)
        #expect(third.isClosedByHub())
        #expect(hub.clientCount == 2)
    }

    /// One user cannot take every slot: past `max_clients_per_user` connections of one uid, the next
    /// one of that uid is refused with the reason, while another user still gets in.
    @Test func oneUserPastItsShareIsRefusedAndAnotherUserStillConnects() throws {
        hub.configuration.maximumClients = 3
        hub.configuration.maximumClientsPerUser = 1
        func pair() -> [Int32] {
            var fds: [Int32] = [0, 0]
            #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
            return fds
        }
        let alice = PeerCredentials(pid: 10, uid: 1000, gid: 1000)
        let first = pair()
        #expect(hub.adopt(fd: first[0], peer: alice) != nil)
        let second = pair()
        #expect(hub.adopt(fd: second[0], peer: alice) == nil)
        var refused = Peer(fd: second[1], id: -1)
        let refusal = refused.lines().first ?? ""
        #expect(refusal.contains(#""code":"too-many-clients""#))
        #expect(refusal.contains("at most 1 clients of one user (uid 1000)"))
        #expect(refused.isClosedByHub())
        let bob = pair()
        #expect(hub.adopt(fd: bob[0], peer: PeerCredentials(pid: 11, uid: 1001, gid: 1000)) != nil)
        #expect(hub.clientCount == 2)
    }

    @Test func anOversizeLineIsFatalAndTheClientGoesOnceTheLineIsWritten() throws {
        var peer = try connect()
        _ = peer.lines()
        peer.send(String(repeating: "x", count: 65_536) + "\n")
        deliverRequests(peer)
        let lines = peer.lines()
        #expect(lines.last?.contains(#""code":"line-too-long""#) == true)
        #expect(lines.last?.contains(#""fatal":true"#) == true)
        #expect(peer.isClosedByHub())
        #expect(hub.clientCount == 0)
        #expect(watcher.watched.isEmpty)
    }

    @Test func aClientThatHalfClosesGetsItsAnswersThenTheConnectionCloses() throws {
        var peer = try connect()
        _ = peer.lines()
        peer.send(#"{"type":"ping","id":1}"# + "\n")
        deliverRequests(peer)
        shutdown(peer.fd, Int32(SHUT_WR))
        deliverRequests(peer)
        #expect(peer.lines() == [#"{"type":"pong","id":1}"#])
        #expect(peer.isClosedByHub())
    }

    /// When not even the final line fits (here the socket is filled past the room the hub keeps for it,
    /// by writing on the hub's end directly), the hub waits for the grace time (virtual), then closes
    /// the client: a client that never reads cannot hold its slot.
    @Test func aClientWithNoRoomEvenForTheLastLineIsClosedAfterTheGraceTime() throws {
        let peer = try connect(receiveBuffer: 4096)
        peer.send(#"{"type":"subscribe","streams":["gestures"]}"# + "\n")
        deliverRequests(peer)
        var size: Int32 = 8192
        setsockopt(peer.hubFD, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        let filler = [UInt8](repeating: 0x20, count: 1024)
        while filler.withUnsafeBytes({ send(peer.hubFD, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }) > 0 {}
        var closesAt: UInt64?
        for i in 0..<2000 where closesAt == nil {
            let time = Timestamp(microseconds: Int64(i) * 1000)
            hub.dispatch(
                [.gesture(GestureMessage(device: 1, event: .sessionBegan(session: UInt64(i), time: time)))],
                readAt: clock.now)
            closesAt = hub.nextCloseDeadline
        }
        let deadline = try #require(closesAt)
        #expect(deadline == clock.now + ClientConnections.closeGraceNanoseconds)
        // Closing: no more reading, and the loop reports when the last line can be written.
        #expect(watcher.watched[peer.hubFD]?.readable == false)
        #expect(watcher.watched[peer.hubFD]?.writable == true)
        clock.advance(seconds: 4.9)
        hub.closeExpiredClients()
        #expect(hub.clientCount == 1)
        clock.advance(seconds: 0.2)
        hub.closeExpiredClients()
        #expect(hub.clientCount == 0)
        #expect(host.changes == 2)
    }

    /// A subscriber that never reads a byte: the socket fills up to its send buffer minus the room kept
    /// for the last line, so when the hard limit is passed the `queue-overflow` line still goes into
    /// the socket at once, after whole lines, and the client is closed without waiting for the grace
    /// time. Reading afterwards, the client finds that line last, then EOF (before, it found 87,904
    /// bytes of messages and EOF, the reason lost).
    @Test func aClientThatNeverReadsStillFindsTheOverflowLineLast() throws {
        var peer = try connect(receiveBuffer: 4096)
        peer.send(#"{"type":"subscribe","streams":["gestures"]}"# + "\n")
        deliverRequests(peer)
        for i in 0..<2000 where hub.clientCount == 1 && hub.nextCloseDeadline == nil {
            let time = Timestamp(microseconds: Int64(i) * 1000)
            hub.dispatch(
                [.gesture(GestureMessage(device: 1, event: .sessionBegan(session: UInt64(i), time: time)))],
                readAt: clock.now)
        }
        // Written and closed at once: no grace deadline is left waiting.
        #expect(hub.clientCount == 0)
        #expect(hub.nextCloseDeadline == nil)
        let lines = peer.lines()
        #expect(lines.count > 2)
        #expect(lines.last?.hasPrefix(#"{"type":"error","code":"queue-overflow""#) == true)
        #expect(lines.allSatisfy { $0.hasPrefix(#"{"type":"#) && $0.hasSuffix("}") })
        #expect(peer.buffer.isEmpty)
        #expect(peer.isClosedByHub())
    }

    /// A client that reads, but too slowly: past the hard limit its last line is `queue-overflow`,
    /// after whole lines only, and it is closed once that line is written.
    @Test func aSlowClientGetsTheOverflowLineAsItsLastWholeLine() throws {
        var peer = try connect(receiveBuffer: 4096)
        peer.send(#"{"type":"subscribe","streams":["gestures"]}"# + "\n")
        deliverRequests(peer)
        var i = 0
        while hub.nextCloseDeadline == nil && i < 2000 {
            let time = Timestamp(microseconds: Int64(i) * 1000)
            hub.dispatch(
                [.gesture(GestureMessage(device: 1, event: .sessionBegan(session: UInt64(i), time: time)))],
                readAt: clock.now)
            i += 1
        }
        var lines: [String] = []
        for _ in 0..<100 where hub.clientCount > 0 {
            lines += peer.lines()
            hub.handle(client: peer.id, readable: false, writable: true, hangUp: false)
        }
        lines += peer.lines()
        #expect(hub.clientCount == 0)
        #expect(lines.last?.hasPrefix(#"{"type":"error","code":"queue-overflow""#) == true)
        #expect(lines.allSatisfy { $0.hasPrefix(#"{"type":"#) && $0.hasSuffix("}") })
        #expect(peer.isClosedByHub())
    }

    @Test func statsReportLatencyMeasuredOnTheHubsClock() throws {
        var peer = try connect()
        peer.send(#"{"type":"subscribe"}"# + "\n")
        deliverRequests(peer)
        let readAt = clock.now
        clock.advance(seconds: 0.000_012)  // 12 µs from the device read to the write
        hub.dispatch(
            [.gesture(GestureMessage(device: 1, event: .sessionBegan(session: 1, time: Timestamp(microseconds: 1))))],
            readAt: readAt)
        clock.advance(seconds: 2)
        _ = peer.lines()
        peer.send(#"{"type":"stats","id":"s"}"# + "\n")
        deliverRequests(peer)
        let line = try #require(peer.lines().first)
        guard case .stats(let stats) = try Message(decoding: Array(line.utf8)) else {
            Issue.record("not stats: \(line)")
            return
        }
        #expect(stats.id == "s")
        #expect(stats.uptime == 2.000012)
        #expect(stats.latency.count == 1)
        #expect(stats.latency.maximum == 12)
        #expect(stats.latency.buckets == [LatencyBucket(lessThan: 16, count: 1)])
        #expect(stats.devices == [DeviceStatistics(device: 1, name: Self.device.name, frames: 7, active: true)])
        #expect(stats.clients.map(\.delivered) == [1])
    }
}
