import Foundation
import Testing

@testable import MultitouchServer

#if canImport(Glibc)
import Glibc
#endif

/// A bound datagram socket standing in for systemd's notification socket.
final class NotifyListener {
    let fd: Int32
    /// The NOTIFY_SOCKET spelling: a path, or `@name` for the abstract namespace.
    let notifyPath: String
    private let filePath: String?

    /// Binds a socket at a fresh path in a temporary directory, or a fresh abstract name.
    init(abstract: Bool) throws {
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        let unique = "mtd-notify-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var bytes: [UInt8]
        if abstract {
            notifyPath = "@" + unique
            filePath = nil
            bytes = [0] + Array(unique.utf8)
        } else {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(unique).path
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            notifyPath = directory + "/notify"
            filePath = notifyPath
            bytes = Array(notifyPath.utf8) + [0]
        }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let length = socklen_t(2 + bytes.count - (abstract ? 0 : 1))
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard result == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }

    /// The next datagram, without waiting: a unix datagram is queued before sendto returns.
    func receive() -> String? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
        guard count >= 0 else { return nil }
        return String(decoding: buffer[0..<count], as: UTF8.self)
    }

    deinit {
        close(fd)
        if let filePath {
            unlink(filePath)
            rmdir((filePath as NSString).deletingLastPathComponent)
        }
    }
}

@Suite struct SystemdNotifierTests {
    @Test(arguments: [false, true])
    func messagesArriveAsDatagrams(abstract: Bool) throws {
        let listener = try NotifyListener(abstract: abstract)
        let notifier = try #require(SystemdNotifier(socketPath: listener.notifyPath))
        try notifier.ready(status: "serving 1 device")
        #expect(listener.receive() == "READY=1\nSTATUS=serving 1 device")
        try notifier.ready()
        #expect(listener.receive() == "READY=1")
        try notifier.status("2 clients")
        #expect(listener.receive() == "STATUS=2 clients")
        try notifier.watchdogPing()
        #expect(listener.receive() == "WATCHDOG=1")
        try notifier.stopping()
        #expect(listener.receive() == "STOPPING=1")
        try notifier.reloading()
        let reloading = listener.receive() ?? ""
        #expect(reloading.hasPrefix("RELOADING=1\nMONOTONIC_USEC="))
        #expect(UInt64(reloading.split(separator: "=").last ?? "") != nil)
        #expect(listener.receive() == nil)
    }

    @Test func sendingToAMissingSocketThrowsWithErrno() throws {
        let notifier = try #require(SystemdNotifier(socketPath: "/nonexistent-dir-\(getpid())/notify"))
        #expect(throws: SystemError.self) { try notifier.ready() }
        do {
            try notifier.ready()
        } catch {
            #expect(error.call == "sendto")
            #expect(error.errno == ENOENT)
            #expect(
                error.description == "sendto /nonexistent-dir-\(getpid())/notify: No such file or directory (errno 2)")
        }
    }

    @Test func malformedAssignmentsAreRefused() throws {
        let listener = try NotifyListener(abstract: false)
        let notifier = try #require(SystemdNotifier(socketPath: listener.notifyPath))
        #expect(throws: SystemError.self) { try notifier.status("two\nlines") }
        #expect(throws: SystemError.self) { try notifier.send(["READY"]) }
        #expect(listener.receive() == nil)
    }

    @Test func onlyPathsAndAbstractNamesAreAccepted() {
        #expect(SystemdNotifier(socketPath: "/run/systemd/notify") != nil)
        #expect(SystemdNotifier(socketPath: "@/org/freedesktop/systemd1/notify/1") != nil)
        #expect(SystemdNotifier(socketPath: "relative/notify") == nil)
        #expect(SystemdNotifier(socketPath: "vsock:2:1234") == nil)
        #expect(SystemdNotifier(socketPath: "@") == nil)
        #expect(SystemdNotifier(socketPath: "") == nil)
        #expect(SystemdNotifier(socketPath: "/" + String(repeating: "x", count: 107)) == nil)
    }

    @Test func watchdogIntervalFollowsSdWatchdogEnabled() {
        let own: pid_t = 4242
        #expect(SystemdNotifier.watchdogInterval(microseconds: "10000000", pid: nil, ownPID: own) == .seconds(10))
        #expect(SystemdNotifier.watchdogInterval(microseconds: "2500", pid: "4242", ownPID: own) == .microseconds(2500))
        #expect(SystemdNotifier.watchdogInterval(microseconds: "2500", pid: "4243", ownPID: own) == nil)
        #expect(SystemdNotifier.watchdogInterval(microseconds: "2500", pid: "x", ownPID: own) == nil)
        #expect(SystemdNotifier.watchdogInterval(microseconds: "0", pid: nil, ownPID: own) == nil)
        #expect(SystemdNotifier.watchdogInterval(microseconds: "-5", pid: nil, ownPID: own) == nil)
        #expect(SystemdNotifier.watchdogInterval(microseconds: "ten", pid: nil, ownPID: own) == nil)
        #expect(SystemdNotifier.watchdogInterval(microseconds: nil, pid: "4242", ownPID: own) == nil)
    }

    @Test func listenDescriptorCountFollowsSdListenFds() {
        let own: pid_t = 77
        #expect(SystemdSocketActivation.descriptorCount(pid: "77", fds: "1", ownPID: own) == 1)
        #expect(SystemdSocketActivation.descriptorCount(pid: "77", fds: "3", ownPID: own) == 3)
        #expect(SystemdSocketActivation.descriptorCount(pid: "78", fds: "1", ownPID: own) == 0)
        #expect(SystemdSocketActivation.descriptorCount(pid: nil, fds: "1", ownPID: own) == 0)
        #expect(SystemdSocketActivation.descriptorCount(pid: "77", fds: nil, ownPID: own) == 0)
        #expect(SystemdSocketActivation.descriptorCount(pid: "77", fds: "0", ownPID: own) == 0)
        #expect(SystemdSocketActivation.descriptorCount(pid: "77", fds: "-1", ownPID: own) == 0)
        #expect(SystemdSocketActivation.descriptorCount(pid: "77", fds: "many", ownPID: own) == 0)
    }
}

