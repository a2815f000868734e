import CLinuxSystem
import Glibc

/// An environmental failure of a system call: which call, on what, and the errno it returned
/// (the NIO `IOError(errnoCode:reason:)` pattern, STYLE.md §5).
public struct SystemError: Error, CustomStringConvertible, Sendable {
    public var call: String
    public var errno: Int32
    public var detail: String

    public init(_ call: String, errno: Int32 = Glibc.errno, detail: String = "") {
        self.call = call
        self.errno = errno
        self.detail = detail
    }

    public var description: String {
        let reason = String(cString: strerror(errno))
        return detail.isEmpty ? "\(call): \(reason) (errno \(errno))" : "\(call) \(detail): \(reason) (errno \(errno))"
    }
}

/// Thin wrappers that retry `EINTR` in one place and turn -1 into a thrown `SystemError`.
enum Sys {
    /// Hands free heap pages back to the system (malloc_trim): after a large client queue was dropped,
    /// so a daemon's memory returns to its usual size instead of staying at the peak.
    static func releaseFreedMemory() { _ = malloc_trim(0) }

    @inline(__always)
    static func retrying(_ call: String, _ body: () -> Int) throws(SystemError) -> Int {
        while true {
            let result = body()
            if result >= 0 { return result }
            let code = Glibc.errno
            if code == EINTR { continue }
            throw SystemError(call, errno: code)
        }
    }

    /// The monotonic clock in nanoseconds (the clock evdev timestamps use once EVIOCSCLOCKID is set, and
    /// the clock timerfds are armed against).
    @inline(__always)
    static func monotonicNanoseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }

    static func close(_ fd: Int32) {
        // Linux closes the fd even when close() reports EINTR: never retry (close(2) NOTES).
        _ = Glibc.close(fd)
    }

    static func setNonBlocking(_ fd: Int32) throws(SystemError) {
        let flags = fcntl(fd, F_GETFL)
        if flags < 0 { throw SystemError("fcntl(F_GETFL)") }
        if fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0 { throw SystemError("fcntl(F_SETFL)") }
    }
}

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
        while true {
            let n = epoll_wait(fd, buffer.baseAddress, Int32(buffer.count), timeoutMilliseconds)
            if n >= 0 { return Int(n) }
            if errno == EINTR { continue }
            throw SystemError("epoll_wait")
        }
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
        _ = withUnsafeMutableBytes(of: &expirations) { read(fd, $0.baseAddress, 8) }
        armedAt = nil
    }

    /// Acknowledges without forgetting the deadline (periodic timers).
    func drain() {
        var expirations: UInt64 = 0
        _ = withUnsafeMutableBytes(of: &expirations) { read(fd, $0.baseAddress, 8) }
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
        let n = withUnsafeMutableBytes(of: &info) { read(fd, $0.baseAddress, $0.count) }
        guard n == MemoryLayout<signalfd_siginfo>.size else { return nil }
        return Int32(bitPattern: info.ssi_signo)
    }
}
