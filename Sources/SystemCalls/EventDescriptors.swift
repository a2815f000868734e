import CLinuxSystem
import Glibc

/// An epoll instance: level-triggered registrations keyed by a 64-bit token. Owned by one thread (the
/// daemon's event loop); closes its descriptor when it goes.
public struct Epoll: ~Copyable {
    public let fd: Int32

    public init() throws(SystemError) {
        fd = try Sys.retrying("epoll_create1") { epoll_create1(Int32(EPOLL_CLOEXEC)) }
    }

    deinit { Sys.close(fd) }

    public static let readable = EPOLLIN.rawValue | EPOLLRDHUP.rawValue
    public static let writable = EPOLLOUT.rawValue

    public func add(_ target: Int32, events: UInt32, token: UInt64) throws(SystemError) {
        try control(EPOLL_CTL_ADD, "epoll_ctl(ADD)", target, events: events, token: token)
    }

    public func modify(_ target: Int32, events: UInt32, token: UInt64) throws(SystemError) {
        try control(EPOLL_CTL_MOD, "epoll_ctl(MOD)", target, events: events, token: token)
    }

    /// Removes `target`; one that is not registered (ENOENT) is not an error: the caller forgets it
    /// either way.
    public func remove(_ target: Int32) {
        do {
            try control(EPOLL_CTL_DEL, "epoll_ctl(DEL)", target, events: 0, token: 0)
        } catch {
            // ENOENT (never added or already removed) and ENOMEM leave nothing to undo.
        }
    }

    private func control(
        _ operation: Int32, _ call: String, _ target: Int32, events: UInt32, token: UInt64
    )
        throws(SystemError)
    {
        var event = epoll_event()
        event.events = events
        event.data.u64 = token
        _ = try Sys.retrying(call) { epoll_ctl(fd, operation, target, &event) }
    }

    /// Waits for events; `timeoutMilliseconds` -1 blocks until something happens (no polling).
    public func wait(
        into buffer: UnsafeMutableBufferPointer<epoll_event>, timeoutMilliseconds: Int32
    ) throws(SystemError)
        -> Int
    {
        try Sys.epollWait(fd, into: buffer, timeoutMilliseconds: timeoutMilliseconds)
    }
}

/// A CLOCK_MONOTONIC timerfd armed with absolute deadlines in nanoseconds.
public struct TimerFD: ~Copyable {
    public let fd: Int32
    public private(set) var armedAt: UInt64?

    public init() throws(SystemError) {
        fd = try Sys.retrying("timerfd_create") { timerfd_create(CLOCK_MONOTONIC, Int32(TFD_CLOEXEC | TFD_NONBLOCK)) }
    }

    deinit { Sys.close(fd) }

    /// Arms the timer for the absolute monotonic time `deadline` (ns); nil disarms. A deadline already
    /// past fires at once. Skips the system call when nothing changes. Arming a timerfd of ours with
    /// a valid time cannot fail (EINVAL would be a bug of this function), so nothing is thrown.
    public mutating func arm(at deadline: UInt64?, interval: UInt64 = 0) {
        if deadline == armedAt && interval == 0 { return }
        armedAt = deadline
        var spec = itimerspec()
        if let deadline {
            // 0 would disarm: an already-due deadline becomes 1 ns after the epoch, which fires at once.
            let value = Swift.max(deadline, 1)
            spec.it_value.tv_sec = Int(value / 1_000_000_000)
            spec.it_value.tv_nsec = Int(value % 1_000_000_000)
            spec.it_interval.tv_sec = Int(interval / 1_000_000_000)
            spec.it_interval.tv_nsec = Int(interval % 1_000_000_000)
        }
        do {
            _ = try Sys.retrying("timerfd_settime") { timerfd_settime(fd, Int32(TFD_TIMER_ABSTIME), &spec, nil) }
        } catch {
            preconditionFailure("multitouchd bug: \(error)")
        }
    }

    /// Reads the expiration count so the level-triggered fd stops being readable.
    public mutating func acknowledge() {
        drain()
        armedAt = nil
    }

    /// Acknowledges without forgetting the deadline (periodic timers). Nothing to read (EAGAIN: the
    /// timer did not expire since) is fine.
    public func drain() {
        var expirations: UInt64 = 0
        _ = withUnsafeMutableBytes(of: &expirations) { buffer in try? Sys.read(fd, into: buffer) }
    }
}

