import Foundation
import Glibc
import SystemCalls
import Testing

/// The write end the SIGUSR1 handler reports on (a C handler cannot capture it).
nonisolated(unsafe) private var handlerAckFD: Int32 = -1

/// State the blocked reader thread shares with the test.
private final class ReaderState: @unchecked Sendable {
    private let lock = NSLock()
    private var _thread: pthread_t?
    private var _tid: pid_t = 0
    private var _result: Result<[UInt8], SystemError>?
    let started = DispatchSemaphore(value: 0)
    let finished = DispatchSemaphore(value: 0)

    func record(thread: pthread_t, tid: pid_t) { lock.withLock { (_thread, _tid) = (thread, tid) } }
    var thread: pthread_t? { lock.withLock { _thread } }
    var tid: pid_t { lock.withLock { _tid } }
    func finish(_ result: Result<[UInt8], SystemError>) { lock.withLock { _result = result } }
    var result: Result<[UInt8], SystemError>? { lock.withLock { _result } }
}

/// The system call `tid` is blocked in and its first argument, from /proc (nil while it runs).
private func blockedCall(tid: pid_t) -> (number: Int, firstArgument: Int)? {
    guard let text = try? String(contentsOfFile: "/proc/self/task/\(tid)/syscall", encoding: .utf8) else { return nil }
    let fields = text.split(separator: " ")
    guard fields.count > 1, let number = Int(fields[0]), let argument = Int(fields[1].dropFirst(2), radix: 16) else {
        return nil
    }
    return (number, argument)
}

