import Gestures
import MultitouchCore
import Recordings
import WireProtocol

/// Runs a whole recording through the pipeline with virtual time, producing exactly the messages a
/// socket client would receive for the same input (minus the hello). Deterministic: the same recording
/// and settings give the same messages.
public enum Replay {
    /// Messages for a recording, in `ReplaySchedule`'s order: for each device a deviceAdded, then the
    /// frames and timers of all devices merged in time order, then each device's end (cancels,
    /// deviceRemoved).
    public static func messages(
        recording: Recording, source: String = "", settings: PipelineSettings = .init()
    ) -> [Message] {
        var out: [Message] = []
        run(recording: recording, source: source, settings: settings) { messages in out.append(contentsOf: messages) }
        return out
    }

    /// Streams a replay: `sink` receives the messages in batches (one batch per frame or timer).
    public static func run(
        recording: Recording, source: String = "", settings: PipelineSettings = .init(),
        sink: ([Message]) -> Void
    ) {
        var observers = [NoObserver](repeating: NoObserver(), count: recording.devices.count)
        run(recording: recording, source: source, settings: settings, observers: &observers, sink: sink)
    }

    /// As `run`, with one typed observer per device (same order as `recording.devices`). The steps are
    /// those of `ReplaySchedule`, taken in virtual time (all at once); one batch per step.
    public static func run<O: PipelineObserver>(
        recording: Recording, source: String = "", settings: PipelineSettings = .init(), observers: inout [O],
        sink: ([Message]) -> Void
    ) {
        var schedule = ReplaySchedule(recording: recording, source: source, settings: settings)
        var batch: [Message] = []
        batch.reserveCapacity(16)
        while let step = schedule.nextStep {
            schedule.take(step, into: &batch, observers: &observers)
            if !batch.isEmpty {
                sink(batch)
                batch.removeAll(keepingCapacity: true)
            }
        }
    }
}
