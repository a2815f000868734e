import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Issue 28 item 8: `[tuio] targets` host names were resolved with getaddrinfo on the event loop, so a
/// reload with DNS not answering held every client: a bystander's ping took 10,005 ms (the unit's
/// watchdog is 10 s). The daemon runs in a mount namespace of its own whose resolv.conf names a DNS
/// server the test plays and never answers; the handshake is explicit: the test waits until the
/// server has received the daemon's query (resolution under way), then pings. Needs root (unshare,
/// mount, port 53); skipped otherwise, and then not counted as passed.
@Suite("multitouchd resolving TUIO names off the loop", .serialized)
struct ResolverTests {
    static let canRun = geteuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare")

    /// A UDP socket on `address`:53 that reads queries and never answers.
    static func silentDNS(_ address: String) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        var a = sockaddr_in()
        a.sin_family = sa_family_t(AF_INET)
        a.sin_port = UInt16(53).bigEndian
        a.sin_addr.s_addr = inet_addr(address)
        let bound = withUnsafePointer(to: &a) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        try #require(fd >= 0 && bound == 0, "cannot bind \(address):53")
        // A backstop for the handshake below, not a deadline: the query comes within milliseconds.
        var timeout = timeval(tv_sec: 60, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        return fd
    }

    /// A connected client socket with a receive backstop; returns the fd after reading the hello.
    static func connect(_ path: String) throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in path.utf8.enumerated() where i < raw.count - 1 { raw[i] = byte }
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        try #require(connected == 0)
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        _ = readLine(fd)
        return fd
    }

    /// One line from `fd`, nil when the receive backstop passed first.
    static func readLine(_ fd: Int32) -> String? {
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while recv(fd, &byte, 1, 0) == 1 {
            if byte == 0x0A { return String(decoding: line, as: UTF8.self) }
            line.append(byte)
        }
        return nil
    }

    @Test(.enabled(if: ResolverTests.canRun, "needs root and unshare(1)"))
    func aReloadWithDNSNotAnsweringBlocksNoClient() throws {
        let dir = TemporaryDirectory()
        let dns = try Self.silentDNS("127.0.0.77")
        defer { close(dns) }
        let resolv = dir.write("resolv.conf", "nameserver 127.0.0.77\noptions timeout:30 attempts:5\n")
        let config = dir.write("mtd.toml", "[socket]\ngroup = \"\"\n")
        let socketPath = dir.file("mtd.sock")
        let log = dir.file("daemon.log")
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let daemon = Process()
        daemon.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        daemon.arguments = [
            "--mount", "--propagation", "private", "/bin/sh", "-c",
            "mount --bind \"$0\" /etc/resolv.conf && exec \"$@\"", resolv, try DaemonProcess.binaryPath,
            "--socket", socketPath, "--no-devices", "--config", config, "--log-level", "debug",
        ]
        daemon.standardError = FileHandle(forWritingAtPath: log)
        try daemon.run()
        defer {
            kill(daemon.processIdentifier, SIGKILL)
            daemon.waitUntilExit()
        }
        var client: Int32 = -1
        for _ in 0..<(hangBackstopSeconds * 100) where client < 0 {
            if FileManager.default.fileExists(atPath: socketPath) { client = (try? Self.connect(socketPath)) ?? -1 }
            if client < 0 { usleep(10_000) }
        }
        try #require(client >= 0, "the daemon did not listen")
        defer { close(client) }
        // The reload names a host: the daemon asks the silent server.
        _ = dir.write("mtd.toml", "[socket]\ngroup = \"\"\n[tuio]\ntargets = [\"tuio-render.invalid:3333\"]\n")
        kill(daemon.processIdentifier, SIGHUP)
        var query = [UInt8](repeating: 0, count: 512)
        let asked = recv(dns, &query, query.count, 0)
        try #require(asked > 0, "the daemon never asked the DNS server")
        // Resolution is under way and will not end for minutes: the loop must still answer.
        let ping = Array(#"{"type":"ping","id":"during-dns"}"#.utf8) + [0x0A]
        #expect(send(client, ping, ping.count, 0) == ping.count)
        let answer = Self.readLine(client)
        #expect(answer == #"{"type":"pong","id":"during-dns"}"#, "no pong while DNS was asked: \(answer ?? "none")")
    }
}
