import CLinuxSystem
import Logging

#if canImport(Glibc)
import Glibc
#endif

/// Keeps accepting from spinning when the daemon runs out of file descriptors.
///
/// `accept` fails with EMFILE (or ENFILE, the system-wide limit) while the connection stays queued, so
/// the level-triggered listener is readable again at once: with `max_clients` above the open-file
/// limit, issue 11 measured 5 s of CPU in 5 s and 690,000 log lines. Two measures:
///
/// - `maximumClients(configured:descriptorLimit:)`: at start and on reload, `max_clients` is limited
///   to what the open-file limit leaves after the daemon's own descriptors, and the daemon says so.
/// - The reserve: one descriptor (on /dev/null) is held back. On EMFILE it is freed so the waiting
///   connection can be accepted, told `too-many-clients` and closed, then taken back (the spare
///   descriptor idea libev's documentation describes for accept). If even that fails, the daemon stops
///   watching the listener until a client leaves. Either way the warning is logged at most once a
///   minute, with the number of connections refused since.
///
/// Not thread-safe; owned by the daemon's loop.
struct DescriptorReserve {
    /// Descriptors the daemon keeps for itself besides clients: standard streams, epoll, signalfd, the
    /// timers, the listener, udev and inotify, the reserve, and one per input device.
    static let keptForDaemon = 64
    /// Shortest interval between two "out of file descriptors" warnings.
    static let warningIntervalNanoseconds: UInt64 = 60_000_000_000

    private var spare: Int32 = -1
    /// Set while the listener is out of epoll because not even the reserve could take a connection.
    private(set) var listenerPaused = false
    private var lastWarning: UInt64?
    private var refusedSinceWarning = 0

    init() {
        spare = Self.openSpare()
    }

    /// A descriptor held in reserve (/dev/null), -1 when even that cannot be opened.
    private static func openSpare() -> Int32 {
        (try? Sys.open("/dev/null", O_RDONLY | O_CLOEXEC)) ?? -1
    }

    /// `configured` limited to the clients `descriptorLimit` (RLIMIT_NOFILE's soft limit) leaves room
    /// for, at least 1; `clamped` says whether it had to be lowered.
    static func maximumClients(configured: Int, descriptorLimit: Int) -> (value: Int, clamped: Bool) {
        let room = max(1, descriptorLimit - keptForDaemon)
        return configured > room ? (room, true) : (configured, false)
    }

    /// The soft open-file limit of this process; nil when unlimited (RLIM_INFINITY, all ones) or unknown.
    static func currentDescriptorLimit() -> Int? {
        (try? Sys.descriptorLimit()) ?? nil
    }

    /// What the daemon does after `accept` failed with EMFILE or ENFILE.
    enum Outcome: Equatable {
        /// A waiting connection was accepted with the reserve, told why, and closed: try the next.
        case refusedOne
        /// No connection was waiting: EMFILE comes before the kernel looks at the queue, so it is also
        /// the answer to the accept that would have said EAGAIN. Wait for the listener's next wake-up.
        case nothingWaiting
        /// Nothing could be accepted: the listener must leave epoll until a client disconnects.
        case pauseListener
    }

    /// Handles EMFILE/ENFILE (`code`) from accepting on `listenFD`: refuses one waiting connection
    /// with `refusal` (a whole protocol line) using the reserve descriptor, or asks for a pause.
    /// - Parameter now: CLOCK_MONOTONIC nanoseconds, for the rate limit of the warning.
    mutating func handleExhaustion(
        code: Int32, listenFD: Int32, refusal: [UInt8], now: UInt64, logger: Logger
    ) -> Outcome {
        var outcome = Outcome.pauseListener
        if spare >= 0 {
            Sys.close(spare)
            spare = -1
            do {
                let fd = try Sys.accept(listenFD)
                _ = refusal.withUnsafeBytes { try? Sys.send(fd, $0, flags: Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
                Sys.close(fd)
                refusedSinceWarning += 1
                outcome = .refusedOne
            } catch  where error.errno != EMFILE && error.errno != ENFILE {
                outcome = .nothingWaiting
            } catch {
                // Still out of descriptors with the reserve given back: pause the listener.
            }
            spare = Self.openSpare()
        }
        if outcome == .nothingWaiting { return outcome }
        if outcome == .pauseListener { listenerPaused = true }
        if lastWarning.map({ now &- $0 >= Self.warningIntervalNanoseconds }) ?? true {
            logger.warning(
                "socket: out of file descriptors; refusing connections until a client leaves",
                metadata: [
                    "error": "\(SystemError("accept4", errno: code))",
                    "refused_since_last_warning": "\(refusedSinceWarning)",
                    "listener_paused": "\(listenerPaused)",
                ])
            lastWarning = now
            refusedSinceWarning = 0
        }
        return outcome
    }

    /// A client left: a paused listener may go back into epoll. Returns whether it was paused.
    mutating func clientLeft() -> Bool {
        defer { listenerPaused = false }
        return listenerPaused
    }
}

extension ClientHub {
    /// Lowers `max_clients` to what the open-file limit leaves room for, and says so (start and reload).
    func limitMaximumClientsToDescriptors() {
        guard let limit = DescriptorReserve.currentDescriptorLimit() else { return }
        let configured = configuration.maximumClients
        let (value, clamped) = DescriptorReserve.maximumClients(configured: configured, descriptorLimit: limit)
        guard clamped else { return }
        configuration.maximumClients = value
        logger.warning(
            "config: clients.max_clients is above what the open-file limit allows; serving fewer clients",
            metadata: [
                "clients.max_clients": "\(configured)", "clients.served": "\(value)",
                "rlimit.nofile": "\(limit)", "kept_for_daemon": "\(DescriptorReserve.keptForDaemon)",
            ])
    }
}
