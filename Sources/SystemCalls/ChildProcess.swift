import Glibc

/// A program run as a child process (posix_spawn), for the few places multitouchctl runs one:
/// `rsvg-convert` for PNG plots, the private daemon of `view --replay`. What Foundation's `Process`
/// did for them, without Foundation: linking it brought ICU's 34 MB of data tables into the
/// binaries (issue 29 item 9).
///
/// Not thread-safe: one owner (wrap it in a `Lock` to share it). The child inherits stdin and, unless
/// asked otherwise, stdout and stderr; it gets the spawning thread's signal mask.
public final class ChildProcess {
    /// How the child ended.
    public enum Termination: Hashable, Sendable {
        /// exit(status).
        case exited(Int32)
        /// Killed by this signal.
        case signalled(Int32)
    }

    public let executable: String
    public let arguments: [String]
    /// True: the child's stdout goes to /dev/null.
    public var discardsStandardOutput = false
    /// True: the child's stderr is kept, for `readStandardError()`.
    public var capturesStandardError = false
    public private(set) var pid: pid_t = 0
    public private(set) var termination: Termination?
    private var errorPipe: Int32 = -1

    public init(executable: String, arguments: [String]) {
        self.executable = executable
        self.arguments = arguments
    }

    deinit {
        if errorPipe >= 0 { Glibc.close(errorPipe) }
    }

    /// Starts the child.
    /// - Throws: `SystemError` when it cannot be started (no such program, not executable...).
    public func run() throws(SystemError) {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var pipeFDs: [Int32] = [-1, -1]
        if capturesStandardError {
            guard pipe(&pipeFDs) == 0 else { throw SystemError("pipe", detail: executable) }
            // Close-on-exec: only the child's dup2'd stderr stays open in it (pipe2 is _GNU_SOURCE-only).
            _ = fcntl(pipeFDs[0], F_SETFD, FD_CLOEXEC)
            _ = fcntl(pipeFDs[1], F_SETFD, FD_CLOEXEC)
            posix_spawn_file_actions_adddup2(&actions, pipeFDs[1], 2)
        }
        if discardsStandardOutput {
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var child: pid_t = 0
        let status = posix_spawn(&child, executable, &actions, nil, argv, environ)
        if pipeFDs[1] >= 0 { Glibc.close(pipeFDs[1]) }
        guard status == 0 else {
            if pipeFDs[0] >= 0 { Glibc.close(pipeFDs[0]) }
            throw SystemError("posix_spawn", errno: status, detail: executable)
        }
        pid = child
        errorPipe = pipeFDs[0]
    }

    /// Everything the child wrote to stderr until it closed it (blocks until then); with
    /// `capturesStandardError` only, else empty.
    public func readStandardError() -> [UInt8] {
        guard errorPipe >= 0 else { return [] }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = Sys.uninterrupted {
                chunk.withUnsafeMutableBytes { Glibc.read(errorPipe, $0.baseAddress, $0.count) }
            }
            if count <= 0 { break }
            bytes += chunk[0..<count]
        }
        Glibc.close(errorPipe)
        errorPipe = -1
        return bytes
    }

    /// True while the child has not ended (and was started).
    public var isRunning: Bool {
        guard pid > 0, termination == nil else { return false }
        return reap(options: WNOHANG) == nil
    }

    /// Sends the child SIGTERM (when it still runs).
    public func terminate() {
        if isRunning { kill(pid, SIGTERM) }
    }

    /// Waits for the child to end and returns how; at once when it already has.
    @discardableResult
    public func waitUntilExit() -> Termination {
        if let termination { return termination }
        guard pid > 0 else { return .exited(-1) }
        while true {
            if let ended = reap(options: 0) { return ended }
        }
    }

    /// waitpid: how the child ended, or nil while it runs (WNOHANG) or after EINTR.
    private func reap(options: Int32) -> Termination? {
        var status: Int32 = 0
        let result = waitpid(pid, &status, options)
        guard result == pid else {
            // ECHILD: someone else reaped it; nothing more can be known.
            if result < 0 && errno == ECHILD { termination = .exited(-1) }
            return termination
        }
        // WIFEXITED/WTERMSIG are macros Swift does not import: the low 7 bits are the signal, 0 on exit.
        let signal = status & 0x7f
        termination = signal == 0 ? .exited((status >> 8) & 0xff) : .signalled(signal)
        return termination
    }
}

/// A mutual-exclusion lock (pthread mutex) for the few shared values outside the event loop.
public final class Lock: @unchecked Sendable {
    // @unchecked: the mutex is what makes it safe.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    public init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    public func lock() { pthread_mutex_lock(mutex) }
    public func unlock() { pthread_mutex_unlock(mutex) }

    /// Runs `body` holding the lock.
    public func withLock<Value>(_ body: () throws -> Value) rethrows -> Value {
        lock()
        defer { unlock() }
        return try body()
    }
}

extension Sys {
    /// Runs `body` on a new thread of its own (detached), which ends when `body` returns: for work that
    /// blocks for long (a reader of a socket) or must outlive the caller's thread (the parent-death
    /// signal of a child follows the thread that spawned it).
    /// - Throws: `SystemError` when the thread cannot be made.
    public static func startThread(_ body: @escaping @Sendable () -> Void) throws(SystemError) {
        final class Box {
            let body: @Sendable () -> Void
            init(_ body: @escaping @Sendable () -> Void) { self.body = body }
        }
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(
            &thread, nil,
            { raw in
                guard let raw else { return nil }
                let box = Unmanaged<AnyObject>.fromOpaque(raw).takeRetainedValue() as? Box
                box?.body()
                return nil
            }, box)
        guard status == 0 else {
            Unmanaged<AnyObject>.fromOpaque(box).release()
            throw SystemError("pthread_create", errno: status)
        }
        pthread_detach(thread)
    }
}
