import CLinuxSystem
import Glibc
// `Sys`, `SystemError` and the event descriptors (`Epoll`, `TimerFD`, `SignalFD`) live in the
// SystemCalls module, the one place system calls are made; re-exported so every file of the server,
// and its users, name them without another import.
@_exported import SystemCalls

/// What an epoll registration stands for: the closed set of things the daemon waits on.
enum LoopSource: Hashable, Sendable {
    /// The listening socket.
    case listener
    /// The signalfd (SIGTERM, SIGINT, SIGHUP).
    case signals
    /// The timerfd that paces a replay.
    case replayTimer
    /// The timerfd of the closing clients' grace deadlines.
    case graceTimer
    /// The systemd watchdog's periodic timerfd.
    case watchdogTimer
    /// Hotplug notifications (udev monitor or inotify).
    case hotplug
    /// The timerfd of the live devices' gesture deadlines.
    case deadlineTimer
    /// A live device, by daemon device id.
    case device(Int)
    /// A client connection, by client id.
    case client(Int)
}

/// One thing the loop woke up for. The daemon handles every case in one exhaustive switch.
enum LoopInput: Hashable, Sendable {
    /// Connections wait on the listening socket.
    case listenerReadable
    /// A signal arrived.
    case signal
    /// The replay's next step is due.
    case replayDue
    /// A closing client's grace time ran out.
    case graceDue
    /// Time to tell systemd we are alive.
    case watchdogDue
    /// Devices were added or removed (hotplug).
    case devicesChanged
    /// A live device's gesture deadline is due.
    case deadlineDue
    /// A live device has input.
    case deviceReadable(id: Int)
    /// A client connection is readable, writable, or gone (several at once are possible).
    case client(id: Int, readable: Bool, writable: Bool, hangUp: Bool)

    init(source: LoopSource, events: UInt32) {
        switch source {
        case .listener: self = .listenerReadable
        case .signals: self = .signal
        case .replayTimer: self = .replayDue
        case .graceTimer: self = .graceDue
        case .watchdogTimer: self = .watchdogDue
        case .hotplug: self = .devicesChanged
        case .deadlineTimer: self = .deadlineDue
        case .device(let id): self = .deviceReadable(id: id)
        case .client(let id):
            self = .client(
                id: id, readable: events & (EPOLLIN.rawValue | EPOLLRDHUP.rawValue) != 0,
                writable: events & EPOLLOUT.rawValue != 0, hangUp: events & (EPOLLERR.rawValue | EPOLLHUP.rawValue) != 0
            )
        }
    }
}

/// The loop: one epoll instance and what each registration stands for. Registrations get a fresh token
/// each, looked up on wake-up, so an event of a closed fd that was still in flight finds nothing rather
/// than a newer registration. Owned by the daemon's thread.
final class EventLoop {
    private let epoll: Epoll
    private var sources: [UInt64: LoopSource] = [:]
    private var tokens: [Int32: UInt64] = [:]
    private var nextToken: UInt64 = 1
    private let events: UnsafeMutableBufferPointer<epoll_event>

    init(capacity: Int = 64) throws(SystemError) {
        epoll = try Epoll()
        events = UnsafeMutableBufferPointer<epoll_event>.allocate(capacity: capacity)
    }

    deinit { events.deallocate() }

    /// Watches `fd` for `readable`/`writable` as `source`.
    func add(_ fd: Int32, _ source: LoopSource, readable: Bool = true, writable: Bool = false) throws(SystemError) {
        let token = nextToken
        nextToken &+= 1
        try epoll.add(fd, events: LoopInterest.mask(readable: readable, writable: writable), token: token)
        sources[token] = source
        tokens[fd] = token
    }

    /// Changes what `fd` is watched for (it keeps its source).
    func modify(_ fd: Int32, readable: Bool, writable: Bool) {
        guard let token = tokens[fd] else { return }
        try? epoll.modify(fd, events: LoopInterest.mask(readable: readable, writable: writable), token: token)
    }

    /// Stops watching `fd` (before it is closed).
    func remove(_ fd: Int32) {
        guard let token = tokens.removeValue(forKey: fd) else { return }
        sources[token] = nil
        epoll.remove(fd)
    }

    /// Waits (-1: without a timeout; the loop never polls) and returns what happened, in epoll's order.
    func wait(timeoutMilliseconds: Int32 = -1) throws(SystemError) -> [LoopInput] {
        var inputs: [LoopInput] = []
        try wait(into: &inputs, timeoutMilliseconds: timeoutMilliseconds)
        return inputs
    }

    /// Waits like `wait(timeoutMilliseconds:)` and puts what happened in `inputs` (its storage reused:
    /// the daemon's turn allocates nothing).
    func wait(into inputs: inout [LoopInput], timeoutMilliseconds: Int32 = -1) throws(SystemError) {
        inputs.removeAll(keepingCapacity: true)
        let n = try epoll.wait(into: events, timeoutMilliseconds: timeoutMilliseconds)
        for i in 0..<n {
            guard let source = sources[events[i].data.u64] else { continue }
            inputs.append(LoopInput(source: source, events: events[i].events))
        }
    }
}

/// The epoll masks for what a registration wants.
enum LoopInterest {
    static func mask(readable: Bool, writable: Bool) -> UInt32 {
        (readable ? Epoll.readable : 0) | (writable ? Epoll.writable : 0)
    }
}
