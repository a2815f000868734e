import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Type=notify: the daemon talks to $NOTIFY_SOCKET like systemd expects (sd_notify(3)).
@Suite("multitouchd and systemd notify")
struct NotifyTests {
    /// A datagram socket standing in for systemd's notify socket.
    final class FakeSystemd {
        let fd: Int32
        let path: String

        init(path: String) {
            self.path = path
            fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8) + [0]) }
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            // Waits end on the datagram looked for; this only turns a hung daemon into a failure.
            var timeout = timeval(tv_sec: hangBackstopSeconds, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        }

        /// The next datagram (nil after `hangBackstopSeconds` of silence).
        func next() -> String? {
            var buffer = [UInt8](repeating: 0, count: 4096)
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            return n > 0 ? String(decoding: buffer[0..<n], as: UTF8.self) : nil
        }

        /// Datagrams until one contains `text` (or silence).
        func waitFor(_ text: String) -> [String] {
            var seen: [String] = []
            while let message = next() {
                seen.append(message)
                if message.contains(text) { break }
            }
            return seen
        }

        deinit { close(fd) }
    }

    @Test func readyStatusWatchdogAndStopping() throws {
        let dir = TemporaryDirectory()
        let systemd = FakeSystemd(path: dir.file("notify"))
        let daemon = try DaemonProcess(
            directory: dir, arguments: [],
            environment: ["NOTIFY_SOCKET": systemd.path, "WATCHDOG_USEC": "200000"])
        let start = systemd.waitFor("READY=1")
        #expect(start.last?.contains("READY=1") == true)
        let status = systemd.waitFor("STATUS=")
        #expect(status.last?.contains("client") == true)
        // Half of WatchdogSec (200 ms): pings keep coming from the loop's own timer.
        let pings = systemd.waitFor("WATCHDOG=1")
        #expect(pings.last == "WATCHDOG=1")
        daemon.signal(SIGTERM)
        let end = systemd.waitFor("STOPPING=1")
        #expect(end.last?.contains("STOPPING=1") == true)
        #expect(daemon.waitForExit() == 0)
    }
}
