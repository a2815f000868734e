import CLinuxSystem
import Configuration
import Glibc
import Logging
import Publishing
import WireProtocol

/// The clients' sockets, one job: admitting a connection (the client limits, the watch), reading its
/// request lines, queueing output under the hard limit and flushing it as the socket takes it, and
/// closing (the grace for a last line, the grace timer's deadline, shutdown). What a request means and
/// what is published are not its business (`RequestServer`, `ClientFanOut`). Time comes from `clock`
/// (monotonic ns); tests drive it with socket pairs. Owned by the loop thread.
final class ClientConnections {
    var configuration: ClientsConfiguration
    var logger: Logger
    private let clock: () -> UInt64
    private unowned let watcher: any ClientSocketWatcher
    private(set) var clients: [Int: ClientSession] = [:]
    private var nextClientID = 1
    /// Accepting connections (the descriptor reserve, the paused listener).
    private let acceptor: ConnectionAcceptor
    private var readScratch = [UInt8](repeating: 0, count: 64 * 1024)
    /// Clients with request lines left over after their share of a turn, in the order they are served
    /// next (round-robin: a client goes to the back after its share).
    private var backlogged: [Int] = []
    /// The turn's backlog being served, and the dirty clients being flushed: swapped with
    /// `backlogged` and `dirty` (an array copied and then emptied would allocate every turn).
    private var waiting: [Int] = []
    private var ready: [ClientSession] = []
    /// Counts loop turns (`serveBacklog` ends one), so a client gets one share per turn.
    private var turn: UInt64 = 1
    /// Open `batch` calls; while any is open, output is written when the outermost ends.
    private var batchDepth = 0
    /// Clients with output queued during the open batch, each once.
    private var dirty: [ClientSession] = []
    /// A request line is being served: what it makes (replies, notices to the others) is written at
    /// the end of the batch.
    private var servingRequest = false

    /// Request lines served per connection per loop turn (issue 28). Connections take turns: with 16
    /// connections flooding, a turn serves at most 16 x 32 lines (a few milliseconds in a debug build)
    /// before every other client's input is looked at again.
    static let requestsPerTurn = 32

    /// A client is leaving (removed, its socket not yet closed): what others derived from it goes.
    var clientLeaving: ((ClientSession) -> Void)?
    /// A client left (the systemd status line counts them).
    var clientsChanged: (() -> Void)?
    /// The set of closing clients (and so `nextCloseDeadline`) may have changed.
    var closingChanged: (() -> Void)?

    /// Five seconds for a client that is slow, not dead, to read its last line (the reason).
    static let closeGraceNanoseconds: UInt64 = 5_000_000_000
    /// Dropping a queue this large hands the freed heap back to the system.
    static let releaseMemoryAfterBytes = 1024 * 1024

    init(
        configuration: ClientsConfiguration, logger: Logger, watcher: any ClientSocketWatcher,
        clock: @escaping () -> UInt64
    ) {
        self.configuration = configuration
        self.logger = logger
        self.watcher = watcher
        self.clock = clock
        acceptor = ConnectionAcceptor(watcher: watcher, clock: clock)
    }

    var hasPendingOutput: Bool { clients.values.contains(where: \.hasPendingOutput) }
    /// Some client has request lines waiting for its next share: the loop must not block.
    var hasBacklog: Bool { !backlogged.isEmpty }
    /// The earliest grace deadline of a closing client, for the daemon's grace timer.
    var nextCloseDeadline: UInt64? { clients.values.filter(\.closing).map(\.closeDeadline).min() }
    /// The client is connected and not closing: it is served.
    func isServed(_ client: ClientSession) -> Bool { clients[client.id] != nil && !client.closing }

    // MARK: Admitting

    /// Accepts waiting connections (`ConnectionAcceptor`), handing each to `adopt`.
    func accept(listenFD: Int32, adopt: (Int32, PeerCredentials?) -> Void) {
        acceptor.accept(listenFD: listenFD, logger: logger, adopt: adopt)
    }

    /// Takes over a connected, non-blocking socket: refused with `too-many-clients` when full, else
    /// watched with the rights `grant` gives it (asked only for a connection that is served: it may
    /// read the peer's groups). Returns the new session, nil when refused.
    func admit(fd: Int32, peer: PeerCredentials?, grant: () -> AccessGrant) -> ClientSession? {
        if clients.count >= configuration.maximumClients {
            logger.warning("client: refused, too many clients", metadata: ["peer": "\(peer?.description ?? "unknown")"])
            ConnectionAcceptor.refuse(fd, "the daemon serves at most \(configuration.maximumClients) clients")
            return nil
        }
        if let peer, clients.values.count(where: { $0.peer?.uid == peer.uid }) >= configuration.maximumClientsPerUser {
            logger.warning("client: refused, too many clients of one user", metadata: ["peer": "\(peer)"])
            ConnectionAcceptor.refuse(
                fd,
                "the daemon serves at most \(configuration.maximumClientsPerUser) clients of one user (uid \(peer.uid))"
            )
            return nil
        }
        let client = ClientSession(id: nextClientID, fd: fd, peer: peer, grant: grant())
        nextClientID += 1
        do {
            try watcher.watch(client: client.id, fd: fd)
        } catch {
            logger.error("socket: cannot watch client", metadata: ["error": "\(error)"])
            Sys.close(fd)
            return nil
        }
        clients[client.id] = client
        logger.info(
            "client: connected",
            metadata: [
                "client.id": "\(client.id)", "client.pid": "\(peer?.pid ?? -1)",
                "client.uid": "\(peer?.uid ?? UInt32.max)", "client.gid": "\(peer?.gid ?? UInt32.max)",
            ])
        return client
    }

