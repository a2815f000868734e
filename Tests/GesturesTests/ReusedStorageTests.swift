import Gestures
import MultitouchCore
import Testing

/// The engine reuses storage from touch to touch and segment to segment (velocity rings of touches
/// that lifted, the ring of the last segment's measurement: the daemon's steady state allocates
/// nothing, docs/PERFORMANCE.md). What it measures must not depend on what the storage held before.
@Suite("Reused storage")
struct ReusedStorageTests {
    /// Two fingers land, pinch apart and lift at `start` (ms after the builder's origin), with their
    /// own speeds: `speed` mm per 10 ms frame.
    static func pinch(_ b: inout FrameBuilder, speed: Double, frames: Int) -> [TouchFrame] {
        var out: [TouchFrame] = []
        let a = b.down(40, 50)
        let c = b.down(60, 50)
        out.append(b.frame())
        for _ in 0..<frames {
            b.moveBy(a, -speed, speed / 2)
            b.moveBy(c, speed, -speed / 2)
            out.append(b.frame())
        }
        b.up(a)
        b.up(c)
        out.append(b.frame())
        return out
    }

    /// The velocities of a session's segment updates, with the session number left out.
    static func velocities(_ events: [GestureEvent]) -> [GestureVelocity] {
        events.updates.map(\.velocity)
    }

    @Test func aSessionAfterAnotherMeasuresTheSameVelocitiesAsOnAFreshEngine() {
        // The second session alone, on a fresh engine.
        var fresh = Harness()
        var b1 = FrameBuilder()
        b1.time = 10_000_000
        for frame in Self.pinch(&b1, speed: 0.4, frames: 30) { fresh.feed(frame) }
        let expected = Self.velocities(fresh.events)
        #expect(expected.contains { $0.scale != 0 }, "the pinch has a scale velocity to compare")

        // A fast first session, then the same second session on the same engine, long after the
        // first has settled (its momentum is over): the touches' and the segment's rings are reused.
        var reused = Harness()
        var b2 = FrameBuilder()
        for frame in Self.pinch(&b2, speed: 3, frames: 20) { reused.feed(frame) }
        reused.advance(to: Timestamp(microseconds: 9_000_000))
        let before = reused.events.count
        b2.time = 10_000_000
        for frame in Self.pinch(&b2, speed: 0.4, frames: 30) { reused.feed(frame) }
        let second = Array(reused.events[before...])
        #expect(Self.velocities(second) == expected)
        #expect(second.updates.map(\.scale) == fresh.events.updates.map(\.scale))
    }

    /// `process(_:into:)` appends to a buffer the caller reuses: the same events as `process(_:)`.
    @Test func processingIntoAReusedBufferGivesTheSameEvents() {
        var a = Harness()
        var engine = Harness().engine
        var b = FrameBuilder()
        var buffer: [GestureEvent] = []
        var collected: [GestureEvent] = []
        for frame in Self.pinch(&b, speed: 1, frames: 25) {
            if let deadline = engine.nextDeadline, deadline < frame.time {
                buffer.removeAll(keepingCapacity: true)
                engine.advance(to: Timestamp(microseconds: frame.time.microseconds - 1), into: &buffer)
                collected += buffer
            }
            buffer.removeAll(keepingCapacity: true)
            engine.process(frame, into: &buffer)
            collected += buffer
            a.feed(frame)
        }
        #expect(collected == a.events)
        #expect(!collected.isEmpty)
    }
}
