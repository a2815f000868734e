import CLinuxSystem

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// The sd_notify(3) and sd_listen_fds(3) protocols, written out so the daemon needs no libsystemd:
// both are a few lines over plain sockets and environment variables, documented as stable interfaces
// (systemd's "Interface Portability and Stability Chart" lists them as such).

/// Tells systemd about the daemon's state (`Type=notify` services): ready, stopping, a status line, and
/// watchdog keep-alives. A value type; each message opens, uses and closes its own datagram socket,
/// exactly as libsystemd's sd_notify() does, so there is no descriptor to own or leak.
///
/// Thread-safe (no shared state). Each call blocks for one non-blocking `sendto`.
public struct SystemdNotifier: Hashable, Sendable {
    /// The notification socket: a filesystem path, or an abstract-namespace name written with a leading
    /// `@` (as in `NOTIFY_SOCKET=@/org/freedesktop/systemd1/notify`).
    public let socketPath: String
    /// How often systemd expects `watchdogPing()` (`WATCHDOG_USEC`, when `WATCHDOG_PID` is absent or
    /// this process). Ping at half this interval, as sd_watchdog_enabled(3) recommends. nil: no watchdog.
    public let watchdogInterval: Duration?

    /// How often to call `watchdogPing()`: half of `watchdogInterval`, as sd_watchdog_enabled(3)
    /// recommends, so one late ping does not trip the watchdog. nil: no watchdog.
    public var watchdogPingInterval: Duration? {
        watchdogInterval.map { $0 / 2 }
    }

    /// - Parameters:
    ///   - socketPath: a path starting with `/`, or `@name` for the abstract namespace.
    ///   - watchdogInterval: the interval systemd expects pings at, if any.
    /// - Returns: nil when the path is neither (systemd also supports `vsock:` addresses, which a local
    ///   input daemon never gets).
    public init?(socketPath: String, watchdogInterval: Duration? = nil) {
        guard socketPath.count > 1, socketPath.hasPrefix("/") || socketPath.hasPrefix("@") else { return nil }
        // sun_path holds 108 bytes; a path also needs its terminating NUL.
        guard socketPath.utf8.count <= 107 else { return nil }
        self.socketPath = socketPath
        self.watchdogInterval = watchdogInterval
    }

    /// The notifier systemd set up for this process, from `NOTIFY_SOCKET`, `WATCHDOG_USEC` and
    /// `WATCHDOG_PID`; nil when not started by systemd as a notify service.
    /// - Parameter unsetEnvironment: remove the variables so child processes do not inherit them
    ///   (sd_notify's `unset_environment`).
    public static func fromEnvironment(unsetEnvironment: Bool = false) -> SystemdNotifier? {
        let notifySocket = environmentValue("NOTIFY_SOCKET")
        let interval = watchdogInterval(
            microseconds: environmentValue("WATCHDOG_USEC"), pid: environmentValue("WATCHDOG_PID"), ownPID: getpid())
        if unsetEnvironment {
            for name in ["NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID"] { unsetenv(name) }
        }
        guard let notifySocket else { return nil }
        return SystemdNotifier(socketPath: notifySocket, watchdogInterval: interval)
    }

    /// Parses `WATCHDOG_USEC`/`WATCHDOG_PID` the way sd_watchdog_enabled(3) does: a positive
    /// microsecond count, honoured only when the pid is absent or ours.
    static func watchdogInterval(microseconds: String?, pid: String?, ownPID: pid_t) -> Duration? {
        guard let microseconds, let usec = UInt64(microseconds), usec > 0, usec < UInt64(Int64.max) else { return nil }
        if let pid {
            guard let target = pid_t(pid), target == ownPID else { return nil }
        }
        return .microseconds(Int64(usec))
    }

    /// `READY=1`: start-up is finished (sockets listening, devices opened); systemd starts dependents.
    public func ready(status: String? = nil) throws(SystemError) {
        try send(["READY=1"] + (status.map { ["STATUS=\($0)"] } ?? []))
    }

    /// `STATUS=...`: a one-line status shown by `systemctl status`.
    public func status(_ text: String) throws(SystemError) {
        try send(["STATUS=\(text)"])
    }

    /// `STOPPING=1`: shutdown has begun (sent on SIGTERM before cancelling gestures and closing clients).
    public func stopping() throws(SystemError) {
        try send(["STOPPING=1"])
    }

    /// `RELOADING=1` with `MONOTONIC_USEC`: a configuration reload (SIGHUP) began; follow with `ready()`.
    /// systemd 253+ requires the timestamp; older versions ignore it.
    public func reloading() throws(SystemError) {
        let usec = Sys.monotonicNanoseconds() / 1000
        try send(["RELOADING=1", "MONOTONIC_USEC=\(usec)"])
    }

