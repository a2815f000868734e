import CLinuxSystem
import Configuration
import Glibc
import Publishing
import WireProtocol

/// One connected client: its socket, request line buffer and staging buffer, and its `Subscriber`.
/// Owned and used by the event-loop thread only.
final class ClientSession {
    let id: Int
    let fd: Int32
    let peer: PeerCredentials?
    /// What is published to this connection and under which rules (subscription, grant, queue, routed
    /// devices): the pure part, in module Publishing.
    var subscriber: Subscriber
    /// Bytes taken from the queue and not yet accepted by the kernel.
    private var staging: [UInt8] = []
    private var stagingOffset = 0
    /// Splits what the client sends into request lines.
    private var framer = LineFramer()
    /// What the last read returned and no request line has taken yet: a client is served a bounded
    /// number of lines per loop turn (`ClientConnections.requestsPerTurn`), and the socket is read again
    /// only once this is empty, so a flood waits in the client's own socket buffer, not in the daemon.
    private var inbox: [UInt8] = []
    private var inboxOffset = 0
    /// The loop turn in which the client was last served (each gets one share of lines per turn).
    var servedTurn: UInt64 = 0
    /// Output is queued for the end of the current batch (one write per turn, `ClientConnections`).
    var flushPending = false
    /// Not watched for input while it has a backlog (`ClientConnections.serveShare`).
    var readPaused = false
    /// True while EPOLLOUT is requested.
    var wantsWritable = false
    /// Set when the client must go once its last line (an error) is written, or at `closeDeadline`.
    var closing = false
    var closeDeadline: UInt64 = 0

    /// The socket's own send buffer (SO_SNDBUF as the kernel keeps it) and the part of it held back
    /// for the last line; 0 when the buffer could not be read or set.
    private var sendBufferBytes: Int32 = 0
    private(set) var reservedSendBytes: Int32 = 0

    /// - Parameter fd: the connection's socket; -1 for a session without one (the request server's
    ///   tests), whose socket calls are never made.
    init(id: Int, fd: Int32, peer: PeerCredentials?, grant: AccessGrant = .everything) {
        self.id = id
        self.fd = fd
        self.peer = peer
        subscriber = Subscriber(id: id, grant: grant)
        subscriber.account = peer?.uid
        staging.reserveCapacity(ClientSession.stagingBytes)
        if fd >= 0 { reserveSendBuffer() }
    }

    /// Room for the overflow line even when the client reads nothing: normal output may fill the
    /// socket only up to its send buffer minus a reserve; `releaseSendReserve` gives the reserve back
    /// for the final line. A unix stream socket accepts a write while its unread bytes (counted with
    /// the kernel's per-buffer overhead) are below SO_SNDBUF, so lowering SO_SNDBUF by the reserve at
    /// connect and raising it back at the end is enough: no check per write. Setting SO_SNDBUF to the
    /// value it had needs no privilege (it is at most net.core.wmem_max by default).
    private func reserveSendBuffer() {
        guard let size = try? Sys.getsockopt(fd, SOL_SOCKET, SO_SNDBUF, as: Int32.self, name: "SO_SNDBUF"), size > 0
        else { return }
        // A quarter of the buffer, at most 64 KiB: the rest of a half-sent message plus the error line.
        let reserve = min(ClientSession.maximumSendReserve, size / 4)
        // The kernel doubles what is set (bookkeeping overhead) and reports the doubled value.
        let lowered = (size - reserve) / 2
        guard (try? Sys.setsockopt(fd, SOL_SOCKET, SO_SNDBUF, lowered, name: "SO_SNDBUF")) != nil else { return }
        sendBufferBytes = size
        reservedSendBytes = reserve
    }

    /// Gives the held-back room to the final line (see `reserveSendBuffer`).
    func releaseSendReserve() {
        guard reservedSendBytes > 0 else { return }
        if (try? Sys.setsockopt(fd, SOL_SOCKET, SO_SNDBUF, sendBufferBytes / 2, name: "SO_SNDBUF")) != nil {
            reservedSendBytes = 0
        }
    }

    static let maximumSendReserve: Int32 = 64 * 1024

    /// Bytes queued plus staged: what the hard limit is compared with.
    var pendingBytes: Int { subscriber.queue.bytes + staging.count - stagingOffset }
    var hasPendingOutput: Bool { !subscriber.queue.isEmpty || stagingOffset < staging.count }

