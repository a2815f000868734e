import CLibevdev
import Glibc

/// Signals as a readable fd (signalfd(2)), so a poll/epoll loop handles SIGINT/SIGTERM like input and
/// ends cleanly (touches cancelled, files written) instead of dying mid-write. The signals are blocked
/// for normal delivery while this exists.
public final class SignalDescriptor {
    public let fileDescriptor: Int32

    public init(signals: [Int32] = [SIGINT, SIGTERM]) throws(DeviceInputError) {
        var mask = sigset_t()
        sigemptyset(&mask)
        for signal in signals { sigaddset(&mask, signal) }
        guard sigprocmask(SIG_BLOCK, &mask, nil) == 0 else {
            throw DeviceInputError(call: "sigprocmask", path: "signals", errno: errno)
        }
        let fd = signalfd(-1, &mask, Int32(SFD_NONBLOCK | SFD_CLOEXEC))
        guard fd >= 0 else { throw DeviceInputError(call: "signalfd", path: "signals", errno: errno) }
        fileDescriptor = fd
    }

    deinit { close(fileDescriptor) }

    /// The signal numbers received since the last call (empty when none).
    public func receive() -> [Int32] {
        var result: [Int32] = []
        var info = signalfd_siginfo()
        while true {
            let n = withUnsafeMutableBytes(of: &info) { Glibc.read(fileDescriptor, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n == MemoryLayout<signalfd_siginfo>.size else { return result }
            result.append(Int32(bitPattern: info.ssi_signo))
        }
    }
}
