import CLinuxSystem
import Glibc
import Logging
import WireProtocol

/// Accepting connections, one job: a bounded number per wake-up (a storm cannot starve devices), the
/// spare descriptor that refuses a connection politely when the process is out of descriptors, and the
/// listener paused until a client leaves when not even that works (DescriptorLimit.swift). What to do
/// with an accepted socket is the caller's (`ClientHub.adopt`).
final class ConnectionAcceptor {
    private unowned let watcher: any ClientSocketWatcher
    private let clock: () -> UInt64
    private var descriptorReserve = DescriptorReserve()
    /// The listener while it is out of the loop because not even the reserve could accept.
    private var pausedListenFD: Int32?

    init(watcher: any ClientSocketWatcher, clock: @escaping () -> UInt64) {
        self.watcher = watcher
        self.clock = clock
    }

    /// Accepts what is waiting on `listenFD`, handing each socket and its peer to `adopt`.
    func accept(listenFD: Int32, logger: Logger, adopt: (Int32, PeerCredentials?) -> Void) {
        for _ in 0..<16 {
            let fd: Int32
            do {
                fd = try Sys.accept(listenFD)
            } catch {
                let code = error.errno
                if error.wouldBlock || code == ECONNABORTED { return }
                if code == EMFILE || code == ENFILE {
                    let outcome = descriptorReserve.handleExhaustion(
                        code: code, listenFD: listenFD,
                        refusal: Self.refusal("the daemon is out of file descriptors"), now: clock(), logger: logger)
                    switch outcome {
                    case .refusedOne: continue
                    case .nothingWaiting: return
                    case .pauseListener:
                        watcher.unwatch(fd: listenFD)
                        pausedListenFD = listenFD
                        return
                    }
                }
                logger.error("socket: accept failed", metadata: ["error": "\(error)"])
                return
            }
            adopt(fd, PeerCredentials.of(fd: fd))
        }
    }

    /// A client left: a paused listener goes back in the loop once the reserve is restored.
    func clientLeft() {
        if descriptorReserve.clientLeft(), let listenFD = pausedListenFD.take() { watcher.watchListener(fd: listenFD) }
    }

    /// Refuses a connection: one `too-many-clients` error line, sent without blocking, then closed.
    static func refuse(_ fd: Int32, _ why: String) {
        let line = refusal(why)
        // Best effort: a peer that is gone or has no room just misses the line.
        _ = line.withUnsafeBytes { try? Sys.send(fd, $0, flags: Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
        Sys.close(fd)
    }

    /// The `too-many-clients` line a refused connection gets.
    static func refusal(_ why: String) -> [UInt8] {
        var line: [UInt8] = []
        Message.error(ErrorMessage(.tooManyClients, why)).encode(into: &line)
        return line
    }
}
