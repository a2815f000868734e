import CLinuxSystem
import Glibc

/// Thin wrappers over system calls, in the style of swift-nio's `Posix` (NIOPosix/System.swift): each
/// retries `EINTR` (a signal arrived mid-call) in one place, `uninterrupted`; EBADF and EFAULT stop the
/// program as the bugs they are (a descriptor or a buffer that is not the caller's, never the
/// environment: `preconditionAcceptable`); any other failure is thrown as a `SystemError` naming the
/// call and what it was about. Non-blocking descriptors report EAGAIN as an error whose `kind` is
/// `.wouldBlock`. Every system call of the project goes through this module
/// (scripts/check-imports.py lists the calls no other module may make).
public enum Sys {
    /// Runs `body` again while it fails with EINTR and returns its first other result, untouched.
    /// `body` reports failure like a system call (-1 and errno) or like libevdev (a negative errno).
    /// The only place in the project that looks at EINTR (scripts/check-imports.py enforces it).
    @inline(__always)
    public static func uninterrupted<Value: SignedInteger>(_ body: () -> Value) -> Value {
        while true {
            let result = body()
            if result >= 0 { return result }
            if result == -1 && Glibc.errno == EINTR { continue }
            if result == -Value(EINTR) { continue }
            return result
        }
    }

    /// A system call retried through EINTR: its non-negative result, or a `SystemError` with errno.
    /// `detail` (what the call was about) is only built when the call fails.
    @inline(__always)
    public static func retrying<Value: SignedInteger>(
        _ call: String, _ detail: @autoclosure () -> String = "", _ body: () -> Value
    ) throws(SystemError) -> Value {
        let result = uninterrupted(body)
        if result < 0 { throw failure(call, errno: Glibc.errno, detail: detail()) }
        return result
    }

    /// A libevdev-style call (0 or more for success, a negative errno for failure) retried through
    /// EINTR: its non-negative result, or a `SystemError`.
    @inline(__always)
    public static func retryingNegativeErrno(
        _ call: String, _ detail: @autoclosure () -> String = "", _ body: () -> Int32
    ) throws(SystemError) -> Int32 {
        let result = uninterrupted(body)
        if result < 0 { throw failure(call, errno: -result, detail: detail()) }
        return result
    }

    /// A call that returns its error number instead of setting errno (pthread_sigmask, getgrnam_r,
    /// posix_spawn): nothing when it returned 0, else its `SystemError`. Such calls are not restarted:
    /// they report EINTR as any other failure, and none of the ones used here does.
    @inline(__always)
    public static func returningErrno(
        _ call: String, _ detail: @autoclosure () -> String = "", _ body: () -> Int32
    ) throws(SystemError) {
        let code = body()
        if code != 0 { throw failure(call, errno: code, detail: detail()) }
    }

    /// The error for `call` failing with `errno`, after checking that the failure is the
    /// environment's and not the program's (`preconditionAcceptable`).
    @inline(__always)
    public static func failure(_ call: String, errno: Int32, detail: String = "") -> SystemError {
        preconditionAcceptable(errno, call)
        return SystemError(call, errno: errno, detail: detail)
    }

    /// EBADF (a descriptor the program does not have open: closed twice, or never opened) and EFAULT
    /// (a buffer outside the program's memory) are the program's bugs, whatever the call; carrying on
    /// could read or close a descriptor another part of the program has just been given. Stops the
    /// program naming the call (swift-nio's `isUnacceptableErrno`). Every other errno is something
    /// the environment did, thrown to the caller.
    @inline(__always)
    public static func preconditionAcceptable(_ errno: Int32, _ call: String) {
        if errno == EBADF || errno == EFAULT { unacceptable(errno, call) }
    }

    @inline(never)
    private static func unacceptable(_ errno: Int32, _ call: String) -> Never {
        preconditionFailure(
            "multitouchd bug: \(call) failed with \(String(cString: strerror(errno))) (errno \(errno)): a descriptor or buffer that is not the program's"
        )
    }

