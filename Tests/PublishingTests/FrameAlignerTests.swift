import Gestures
import MultitouchCore
import MultitouchTestKit
import Publishing
import Recordings
import Testing
import TouchPipeline
import WireProtocol

/// Frame-aligned resampling (`FrameAligner`, `replay --frame-period-us`), on virtual time.
@Suite struct FrameAlignerTests {
    private func point(_ id: UInt64, _ phase: TouchPhase, x: Double) -> Touch {
        let p = Point(x: x, y: 0)
        return Touch(
            id: id, slot: 0, trackingID: Int32(id), phase: phase, location: p, previousLocation: p,
            millimeters: p, normalized: Point(x: x / 100, y: 0), timestamp: Timestamp(microseconds: 0), type: .direct)
    }

    /// A whole-device view's touches of device 1, as the publisher hands them to a frame-aligned client.
    private func touches(_ ms: Int64, _ points: Touch...) -> PublishedItem {
        PublishedItem(
            device: 1, address: nil,
            content: .touches(
                ViewTouches(
                    device: 1, time: Timestamp(microseconds: ms * 1000), fingers: points.count, isSemiMT: false,
                    touches: points, routing: nil, predictions: [])))
    }

    private func frame(_ aligner: inout FrameAligner, ms: Int64) -> [TouchPoint] {
        var out: [Message] = []
        aligner.frame(at: Timestamp(microseconds: ms * 1000), into: &out)
        return out.flatMap { message -> [TouchPoint] in
            if case .touches(let m) = message { return m.touches }
            return []
        }
    }

    @Test func interpolatesAtFrameTimeMinusLatencyAndCoalescesTheRawSamples() throws {
        var aligner = FrameAligner()
        aligner.push(touches(0, point(1, .began, x: 0)), horizon: nil)
        aligner.push(touches(8, point(1, .moved, x: 8)), horizon: nil)
        aligner.push(touches(16, point(1, .moved, x: 16)), horizon: nil)
        // Frame at 18 ms samples at 13 ms: between the 8 ms and 16 ms samples; 16 ms stays buffered.
        let first = try #require(frame(&aligner, ms: 18).first)
        #expect(first.phase == .began)
        #expect(abs(first.location.x - 13) < 1e-9)
        #expect(abs(first.millimeters.x - 13) < 1e-9 && abs(first.normalized.x - 0.13) < 1e-9)
        #expect(first.coalesced?.map(\.time.microseconds) == [0, 8000])
        // Next frame: the 16 ms sample is consumed; no later one, so extrapolation (gap 8 ms: at most 4 ms).
        let second = try #require(frame(&aligner, ms: 34).first)
        #expect(second.phase == .moved)
        #expect(abs(second.location.x - 20) < 1e-9)
        #expect(second.previousLocation.x == first.location.x)
        #expect(second.coalesced?.map(\.location.x) == [16])
    }

    /// A buffer that never drains (each frame leaves the next sample buffered) is compacted from time
    /// to time: every raw sample still comes out once, in order, and the buffer stays small.
    @Test func aBufferThatNeverDrainsDeliversEverySampleOnceInOrder() throws {
        var aligner = FrameAligner()
        var delivered: [Int64] = []
        aligner.push(touches(0, point(1, .began, x: 0)), horizon: nil)
        // Samples every 8 ms, a frame every 16 ms right after each even sample: the odd one stays buffered.
        for k in Int64(1)...3000 {
            aligner.push(touches(8 * k, point(1, .moved, x: Double(8 * k))), horizon: nil)
            guard k % 2 == 1 else { continue }
            for touch in frame(&aligner, ms: 8 * k + 4) {
                delivered += (touch.coalesced ?? []).map(\.time.microseconds)
            }
            #expect(aligner.pendingCount == 1)
        }
        // The last frame (at 8 * 2999 + 4 ms) samples at 8 * 2999 - 1 ms: sample 2999 stays buffered.
        #expect(delivered.count == 2999)
        #expect(delivered == (0..<2999).map { Int64($0) * 8000 })
    }

