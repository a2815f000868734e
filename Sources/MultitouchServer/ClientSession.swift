import CLinuxSystem
import Glibc
import WireProtocol

/// One connected client: its socket, request line buffer, subscription and outgoing queue.
/// Owned and used by the event-loop thread only.
final class ClientSession {
    let id: Int
    let fd: Int32
    let peer: PeerCredentials?

    /// Streams and devices the client asked for; nil before the first subscribe (nothing is streamed).
    var subscription: (streams: MessageStreams, devices: DeviceFilter)?
    var queue = ClientQueue()
    /// Bytes taken from the queue and not yet accepted by the kernel.
    private var staging: [UInt8] = []
    private var stagingOffset = 0
    /// Splits what the client sends into request lines.
    private var framer = LineFramer()
    /// True while EPOLLOUT is requested.
    var wantsWritable = false
    /// Set when the client must go once its last line (an error) is written, or at `closeDeadline`.
    var closing = false
    var closeDeadline: UInt64 = 0
    /// Messages that arrived for the client, for stats.
    var delivered: UInt64 = 0
    /// Devices on which the client declared regions: it gets its regions' own touches and gestures
    /// there instead of the whole device's.
    var routedDevices: Set<Int> = []
    /// Switches between a device's whole-device stream (false) and routed streams (true) asked for while
    /// a whole-device session or segment was open on it; each takes effect right after the message that
    /// closes the last of them (`ClientHub`, `OutboundMessage.openDelta`).
    var routingSwitch: [Int: Bool] = [:]

    /// Makes the pending switch for `device` take effect, if there is one.
    func applyRoutingSwitch(_ device: Int) {
        guard let routed = routingSwitch.removeValue(forKey: device) else { return }
        if routed { routedDevices.insert(device) } else { routedDevices.remove(device) }
    }

    init(id: Int, fd: Int32, peer: PeerCredentials?) {
        self.id = id
        self.fd = fd
        self.peer = peer
        staging.reserveCapacity(ClientSession.stagingBytes)
    }

    /// Bytes queued plus staged: what the hard limit is compared with.
    var pendingBytes: Int { queue.bytes + staging.count - stagingOffset }
    var hasPendingOutput: Bool { !queue.isEmpty || stagingOffset < staging.count }

    func wants(_ message: OutboundMessage) -> Bool {
        if message.streams.isEmpty { return true }
        if message.client != 0 {
            guard message.client == id else { return false }
        } else if message.wholeDevice && !routedDevices.isEmpty && routedDevices.contains(message.device) {
            return false
        }
        guard let subscription, !subscription.streams.isDisjoint(with: message.streams) else { return false }
        return message.device == 0 || subscription.devices.contains(message.device)
    }

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

    /// Reads what is available once (level-triggered epoll brings us back for more, so one chatty
    /// client cannot starve the others).
    func readLines(maximumLineBytes: Int, scratch: inout [UInt8]) -> ReadResult {
        let n = scratch.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n == 0 { return .closed }
        if n < 0 {
            let code = errno
            return code == EAGAIN || code == EWOULDBLOCK || code == EINTR ? .lines([]) : .closed
        }
        switch framer.append(scratch[0..<n], maximumLineBytes: maximumLineBytes) {
        case .lines(let lines): return .lines(lines)
        case .lineTooLong: return .lineTooLong
        }
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
                while staging.count < ClientSession.stagingBytes, let entry = queue.popFirst() {
                    if entry.missed > 0 { staging.append(contentsOf: droppedLine(entry.message, entry.missed)) }
                    staging.append(contentsOf: entry.message.bytes)
                }
                if staging.isEmpty { return .drained }
            }
            let n = staging.withUnsafeBytes { raw in
                send(
                    fd, raw.baseAddress! + stagingOffset, raw.count - stagingOffset, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
            }
            if n < 0 {
                let code = errno
                if code == EINTR { continue }
                if code == EAGAIN || code == EWOULDBLOCK { return .blocked }
                return .failed
            }
            stagingOffset += n
        }
    }

    /// Replaces everything pending with one final line (the queue-overflow error).
    func replacePending(with line: [UInt8]) {
        queue.removeAll()
        // Bytes of a line already partly sent must still go out, or the final line would be glued to
        // half a message.
        let unsent = Array(staging[stagingOffset...])
        let partial = stagingOffset > 0 && stagingOffset < staging.count
        staging = partial ? unsent + line : line
        stagingOffset = 0
    }
}