    /// `WATCHDOG=1`: the keep-alive for `WatchdogSec=`. Sent from the event loop's own timer so a hung
    /// loop stops the pings and systemd restarts the daemon.
    public func watchdogPing() throws(SystemError) {
        try send(["WATCHDOG=1"])
    }

    /// Sends `assignments` (`KEY=value`, no newlines inside) as one datagram.
    public func send(_ assignments: [String]) throws(SystemError) {
        for assignment in assignments where assignment.contains("\n") || !assignment.contains("=") {
            throw SystemError(
                "sd_notify", errno: EINVAL, detail: "malformed assignment \(assignment.debugDescription)")
        }
        let message = assignments.joined(separator: "\n")
        // "@name" is the abstract namespace: a leading NUL, and the length counts no terminator.
        guard let address = Sys.unixAddress(socketPath, abstractNamespace: true) else {
            throw SystemError("sendto", errno: ENAMETOOLONG, detail: socketPath)
        }
        let fd = try Sys.socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, socketPath)
        defer { Sys.close(fd) }
        let sent = message.utf8CString.withUnsafeBytes { text in
            address.withSocketAddress { socketAddress, length in
                Result { () throws(SystemError) in
                    // The datagram excludes the C string's terminating NUL.
                    try Sys.sendto(
                        fd, UnsafeRawBufferPointer(rebasing: text.dropLast()), flags: Int32(MSG_NOSIGNAL),
                        address: socketAddress, length: length, socketPath)
                }
            }
        }
        _ = try sent.get()
    }
}

/// Sockets systemd opened for this process (`multitouchd.socket`, the sd_listen_fds(3) protocol):
/// descriptors from 3 on, announced by `LISTEN_PID` and `LISTEN_FDS`.
public enum SystemdSocketActivation {
    /// The first passed descriptor (`SD_LISTEN_FDS_START`).
    public static let firstDescriptor: Int32 = 3

    /// The descriptors passed to this process, with close-on-exec set, in the order of the socket
    /// unit's `Listen*=` lines. Unsets `LISTEN_PID`, `LISTEN_FDS` and `LISTEN_FDNAMES` so neither a
    /// second call nor a child process takes them again. Empty when systemd passed none (or passed
    /// them to another process: `LISTEN_PID` is not ours).
    ///
    /// Call once, at start-up, before other threads read the environment.
    public static func listenFDs() -> [Int32] {
        listenFDs(startingAt: firstDescriptor)
    }

    /// `listenFDs()` with the first descriptor as a parameter, so tests can use descriptors they own.
    static func listenFDs(startingAt first: Int32) -> [Int32] {
        let count = descriptorCount(
            pid: environmentValue("LISTEN_PID"), fds: environmentValue("LISTEN_FDS"), ownPID: getpid())
        for name in ["LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"] { unsetenv(name) }
        guard count > 0 else { return [] }
        // An fd that is not open means a broken environment; leave it out rather than hand it on.
        let descriptors = (first..<(first + count)).filter { Sys.isOpen($0) }
        // On an open descriptor F_SETFD cannot fail.
        for fd in descriptors { try? Sys.setCloseOnExec(fd) }
        return descriptors
    }

    /// The number of passed descriptors for the sd_listen_fds(3) variables, 0 when they are absent,
    /// malformed or meant for another process.
    static func descriptorCount(pid: String?, fds: String?, ownPID: pid_t) -> Int32 {
        guard let pid, let target = pid_t(pid), target == ownPID else { return 0 }
        // Bound the count: descriptors past INT_MAX - 3 cannot exist, and a huge count is garbage.
        guard let fds, let count = Int32(fds), count > 0, count <= 4096 else { return 0 }
        return count
    }

    /// Whether `fd` is a listening Unix stream socket (what multitouchd.socket passes); lets the daemon
    /// reject a socket unit that was edited into something else.
    public static func isListeningUnixStreamSocket(_ fd: Int32) -> Bool {
        // A number that is not open is no socket (an inherited descriptor may be missing); ENOTSOCK:
        // open, but not a socket at all.
        guard Sys.isOpen(fd), let type = try? Sys.getsockopt(fd, SOL_SOCKET, SO_TYPE, as: Int32.self, name: "SO_TYPE"),
            let listening = try? Sys.getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, as: Int32.self, name: "SO_ACCEPTCONN"),
            let domain = try? Sys.getsockopt(fd, SOL_SOCKET, SO_DOMAIN, as: Int32.self, name: "SO_DOMAIN")
        else { return false }
        return type == Int32(SOCK_STREAM.rawValue) && listening != 0 && domain == AF_UNIX
    }
}

/// getenv as an optional String.
private func environmentValue(_ name: String) -> String? {
    guard let value = getenv(name) else { return nil }
    return String(cString: value)
}
