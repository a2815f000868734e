import MultitouchCore
import MultitouchTestKit
import Testing
import TouchPipeline

/// The pipeline hands each frame's touches and gesture events out in storage it reuses for the next
/// frame once the caller has let the output go (the daemon does after every frame; its steady state
/// allocates nothing, docs/PERFORMANCE.md). A caller that keeps outputs (a replay batching several
/// frames) must still find each output as it was made.
@Suite("Reused pipeline buffers")
struct ReusedBuffersTests {
    @Test(arguments: Fixtures.all.map(\.name))
    func outputsKeptAcrossFramesAreWhatTheyWereWhenMade(name: String) throws {
        let fixture = try #require(Fixtures.all.first { $0.name == name })
        // Every output kept in one array while the pipeline runs on.
        var kept = DevicePipeline(deviceID: 1, description: fixture.device)
        var all: [PipelineOutput] = []
        for event in fixture.events { kept.push(event, into: &all) }
        kept.end(at: fixture.events.last?.time ?? Timestamp(microseconds: 0), reason: .endOfRecording, into: &all)
        // Each output copied out and let go at once, as the daemon does.
        var released = DevicePipeline(deviceID: 1, description: fixture.device)
        var out: [PipelineOutput] = []
        var copies: [PipelineOutput] = []
        for event in fixture.events {
            released.push(event, into: &out)
            copies.append(contentsOf: out)
            out.removeAll(keepingCapacity: true)
        }
        released.end(
            at: fixture.events.last?.time ?? Timestamp(microseconds: 0), reason: .endOfRecording, into: &out)
        copies.append(contentsOf: out)
        #expect(all == copies)
        #expect(all.contains { if case .frame(let f) = $0 { return !f.events.isEmpty } else { return false } })
    }
}
