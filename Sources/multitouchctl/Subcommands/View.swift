import ArgumentParser
import Dispatch
import FoundationEssentials
import MultitouchClient
import SystemCalls
import WebBridge

#if canImport(Glibc)
import Glibc
#endif

/// `multitouchctl view`: the live view page, fed over the WebSocket bridge (the same one `bridge`
/// runs), from the daemon or from a recording replayed by a private daemon.
struct View: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "view",
        abstract: "Serve a live view of touches, the transform and latency to a browser.",
        discussion: """
            Open the printed URL (http://HOST:PORT/view.html?token=...): touches with ids and trails, a grid transformed \
            by the published matrix, finger count, segment mode, velocities and the daemon's latency \
            histogram. With --replay the view starts `multitouchd --replay FILE` on a private socket in a fresh \
            /tmp directory (no device needed; the replay starts when the page connects); that daemon stops and \
            the directory goes when the view ends, even by SIGKILL. Otherwise it connects to --socket. The page is \
            served by the same bridge as `multitouchctl bridge`, with the same loopback and origin rules.
            """)

    @OptionGroup var listenOptions: BridgeListenOptions

    @Option(
        name: .long, help: "The daemon's socket (default: \(MultitouchClient.defaultSocketPath); not with --replay).")
    var socket: String?

    @Option(name: .long, help: "Play this recording (evemu or libinput record) through a private multitouchd.")
    var replay: String?

    /// `--desc` (with --replay), passed on to the private daemon, which reads the recording.
    @OptionGroup var recordingOptions: RecordingOptions

    @Flag(name: .long, help: "Start the recording over when it ends (with --replay).")
    var loop = false

    @Option(name: .long, help: "Replay speed factor (with --replay; 2 plays twice as fast).")
    var speed: Double = 1

    func validate() throws {
        if replay != nil && socket != nil { throw ValidationError("--socket and --replay exclude each other") }
        if replay == nil && (recordingOptions.desc != nil || loop || speed != 1) {
            throw ValidationError("--desc, --loop and --speed go with --replay")
        }
        guard speed.isFinite, speed > 0 else { throw ValidationError("--speed must be a positive number") }
    }

    func run() async throws {
        var daemon: ReplayDaemon?
        if let replay {
            do {
                daemon = try ReplayDaemon.start(
                    recording: replay, desc: recordingOptions.desc, loop: loop, speed: speed)
            } catch {
                printError("multitouchctl view: \(error)")
                throw ExitCode.failure
            }
        }
        let socketPath = daemon?.socketPath ?? socket ?? MultitouchClient.defaultSocketPath
        let bridge: WebBridge
        do {
            bridge = try await listenOptions.bind(socketPath: socketPath, command: "view")
        } catch {
            daemon?.stop()
            throw error
        }
        let privateDaemon = daemon
        let signals = TerminationHandler { privateDaemon?.stop() }
        printNow(
            "multitouchctl view: open http://\(bridge.address)/view.html?token=\(bridge.configuration.token.value)")
        if let replay {
            printNow(
                "  replaying \(replay) through a private multitouchd (\(socketPath)); it starts when the page connects")
        } else {
            printNow("  showing the daemon at \(socketPath)")
        }
        try await bridge.run()
        withExtendedLifetime(signals) {}
        daemon?.stop()
    }
}

/// `multitouchd --replay FILE` on a private socket in a fresh /tmp directory, for `view --replay`.
final class ReplayDaemon: @unchecked Sendable {
    // @unchecked: `process` is only touched from `stop`, which the lock serialises.
    private let process: ChildProcess
    private let directory: String
    private let lock = Lock()
    private var stopped = false
    /// The socket it listens on.
    let socketPath: String

    private init(process: ChildProcess, directory: String, socketPath: String) {
        self.process = process
        self.directory = directory
        self.socketPath = socketPath
    }

    /// Errors starting it, in words.
    struct StartError: Error, CustomStringConvertible {
        let description: String
    }

    /// Starts the daemon and waits until its socket accepts (up to 10 s).
    static func start(recording: String, desc: String?, loop: Bool, speed: Double) throws -> ReplayDaemon {
        guard FileManager.default.isReadableFile(atPath: recording) else {
            throw StartError(description: "cannot read the recording \(recording)")
        }
        let directory: String
        do {
            directory = try Sys.makeTemporaryDirectory(prefix: "/tmp/multitouchctl-view-")
        } catch {
            throw StartError(description: "cannot make a directory under /tmp: \(error.reason)")
        }
        let socketPath = directory + "/multitouchd.sock"
        let (binary, prefix) = daemonCommand()
        var arguments =
            prefix + [
                "--replay", recording, "--no-devices", "--socket", socketPath, "--wait-for-subscribers", "1",
                "--log-level", "warning", "--speed", String(speed),
            ]
        if let desc { arguments += ["--desc", desc] }
        if loop { arguments.append("--loop") }
        let (launcher, launcherArguments) = guardedCommand(directory: directory, command: [binary] + arguments)
        let process = ChildProcess(executable: launcher, arguments: launcherArguments)
        let daemon = ReplayDaemon(process: process, directory: directory, socketPath: socketPath)
        do {
            try runOnLastingThread(process)
        } catch {
            daemon.removeDirectory()
            throw StartError(
                description: "cannot start multitouchd (\(binary) \(prefix.joined(separator: " "))): \(error)")
        }
        for _ in 0..<1000 {
            if let client = try? MultitouchClient(path: socketPath) {
                client.close()
                return daemon
            }
            if !process.isRunning {
                daemon.removeDirectory()
                throw StartError(
                    description:
                        "multitouchd --replay \(recording) exited (\(process.waitUntilExit())) (its message is above)"
                )
            }
            Sys.sleep(nanoseconds: 10_000_000)
        }
        daemon.stop()
        throw StartError(description: "multitouchd did not listen on \(socketPath) within 10 s")
    }

