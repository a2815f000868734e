import Foundation
import MultitouchClient
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A scratch directory under /tmp (socket paths must stay under 108 bytes), removed on deinit.
final class TemporaryDirectory {
    let path: String

    init() {
        var template = Array("/tmp/mtd-test-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        path = made.map { String(cString: $0) } ?? "/tmp/mtd-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        if made == nil { mkdir(path, 0o700) }
    }

    func file(_ name: String) -> String { path + "/" + name }

    func write(_ name: String, _ text: String) -> String {
        let p = file(name)
        _ = FileManager.default.createFile(atPath: p, contents: Data(text.utf8))
        return p
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// Errors of the test harness itself.
struct HarnessError: Error, CustomStringConvertible {
    var description: String
}

/// The real `multitouchd` binary, started as a child process.
final class DaemonProcess {
    let process = Process()
    let socketPath: String
    let logPath: String

    /// `multitouchd` next to the test bundle (swift build puts every product in one directory).
    static var binaryPath: String {
        get throws {
            var candidates: [String] = []
            let argv0 = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            candidates.append(argv0.deletingLastPathComponent().appendingPathComponent("multitouchd").path)
            candidates.append(
                argv0.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("multitouchd").path
            )
            for bundle in Bundle.allBundles {
                candidates.append(
                    bundle.bundleURL.deletingLastPathComponent().appendingPathComponent("multitouchd").path)
            }
            if let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) {
                return found
            }
            throw HarnessError(
                description: "multitouchd binary not found (looked in \(candidates)); run `swift build` first")
        }
    }

    /// Starts the daemon with `arguments` (after `--socket`) and waits until its socket accepts.
    init(
        directory: TemporaryDirectory, socketName: String = "mtd.sock", arguments: [String], waitForSocket: Bool = true,
        environment: [String: String] = [:]
    ) throws {
        socketPath = directory.file(socketName)
        logPath = directory.file("daemon-\(UInt32.random(in: 0...UInt32.max)).log")
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        process.executableURL = URL(fileURLWithPath: try DaemonProcess.binaryPath)
        process.arguments = ["--socket", socketPath, "--no-devices", "--log-level", "debug"] + arguments
        process.standardError = FileHandle(forWritingAtPath: logPath)
        process.standardOutput = FileHandle.nullDevice
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        try process.run()
        if waitForSocket { try waitUntilListening() }
    }

    /// Waits until the socket accepts or the daemon exits (the explicit signals); the count only
    /// bounds a hang (`hangBackstopSeconds`), it is no deadline a slow start could miss.
    func waitUntilListening() throws {
        for _ in 0..<(hangBackstopSeconds * 100) {
            if let client = try? MultitouchClient(path: socketPath) {
                client.close()
                return
            }
            if !process.isRunning { throw HarnessError(description: "multitouchd exited early:\n\(log)") }
            usleep(10_000)
        }
        throw HarnessError(description: "multitouchd did not listen on \(socketPath):\n\(log)")
    }

    var pid: Int32 { process.processIdentifier }

    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// True once the log contains `text` (signals are handled asynchronously); false when the
    /// daemon exited without writing it, or after `hangBackstopSeconds`.
    func logEventuallyContains(_ text: String) -> Bool {
        for _ in 0..<(hangBackstopSeconds * 100) {
            if log.contains(text) { return true }
            if !process.isRunning { return log.contains(text) }
            usleep(10_000)
        }
        return false
    }

    func signal(_ signal: Int32) { kill(process.processIdentifier, signal) }

    /// Waits for exit and returns the status.
    func waitForExit() -> Int32 {
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Resident memory in KiB (VmRSS from /proc/PID/status).
    var residentKiB: Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        }
        return nil
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}

/// Reads every line of a connection on its own thread until the daemon closes it or `stopWhen` says so.
final class LineCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var collected: [String] = []
    private let done = DispatchSemaphore(value: 0)
    let client: MultitouchClient

    init(client: MultitouchClient, stopWhen: @escaping @Sendable ([String]) -> Bool) {
        self.client = client
        let thread = Thread { [self] in
            while let line = try? client.nextLine() {
                lock.lock()
                collected.append(line)
                let stop = stopWhen(collected)
                lock.unlock()
                if stop { break }
            }
            done.signal()
        }
        thread.start()
    }

    /// Waits for the end of the connection or `stopWhen` (at most `seconds`, which only bounds a
    /// broken daemon's hang) and returns the lines.
    func wait(seconds: Double = Double(hangBackstopSeconds)) -> [String] {
        _ = done.wait(timeout: .now() + seconds)
        lock.lock()
        defer { lock.unlock() }
        return collected
    }
}

/// Connects and returns the client after reading the hello.
func connectClient(_ daemon: DaemonProcess) throws -> (MultitouchClient, String) {
    let client = try MultitouchClient(path: daemon.socketPath)
    // A broken daemon fails the test instead of hanging the whole run.
    try client.setReceiveTimeout(seconds: Double(hangBackstopSeconds))
    guard let hello = try client.nextLine() else { throw HarnessError(description: "no hello") }
    return (client, hello)
}

/// The "type" of a JSON line.
func messageType(_ line: String) -> String {
    guard let data = line.data(using: .utf8),
        let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
        let type = object["type"] as? String
    else { return "?" }
    return type
}

/// A replay's lines as a client of a `--wait-for-subscribers` daemon receives them: the announcement's
/// `deviceAdded` lines are not sent (the devices are in the client's hello, as live devices present at
/// connect are).
func withoutAnnouncement(_ lines: [String]) -> [String] {
    Array(lines.drop { messageType($0) == "deviceAdded" })
}

/// The devices a hello lists, as JSON `deviceAdded` lines would carry them.
func helloDevices(_ hello: String) -> [[String: Any]] {
    jsonObject(hello)["devices"] as? [[String: Any]] ?? []
}

func jsonObject(_ line: String) -> [String: Any] {
    guard let data = line.data(using: .utf8),
        let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
    else { return [:] }
    return object
}

/// How long a test waits for a daemon's answer, exit or log line before calling it hung. Every wait
/// ends on an explicit signal (a line, the end of the connection, the process's exit); this only
/// turns a hang into a failure. It is far beyond what load or a sanitizer makes a working daemon
/// take (a 60 s bound failed under AddressSanitizer on a busy machine), so it is no race.
let hangBackstopSeconds = 600
