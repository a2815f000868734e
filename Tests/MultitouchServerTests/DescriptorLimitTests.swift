import Foundation
import MultitouchClient
import Testing

@testable import MultitouchServer

#if canImport(Glibc)
import Glibc
#endif

/// Running out of file descriptors neither spins the accept loop nor floods the log (issue 11: with
/// `max_clients` above the open-file limit, 5 s of CPU in 5 s and 690,000 log lines).
@Suite("multitouchd at the open-file limit", .serialized)
struct DescriptorLimitTests {
    static let config = "[socket]\ngroup = \"\"\n[clients]\nmax_clients = 64\n"

    /// Sets the open-file limit of a running process with util-linux's prlimit.
    func setDescriptorLimit(pid: Int32, to limit: Int) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/prlimit")
        process.arguments = ["--pid", "\(pid)", "--nofile=\(limit):\(limit)"]
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw HarnessError(description: "prlimit failed") }
    }

    func openDescriptors(pid: Int32) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? 0
    }

    /// The first line a new connection gets, or nil when the daemon closes it without one (or
    /// leaves it unanswered until `hangBackstopSeconds`: a 5 s bound counted slow answers on a busy
    /// machine as silent).
    func firstLine(_ daemon: DaemonProcess) throws -> (MultitouchClient, String?) {
        let client = try MultitouchClient(path: daemon.socketPath)
        try client.setReceiveTimeout(seconds: Double(hangBackstopSeconds))
        return (client, try? client.nextLine())
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/prlimit"), "needs util-linux prlimit"))
    func connectionsPastTheLimitAreRefusedWithoutSpinning() throws {
        let dir = TemporaryDirectory()
        let daemon = try DaemonProcess(directory: dir, arguments: ["--config", dir.write("mtd.toml", Self.config)])
        defer {
            daemon.signal(SIGTERM)
            _ = daemon.waitForExit()
        }
        let (first, hello) = try connectClient(daemon)
        #expect(messageType(hello) == "hello")
        // Room for about eight more clients, far below max_clients = 64.
        try setDescriptorLimit(pid: daemon.pid, to: openDescriptors(pid: daemon.pid) + 8)
        var served: [MultitouchClient] = []
        var refused = 0
        var silent = 0
        for _ in 0..<20 {
            let (client, line) = try firstLine(daemon)
            switch line.map(messageType) {
            case "hello"?: served.append(client)
            case "error"?:
                #expect(line?.contains("out of file descriptors") == true, "\(line ?? "")")
                refused += 1
                client.close()
            default:
                silent += 1
                client.close()
            }
        }
        #expect(
            silent == 0,
            "\(silent) connections got no answer: \(daemon.log.split(separator: "\n").filter { !$0.contains(" debug ") }.suffix(30).joined(separator: "\n"))"
        )
        #expect(refused > 0 && !served.isEmpty, "served \(served.count), refused \(refused)")
        // A departure makes room again.
        served.removeFirst().close()
        var again: String?
        for _ in 0..<50 where again.map(messageType) != "hello" {
            usleep(20_000)
            again = try firstLine(daemon).1
        }
        #expect(again.map(messageType) == "hello")
        try first.ping(id: 3)
        #expect(try first.nextLine() == #"{"type":"pong","id":3}"#)
        let log = daemon.log
        #expect(!log.contains("accept failed"), "\(log.suffix(2000))")
        let warnings = log.components(separatedBy: "socket: out of file descriptors").count - 1
        #expect(warnings == 1, "the warning is rate-limited to once a minute; logged \(warnings) times")
        #expect(log.split(separator: "\n").count < 200, "\(log.split(separator: "\n").count) log lines")
    }

    /// `max_clients` above what the open-file limit allows is lowered, and the daemon says so.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/prlimit"), "needs util-linux prlimit"))
    func maximumClientsIsClampedToTheDescriptorLimitOnReload() throws {
        let dir = TemporaryDirectory()
        let daemon = try DaemonProcess(directory: dir, arguments: ["--config", dir.write("mtd.toml", Self.config)])
        defer {
            daemon.signal(SIGTERM)
            _ = daemon.waitForExit()
        }
        try setDescriptorLimit(pid: daemon.pid, to: DescriptorReserve.keptForDaemon + 5)
        daemon.signal(SIGHUP)
        #expect(daemon.logEventuallyContains("config: reloaded"))
        #expect(daemon.log.contains("clients.max_clients is above what the open-file limit allows"))
        var lines: [String] = []
        var clients: [MultitouchClient] = []
        for _ in 0..<7 {
            let (client, line) = try firstLine(daemon)
            clients.append(client)
            lines.append(line ?? "(nothing)")
        }
        #expect(lines.prefix(5).allSatisfy { messageType($0) == "hello" }, "\(lines)")
        #expect(lines.suffix(2).allSatisfy { $0.contains("the daemon serves at most 5 clients") }, "\(lines)")
    }

    @Test func maximumClientsLeavesRoomForTheDaemon() {
        #expect(DescriptorReserve.maximumClients(configured: 64, descriptorLimit: 1024) == (64, false))
        #expect(DescriptorReserve.maximumClients(configured: 64, descriptorLimit: 100) == (36, true))
        #expect(DescriptorReserve.maximumClients(configured: 64, descriptorLimit: 10) == (1, true))
    }
}
