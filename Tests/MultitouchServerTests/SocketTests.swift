import Foundation
import MultitouchClient
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The daemon's socket: setup, refusals, request handling. Every test runs the real `multitouchd`.
@Suite("multitouchd socket")
struct SocketTests {
    @Test func helloThenPingIsAnsweredWithTheSameID() throws {
        let dir = TemporaryDirectory()
        let daemon = try DaemonProcess(directory: dir, arguments: [])
        let (client, hello) = try connectClient(daemon)
        let object = jsonObject(hello)
        #expect(object["type"] as? String == "hello")
        #expect(object["protocol"] as? Int == 2)
        #expect((object["daemon"] as? String)?.hasPrefix("multitouchd ") == true)
        #expect((object["devices"] as? [Any])?.isEmpty == true)
        try client.sendLine(Array(#"{"type":"ping","id":7}"#.utf8))
        #expect(try client.nextLine() == #"{"type":"pong","id":7}"#)
        try client.sendLine(Array(#"{"type":"ping","id":"abc"}"#.utf8))
        #expect(try client.nextLine() == #"{"type":"pong","id":"abc"}"#)
        #expect(daemon.log.contains("client: connected"))
        #expect(daemon.log.contains("client.pid=\(getpid())"))
    }

    @Test func socketHasTheConfiguredMode() throws {
        let dir = TemporaryDirectory()
        let daemon = try DaemonProcess(directory: dir, arguments: [])
        var info = stat()
        #expect(stat(daemon.socketPath, &info) == 0)
        #expect(info.st_mode & S_IFMT == S_IFSOCK)
        #expect(info.st_mode & 0o777 == 0o660)
    }

    /// Bad input never closes the connection, except an oversize line; each gets an error naming why.
    @Test(arguments: [
        ("garbage", "invalid-json"),
        ("[1,2,3]", "invalid-json"),
        (#"{"type":"subscribe""#, "invalid-json"),
        (#"{"no":"type"}"#, "unknown-type"),
        (#"{"type":"fly"}"#, "unknown-type"),
        (#"{"type":"subscribe","streams":["touches","smells"]}"#, "bad-field"),
        (#"{"type":"setTransform","device":1,"matrix":[1,2]}"#, "bad-field"),
        (#"{"type":"resetTransform","device":"one"}"#, "bad-field"),
        (#"{"type":"ping","extra":1}"#, "bad-field"),
        (#"{"type":"resetTransform","device":42}"#, "unknown-device"),
        // Region declarations are validated, and a bad one is bad-field; a valid one on a device that
        // is not there (this daemon serves none) is unknown-device.
        (#"{"type":"declareRegions","device":1,"regions":[{"id":"m","rect":[0,0,0,1]}]}"#, "bad-field"),
        (#"{"type":"updateRegions","device":1,"remove":"m"}"#, "bad-field"),
        (#"{"type":"declareRegions","device":1,"regions":[{"id":"m","rect":[0,0,10,10]}]}"#, "unknown-device"),
    ])
    func badRequestIsAnsweredAndTheConnectionKept(request: String, code: String) throws {
        let dir = TemporaryDirectory()
        let daemon = try DaemonProcess(directory: dir, arguments: [])
        let (client, _) = try connectClient(daemon)
        try client.sendLine(Array(request.utf8))
        let reply = jsonObject(try client.nextLine() ?? "")
        #expect(reply["type"] as? String == "error")
        #expect(reply["code"] as? String == code)
        #expect(reply["fatal"] as? Bool == false)
        #expect(!((reply["message"] as? String) ?? "").isEmpty)
        try client.ping(id: 1)
        #expect(try client.nextLine() == #"{"type":"pong","id":1}"#)
    }

    @Test func invalidUTF8IsAnsweredAndTheConnectionKept() throws {
        let dir = TemporaryDirectory()
        let daemon = try DaemonProcess(directory: dir, arguments: [])
        let (client, _) = try connectClient(daemon)
        try client.sendLine([0x7B, 0xFF, 0xFE, 0x7D])
        let reply = jsonObject(try client.nextLine() ?? "")
        #expect(reply["code"] as? String == "invalid-utf8")
        try client.ping(id: 2)
        #expect(try client.nextLine() == #"{"type":"pong","id":2}"#)
    }

    @Test func deeplyNestedJSONIsRefusedWithoutCrashing() throws {
        let dir = TemporaryDirectory()
        let daemon = try DaemonProcess(directory: dir, arguments: [])
        let (client, _) = try connectClient(daemon)
        try client.sendLine(Array(String(repeating: "[", count: 60_000).utf8))
        #expect(jsonObject(try client.nextLine() ?? "")["code"] as? String == "invalid-json")
        try client.ping(id: 3)
        #expect(try client.nextLine() == #"{"type":"pong","id":3}"#)
    }

    @Test func oversizeLineIsAnsweredAndTheConnectionClosed() throws {
        let dir = TemporaryDirectory()
        let daemon = try DaemonProcess(directory: dir, arguments: [])
        let (client, _) = try connectClient(daemon)
        // No newline needed: the daemon gives up once the partial line passes the limit.
        try? client.sendLine([UInt8](repeating: UInt8(ascii: "x"), count: 70_000))
        let reply = jsonObject(try client.nextLine() ?? "")
        #expect(reply["code"] as? String == "line-too-long")
        #expect(reply["fatal"] as? Bool == true)
        #expect(try client.nextLine() == nil)
        // The daemon itself carries on.
        let (other, _) = try connectClient(daemon)
        try other.ping(id: 4)
        #expect(try other.nextLine() == #"{"type":"pong","id":4}"#)
    }

    @Test func staleSocketFileIsReplaced() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("mtd.sock")
        // A socket file nobody listens on: what a crashed daemon leaves behind.
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8) + [0]) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        #expect(bound == 0)
        close(fd)
        #expect(FileManager.default.fileExists(atPath: path))
        let daemon = try DaemonProcess(directory: dir, arguments: [])
        let (client, hello) = try connectClient(daemon)
        #expect(messageType(hello) == "hello")
        client.close()
        #expect(daemon.log.contains("replacing stale socket file"))
    }

    @Test func nonSocketFileIsRefusedAndLeftAlone() throws {
        let dir = TemporaryDirectory()
        let path = dir.write("mtd.sock", "precious user data\n")
        let daemon = try DaemonProcess(directory: dir, arguments: [], waitForSocket: false)
        let status = daemon.waitForExit()
        #expect(status != 0)
        #expect(daemon.log.contains("is not a socket"))
        #expect((try? String(contentsOfFile: path, encoding: .utf8)) == "precious user data\n")
    }

    @Test func liveSocketOfAnotherDaemonIsRefused() throws {
        let dir = TemporaryDirectory()
        let first = try DaemonProcess(directory: dir, arguments: [])
        let second = try DaemonProcess(directory: dir, arguments: [], waitForSocket: false)
        #expect(second.waitForExit() != 0)
        #expect(second.log.contains("another daemon is listening"))
        let (client, hello) = try connectClient(first)
        #expect(messageType(hello) == "hello")
        client.close()
    }

    @Test func sigtermExitsCleanlyAndRemovesTheSocket() throws {
        let dir = TemporaryDirectory()
        let daemon = try DaemonProcess(directory: dir, arguments: [])
        let (client, _) = try connectClient(daemon)
        daemon.signal(SIGTERM)
        #expect(try client.nextLine() == nil)
        #expect(daemon.waitForExit() == 0)
        #expect(!FileManager.default.fileExists(atPath: daemon.socketPath))
    }

    @Test func sighupWithoutConfigurationFileKeepsRunning() throws {
        let dir = TemporaryDirectory()
        let daemon = try DaemonProcess(directory: dir, arguments: [])
        daemon.signal(SIGHUP)
        let (client, _) = try connectClient(daemon)
        try client.ping(id: 5)
        #expect(try client.nextLine() == #"{"type":"pong","id":5}"#)
        #expect(daemon.logEventuallyContains("SIGHUP"))
    }

    @Test func sighupWithABrokenFileKeepsTheRunningConfiguration() throws {
        let dir = TemporaryDirectory()
        let config = dir.write("mtd.toml", "[socket]\ngroup = \"\"\n[clients]\nsoft_queue_limit = 100\n")
        let daemon = try DaemonProcess(directory: dir, arguments: ["--config", config])
        _ = dir.write("mtd.toml", "[clients]\nsoft_queue_limit = \"lots\"\n")
        daemon.signal(SIGHUP)
        let (client, _) = try connectClient(daemon)
        try client.ping(id: 6)
        #expect(try client.nextLine() == #"{"type":"pong","id":6}"#)
        #expect(daemon.logEventuallyContains("config: reload failed; keeping the running configuration"))
        _ = dir.write("mtd.toml", "[socket]\ngroup = \"\"\n[clients]\nsoft_queue_limit = 50\n")
        daemon.signal(SIGHUP)
        try client.ping(id: 7)
        #expect(try client.nextLine() == #"{"type":"pong","id":7}"#)
        #expect(daemon.logEventuallyContains("clients.soft_queue_limit=50"))
    }

    @Test func checkConfigReportsProblemsAndExitsNonZero() throws {
        let dir = TemporaryDirectory()
        let bad = dir.write("bad.toml", "[clients]\nsoft_queue_limit = -3\n")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try DaemonProcess.binaryPath)
        process.arguments = ["--check-config", "--config", bad]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 78)
        #expect(text.contains("soft_queue_limit"))
    }

    @Test func statsReportsClients() throws {
        let dir = TemporaryDirectory()
        let daemon = try DaemonProcess(directory: dir, arguments: [])
        let (client, _) = try connectClient(daemon)
        let (other, _) = try connectClient(daemon)
        try client.requestStats(id: 9)
        let stats = jsonObject(try client.nextLine() ?? "")
        #expect(stats["type"] as? String == "stats")
        #expect(stats["id"] as? Int == 9)
        #expect((stats["clients"] as? [[String: Any]])?.count == 2)
        let latency = stats["latency"] as? [String: Any]
        #expect(latency?["unit"] as? String == "us")
        other.close()
    }
}
