import CLinuxSystem
import Glibc
// `Sys` and `SystemError` live in the SystemCalls module (interrupted calls retried in one place); re-exported so
// every file of the server, and its users, name them without another import.
@_exported import SystemCalls

/// An epoll instance: level-triggered registrations keyed by a 64-bit token.
struct Epoll: ~Copyable {
    let fd: Int32

    init() throws(SystemError) {
        let fd = epoll_create1(Int32(EPOLL_CLOEXEC))
        if fd < 0 { throw SystemError("epoll_create1") }
        self.fd = fd
    }

    deinit { Sys.close(fd) }

    static let readable = EPOLLIN.rawValue | EPOLLRDHUP.rawValue
    static let writable = EPOLLOUT.rawValue

    func add(_ target: Int32, events: UInt32, token: UInt64) throws(SystemError) {
        var event = epoll_event()
        event.events = events
        event.data.u64 = token
        if epoll_ctl(fd, EPOLL_CTL_ADD, target, &event) < 0 { throw SystemError("epoll_ctl(ADD)") }
    }

    func modify(_ target: Int32, events: UInt32, token: UInt64) throws(SystemError) {
        var event = epoll_event()
        event.events = events
        event.data.u64 = token
        if epoll_ctl(fd, EPOLL_CTL_MOD, target, &event) < 0 { throw SystemError("epoll_ctl(MOD)") }
    }

    func remove(_ target: Int32) {
        var event = epoll_event()
        _ = epoll_ctl(fd, EPOLL_CTL_DEL, target, &event)
    }

    /// Waits for events; `timeoutMilliseconds` -1 blocks until something happens (no polling).
    func wait(
        into buffer: UnsafeMutableBufferPointer<epoll_event>, timeoutMilliseconds: Int32
    ) throws(SystemError)
        -> Int
    {
        try Sys.epollWait(fd, into: buffer, timeoutMilliseconds: timeoutMilliseconds)
    }
}

/// A CLOCK_MONOTONIC timerfd armed with absolute deadlines in nanoseconds.
struct TimerFD: ~Copyable {
    let fd: Int32
    private(set) var armedAt: UInt64?

    init() throws(SystemError) {
        let fd = timerfd_create(CLOCK_MONOTONIC, Int32(TFD_CLOEXEC | TFD_NONBLOCK))
        if fd < 0 { throw SystemError("timerfd_create") }
        self.fd = fd
    }

    deinit { Sys.close(fd) }

    /// Arms the timer for the absolute monotonic time `deadline` (ns); nil disarms. A deadline already
    /// past fires at once. Skips the system call when nothing changes.
    mutating func arm(at deadline: UInt64?, interval: UInt64 = 0) {
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
        _ = timerfd_settime(fd, Int32(TFD_TIMER_ABSTIME), &spec, nil)
    }

    /// Reads the expiration count so the level-triggered fd stops being readable.
    mutating func acknowledge() {
        var expirations: UInt64 = 0
        _ = withUnsafeMutableBytes(of: &expirations) { buffer in try? Sys.read(fd, into: buffer) }
        armedAt = nil
    }

    /// Acknowledges without forgetting the deadline (periodic timers).
    func drain() {
        var expirations: UInt64 = 0
        _ = withUnsafeMutableBytes(of: &expirations) { buffer in try? Sys.read(fd, into: buffer) }
    }
}

/// A signalfd for SIGTERM, SIGINT and SIGHUP; the signals are blocked so they arrive only here.
struct SignalFD: ~Copyable {
    let fd: Int32

    init(signals: [Int32]) throws(SystemError) {
        var mask = sigset_t()
        sigemptyset(&mask)
        for signal in signals { sigaddset(&mask, signal) }
        if pthread_sigmask(SIG_BLOCK, &mask, nil) != 0 { throw SystemError("pthread_sigmask") }
        let fd = signalfd(-1, &mask, Int32(SFD_CLOEXEC | SFD_NONBLOCK))
        if fd < 0 { throw SystemError("signalfd") }
        self.fd = fd
    }

    deinit { Sys.close(fd) }

    /// The next pending signal number, or nil when none is pending.
    func next() -> Int32? {
        var info = signalfd_siginfo()
        let n = withUnsafeMutableBytes(of: &info) { buffer in try? Sys.read(fd, into: buffer) }
        guard n == MemoryLayout<signalfd_siginfo>.size else { return nil }
        return Int32(bitPattern: info.ssi_signo)
    }
}