    // MARK: Files and descriptors

    /// open(2); `path` is the error's detail.
    public static func open(_ path: String, _ flags: Int32, mode: mode_t = 0) throws(SystemError) -> Int32 {
        try retrying("open", path) { Glibc.open(path, flags, mode) }
    }

    /// One read(2) into `buffer`: the byte count, 0 at end of file.
    @inline(__always)
    public static func read(
        _ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, _ detail: @autoclosure () -> String = ""
    ) throws(SystemError) -> Int {
        try retrying("read", detail()) { Glibc.read(fd, buffer.baseAddress, buffer.count) }
    }

    /// One read(2) into the start of `buffer`.
    @inline(__always)
    public static func read(
        _ fd: Int32, into buffer: inout [UInt8], _ detail: @autoclosure () -> String = ""
    ) throws(SystemError) -> Int {
        let result = buffer.withUnsafeMutableBytes { raw in
            uninterrupted { Glibc.read(fd, raw.baseAddress, raw.count) }
        }
        if result < 0 { throw failure("read", errno: Glibc.errno, detail: detail()) }
        return result
    }

    /// One write(2) of `bytes`: the count written, which may be short.
    @inline(__always)
    public static func write(
        _ fd: Int32, _ bytes: UnsafeRawBufferPointer, _ detail: @autoclosure () -> String = ""
    ) throws(SystemError) -> Int {
        try retrying("write", detail()) { Glibc.write(fd, bytes.baseAddress, bytes.count) }
    }

    /// write(2) until every byte of `bytes` is written (a blocking descriptor: a short write goes on).
    public static func writeAll(
        _ fd: Int32, _ bytes: [UInt8], _ detail: @autoclosure () -> String = ""
    ) throws(SystemError) {
        var offset = 0
        while offset < bytes.count {
            offset += try transfer("write", bytes, from: offset, detail()) { Glibc.write(fd, $0, $1) }
        }
    }

    /// One call of `body` (a write or send) on `bytes[offset...]`, retried through EINTR: the count taken.
    @inline(__always)
    private static func transfer(
        _ call: String, _ bytes: [UInt8], from offset: Int, _ detail: @autoclosure () -> String,
        _ body: (UnsafeRawPointer?, Int) -> Int
    ) throws(SystemError) -> Int {
        let result = bytes.withUnsafeBytes { raw in
            uninterrupted { body(raw.baseAddress.map { $0 + offset }, raw.count - offset) }
        }
        if result < 0 { throw failure(call, errno: Glibc.errno, detail: detail()) }
        return result
    }

    /// close(2), once: Linux frees the descriptor even when close reports EINTR, so a retry could close
    /// a descriptor another thread just opened (close(2) NOTES). EBADF (closed twice) is a bug; EIO
    /// and the like leave nothing for the caller to do, the descriptor is gone either way.
    public static func close(_ fd: Int32) {
        if Glibc.close(fd) != 0 { preconditionAcceptable(Glibc.errno, "close") }
    }

    public static func setNonBlocking(_ fd: Int32) throws(SystemError) {
        let flags = try retrying("fcntl(F_GETFL)") { fcntl(fd, F_GETFL) }
        _ = try retrying("fcntl(F_SETFL)") { fcntl(fd, F_SETFL, flags | O_NONBLOCK) }
    }

    /// Sets close-on-exec on `fd` (FD_CLOEXEC), so child processes do not inherit it.
    public static func setCloseOnExec(_ fd: Int32) throws(SystemError) {
        let flags = try retrying("fcntl(F_GETFD)") { fcntl(fd, F_GETFD) }
        _ = try retrying("fcntl(F_SETFD)") { fcntl(fd, F_SETFD, flags | FD_CLOEXEC) }
    }

