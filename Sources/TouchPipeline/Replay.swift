import Gestures
import MultitouchCore
import Recordings
import WireProtocol

/// Runs a whole recording through the pipeline with virtual time, producing exactly the messages a
/// socket client would receive for the same input (minus the hello). Deterministic: the same recording
/// and settings give the same messages.
public enum Replay {
    /// Messages for a recording: for each device a deviceAdded, then the frames of all devices merged
    /// in time order (stable by device on ties), then each device's end (cancels, deviceRemoved).
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

    /// As `run`, with one typed observer per device (same order as `recording.devices`).
    public static func run<O: PipelineObserver>(
        recording: Recording, source: String = "", settings: PipelineSettings = .init(), observers: inout [O],
        sink: ([Message]) -> Void
    ) {
        let idSource = TouchIDSource()
        var pipelines: [DevicePipeline] = []
        for (index, device) in recording.devices.enumerated() {
            let pipeline = DevicePipeline(
                deviceID: index + 1, description: device.description, source: source, settings: settings,
                idSource: idSource)
            pipelines.append(pipeline)
            sink([.deviceAdded(pipeline.info)])
        }
        for note in recording.notes {
            sink([.error(ErrorMessage(.recording, note))])
        }
        var cursors = [Int](repeating: 0, count: recording.devices.count)
        var batch: [Message] = []
        batch.reserveCapacity(16)
        while true {
            // Pick the device whose next event is earliest; ties go to the lower device index.
            var chosen = -1
            var chosenTime = Timestamp(microseconds: .max)
            for (index, device) in recording.devices.enumerated() where cursors[index] < device.events.count {
                let t = device.events[cursors[index]].time
                if t < chosenTime {
                    chosen = index
                    chosenTime = t
                }
            }
            guard chosen >= 0 else { break }
            let events = recording.devices[chosen].events
            // Feed this device's events up to and including its next SYN_REPORT in one go.
            var i = cursors[chosen]
            while i < events.count {
                let event = events[i]
                pipelines[chosen].push(event, into: &batch, observer: &observers[chosen])
                i += 1
                if event.isSynReport { break }
            }
            cursors[chosen] = i
            if !batch.isEmpty {
                sink(batch)
                batch.removeAll(keepingCapacity: true)
            }
        }
        for index in pipelines.indices {
            let events = recording.devices[index].events
            let end = events.last?.time ?? Timestamp(microseconds: 0)
            pipelines[index].finish(at: end, into: &batch, observer: &observers[index])
            batch.append(
                .deviceRemoved(DeviceRemovedMessage(device: pipelines[index].deviceID, time: end, reason: "end of recording")))
            sink(batch)
            batch.removeAll(keepingCapacity: true)
        }
    }
}
