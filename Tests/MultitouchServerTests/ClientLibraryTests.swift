import Foundation
import MultitouchClient
import MultitouchTestKit
import Recordings
import Testing

/// The Swift client library against the real daemon: typed events through the async sequence, and
/// requests.
@Suite("MultitouchClient")
struct ClientLibraryTests {
    /// A daemon replaying one short tap at (20, 5) once a client subscribes, and a client connected to it
    /// (the caller keeps `dir`, which holds the recording and the socket, alive).
    static func tapReplay(in dir: TemporaryDirectory) throws -> (DaemonProcess, MultitouchClient) {
        var script = TouchScripter(device: EvemuScript.device, start: Timestamp(seconds: 1, microseconds: 0))
        script.frame()
        script.advance(ms: 3000)
        script.down(finger: 0, x: 20, y: 5)
        script.frame()
        script.advance(ms: 40)
        script.up(finger: 0)
        script.frame()
        let recording = dir.write(
            "tap.evemu", EvemuWriter.write(description: EvemuScript.device, events: script.events))
        let daemon = try DaemonProcess(
            directory: dir, arguments: ["--replay", recording, "--speed", "2", "--wait-for-subscribers", "1"])
        let client = try MultitouchClient(path: daemon.socketPath)
        try client.setReceiveTimeout(seconds: Double(hangBackstopSeconds))
        return (daemon, client)
    }

    @Test func regionsAreDeclaredAndTheirMessagesArriveTyped() throws {
        let dir = TemporaryDirectory()
        let (daemon, client) = try Self.tapReplay(in: dir)
        defer {
            client.close()
            withExtendedLifetime(daemon) {}
        }
        guard case .hello(let hello)? = try client.nextMessage() else {
            Issue.record("no hello")
            return
        }
        #expect(hello.features.contains(ProtocolFeature.regions))
        // The waiting replay's device is in the hello: the region is in force before the first frame.
        let bar = Region(id: "bar", shape: .rectangle(RegionRect(x: 0, y: 0, width: 100, height: 15)))
        for device in hello.devices { try client.declareRegions(device: device.id, [bar], id: 1) }
        try client.subscribe()
        var regionsReply: RegionsMessage?
        var routed: [TouchesMessage] = []
        var taps: [String?] = []
        while let message = try client.nextMessage() {
            switch message {
            case .deviceAdded:
                Issue.record("the device of the hello announced again")
            case .regions(let reply):
                regionsReply = reply
            case .touches(let touches):
                routed.append(touches)
            case .gesture(let gesture):
                if case .tap = gesture.event { taps.append(gesture.region) }
            case .deviceRemoved:
                break
            case .hello, .dropped, .error, .pong, .subscribed, .unsubscribed, .stats, .transform, .recognized,
                .regionList:
                continue
            }
            if case .deviceRemoved = message { break }
        }
        #expect(regionsReply == RegionsMessage(id: 1, device: 1, regions: ["bar"]))
        #expect(routed.map { $0.routing?.region } == ["bar", "bar"])
        #expect(routed.flatMap { $0.touches.map(\.phase) } == [.began, .ended])
        #expect(taps == ["bar"])
    }

