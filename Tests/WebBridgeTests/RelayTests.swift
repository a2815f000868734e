import NIOCore
import NIOWebSocket
import Testing

@testable import WebBridge

/// The bridge relaying between browsers (NIO WebSocket clients) and a fake daemon socket.
@Suite("bridge relay", .timeLimit(.minutes(1)))
struct RelayTests {
    @Test func relaysLinesBothWaysOnAConnectionPerBrowser() async throws {
        let daemon = try await FakeDaemon()
        defer { daemon.stop() }
        let bridge = try await RunningBridge(socketPath: daemon.path)
        defer { bridge.stop() }
        var events = daemon.events.makeAsyncIterator()

        let first = try await TestBrowser.connect(to: bridge, origin: "http://127.0.0.1:\(bridge.port)")
        var firstFrames = FrameReader(first)
        #expect(await events.next() == .connected(1))
        #expect(try await firstFrames.next() == .text(#"{"type":"hello","protocol":1}"#))

        // Browser -> daemon: the text as one line, untouched.
        try await first.send(#"{"type":"ping","id":"a b"}"#)
        #expect(await events.next() == .line(1, #"{"type":"ping","id":"a b"}"#))
        // Daemon -> browser: the line as one message, without its newline; multibyte text intact.
        try await daemon.send(#"{"type":"pong","id":"a b","note":"µs→ok"}"#, to: 1)
        #expect(try await firstFrames.next() == .text(#"{"type":"pong","id":"a b","note":"µs→ok"}"#))

        // A second browser gets its own daemon connection: its requests arrive on connection 2 only.
        let second = try await TestBrowser.connect(to: bridge)
        var secondFrames = FrameReader(second)
        #expect(await events.next() == .connected(2))
        #expect(try await secondFrames.next() == .text(#"{"type":"hello","protocol":1}"#))
        try await second.send(#"{"type":"subscribe","streams":["gestures"]}"#)
        #expect(await events.next() == .line(2, #"{"type":"subscribe","streams":["gestures"]}"#))
        try await daemon.send(#"{"type":"subscribed"}"#, to: 2)
        #expect(try await secondFrames.next() == .text(#"{"type":"subscribed"}"#))
        try await daemon.send(#"{"type":"only-for-first"}"#, to: 1)
        #expect(try await firstFrames.next() == .text(#"{"type":"only-for-first"}"#))
    }

    @Test func aBrowserThatDisconnectsClosesOnlyItsDaemonConnection() async throws {
        let daemon = try await FakeDaemon()
        defer { daemon.stop() }
        let bridge = try await RunningBridge(socketPath: daemon.path)
        defer { bridge.stop() }
        var events = daemon.events.makeAsyncIterator()

        let leaving = try await TestBrowser.connect(to: bridge)
        #expect(await events.next() == .connected(1))
        let staying = try await TestBrowser.connect(to: bridge)
        var stayingFrames = FrameReader(staying)
        #expect(await events.next() == .connected(2))
        _ = try await stayingFrames.next()

        try await leaving.drop()  // no close frame: the TCP connection just goes
        #expect(await events.next() == .closed(1))

        // The other browser and the bridge carry on; a new browser is served too.
        try await staying.send(#"{"type":"ping"}"#)
        #expect(await events.next() == .line(2, #"{"type":"ping"}"#))
        let later = try await TestBrowser.connect(to: bridge)
        var laterFrames = FrameReader(later)
        #expect(await events.next() == .connected(3))
        #expect(try await laterFrames.next() == .text(#"{"type":"hello","protocol":1}"#))
    }

    @Test func theDaemonClosingEndsTheBrowserWithAReason() async throws {
        let daemon = try await FakeDaemon()
        defer { daemon.stop() }
        let bridge = try await RunningBridge(socketPath: daemon.path)
        defer { bridge.stop() }
        var events = daemon.events.makeAsyncIterator()
        let browser = try await TestBrowser.connect(to: bridge)
        var frames = FrameReader(browser)
        #expect(await events.next() == .connected(1))
        _ = try await frames.next()
        // A fatal error is the daemon's last line; the browser gets it, then the close.
        try await daemon.send(#"{"type":"error","code":"queue-overflow","fatal":true}"#, to: 1)
        await daemon.disconnect(1)
        #expect(try await frames.next() == .text(#"{"type":"error","code":"queue-overflow","fatal":true}"#))
        #expect(try await frames.next() == .close(1001, "the daemon closed the connection"))
    }

    @Test func anUnreachableDaemonIsNamedInTheCloseReason() async throws {
        let path = FakeDaemon.makeDirectory() + "/missing.sock"
        let bridge = try await RunningBridge(socketPath: path)
        defer { bridge.stop() }
        let browser = try await TestBrowser.connect(to: bridge)
        var frames = FrameReader(browser)
        let received = try await frames.next()
        // (NIO's test client sometimes loses a close frame that arrives with the 101 response.)
        if case .close(let code, let reason) = received {
            #expect(code == 1011)
            #expect(reason.contains("cannot connect to the daemon at \(path)"))
            #expect(reason.utf8.count <= 123)
        } else {
            #expect(received == .ended, "expected a close, got \(received)")
        }
        #expect(DaemonRelay.End.daemonUnreachable(path).description.contains(path))
    }

    @Test func aBinaryMessageClosesWithUnsupportedData() async throws {
        let daemon = try await FakeDaemon()
        defer { daemon.stop() }
        let bridge = try await RunningBridge(socketPath: daemon.path)
        defer { bridge.stop() }
        var events = daemon.events.makeAsyncIterator()
        let browser = try await TestBrowser.connect(to: bridge)
        var frames = FrameReader(browser)
        #expect(await events.next() == .connected(1))
        _ = try await frames.next()
        try await browser.sendBinary([0x7B, 0x7D])
        guard case .close(let code, let reason) = try await frames.next() else {
            Issue.record("expected a close frame")
            return
        }
        #expect(code == 1003)
        #expect(reason.contains("send JSON as text"))
        #expect(await events.next() == .closed(1))  // nothing was forwarded, and the daemon side closed
    }

    @Test func aForeignOriginOrHostIsRefusedBeforeAnyDaemonConnection() async throws {
        let daemon = try await FakeDaemon()
        defer { daemon.stop() }
        let bridge = try await RunningBridge(socketPath: daemon.path)
        defer { bridge.stop() }
        // A page on another site, and a rebinding attack (a foreign Host): each WebSocket is closed
        // with policy violation (1008) and the reason. NIO's test client sometimes loses a close frame
        // that arrives together with the 101 response, so a bare end also counts as closed here; what
        // must never happen is a daemon connection (checked below) or a relayed message.
        for (origin, host, hint) in [
            ("https://evil.example", nil, "--allow-origin https://evil.example"),
            (nil, "evil.example:\(bridge.port)", "not loopback"),
        ] {
            let refused = try await TestBrowser.connect(to: bridge, origin: origin, host: host)
            var frames = FrameReader(refused)
            switch try await frames.next() {
            case .close(let code, let reason):
                #expect(code == 1008)
                #expect(reason.contains(hint), "\(reason)")
            case .ended:
                break
            case .text(let text):
                Issue.record("a refused WebSocket received \(text)")
            }
        }
        // A page request with the same foreign origin is answered in words, not upgraded.
        let response = try await rawHTTP(
            port: bridge.port,
            "GET /ws?token=\(bridge.token) HTTP/1.1\r\nHost: 127.0.0.1:\(bridge.port)\r\nOrigin: https://evil.example\r\n\r\n"
        )
        #expect(response.hasPrefix("HTTP/1.1 403 Forbidden"))
        // The allowed path still works, and it is the first daemon connection: the refusals made none.
        var events = daemon.events.makeAsyncIterator()
        _ = try await TestBrowser.connect(to: bridge)
        #expect(await events.next() == .connected(1))
    }
}
