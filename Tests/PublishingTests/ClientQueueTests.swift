import Gestures
import Publishing
import Testing
import WireProtocol

/// The per-client queue on its own: what coalesces, what never does, and that memory stays bounded.
@Suite("ClientQueue")
struct ClientQueueTests {
    func message(
        _ text: String, device: Int = 1, streams: MessageStreams = .touches, droppable: Bool
    ) -> OutboundMessage {
        OutboundMessage(bytes: Array((text + "\n").utf8), device: device, streams: streams, droppable: droppable)
    }

    func drain(_ queue: inout ClientQueue) -> [(String, Int)] {
        var out: [(String, Int)] = []
        while let entry = queue.popFirst() {
            out.append((String(decoding: entry.message.bytes.dropLast(), as: UTF8.self), entry.missed))
        }
        return out
    }

    @Test func belowTheSoftLimitNothingCoalesces() {
        var queue = ClientQueue()
        for i in 0..<10 { queue.enqueue(message("m\(i)", droppable: true), softLimit: 10) }
        #expect(queue.count == 10)
        #expect(queue.droppedTotal == 0)
        #expect(drain(&queue).map(\.0) == (0..<10).map { "m\($0)" })
    }

    @Test func atTheSoftLimitTheLatestDroppableOfTheSameStreamIsReplacedAndCounted() {
        var queue = ClientQueue()
        queue.enqueue(message("t0", droppable: true), softLimit: 2)
        queue.enqueue(message("g0", streams: .gestures, droppable: true), softLimit: 2)
        queue.enqueue(message("t1", droppable: true), softLimit: 2)  // replaces t0
        queue.enqueue(message("t2", droppable: true), softLimit: 2)  // replaces t1
        queue.enqueue(message("g1", streams: .gestures, droppable: true), softLimit: 2)  // replaces g0
        #expect(queue.count == 2)
        #expect(queue.droppedTotal == 3)
        let drained = drain(&queue)
        // Time order is kept within and across streams: the newer message sits at the tail.
        #expect(drained.map(\.0) == ["t2", "g1"])
        #expect(drained.map(\.1) == [2, 1])
    }

    @Test func nonDroppableMessagesAreNeverDroppedAndOtherDevicesAreSeparate() {
        var queue = ClientQueue()
        queue.enqueue(message("a-moved", droppable: true), softLimit: 1)
        queue.enqueue(message("a-began", droppable: false), softLimit: 1)
        queue.enqueue(message("b-moved", device: 2, droppable: true), softLimit: 1)  // no b message to replace
        queue.enqueue(message("a-ended", droppable: false), softLimit: 1)
        // Not across a-began and a-ended (the gap would come before the notice): appended.
        queue.enqueue(message("a-moved2", droppable: true), softLimit: 1)
        queue.enqueue(message("a-moved3", droppable: true), softLimit: 1)  // replaces a-moved2
        let drained = drain(&queue)
        #expect(drained.map(\.0) == ["a-moved", "a-began", "b-moved", "a-ended", "a-moved3"])
        #expect(drained.map(\.1) == [0, 0, 0, 0, 1])
    }

    @Test func aMessageAlreadyTakenForWritingIsNotReplaced() {
        var queue = ClientQueue()
        queue.enqueue(message("t0", droppable: true), softLimit: 1)
        _ = queue.popFirst()
        queue.enqueue(message("t1", droppable: true), softLimit: 1)
        queue.enqueue(message("t2", droppable: true), softLimit: 1)
        #expect(drain(&queue).map(\.0) == ["t2"])
    }

    @Test func endlessDroppableTrafficKeepsTheQueueBounded() {
        var queue = ClientQueue()
        for i in 0..<100_000 {
            queue.enqueue(message("t\(i)", droppable: true), softLimit: 8)
            queue.enqueue(message("g\(i)", streams: .gestures, droppable: true), softLimit: 8)
        }
        #expect(queue.count <= 10)
        #expect(queue.bytes < 200)
        #expect(queue.droppedTotal >= 199_990)
        let drained = drain(&queue)
        #expect(drained.last?.0 == "g99999")
    }
}

