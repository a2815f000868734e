import MultitouchCore
import MultitouchTestKit
import Testing
import TouchPipeline

@testable import MultitouchServer

/// The gesture deadline timer alone: armed at the earliest pipeline deadline, firing only what is due.
@Suite("GestureDeadlineTimer")
struct GestureDeadlineTimerTests {
    /// A pipeline with one finger down: its long-press deadline is pending.
    static func pipelineHolding(id: Int, downAtMilliseconds ms: Double) -> DevicePipeline {
        var s = TouchScripter(device: TestDevices.touchscreen())
        s.advance(ms: ms)
        s.down(finger: 0, x: 40, y: 40)
        s.frame()
        var pipeline = DevicePipeline(deviceID: id, description: TestDevices.touchscreen())
        var out: [PipelineOutput] = []
        for event in s.takeEvents() { _ = pipeline.push(.event(event), into: &out) }
        return pipeline
    }

    @Test func armsAtTheEarliestDeadlineAndDisarmsWithoutOne() throws {
        let loop = DevicesTests.VirtualLoop()
        let timer = GestureDeadlineTimer(loop: loop)
        let early = Self.pipelineHolding(id: 1, downAtMilliseconds: 0)
        let late = Self.pipelineHolding(id: 2, downAtMilliseconds: 100)
        let earlyDeadline = try #require(early.nextDeadline)
        let lateDeadline = try #require(late.nextDeadline)
        #expect(earlyDeadline < lateDeadline)
        timer.arm(for: [late, early])
        #expect(loop.deadlinesAt == GestureDeadlineTimer.nanoseconds(earlyDeadline))
        timer.arm(for: [DevicePipeline]())
        #expect(loop.deadlinesAt == nil)
    }

    @Test func advancesOnlyThroughWhatIsDueAndTheDeadlineMovesOn() throws {
        var pipeline = Self.pipelineHolding(id: 1, downAtMilliseconds: 0)
        let deadline = try #require(pipeline.nextDeadline)
        let due = GestureDeadlineTimer.nanoseconds(deadline)
        var out: [PipelineOutput] = []
        GestureDeadlineTimer.advanceDue(&pipeline, now: due - 1, into: &out)
        #expect(out.isEmpty)
        #expect(pipeline.nextDeadline == deadline)
        GestureDeadlineTimer.advanceDue(&pipeline, now: due, into: &out)
        #expect(!out.isEmpty, "the long press fires at its deadline")
        #expect(pipeline.nextDeadline.map { $0 > deadline } ?? true)
    }
}