    /// Stops the daemon (SIGTERM: it cancels touches and closes the page's connection) and removes
    /// the directory. Safe to call more than once, from any thread.
    func stop() {
        lock.lock()
        defer { lock.unlock() }
        guard !stopped else { return }
        stopped = true
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        removeDirectory()
    }

    /// Best effort: the daemon removes its socket itself when it stops, and the guardian the directory.
    private func removeDirectory() {
        try? Sys.unlink(socketPath)
        try? Sys.rmdir(directory)
    }

    /// The daemon under a small `sh` guardian that `setpriv --pdeathsig TERM` ties to this process:
    /// when `view` dies, even by SIGKILL (no handler runs), the kernel sends the guardian SIGTERM; it
    /// stops the daemon (which removes its socket) and removes the directory. It does the same when
    /// the daemon exits by itself or `stop` terminates it, so /tmp is left clean in every case.
    /// Without setpriv (util-linux) the guardian still cleans up after `stop`, not after a SIGKILL.
    static func guardedCommand(directory: String, command: [String]) -> (String, [String]) {
        let script = """
            dir=$1; shift; daemon=
            cleanup() { rm -f "$dir/multitouchd.sock"; rmdir "$dir" 2>/dev/null; }
            trap 'if [ -n "$daemon" ]; then kill -TERM "$daemon" 2>/dev/null; wait "$daemon"; fi; cleanup; exit 143' TERM INT HUP
            "$@" & daemon=$!
            wait "$daemon"; status=$?
            cleanup; exit "$status"
            """
        let shell = ["/bin/sh", "-c", script, "multitouchctl-view", directory] + command
        for setpriv in ["/usr/bin/setpriv", "/bin/setpriv"] where Sys.access(setpriv, X_OK) {
            return (setpriv, ["--pdeathsig", "TERM", "--"] + shell)
        }
        return (shell[0], Array(shell.dropFirst()))
    }

    /// Starts `process` from a thread that lives until the process exits (the parent-death signal
    /// follows the thread that forked, and a pool thread that retired would stop the daemon early),
    /// with no signal blocked.
    private static func runOnLastingThread(_ process: ChildProcess) throws {
        let started = DispatchSemaphore(value: 0)
        let failure = LockedError()
        // @unchecked: the thread is the only user of `process` until `started` is signalled.
        nonisolated(unsafe) let process = process
        try Sys.startThread {
            // Children inherit the spawning thread's signal mask, and this thread blocks nearly all
            // signals: the guardian would never see its SIGTERM.
            try? Sys.setSignalMask(blocking: [])
            do {
                try process.run()
            } catch {
                failure.set(error)
                started.signal()
                return
            }
            started.signal()
            process.waitUntilExit()
        }
        started.wait()
        if let error = failure.get() { throw error }
    }

    /// `multitouchd` beside this `multitouchctl` (a build directory or an install), else from PATH
    /// through `/usr/bin/env`: the executable and the arguments that go before the daemon's own.
    static func daemonCommand() -> (String, [String]) {
        if let executable = try? Sys.readlink("/proc/self/exe"), !executable.isEmpty {
            let sibling =
                executable.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
                + "/multitouchd"
            if Sys.access(sibling, X_OK) { return (sibling, []) }
        }
        return ("/usr/bin/env", ["multitouchd"])
    }
}

/// An error handed from the starting thread.
private final class LockedError: @unchecked Sendable {
    // @unchecked: `error` is only touched under `lock`.
    private let lock = Lock()
    private var error: (any Error)?

    func set(_ error: any Error) { lock.withLock { self.error = error } }
    func get() -> (any Error)? { lock.withLock { error } }
}

/// SIGINT and SIGTERM: run `cleanup` (stop the private daemon) and exit 0. Held for the command's life.
final class TerminationHandler {
    private let sources: [any DispatchSourceSignal]

    init(cleanup: @escaping @Sendable () -> Void) {
        sources = [SIGINT, SIGTERM].map { number in
            Sys.ignoreSignal(number)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                cleanup()
                exit(0)
            }
            source.resume()
            return source
        }
    }
}
