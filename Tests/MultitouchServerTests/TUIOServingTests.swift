import Foundation
import MultitouchClient
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The daemon with a `[tuio]` target on 127.0.0.1: one TUIO bundle per touch frame a socket client
/// receives, `fseq` counting from 1, through the hook in DeviceHost.emit.
@Suite("multitouchd sending TUIO", .serialized)
struct TUIOServingTests {
    /// A UDP socket on 127.0.0.1 and its port (closed by the caller).
    static func receiver() throws -> (Int32, UInt16) {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        var size: Int32 = 4 << 20
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { p -> Int32 in
                guard bind(fd, p, length) == 0 else { return -1 }
                return getsockname(fd, p, &length)
            }
        }
        try #require(fd >= 0 && bound == 0)
        return (fd, UInt16(bigEndian: address.sin_port))
    }

    /// The `fseq` of every bundle waiting in `fd`, checking each is a bundle.
    static func bundleFrames(_ fd: Int32) -> [Int32] {
        var fseqs: [Int32] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            guard n > 0 else { break }
            #expect(buffer.prefix(8).elementsEqual(Array("#bundle".utf8) + [0]))
            // A bundle ends with its fseq message, whose last argument is the frame number.
            fseqs.append(buffer[n - 4..<n].reduce(Int32(0)) { $0 << 8 | Int32($1) })
        }
        return fseqs
    }

    @Test func oneBundlePerTouchFrame() throws {
        let dir = TemporaryDirectory()
        let (fd, port) = try Self.receiver()
        defer { close(fd) }
        let config = dir.write("tuio.toml", "[tuio]\ntargets = [\"127.0.0.1:\(port)\"]\n")
        let recording = dir.write("pinch.evemu", EvemuScript.pinchThenPan(frames: 60))
        let daemon = try DaemonProcess(
            directory: dir,
            arguments: ["--config", config, "--replay", recording, "--speed", "20", "--wait-for-subscribers", "1"])
        let (client, _) = try connectClient(daemon)
        try client.subscribe()
        var frames = 0
        while let line = try client.nextLine() {
            if messageType(line) == "touches" { frames += 1 }
            if messageType(line) == "deviceRemoved" { break }
        }
        // The daemon sends TUIO after the clients' fan-out of the same batch: one round trip later every
        // datagram is in the receiver's buffer (loopback delivers inside sendto).
        try client.ping(id: 1)
        while let line = try client.nextLine(), messageType(line) != "pong" {}
        let fseqs = Self.bundleFrames(fd)
        #expect(frames > 50)
        #expect(fseqs == Array(1...Int32(frames)))
        daemon.signal(SIGTERM)
        _ = daemon.waitForExit()
    }

    /// The TUIO output is the whole-device stream as clients get it: a touch of an `exclusive` region
    /// (a PIN pad) is not sent.
    @Test func anExclusiveRegionsTouchesAreNotSent() throws {
        let dir = TemporaryDirectory()
        let (fd, port) = try Self.receiver()
        defer { close(fd) }
        let config = dir.write("tuio.toml", "[tuio]\ntargets = [\"127.0.0.1:\(port)\"]\n")
        let recording = dir.write("pin.evemu", RegionRoutingTests.padTapThenOutsideTap())
        let daemon = try DaemonProcess(
            directory: dir,
            arguments: ["--config", config, "--replay", recording, "--speed", "1", "--wait-for-subscribers", "2"])
        let pad = try RoutedClient(daemon, regions: [#"{"id":"pin","rect":[0,0,50,50],"z":1,"exclusive":true}"#])
        let plain = try RoutedClient(daemon, regions: [])
        for client in [pad, plain] { try client.start() }
        _ = pad.wait()
        let frames = plain.wait().filter { messageType($0) == "touches" }.count
        // One round trip after the end, every datagram is in the receiver's buffer (as above).
        let (client, _) = try connectClient(daemon)
        try client.ping(id: 1)
        while let line = try client.nextLine(), messageType(line) != "pong" {}
        #expect(frames == 2, "the outside tap's began and ended frames")
        #expect(Self.bundleFrames(fd) == Array(1...Int32(frames)))
        daemon.signal(SIGTERM)
        _ = daemon.waitForExit()
    }
}