/// A signalfd for the given signals; the signals are blocked in the calling thread so they arrive only
/// here (the daemon blocks them before it starts any other thread).
public struct SignalFD: ~Copyable {
    public let fd: Int32

    public init(signals: [Int32]) throws(SystemError) {
        var mask = sigset_t()
        sigemptyset(&mask)
        for signal in signals { sigaddset(&mask, signal) }
        try Sys.returningErrno("pthread_sigmask") { pthread_sigmask(SIG_BLOCK, &mask, nil) }
        fd = try Sys.retrying("signalfd") { signalfd(-1, &mask, Int32(SFD_CLOEXEC | SFD_NONBLOCK)) }
    }

    deinit { Sys.close(fd) }

    /// The next pending signal number, or nil when none is pending.
    public func next() -> Int32? {
        var info = signalfd_siginfo()
        let n = withUnsafeMutableBytes(of: &info) { buffer in try? Sys.read(fd, into: buffer) }
        guard n == MemoryLayout<signalfd_siginfo>.size else { return nil }
        return Int32(bitPattern: info.ssi_signo)
    }
}

/// inotify(7) calls: the instance, and adding and removing watches.
extension Sys {
    /// inotify_init1(2) with `flags` (IN_NONBLOCK, IN_CLOEXEC).
    public static func inotifyInit(flags: Int32, _ detail: @autoclosure () -> String = "") throws(SystemError) -> Int32
    {
        try retrying("inotify_init1", detail()) { inotify_init1(flags) }
    }

    /// inotify_add_watch(2): the watch descriptor.
    public static func inotifyAddWatch(_ fd: Int32, _ path: String, mask: UInt32) throws(SystemError) -> Int32 {
        try retrying("inotify_add_watch", path) { inotify_add_watch(fd, path, mask) }
    }

    /// inotify_rm_watch(2); a watch the kernel already dropped (EINVAL: its directory went) is gone
    /// either way.
    public static func inotifyRemoveWatch(_ fd: Int32, _ watch: Int32) {
        if uninterrupted({ inotify_rm_watch(fd, watch) }) != 0 {
            preconditionAcceptable(Glibc.errno, "inotify_rm_watch")
        }
    }
}

/// Signals and sleeping.
extension Sys {
    /// Ignores `signal` for the whole process (SIGPIPE: a write to a vanished peer returns EPIPE).
    public static func ignoreSignal(_ signal: Int32) {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = SIG_IGN
        sigemptyset(&action.sa_mask)
        // sigaction(2) fails only for an invalid or uncatchable number (EINVAL): a bug of the caller.
        precondition(sigaction(signal, &action, nil) == 0, "multitouchd bug: sigaction(\(signal), SIG_IGN) refused")
    }

    /// The calling thread's signal mask, to be put back with `setSignalMask(_:)`.
    public static func signalMask() -> sigset_t {
        var mask = sigset_t()
        // pthread_sigmask fails only for an invalid `how` (EINVAL): a bug of this call.
        precondition(pthread_sigmask(SIG_SETMASK, nil, &mask) == 0, "multitouchd bug: pthread_sigmask refused a query")
        return mask
    }

    /// Puts back a signal mask `signalMask()` returned.
    public static func setSignalMask(_ mask: sigset_t) {
        var mask = mask
        precondition(pthread_sigmask(SIG_SETMASK, &mask, nil) == 0, "multitouchd bug: pthread_sigmask refused a mask")
    }

    /// Replaces the calling thread's signal mask with `signals` blocked (none: every signal delivered).
    public static func setSignalMask(blocking signals: [Int32]) throws(SystemError) {
        var mask = sigset_t()
        sigemptyset(&mask)
        for signal in signals { sigaddset(&mask, signal) }
        try returningErrno("pthread_sigmask") { pthread_sigmask(SIG_SETMASK, &mask, nil) }
    }

    /// Sleeps `nanoseconds` on the monotonic clock; a signal does not cut it short (the rest is slept).
    public static func sleep(nanoseconds: UInt64) {
        var request = timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 {
            let code = Glibc.errno
            guard code == EINTR else {
                preconditionFailure("multitouchd bug: nanosleep failed with errno \(code)")
            }
            request = remaining
        }
    }
}