    @Test func neverExtrapolatesPastTheCapsNorMovesBack() throws {
        var aligner = FrameAligner()
        aligner.push(touches(0, point(1, .began, x: 0)), horizon: nil)
        aligner.push(touches(10, point(1, .moved, x: 10)), horizon: nil)
        // Sample time 35 ms, newest sample 10 ms: at most half the 10 ms gap ahead (15 ms).
        let a = try #require(frame(&aligner, ms: 40).first)
        #expect(abs(a.location.x - 15) < 1e-9)
        // A frame with nothing new: the touch stays (stationary), it does not move back to 10.
        let b = try #require(frame(&aligner, ms: 56).first)
        #expect(b.phase == .stationary && b.location == a.location)
        #expect(b.coalesced == [])
    }

    @Test func aTouchThatBeganAndEndedBetweenFramesShowsBothPhases() throws {
        var aligner = FrameAligner()
        aligner.push(touches(1, point(7, .began, x: 5)), horizon: nil)
        aligner.push(touches(3, point(7, .ended, x: 6)), horizon: nil)
        var out: [Message] = []
        aligner.frame(at: Timestamp(microseconds: 20_000), into: &out)
        let phases = out.compactMap { message -> [TouchPhase]? in
            if case .touches(let m) = message { return m.touches.map(\.phase) }
            return nil
        }
        #expect(phases == [[.began], [.ended]])
        #expect(aligner.isIdle)
        var later: [Message] = []
        aligner.frame(at: Timestamp(microseconds: 36_667), into: &later)
        #expect(later.isEmpty)
    }

    @Test func anEndIsDeliveredWhereTheFingerLifted() throws {
        var aligner = FrameAligner()
        aligner.push(touches(0, point(1, .began, x: 0)), horizon: nil)
        aligner.push(touches(10, point(1, .moved, x: 10)), horizon: nil)
        _ = frame(&aligner, ms: 12)
        aligner.push(touches(20, point(1, .ended, x: 12)), horizon: nil)
        let end = try #require(frame(&aligner, ms: 30).first)
        #expect(end.phase == .ended && end.location.x == 12)
        #expect(end.coalesced?.map(\.location.x) == [10, 12])
        #expect(aligner.isIdle)
    }

    private func recording(_ fixture: Fixtures.Fixture) -> Recording {
        Recording(format: .evemu, devices: [RecordedDevice(description: fixture.device, events: fixture.events)])
    }

    /// On every fixture: each touch's phases are well formed (one began first, one end last), every raw
    /// sample reaches the client exactly once as a coalesced sample, message times never go back, and
    /// the gesture and device messages are exactly the unaligned ones, in order.
    @Test(arguments: Fixtures.all.map(\.name))
    func alignedReplayKeepsEverySampleAndPhase(name: String) throws {
        let fixture = try #require(Fixtures.all.first { $0.name == name })
        let raw = MessageReplay.messages(recording: recording(fixture), source: "test")
        var aligned: [Message] = []
        FrameAligner.replay(
            recording: recording(fixture), source: "test",
            clock: FrameClock(periodMicroseconds: 16_667, phaseMicroseconds: 3_000)
        ) { aligned += $0 }
        func isTouches(_ m: Message) -> Bool { if case .touches = m { true } else { false } }
        #expect(aligned.filter { !isTouches($0) } == raw.filter { !isTouches($0) })
        var rawSamples: [UInt64: [CoalescedSample]] = [:]
        for case .touches(let m) in raw {
            for t in m.touches {
                rawSamples[t.id, default: []].append(CoalescedSample(location: t.location, time: m.time))
            }
        }
        var coalesced: [UInt64: [CoalescedSample]] = [:]
        var phases: [UInt64: [TouchPhase]] = [:]
        var lastTime = Int64.min
        for case .touches(let m) in aligned {
            #expect(m.time.microseconds >= lastTime)
            lastTime = m.time.microseconds
            for t in m.touches {
                coalesced[t.id, default: []] += t.coalesced ?? []
                phases[t.id, default: []].append(t.phase)
            }
        }
        #expect(coalesced == rawSamples)
        for (id, list) in phases {
            #expect(list.first == .began, "touch \(id): \(list)")
            #expect(list.last?.isTerminal == true, "touch \(id): \(list)")
            #expect(list.filter { $0 == .began || $0.isTerminal }.count == 2, "touch \(id): \(list)")
        }
        #expect(!phases.isEmpty)
    }
}