/// Issue 19: a `dropped` notice arrives before the first message after the gap it reports.
@Suite("ClientQueue: notice before the gap")
struct ClientQueueGapTests {
    @Test func aDroppableNeverCoalescesAcrossALaterMessageOfItsStream() {
        var queue = ClientQueue()
        func gesture(_ text: String, droppable: Bool) -> OutboundMessage {
            OutboundMessage(bytes: Array((text + "\n").utf8), device: 1, streams: .gestures, droppable: droppable)
        }
        // Over the soft limit: a segment's `changed` (seq 5), its `ended` (seq 6), then the next
        // segment's `changed` (seq 7). Removing seq 5 from before seq 6 would deliver seq 6 with 5
        // missing and the notice only at seq 7.
        queue.enqueue(gesture("seq5", droppable: true), softLimit: 0)
        queue.enqueue(gesture("seq6", droppable: false), softLimit: 0)
        queue.enqueue(gesture("seq7", droppable: true), softLimit: 0)
        queue.enqueue(gesture("seq8", droppable: true), softLimit: 0)
        var order: [(String, Int)] = []
        while let e = queue.popFirst() {
            order.append((String(decoding: e.message.bytes.dropLast(), as: UTF8.self), e.missed))
        }
        #expect(order.map(\.0) == ["seq5", "seq6", "seq8"])
        #expect(order.map(\.1) == [0, 0, 1], "the one gap (seq 7) is announced right before seq 8")
    }
}

/// Issue 28 item 3: a device's transform notice states the whole base, so only the latest one matters;
/// a flood of them holds one slot per device in a queue that is not read, whatever its soft limit.
@Suite("ClientQueue: superseded notices")
struct ClientQueueNoticeTests {
    static func notice(device: Int, tx: Double) -> OutboundMessage {
        OutboundMessage(
            .transform(
                TransformMessage(
                    id: nil, device: device, matrix: AffineTransform(a: 1, b: 0, c: 0, d: 1, tx: tx, ty: 0))))
    }

    @Test func aTransformNoticeReplacesTheOneStillQueuedForItsDevice() throws {
        var queue = ClientQueue()
        let reply = OutboundMessage.reply(.pong(PongMessage(id: nil)))
        queue.enqueue(reply, softLimit: .max)
        for k in 0..<10_000 {
            queue.enqueue(Self.notice(device: 1, tx: Double(k)), softLimit: .max)
            queue.enqueue(Self.notice(device: 2, tx: Double(-k)), softLimit: .max)
        }
        #expect(queue.count == 3, "the pong and one notice per device")
        #expect(queue.supersededTotal == 2 * 9_999)
        #expect(queue.droppedTotal == 0, "nothing the client needs was lost: no `dropped` notice")
        var lines: [Message] = []
        while let entry = queue.popFirst() {
            #expect(entry.missed == 0)
            lines.append(try Message(decoding: entry.message.bytes))
        }
        #expect(lines.count == 3)
        guard case .transform(let one) = lines[1], case .transform(let two) = lines[2] else {
            Issue.record("\(lines)")
            return
        }
        #expect(one.device == 1 && one.matrix.tx == 9_999)
        #expect(two.device == 2 && two.matrix.tx == -9_999)
    }

    /// The reply to the asker (with its id) is an answer, not a notice: never replaced.
    @Test func theAskersTransformReplyIsNeverReplaced() {
        var queue = ClientQueue()
        for k in 0..<10 {
            queue.enqueue(
                OutboundMessage.reply(
                    .transform(TransformMessage(id: RequestID(k), device: 1, matrix: .identity))),
                softLimit: .max)
        }
        #expect(queue.count == 10)
    }
}

/// A queue that its client drains after every batch starts over in the same storage (no compaction,
/// no allocation in the daemon's steady state): what it remembered of the messages before must not
/// reach the messages after.
@Suite("ClientQueue drained")
struct ClientQueueDrainedTests {
    func message(_ text: String, streams: MessageStreams = .touches, droppable: Bool) -> OutboundMessage {
        OutboundMessage(bytes: Array((text + "\n").utf8), device: 1, streams: streams, droppable: droppable)
    }

    @Test func aMessageAfterADrainNeverReplacesOrIsReplacedByOneBefore() {
        var queue = ClientQueue()
        var delivered: [String] = []
        for round in 0..<3000 {
            // Soft limit 0: every droppable looks for one to replace, also the first after a drain
            // (the one it would find, from the round before, has been written already).
            queue.enqueue(message("t\(round)a", droppable: true), softLimit: 0)
            queue.enqueue(message("g\(round)", streams: .gestures, droppable: false), softLimit: 0)
            queue.enqueue(message("t\(round)b", droppable: true), softLimit: 0)
            queue.enqueue(message("t\(round)c", droppable: true), softLimit: 0)
            while let entry = queue.popFirst() {
                delivered.append(String(decoding: entry.message.bytes.dropLast(), as: UTF8.self) + "/\(entry.missed)")
            }
            #expect(queue.isEmpty && queue.bytes == 0)
        }
        // Each round: its own gesture message, and its last touches with the two before it missed.
        #expect(delivered.count == 3000 * 2)
        #expect(delivered.prefix(4) == ["g0/0", "t0c/2", "g1/0", "t1c/2"])
        #expect(delivered.suffix(2) == ["g2999/0", "t2999c/2"])
        #expect(queue.droppedTotal == 6000)
    }
}