    /// What epoll reported for client `id`: a read (once the last one is served), then one share of
    /// its request lines (`requestsPerTurn`) to `serve` while the client is served; the rest waits for
    /// `serveBacklog`. Output it causes is written once, when the outermost `batch` ends.
    func handle(client id: Int, readable: Bool, writable: Bool, hangUp: Bool, serve: ([UInt8], ClientSession) -> Void) {
        guard let client = clients[id] else { return }
        if hangUp {
            disconnect(client, reason: "connection closed")
            return
        }
        if writable {
            flush(client)
            if clients[client.id] == nil { return }
        }
        guard readable && !client.closing else { return }
        if case .closed = client.read(scratch: &readScratch) {
            // The peer finished sending (EOF): answer what it asked, then close.
            beginClosing(client)
            return
        }
        batch { serveShare(client, serve) }
    }

    /// Ends a loop turn: each backlogged client not yet served in it gets one share of its lines, in
    /// round-robin order, and their output is written once.
    func serveBacklog(_ serve: ([UInt8], ClientSession) -> Void) {
        defer { turn &+= 1 }
        guard !backlogged.isEmpty else { return }
        swap(&waiting, &backlogged)
        backlogged.removeAll(keepingCapacity: true)
        defer { waiting.removeAll(keepingCapacity: true) }
        batch {
            for id in waiting {
                guard let client = clients[id] else { continue }
                if client.servedTurn == turn {
                    // Served by its own event this turn: it keeps its place for the next.
                    if client.hasBacklog && !backlogged.contains(id) { backlogged.append(id) }
                    continue
                }
                serveShare(client, serve)
            }
        }
    }

    /// Runs `body`, writing the replies it queues once at the end (one write per client per turn, not
    /// one per reply: a flood of tiny requests costs one syscall a turn, not one each). Nests.
    func batch<T>(_ body: () -> T) -> T {
        batchDepth += 1
        let result = body()
        batchDepth -= 1
        if batchDepth == 0 {
            // A flush can close a client (its last line written), never add to `dirty`.
            if !dirty.isEmpty {
                swap(&ready, &dirty)
                for client in ready {
                    client.flushPending = false
                    guard clients[client.id] === client, !client.wantsWritable else { continue }
                    flush(client)
                }
                ready.removeAll(keepingCapacity: true)
            }
        }
        return result
    }

    /// One share of `client`'s lines; a client with lines left stops being read (its socket buffer,
    /// not the daemon, holds the rest) and waits in `backlogged`; one with none is read again.
    private func serveShare(_ client: ClientSession, _ serve: ([UInt8], ClientSession) -> Void) {
        client.servedTurn = turn
        switch client.takeLines(limit: Self.requestsPerTurn, maximumLineBytes: configuration.maximumLineBytes) {
        case .closed:
            beginClosing(client)
            return
        case .lineTooLong:
            logger.notice("client: request line too long; closing", metadata: ["client.id": "\(client.id)"])
            fail(
                client, .lineTooLong,
                "request line longer than \(configuration.maximumLineBytes) bytes (newline included)")
            return
        case .lines(let lines):
            servingRequest = true
            defer { servingRequest = false }
            for line in lines {
                guard isServed(client) else { return }
                serve(line, client)
            }
        }
        guard isServed(client) else { return }
        let paused = client.hasBacklog
        if paused && !backlogged.contains(client.id) { backlogged.append(client.id) }
        if paused != client.readPaused {
            client.readPaused = paused
            watcher.update(fd: client.fd, readable: !paused, writable: client.wantsWritable)
        }
    }

    /// Writes `client`'s replies now, or at the end of the open batch.
    private func flushSoon(_ client: ClientSession) {
        guard batchDepth > 0 else {
            if !client.wantsWritable { flush(client) }
            return
        }
        guard !client.flushPending else { return }
        client.flushPending = true
        dirty.append(client)
    }

    // MARK: Output

    /// Queues what the client takes of a published batch (`Subscriber.take`) and writes what the socket
    /// takes; a queue over the hard limit ends the connection. Returns true when any message was for it.
    @discardableResult
    func deliver(_ batch: Publisher.Batch, to client: ClientSession) -> Bool {
        guard client.subscriber.take(batch, softLimit: configuration.softQueueLimit) else { return false }
        queued(for: client)
        return true
    }

