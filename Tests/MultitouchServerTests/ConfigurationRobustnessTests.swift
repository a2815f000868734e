import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// No configuration file can crash the daemon: `--check-config` answers 0 or 78 (EX_CONFIG) for every
/// file, and a reload with a broken file keeps the running configuration.
@Suite("multitouchd configuration robustness")
struct ConfigurationRobustnessTests {
    /// Files that made the previous TOML library (toml++ inside TOMLKit) abort with exit 134.
    static let abortedBefore = ["[+a]\n", "[socket]\n[\u{01}]\n", "[[+a]]\n", "[gestures.+x]\n"]

    func checkConfig(_ path: String) throws -> (status: Int32, reason: Process.TerminationReason, output: String) {
        try runDaemon(["--check-config", path])
    }

    func runDaemon(_ arguments: [String]) throws -> (status: Int32, reason: Process.TerminationReason, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try DaemonProcess.binaryPath)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, process.terminationReason, text)
    }

    @Test(arguments: abortedBefore)
    func checkConfigExitsWithEXConfigOnASyntaxError(text: String) throws {
        let dir = TemporaryDirectory()
        let result = try checkConfig(dir.write("bad.toml", text))
        #expect(result.reason == .exit)
        #expect(result.status == 78)
        #expect(result.output.contains("TOML syntax error: expected a key"))
    }

    /// Mutations of the shipped file, each checked by the real binary: valid or not, never a crash.
    @Test func checkConfigNeverCrashesOnMutatedFiles() throws {
        let dir = TemporaryDirectory()
        let shipped = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("config/multitouchd.toml")
        let base = Array(try String(contentsOf: shipped, encoding: .utf8).utf8)
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func random(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        let interesting = Array("[]{}.=\"'#+-\n\t ".utf8) + [0x01, 0x7F]
        var outcomes: [Int32: Int] = [:]
        for index in 0..<60 {
            var bytes = base
            for _ in 0..<(1 + random(3)) {
                let at = random(bytes.count)
                if random(2) == 0 {
                    bytes.insert(interesting[random(interesting.count)], at: at)
                } else {
                    bytes.remove(at: at)
                }
            }
            let path = dir.write("mutated-\(index).toml", String(decoding: bytes, as: UTF8.self))
            let result = try checkConfig(path)
            #expect(result.reason == .exit && (result.status == 0 || result.status == 78), "\(path): \(result.output)")
            outcomes[result.status, default: 0] += 1
        }
        #expect(outcomes[78, default: 0] > 0)
    }

    /// A socket group that does not exist with `require_group`: `--check-config` says so and exits 78,
    /// and a start with that file exits 78 too (EX_CONFIG, not 1), before it makes a socket.
    @Test func missingRequiredSocketGroupIsAConfigurationError() throws {
        let dir = TemporaryDirectory()
        let config = dir.write("g.toml", "[socket]\ngroup = \"no-such-group-mtd\"\nrequire_group = true\n")
        let check = try checkConfig(config)
        #expect(check.reason == .exit && check.status == 78, "\(check.output)")
        #expect(
            check.output.contains("g.toml:2: socket.group: socket group \"no-such-group-mtd\" does not exist"),
            "\(check.output)")
        let socket = dir.path + "/never.sock"
        let start = try runDaemon(["--config", config, "--socket", socket, "--no-devices"])
        #expect(start.reason == .exit && start.status == 78, "\(start.output)")
        #expect(start.output.contains("no-such-group-mtd"), "\(start.output)")
        #expect(access(socket, F_OK) != 0, "no socket was made")
    }

    /// A grant to a group that does not exist (a typo) passes, with a warning that names it, and the
    /// access section says who gets what.
    @Test func checkConfigWarnsOfAMisspeltGrantGroup() throws {
        let dir = TemporaryDirectory()
        let config = dir.write(
            "a.toml",
            """
            [socket]
            group = ""
            [access]
            default = ["regions"]
            default_z_band = [0, 99]
            [[access.grant]]
            group = "kiosk-shel"
            rights = ["observe", "regions", "transform"]
            z_band = [0, 1000]
            [[access.grant]]
            uid = 0
            rights = []

            """)
        let check = try checkConfig(config)
        #expect(check.reason == .exit && check.status == 0, "\(check.output)")
        #expect(
            check.output.contains(
                "warning: \(config):7: access.grant[1].group: group \"kiosk-shel\" does not exist"), "\(check.output)")
        #expect(
            check.output.contains(
                "grant[1]: group kiosk-shel (no such group): observe, regions, transform, regions at z 0...1000"),
            "\(check.output)")
        #expect(check.output.contains("grant[2]: uid 0 (root): no rights"), "\(check.output)")
        #expect(check.output.contains("everyone else: regions, regions at z 0...99"), "\(check.output)")
    }

    @Test func sighupWithAnUnparsableFileKeepsRunning() throws {
        let dir = TemporaryDirectory()
        let config = dir.write("mtd.toml", "[socket]\ngroup = \"\"\n[clients]\nsoft_queue_limit = 100\n")
        let daemon = try DaemonProcess(directory: dir, arguments: ["--config", config])
        _ = dir.write("mtd.toml", "[+a]\n")
        daemon.signal(SIGHUP)
        #expect(daemon.logEventuallyContains("config: reload failed; keeping the running configuration"))
        let (client, _) = try connectClient(daemon)
        try client.ping(id: 8)
        #expect(try client.nextLine() == #"{"type":"pong","id":8}"#)
        #expect(daemon.log.contains("TOML syntax error"))
    }

    /// Issue 19: a configuration path that is a FIFO once held the loop in open(2) until a writer came
    /// (SIGTERM ignored meanwhile); a 16 MiB file held it 3.7 s. Both are refused at once now and the
    /// daemon keeps serving.
    @Test(arguments: ["fifo", "large"])
    func sighupWithAFIFOOrAHugeFileNeverBlocksTheLoop(kind: String) throws {
        let dir = TemporaryDirectory()
        let config = dir.write("mtd.toml", "[socket]\ngroup = \"\"\n")
        let daemon = try DaemonProcess(directory: dir, arguments: ["--config", config])
        unlink(config)
        if kind == "fifo" {
            #expect(mkfifo(config, 0o600) == 0)
        } else {
            let line = "# padding padding padding padding padding padding padding padding padding\n"
            _ = dir.write(
                "mtd.toml",
                "[socket]\ngroup = \"\"\n" + String(repeating: line, count: 16 * 1024 * 1024 / line.utf8.count))
        }
        daemon.signal(SIGHUP)
        #expect(daemon.logEventuallyContains("config: reload failed; keeping the running configuration"))
        let (client, _) = try connectClient(daemon)
        try client.ping(id: 9)
        #expect(try client.nextLine() == #"{"type":"pong","id":9}"#)
        #expect(daemon.log.contains(kind == "fifo" ? "not a regular file" : "more than the 32 KiB"))
    }
}