    /// Whether `fd` is an open descriptor of this process. The one question EBADF answers rather
    /// than betrays: descriptors the process inherited by number (systemd's LISTEN_FDS) may be absent.
    public static func isOpen(_ fd: Int32) -> Bool {
        uninterrupted { fcntl(fd, F_GETFD) } >= 0
    }

    // MARK: Sockets

    /// One send(2) of `bytes` with `flags` (add MSG_NOSIGNAL: a closed peer is an EPIPE, not a signal).
    @inline(__always)
    public static func send(
        _ fd: Int32, _ bytes: UnsafeRawBufferPointer, flags: Int32, _ detail: @autoclosure () -> String = ""
    ) throws(SystemError) -> Int {
        try retrying("send", detail()) { Glibc.send(fd, bytes.baseAddress, bytes.count, flags) }
    }

    /// One send(2) of `bytes[offset...]`: the count sent, which may be short (a non-blocking socket).
    @inline(__always)
    public static func send(
        _ fd: Int32, _ bytes: [UInt8], from offset: Int = 0, flags: Int32, _ detail: @autoclosure () -> String = ""
    ) throws(SystemError) -> Int {
        try transfer("send", bytes, from: offset, detail()) { Glibc.send(fd, $0, $1, flags) }
    }

    /// send(2) until every byte of `bytes` is sent (a blocking socket).
    public static func sendAll(
        _ fd: Int32, _ bytes: [UInt8], flags: Int32, _ detail: @autoclosure () -> String = ""
    ) throws(SystemError) {
        var offset = 0
        while offset < bytes.count {
            offset += try send(fd, bytes, from: offset, flags: flags, detail())
        }
    }

    /// One sendto(2) of a datagram to `address` (`length` bytes of it).
    public static func sendto(
        _ fd: Int32, _ bytes: UnsafeRawBufferPointer, flags: Int32, address: UnsafePointer<sockaddr>,
        length: socklen_t, _ detail: @autoclosure () -> String = ""
    ) throws(SystemError) -> Int {
        try retrying("sendto", detail()) { Glibc.sendto(fd, bytes.baseAddress, bytes.count, flags, address, length) }
    }

    /// accept4(2) of one waiting connection, non-blocking and close-on-exec; EAGAIN when none waits.
    public static func accept(_ listenFD: Int32) throws(SystemError) -> Int32 {
        try retrying("accept4") { multitouchd_accept(listenFD) }
    }

    // MARK: Waiting

    /// poll(2): the number of ready descriptors, 0 on timeout. A signal restarts the wait with the full
    /// timeout again (callers recompute timeouts from deadlines each time round their loop).
    public static func poll(_ fds: inout [pollfd], timeoutMilliseconds: Int32) throws(SystemError) -> Int {
        let count = nfds_t(fds.count)
        let result = fds.withUnsafeMutableBufferPointer { buffer in
            uninterrupted { Glibc.poll(buffer.baseAddress, count, timeoutMilliseconds) }
        }
        if result < 0 { throw failure("poll", errno: Glibc.errno) }
        return Int(result)
    }

    /// epoll_wait(2) into `buffer`: the number of events; `timeoutMilliseconds` -1 blocks until one.
    @inline(__always)
    public static func epollWait(
        _ epollFD: Int32, into buffer: UnsafeMutableBufferPointer<epoll_event>, timeoutMilliseconds: Int32
    ) throws(SystemError) -> Int {
        Int(
            try retrying("epoll_wait") {
                epoll_wait(epollFD, buffer.baseAddress, Int32(buffer.count), timeoutMilliseconds)
            })
    }

    // MARK: Clock and memory

    /// The monotonic clock in nanoseconds (the clock evdev timestamps use once EVIOCSCLOCKID is set, and
    /// the clock timerfds are armed against).
    @inline(__always)
    public static func monotonicNanoseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }

    /// Hands free heap pages back to the system (malloc_trim): after a large client queue was dropped,
    /// so a daemon's memory returns to its usual size instead of staying at the peak.
    public static func releaseFreedMemory() { _ = malloc_trim(0) }
}
