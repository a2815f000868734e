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
        try client.subscribe(streams: ["gestures", "devices"])
        try client.ping(id: 5)
        var sawHello = false
        var sawPong = false
        var added: DeviceSummary?
        var modes: Set<String> = []
        var sessionPhases: [String] = []
        for try await event in client.events {
            switch event {
            case .hello(let version, _, _):
                sawHello = version == 1
            case .pong(let id):
                sawPong = id == "5"
            case .deviceAdded(let device):
                added = device
            case .gesture(let gesture):
                modes.insert(gesture.mode)
                #expect(gesture.matrix.count == 6)
            case .session(let session):
                sessionPhases.append(session.phase)
            case .deviceRemoved:
                client.close()
            case .touches:
                Issue.record("touches arrived without being subscribed to")
            default:
                break
            }
        }
        #expect(sawHello)
        #expect(sawPong)
        #expect(added?.name == "multitouchd test touchscreen")
        #expect(added?.units == "millimeters")
        #expect(modes == ["pan", "pinchRotate"])
        #expect(sessionPhases == ["began", "ended"])
    }

    @Test func errorsDecodeWithTheirRequestID() throws {
        let dir = TemporaryDirectory()
        let daemon = try DaemonProcess(directory: dir, arguments: [])
        let client = try MultitouchClient(path: daemon.socketPath)
        try client.setReceiveTimeout(seconds: 60)
        _ = try client.nextEvent()
        try client.send(["type": "resetTransform", "device": 3, "id": "r1"])
        guard case .error(let error) = try client.nextEvent() else {
            Issue.record("expected an error")
            return
        }
        #expect(error.code == "unknown-device")
        #expect(error.fatal == false)
        #expect(error.id == #""r1""#)
    }
}
