import Foundation
import MultitouchClient
import Testing

/// The Swift client library against the real daemon: typed events through the async sequence, and
/// requests.
@Suite("MultitouchClient")
struct ClientLibraryTests {
    @Test func typedEventsArriveThroughTheAsyncSequence() async throws {
        let dir = TemporaryDirectory()
        let recording = dir.write("pinch.evemu", EvemuScript.pinchThenPan(frames: 60))
        let daemon = try DaemonProcess(
            directory: dir, arguments: ["--replay", recording, "--speed", "20", "--wait-for-subscribers", "1"])
        let client = try MultitouchClient(path: daemon.socketPath)
        try client.setReceiveTimeout(seconds: 60)
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
                sawHello = hello.protocolVersion == 1
            case .pong(let pong):
                sawPong = pong.id == 5
            case .deviceAdded(let device):
                added = device
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
            case .dropped, .error, .subscribed, .unsubscribed, .stats, .transform, .regions:
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
        try client.setReceiveTimeout(seconds: 60)
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