/// The kernel's id of the calling thread (Glibc's gettid is not imported): /proc/thread-self links to
/// `PID/task/TID`.
private func currentThreadID() -> pid_t {
    var target = [CChar](repeating: 0, count: 64)
    let n = readlink("/proc/thread-self", &target, target.count - 1)
    guard n > 0 else { return 0 }
    let link = String(decoding: target[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    return pid_t(link.split(separator: "/").last ?? "") ?? 0
}

#if arch(x86_64)
private let readSyscall = 0
#elseif arch(arm64)
private let readSyscall = 63
#endif

@Suite struct SysTests {
    @Test func retriesEINTRInBothConventions() throws {
        // -1 with errno EINTR twice, then a result: one call for the caller.
        var calls = 0
        let result = Sys.uninterrupted { () -> Int in
            calls += 1
            if calls < 3 {
                errno = EINTR
                return -1
            }
            return 7
        }
        #expect(result == 7 && calls == 3)
        // libevdev's convention: -EINTR, then -EAGAIN, which is returned untouched.
        calls = 0
        let negative = Sys.uninterrupted { () -> Int32 in
            calls += 1
            return calls == 1 ? -EINTR : -EAGAIN
        }
        #expect(negative == -EAGAIN && calls == 2)
        calls = 0
        #expect(throws: SystemError("libevdev_grab", errno: EBUSY, detail: "/dev/input/event9")) {
            try Sys.retryingNegativeErrno("libevdev_grab", "/dev/input/event9") { () -> Int32 in
                calls += 1
                return calls == 1 ? -EINTR : -EBUSY
            }
        }
        #expect(calls == 2)
    }

    /// A real signal, delivered without SA_RESTART to a thread blocked in read(2) on a pipe: the kernel
    /// returns EINTR, `Sys.read` goes back to reading and returns the bytes written afterwards.
    @Test func signalInterruptingABlockingReadIsRetried() throws {
        var data: [Int32] = [-1, -1]
        var ack: [Int32] = [-1, -1]
        #expect(pipe(&data) == 0 && pipe(&ack) == 0)
        defer { for fd in data + ack { close(fd) } }
        handlerAckFD = ack[1]
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in
            var byte: UInt8 = 1
            let saved = errno
            _ = write(handlerAckFD, &byte, 1)
            errno = saved
        }
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0  // no SA_RESTART: the read fails with EINTR
        var previous = sigaction()
        #expect(sigaction(SIGUSR1, &action, &previous) == 0)
        defer { sigaction(SIGUSR1, &previous, nil) }

        let state = ReaderState()
        let readEnd = data[0]
        let reader = Thread {
            // Threads start with most signals blocked (Foundation's Thread does); let SIGUSR1 in.
            var usr1 = sigset_t()
            sigemptyset(&usr1)
            sigaddset(&usr1, SIGUSR1)
            pthread_sigmask(SIG_UNBLOCK, &usr1, nil)
            state.record(thread: pthread_self(), tid: currentThreadID())
            state.started.signal()
            var buffer = [UInt8](repeating: 0, count: 16)
            do throws(SystemError) {
                let n = try Sys.read(readEnd, into: &buffer, "test pipe")
                state.finish(.success(Array(buffer[0..<n])))
            } catch {
                state.finish(.failure(error))
            }
            state.finished.signal()
        }
        reader.start()
        state.started.wait()
        // Wait (no sleep) until the reader is inside read(2) on the pipe: only then can a signal interrupt it.
        // Also returns once the reader finished, so a read that gave up on EINTR fails the test, not hangs it.
        func waitUntilBlockedInRead() {
            while state.result == nil {
                if let call = blockedCall(tid: state.tid), call.number == readSyscall,
                    call.firstArgument == Int(readEnd)
                {
                    return
                }
                sched_yield()
            }
        }
        waitUntilBlockedInRead()
        let thread = try #require(state.thread)
        #expect(pthread_kill(thread, SIGUSR1) == 0)
        var byte: UInt8 = 0
        #expect(read(ack[0], &byte, 1) == 1)  // the handler ran on the reader, inside its read
        waitUntilBlockedInRead()  // and the reader went back into read(2) instead of failing
        let payload: [UInt8] = [1, 2, 3]
        #expect(payload.withUnsafeBytes { write(data[1], $0.baseAddress, $0.count) } == 3)
        state.finished.wait()
        #expect(try state.result?.get() == payload)
    }

    @Test func errorsCarryTheCallTheErrnoAndWhatTheyWereAbout() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sys-\(UUID())").path
        #expect(mkdir(directory, 0o700) == 0)
        defer { rmdir(directory) }
        let missing = directory + "/missing"
        do {
            _ = try Sys.open(missing, O_RDONLY)
            Issue.record("opening a missing file succeeded")
        } catch {
            #expect(error.call == "open" && error.errno == ENOENT && error.detail == missing)
            #expect(error.kind == .noDevice)
            #expect(error.description == "open \(missing): No such file or directory (errno 2)")
        }

        var ends: [Int32] = [-1, -1]
        #expect(pipe(&ends) == 0)
        defer { for fd in ends { close(fd) } }
        try Sys.setNonBlocking(ends[0])
        var buffer = [UInt8](repeating: 0, count: 4)
        do {
            _ = try Sys.read(ends[0], into: &buffer, "empty pipe")
            Issue.record("reading an empty non-blocking pipe succeeded")
        } catch {
            #expect(error.call == "read" && error.errno == EAGAIN && error.wouldBlock)
            #expect(error.description == "read empty pipe: Resource temporarily unavailable (errno 11)")
        }
        let bytes: [UInt8] = Array("hello".utf8)
        try Sys.writeAll(ends[1], bytes, "pipe")
        #expect(try Sys.read(ends[0], into: &buffer) == 4 && buffer == Array("hell".utf8))

        #expect(SystemError("poll", errno: EINVAL).description == "poll: Invalid argument (errno 22)")
        #expect(SystemError("libevdev_grab", errno: EBUSY).kind == .busy)
        #expect(SystemError("open", errno: EACCES).kind == .permissionDenied)
    }

    @Test func socketsSendEverythingAndAcceptReportsTheCall() throws {
        var pair: [Int32] = [-1, -1]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
        defer { for fd in pair { close(fd) } }
        let line = Array("ping\n".utf8)
        try Sys.sendAll(pair[0], line, flags: Int32(MSG_NOSIGNAL))
        var buffer = [UInt8](repeating: 0, count: 16)
        let n = try Sys.read(pair[1], into: &buffer)
        #expect(Array(buffer[0..<n]) == line)
        // A resumed non-blocking flush sends from an offset: only the tail arrives.
        #expect(try Sys.send(pair[0], line, from: 2, flags: Int32(MSG_NOSIGNAL)) == 3)
        #expect(try Sys.read(pair[1], into: &buffer) == 3 && Array(buffer[0..<3]) == Array("ng\n".utf8))
        // A connected socket is not listening: accept4 fails with EINVAL, named as accept4.
        do {
            _ = try Sys.accept(pair[1])
            Issue.record("accept on a connected socket succeeded")
        } catch {
            #expect(error.call == "accept4" && error.errno == EINVAL && error.kind == .other)
        }
        // The peer is gone: send reports EPIPE (MSG_NOSIGNAL: no SIGPIPE).
        close(pair[1])
        pair[1] = -1
        #expect(throws: SystemError("send", errno: EPIPE, detail: "peer")) {
            try Sys.send(pair[0], line, from: 2, flags: Int32(MSG_NOSIGNAL), "peer")
        }
    }

    @Test func pollReportsReadiness() throws {
        var ends: [Int32] = [-1, -1]
        #expect(pipe(&ends) == 0)
        defer { for fd in ends { close(fd) } }
        var fds = [pollfd(fd: ends[0], events: Int16(POLLIN), revents: 0)]
        #expect(try Sys.poll(&fds, timeoutMilliseconds: 0) == 0)
        var byte: UInt8 = 9
        #expect(write(ends[1], &byte, 1) == 1)
        #expect(try Sys.poll(&fds, timeoutMilliseconds: -1) == 1 && fds[0].revents & Int16(POLLIN) != 0)
    }

    // MARK: EBADF and EFAULT are bugs (swift-nio's isUnacceptableErrno)

    /// A descriptor the program does not own is its bug, not the environment's: the wrapper stops the
    /// program (before issue 32 it was thrown as a SystemError, and `close` ignored it).
    @Test func readingADescriptorThatIsNotOpenStopsTheProgram() async {
        await #expect(processExitsWith: .failure) {
            var buffer = [UInt8](repeating: 0, count: 4)
            _ = try? Sys.read(-1, into: &buffer)
        }
    }

    @Test func closingADescriptorTwiceStopsTheProgram() async {
        await #expect(processExitsWith: .failure) {
            var ends: [Int32] = [-1, -1]
            guard pipe(&ends) == 0 else { return }
            Sys.close(ends[0])
            Sys.close(ends[0])
        }
    }

    @Test func sendingFromMemoryThatIsNotTheProgramsStopsIt() async {
        await #expect(processExitsWith: .failure) {
            var pair: [Int32] = [-1, -1]
            guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0 else { return }
            // An address no mapping covers: the kernel answers EFAULT.
            let bad = UnsafeRawBufferPointer(start: UnsafeRawPointer(bitPattern: 8), count: 4)
            _ = try? Sys.send(pair[0], bad, flags: Int32(MSG_NOSIGNAL))
        }
    }

    /// The one question EBADF answers: whether an inherited descriptor number is open.
    @Test func isOpenAnswersWithoutStopping() throws {
        let (read, write) = try Sys.pipe(nonBlocking: true, closeOnExec: true)
        #expect(Sys.isOpen(read) && Sys.isOpen(write))
        #expect(fcntl(read, F_GETFL) & O_NONBLOCK != 0 && fcntl(write, F_GETFD) & FD_CLOEXEC != 0)
        Sys.close(read)
        Sys.close(write)
        #expect(!Sys.isOpen(read) && !Sys.isOpen(-1))
    }

    // MARK: The wrappers the other modules use

    @Test func filesAndDirectoriesGoThroughTheWrappers() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sys-\(UUID())").path
        try Sys.mkdir(directory, mode: 0o700)
        #expect(throws: SystemError("mkdir", errno: EEXIST, detail: directory)) {
            try Sys.mkdir(directory, mode: 0o700)
        }
        let file = directory + "/file"
        let fd = try Sys.open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode: 0o600)
        try Sys.writeAll(fd, Array("abc".utf8))
        #expect(try Sys.fstat(fd).st_size == 3)
        Sys.close(fd)
        #expect(try Sys.stat(file).st_mode & S_IFMT == S_IFREG)
        #expect(try Sys.lstat(file).st_mode & 0o777 == 0o600)
        #expect(Sys.access(file, R_OK) && !Sys.access(directory + "/missing", F_OK))
        #expect(try Sys.directoryEntries(directory) == ["file"])
        #expect(try Sys.realpath(directory + "/./file") == (try Sys.realpath(directory)) + "/file")
        let dirFD = try Sys.open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        try Sys.renameNoReplace(dirFD, "file", dirFD, "renamed")
        #expect(try Sys.fstatat(dirFD, "renamed", flags: AT_SYMLINK_NOFOLLOW).st_size == 3)
        let again = try Sys.openat(dirFD, "again", O_WRONLY | O_CREAT | O_CLOEXEC, mode: 0o600)
        Sys.close(again)
        // RENAME_NOREPLACE: never over an existing name.
        #expect(throws: SystemError("renameat2", errno: EEXIST, detail: "again")) {
            try Sys.renameNoReplace(dirFD, "renamed", dirFD, "again")
        }
        try Sys.unlinkat(dirFD, "again", flags: 0)
        Sys.close(dirFD)
        try Sys.unlink(directory + "/renamed")
        #expect(throws: SystemError("unlink", errno: ENOENT, detail: directory + "/renamed")) {
            try Sys.unlink(directory + "/renamed")
        }
        try Sys.rmdir(directory)
        #expect(try Sys.readlink("/proc/self/fd/0").isEmpty == false)
        let made = try Sys.makeTemporaryDirectory(prefix: directory + "-made-")
        #expect(made.hasPrefix(directory + "-made-") && made.count == directory.count + 12)
        #expect(try Sys.stat(made).st_mode & 0o777 == 0o700)
        try Sys.rmdir(made)
        #expect(try !Sys.hostName().isEmpty)
    }

    @Test func socketOptionsAndUnixAddresses() throws {
        var pair: [Int32] = [-1, -1]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
        defer { for fd in pair { Sys.close(fd) } }
        #expect(
            try Sys.getsockopt(pair[0], SOL_SOCKET, SO_TYPE, as: Int32.self, name: "SO_TYPE")
                == Int32(SOCK_STREAM.rawValue))
        let size = try Sys.getsockopt(pair[0], SOL_SOCKET, SO_SNDBUF, as: Int32.self, name: "SO_SNDBUF")
        try Sys.setsockopt(pair[0], SOL_SOCKET, SO_SNDBUF, size / 2, name: "SO_SNDBUF")
        #expect(try Sys.getsockopt(pair[0], SOL_SOCKET, SO_SNDBUF, as: Int32.self, name: "SO_SNDBUF") == size)
        let peer = try Sys.peerCredentials(pair[0])
        #expect(peer.pid == getpid() && peer.uid == geteuid())
        // Not a socket option this socket has: the environment's answer, thrown.
        #expect(throws: SystemError.self) {
            try Sys.getsockopt(pair[0], SOL_SOCKET, -1, as: Int32.self, name: "bogus")
        }

        let path = Sys.unixAddress("/run/x.sock")
        let offset = MemoryLayout<sockaddr_un>.offset(of: \.sun_path) ?? 2
        #expect(path?.length == socklen_t(offset + 12))
        let abstract = Sys.unixAddress("@notify", abstractNamespace: true)
        #expect(abstract?.length == socklen_t(offset + 7))
        #expect(abstract.map { withUnsafeBytes(of: $0.address.sun_path) { $0[0] } } == 0)
        #expect(Sys.unixAddress(String(repeating: "x", count: 108)) == nil)
    }

    @Test func groupsAndUsersComeFromTheNameService() throws {
        #expect(try Sys.groupID(named: "root") == 0)
        #expect(try Sys.userName(0) == "root")
        #expect(try Sys.groupID(named: "no-such-group-\(UInt32.random(in: 0...UInt32.max))") == nil)
    }
}