    /// Queues messages for this client alone (a frame) and writes what the socket takes.
    func deliver(own messages: [OutboundMessage], to client: ClientSession) {
        client.subscriber.take(own: messages, softLimit: configuration.softQueueLimit)
        queued(for: client)
    }

    /// After queueing: a queue over the hard limit ends the connection, else what the socket takes is
    /// written now.
    private func queued(for client: ClientSession) {
        if client.pendingBytes > configuration.hardQueueLimitBytes {
            logger.warning(
                "client: queue over the hard limit; disconnecting",
                metadata: [
                    "client.id": "\(client.id)", "client.pid": "\(client.peer?.pid ?? -1)",
                    "client.queued_bytes": "\(client.pendingBytes)",
                    "client.dropped": "\(client.subscriber.queue.droppedTotal)",
                ])
            fail(
                client, .queueOverflow,
                "client queue passed \(configuration.hardQueueLimitBytes) bytes (the client does not read fast enough); disconnecting"
            )
            return
        }
        // The devices' output is written at once, as before: held to the end of the turn it would pile
        // up past the soft limit and coalesce (a replay step can publish many frames), and the fan-out's
        // latency counts a batch written when it is in the socket. What a request makes (its answer from
        // a device's pipeline, a transform notice to every other client) waits for the turn's end, like
        // the replies.
        if servingRequest { flushSoon(client) } else if !client.wantsWritable { flush(client) }
    }

    /// Queues a reply (never coalesced) and writes what the socket takes (at the end of the batch).
    func reply(to client: ClientSession, _ message: Message) {
        client.subscriber.queue.enqueue(.reply(message), softLimit: .max)
        if client.pendingBytes > configuration.hardQueueLimitBytes {
            fail(
                client, .queueOverflow, "client queue passed \(configuration.hardQueueLimitBytes) bytes; disconnecting")
            return
        }
        flushSoon(client)
    }

    private func flush(_ client: ClientSession) {
        let result = client.flush { message, missed in
            var bytes: [UInt8] = []
            Message.dropped(
                DroppedMessage(
                    device: message.device == 0 ? nil : message.device, time: nil, count: missed, unit: .messages,
                    reason: "client queue full")
            ).encode(into: &bytes)
            return bytes
        }
        switch result {
        case .drained:
            if client.closing {
                disconnect(client, reason: "closed after final message")
                return
            }
            setWritableInterest(client, false)
        case .blocked:
            setWritableInterest(client, true)
        case .failed:
            disconnect(client, reason: "write failed (peer gone)")
        }
    }

    private func setWritableInterest(_ client: ClientSession, _ wanted: Bool) {
        guard client.wantsWritable != wanted else { return }
        client.wantsWritable = wanted
        watcher.update(fd: client.fd, readable: !client.closing && !client.readPaused, writable: wanted)
    }

    // MARK: Closing

    /// Sends a fatal error as the client's last line and closes it (after the line is written or the
    /// grace time, whichever comes first).
    func fail(_ client: ClientSession, _ code: ErrorCode, _ message: String) {
        var line: [UInt8] = []
        Message.error(ErrorMessage(code, message)).encode(into: &line)
        let dropped = client.pendingBytes
        client.replacePending(with: line)
        // The room held back in the socket since connect: the line goes in even if the client never
        // reads again (ClientSession.reserveSendBuffer).
        client.releaseSendReserve()
        if dropped >= Self.releaseMemoryAfterBytes { Sys.releaseFreedMemory() }
        beginClosing(client)
    }

    private func beginClosing(_ client: ClientSession) {
        guard !client.closing else { return }
        client.closing = true
        client.closeDeadline = clock() + Self.closeGraceNanoseconds
        // Stop reading: only the remaining output matters now.
        watcher.update(fd: client.fd, readable: false, writable: client.wantsWritable)
        closingChanged?()
        flush(client)
    }

    /// Closes the clients whose grace time ran out.
    func closeExpiredClients() {
        let now = clock()
        for client in clients.values where client.closing && client.closeDeadline <= now {
            disconnect(client, reason: "final message not read within the grace time")
        }
        closingChanged?()
    }

    private func disconnect(_ client: ClientSession, reason: String) {
        guard clients.removeValue(forKey: client.id) != nil else { return }
        clientLeaving?(client)
        watcher.unwatch(fd: client.fd)
        Sys.close(client.fd)
        acceptor.clientLeft()
        let dropped = client.pendingBytes
        client.subscriber.queue.removeAll()
        if dropped >= Self.releaseMemoryAfterBytes { Sys.releaseFreedMemory() }
        logger.info(
            "client: disconnected",
            metadata: [
                "client.id": "\(client.id)", "client.pid": "\(client.peer?.pid ?? -1)", "reason": "\(reason)",
                "client.subscriber.delivered": "\(client.subscriber.delivered)",
                "client.dropped": "\(client.subscriber.queue.droppedTotal)",
            ])
        clientsChanged?()
    }

    /// Shutdown: disconnects everyone (the daemon first writes what is queued while its deadline allows).
    func disconnectAll(reason: String) {
        for client in Array(clients.values) { disconnect(client, reason: reason) }
    }
}
