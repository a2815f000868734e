import Gestures
import MultitouchCore
import Recordings

/// Runs a whole recording through the pipeline with virtual time, producing exactly what a socket
/// client would receive for the same input (minus the hello), typed. Deterministic: the same recording
/// and settings give the same output. Module Publishing turns it into messages (`MessageReplay`).
public enum Replay {
    /// Streams a replay in `ReplaySchedule`'s order: for each device a `deviceAdded`, then the frames
    /// and timers of all devices merged in time order, then each device's end. `sink` receives one batch
    /// per step that produced something.
    public static func run(
        recording: Recording, source: String = "", settings: PipelineSettings = .init(),
        sink: ([PipelineOutput]) -> Void
    ) {
        var schedule = ReplaySchedule(recording: recording, source: source, settings: settings)
        var batch: [PipelineOutput] = []
        batch.reserveCapacity(16)
        while let step = schedule.nextStep {
            schedule.take(step, into: &batch)
            if !batch.isEmpty {
                sink(batch)
                batch.removeAll(keepingCapacity: true)
            }
        }
    }

    /// Every output of a replay, in order.
    public static func outputs(
        recording: Recording, source: String = "", settings: PipelineSettings = .init()
    ) -> [PipelineOutput] {
        var out: [PipelineOutput] = []
        run(recording: recording, source: source, settings: settings) { out.append(contentsOf: $0) }
        return out
    }
}