    /// A frame-aligned subscription holds the touches until a frame; one frame after the end delivers
    /// the tap's began and ended (in two messages with the frame's time) with its raw samples coalesced.
    /// The frame's time is the display's, CLOCK_MONOTONIC (issue 29 item 6): the daemon takes it onto
    /// the replay's clock, which runs on past the end of the pass.
    @Test func aFrameAlignedClientGetsItsTouchesPerFrame() throws {
        let dir = TemporaryDirectory()
        let (daemon, client) = try Self.tapReplay(in: dir)
        defer {
            client.close()
            withExtendedLifetime(daemon) {}
        }
        try client.subscribe(frameAligned: true)
        var early: [TouchesMessage] = []
        while let message = try client.nextMessage() {
            if case .deviceRemoved = message { break }
            if case .touches(let m) = message { early.append(m) }
        }
        #expect(early.isEmpty)
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        // The display frame 50 ms from now (a vsync callback's time is the upcoming frame's): its
        // sample time (5 ms earlier) is past the tap's end however soon after the end this runs, with
        // no race against the replay's wall-clock pacing.
        try client.frame(
            at: Timestamp(seconds: Int64(now.tv_sec), microseconds: Int64(now.tv_nsec / 1000) + 50_000))
        try client.ping(id: 1)
        var framed: [TouchesMessage] = []
        while let message = try client.nextMessage() {
            if case .pong = message { break }
            if case .touches(let m) = message { framed.append(m) }
        }
        #expect(framed.map { $0.touches.map(\.phase) } == [[.began], [.ended]])
        // On the recording's clock: past the tap's end (4.04 s) less the resampling latency, the same
        // time for both messages; not the monotonic time the client sent.
        #expect(framed.count == 2 && framed.first?.time == framed.last?.time)
        #expect(framed.allSatisfy { $0.time.microseconds >= 4_035_000 && $0.time.microseconds < 1_000_000_000 })
        #expect(framed.flatMap { $0.touches.flatMap { $0.coalesced ?? [] } }.count == 2)
    }

    @Test func typedEventsArriveThroughTheAsyncSequence() async throws {
        let dir = TemporaryDirectory()
        let recording = dir.write("pinch.evemu", EvemuScript.pinchThenPan(frames: 60))
        let daemon = try DaemonProcess(
            directory: dir, arguments: ["--replay", recording, "--speed", "20", "--wait-for-subscribers", "1"])
        let client = try MultitouchClient(path: daemon.socketPath)
        try client.setReceiveTimeout(seconds: Double(hangBackstopSeconds))
        try client.subscribe(streams: [.gestures, .devices])
        try client.ping(id: 5)
        var sawHello = false
        var sawPong = false
        var added: DeviceInfo?
        var modes: Set<GestureMode> = []
        var sessionPhases: [String] = []
        for try await message in client.messages {
            switch message {
            case .hello(let hello):
                sawHello = hello.protocolVersion == 2
                // A waiting replay's device is in the hello, not announced after it.
                added = hello.devices.first
            case .pong(let pong):
                sawPong = pong.id == 5
            case .deviceAdded:
                Issue.record("the device of the hello announced again")
            case .gesture(let gesture):
                switch gesture.event {
                case .update(let update): modes.insert(update.mode)
                case .sessionBegan: sessionPhases.append("began")
                case .sessionEnded(_, _, let cancelled): sessionPhases.append(cancelled ? "cancelled" : "ended")
                case .tap, .doubleTap, .longPress: break
                }
            case .deviceRemoved:
                client.close()
            case .touches:
                Issue.record("touches arrived without being subscribed to")
            case .dropped, .error, .subscribed, .unsubscribed, .stats, .transform, .regions, .recognized, .regionList:
                break
            }
        }
        #expect(sawHello)
        #expect(sawPong)
        #expect(added?.name == "multitouchd test touchscreen")
        #expect(added?.units == .millimeters)
        #expect(modes == [.pan, .pinchRotate])
        #expect(sessionPhases == ["began", "ended"])
    }

    @Test func errorsDecodeWithTheirRequestID() throws {
        let dir = TemporaryDirectory()
        let daemon = try DaemonProcess(directory: dir, arguments: [])
        let client = try MultitouchClient(path: daemon.socketPath)
        try client.setReceiveTimeout(seconds: Double(hangBackstopSeconds))
        _ = try client.nextMessage()
        try client.resetTransform(device: 3, id: "r1")
        guard case .error(let error) = try client.nextMessage() else {
            Issue.record("expected an error")
            return
        }
        #expect(error.code == .unknownDevice)
        #expect(error.fatal == false)
        #expect(error.id == "r1")
        #expect(error.id?.json == #""r1""#)
    }
}