/// Tests that set process environment variables run one at a time.
@Suite(.serialized) struct SystemdEnvironmentTests {
    @Test func notifierFromEnvironment() throws {
        let listener = try NotifyListener(abstract: true)
        setenv("NOTIFY_SOCKET", listener.notifyPath, 1)
        setenv("WATCHDOG_USEC", "4000000", 1)
        setenv("WATCHDOG_PID", String(getpid()), 1)
        defer { for name in ["NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID"] { unsetenv(name) } }

        let notifier = try #require(SystemdNotifier.fromEnvironment())
        #expect(notifier.socketPath == listener.notifyPath)
        #expect(notifier.watchdogInterval == .seconds(4))
        #expect(notifier.watchdogPingInterval == .seconds(2))
        try notifier.ready()
        #expect(listener.receive() == "READY=1")
        #expect(getenv("NOTIFY_SOCKET") != nil)

        _ = SystemdNotifier.fromEnvironment(unsetEnvironment: true)
        #expect(getenv("NOTIFY_SOCKET") == nil)
        #expect(getenv("WATCHDOG_USEC") == nil)
        #expect(SystemdNotifier.fromEnvironment() == nil)
    }

    @Test func listenFDsTakesPassedSocketsOnce() throws {
        // Two sockets at consecutive descriptors play systemd's fds 3 and 4. Other tests open
        // descriptors in parallel, so move them high up, to a pair nothing else uses.
        let listenSocket = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        let datagramSocket = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        defer {
            close(listenSocket)
            close(datagramSocket)
        }
        try #require(listenSocket >= 0 && datagramSocket >= 0)
        var listening: Int32 = -1
        var base: Int32 = 700
        while listening < 0 && base < 1000 {
            // F_DUPFD (not F_DUPFD_CLOEXEC): the copies start without close-on-exec, like systemd's.
            if fcntl(base, F_GETFD) < 0 && fcntl(base + 1, F_GETFD) < 0 && fcntl(listenSocket, F_DUPFD, base) == base {
                listening = base
            }
            base += 2
        }
        try #require(listening >= 0)
        let datagram = dup2(datagramSocket, listening + 1)
        defer {
            close(listening)
            close(datagram)
        }
        try #require(datagram == listening + 1)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)  // autobind: an abstract name the kernel picks
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listening, $0, socklen_t(2)) }
        }
        try #require(bound == 0 && listen(listening, 4) == 0)
        #expect(fcntl(listening, F_GETFD) & FD_CLOEXEC == 0)

        setenv("LISTEN_PID", String(getpid()), 1)
        setenv("LISTEN_FDS", "2", 1)
        setenv("LISTEN_FDNAMES", "multitouchd.socket:extra", 1)
        let descriptors = SystemdSocketActivation.listenFDs(startingAt: listening)
        #expect(descriptors == [listening, datagram])
        #expect(fcntl(listening, F_GETFD) & FD_CLOEXEC != 0)
        #expect(fcntl(datagram, F_GETFD) & FD_CLOEXEC != 0)
        #expect(getenv("LISTEN_PID") == nil)
        #expect(getenv("LISTEN_FDS") == nil)
        #expect(getenv("LISTEN_FDNAMES") == nil)
        #expect(SystemdSocketActivation.isListeningUnixStreamSocket(listening))
        #expect(!SystemdSocketActivation.isListeningUnixStreamSocket(datagram))
        #expect(!SystemdSocketActivation.isListeningUnixStreamSocket(-1))
        // Taken once: the variables are gone.
        #expect(SystemdSocketActivation.listenFDs(startingAt: listening).isEmpty)
    }

    @Test func listenFDsIgnoresAnotherProcessesSockets() {
        setenv("LISTEN_PID", String(getpid() + 1), 1)
        setenv("LISTEN_FDS", "1", 1)
        #expect(SystemdSocketActivation.listenFDs().isEmpty)
        #expect(getenv("LISTEN_FDS") == nil)
    }
}