    // MARK: Reading

    /// What one read produced.
    enum ReadResult {
        /// Complete lines (without newline), possibly none.
        case lines([[UInt8]])
        /// A line passed the limit before its newline.
        case lineTooLong
        /// End of file or a connection error: the client is gone.
        case closed
    }

    /// Bytes read and not yet taken as request lines: the client has more to be served.
    var hasBacklog: Bool { inboxOffset < inbox.count }

    /// Reads what is available once, when the last read has been served (level-triggered epoll brings
    /// us back for more). Returns `.closed` at end of file or on an error, else `.lines([])`: the lines
    /// are taken with `takeLines`.
    func read(scratch: inout [UInt8]) -> ReadResult {
        guard !hasBacklog else { return .lines([]) }
        let n: Int
        do {
            n = try Sys.read(fd, into: &scratch)
        } catch {
            return error.wouldBlock ? .lines([]) : .closed
        }
        if n == 0 { return .closed }
        inbox.removeAll(keepingCapacity: true)
        inbox.append(contentsOf: scratch[0..<n])
        inboxOffset = 0
        return .lines([])
    }

    /// At most `limit` request lines from what was read (every newline counts, an empty line too, so a
    /// read of 32,768 `\n` costs as many turns as 32,768 requests would); the rest waits for the next
    /// turn. A partial line at the end goes to the framer to be completed by a later read.
    func takeLines(limit: Int, maximumLineBytes: Int) -> ReadResult {
        var lines: [[UInt8]] = []
        var taken = 0
        while taken < limit, inboxOffset < inbox.count {
            let end = inbox[inboxOffset...].firstIndex(of: 0x0A).map { $0 + 1 } ?? inbox.count
            let chunk = inbox[inboxOffset..<end]
            inboxOffset = end
            if chunk.last == 0x0A { taken += 1 }
            switch framer.append(chunk, maximumLineBytes: maximumLineBytes) {
            case .lines(let complete): lines.append(contentsOf: complete)
            case .lineTooLong: return .lineTooLong
            }
        }
        if inboxOffset == inbox.count {
            // Served: the next read starts a fresh buffer (a large one is not kept for a quiet client).
            if inbox.capacity > ClientSession.stagingBytes {
                inbox = []
            } else {
                inbox.removeAll(keepingCapacity: true)
            }
            inboxOffset = 0
        }
        return .lines(lines)
    }

    // MARK: Writing

    static let stagingBytes = 64 * 1024

    /// What a flush achieved.
    enum FlushResult {
        /// Everything was written.
        case drained
        /// The socket is full; wait for EPOLLOUT.
        case blocked
        /// The peer is gone (EPIPE, ECONNRESET...).
        case failed
    }

    /// Writes as much as the socket takes, without blocking. `droppedLine` renders the notice sent before
    /// a message that had `missed` predecessors coalesced away.
    func flush(droppedLine: (OutboundMessage, Int) -> [UInt8]) -> FlushResult {
        while true {
            if stagingOffset == staging.count {
                staging.removeAll(keepingCapacity: true)
                stagingOffset = 0
                while staging.count < ClientSession.stagingBytes, let entry = subscriber.queue.popFirst() {
                    if entry.missed > 0 { staging.append(contentsOf: droppedLine(entry.message, entry.missed)) }
                    staging.append(contentsOf: entry.message.bytes)
                }
                if staging.isEmpty { return .drained }
            }
            do {
                stagingOffset += try Sys.send(
                    fd, staging, from: stagingOffset, flags: Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
            } catch {
                return error.wouldBlock ? .blocked : .failed
            }
        }
    }

    /// Replaces everything pending with one final line (the queue-overflow error).
    func replacePending(with line: [UInt8]) {
        subscriber.queue.removeAll()
        // The rest of a line already partly sent must still go out, or the final line would be glued to
        // half a message; the whole lines staged after it are dropped with the queue. Messages are JSON
        // lines with no raw newline inside, so the partial one ends at the first newline.
        var rest: [UInt8] = []
        if stagingOffset > 0 && stagingOffset < staging.count && staging[stagingOffset - 1] != 0x0A {
            let end = staging[stagingOffset...].firstIndex(of: 0x0A).map { $0 + 1 } ?? staging.count
            rest = Array(staging[stagingOffset..<end])
        }
        staging = rest + line
        stagingOffset = 0
    }
}
