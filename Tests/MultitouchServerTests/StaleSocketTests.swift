import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The stale-socket check at start never blocks, whatever listens on the path.
@Suite("multitouchd stale-socket check")
struct StaleSocketTests {
    /// A listener that never accepts (a stopped daemon) with its backlog full: a blocking connect
    /// waited for room for ever, so a second daemon hung in its start. It must refuse at once, naming why.
    @Test func aListenerWithAFullBacklogIsRefusedWithoutWaiting() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("mtd.sock")
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        #expect(listener >= 0)
        defer { close(listener) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8) + [0]) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        #expect(bound == 0)
        #expect(listen(listener, 0) == 0)
        // Fill the backlog: non-blocking connects until the kernel says EAGAIN.
        var queued: [Int32] = []
        defer { for fd in queued { close(fd) } }
        while queued.count < 64 {
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            let result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            if result != 0 {
                let code = errno
                close(fd)
                #expect(code == EAGAIN, "connect: errno \(code)")
                break
            }
            queued.append(fd)
        }

        let daemon = try DaemonProcess(directory: dir, arguments: [], waitForSocket: false)
        // The daemon's exit is the signal; a daemon stuck in connect(2) fails at the hang backstop.
        guard daemon.logEventuallyContains("not accepting") else {
            Issue.record("the daemon did not refuse: \(daemon.log)")
            return
        }
        #expect(daemon.waitForExit() != 0)
        #expect(daemon.log.contains("refusing to start a second one"))
    }
}
