import CLinuxSystem
import Glibc

// TEMPORARY: stands in for `SystemdNotifier` / `SystemdSocketActivation` (SystemdNotify.swift, written by
// the configuration work) until it is merged; same API, different names, so the call sites switch by
// renaming. Protocol: sd_notify(3) datagrams to $NOTIFY_SOCKET, sd_listen_fds(3) ($LISTEN_PID,
// $LISTEN_FDS, fds from 3).

/// sd_notify(3) client.
struct ShimNotifier {
    private let path: String

    static func fromEnvironment() -> ShimNotifier? {
        guard let raw = getenv("NOTIFY_SOCKET") else { return nil }
        let path = String(cString: raw)
        guard path.hasPrefix("/") || path.hasPrefix("@") else { return nil }
        return ShimNotifier(path: path)
    }

    /// Half of WatchdogSec ($WATCHDOG_USEC, for this pid), the ping interval systemd recommends.
    var watchdogInterval: Duration? {
        guard let raw = getenv("WATCHDOG_USEC"), let usec = UInt64(String(cString: raw)), usec > 0 else { return nil }
        if let pidText = getenv("WATCHDOG_PID"), Int32(String(cString: pidText)) != getpid() { return nil }
        return .microseconds(Int64(usec / 2))
    }

    func ready() { send("READY=1") }
    func status(_ s: String) { send("STATUS=" + s) }
    func stopping() { send("STOPPING=1") }
    func watchdogPing() { send("WATCHDOG=1") }

    private func send(_ text: String) {
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return }
        defer { Sys.close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(path.utf8.prefix(107))
        let abstract = bytes.first == UInt8(ascii: "@")
        if abstract { bytes[0] = 0 }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in raw.copyBytes(from: bytes) }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (abstract ? 0 : 1))
        let payload = Array(text.utf8)
        _ = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
                payload.withUnsafeBytes { sendto(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL), sa, length) }
            }
        }
    }
}

/// sd_listen_fds(3).
enum ShimSocketActivation {
    static func listenFDs() -> [Int32] {
        guard let pidText = getenv("LISTEN_PID"), Int32(String(cString: pidText)) == getpid(),
            let countText = getenv("LISTEN_FDS"), let count = Int32(String(cString: countText)), count > 0
        else { return [] }
        return (0..<count).map { 3 + $0 }
    }
}
