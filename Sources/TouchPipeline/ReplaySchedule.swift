import Gestures
import MultitouchCore
import Recordings

/// The one order in which a recording is played, shared by `multitouchctl replay` (virtual time: every
/// step at once) and `multitouchd --replay` (each step when its recording time comes, scaled): so a
/// socket client of a replaying daemon receives exactly the lines `replay --json` prints.
///
/// The order: the announcement (a `deviceAdded` per device, then the recording's notes), the frames of
/// all devices merged in time order (ties to the lower device index), each gesture timer at its own
/// deadline when that comes strictly before its device's next frame (a timer due at the frame's time
/// fires with the frame, as do timers of other devices due at the same time), then each device's end
/// (touches cancelled, timers run out, `deviceRemoved`). Timers pending after a device's last frame are
/// left to its end. A pure value: no clock, no I/O; the caller decides when to take each step.
public struct ReplaySchedule {
    /// What the next step is, and the recording time it belongs to.
    public enum Step: Hashable, Sendable {
        /// `deviceAdded` for every device and the recording's notes (plays at the start).
        case announce
        /// The next frame of device `index` (its events up to and including SYN_REPORT).
        case frame(index: Int, time: Timestamp)
        /// A gesture timer of device `index`, due before that device's next frame.
        case timer(index: Int, deadline: Timestamp)
        /// The end of device `index`'s input (after every frame of every device).
        case end(index: Int, time: Timestamp)

        /// The recording time the step plays at; nil for the announcement and the ends, which play as
        /// soon as they are reached.
        public var time: Timestamp? {
            switch self {
            case .announce, .end: return nil
            case .frame(_, let time): return time
            case .timer(_, let deadline): return deadline
            }
        }
    }

    public let recording: Recording
    public private(set) var pipelines: [DevicePipeline]
    private var cursors: [Int]
    private var announced = false
    /// Devices whose end step has been taken, in order.
    private var ended = 0

    /// - Parameters:
    ///   - settings: every device's settings, unless `deviceSettings` gives a device its own (the
    ///     configuration's device rule that matches it: output mapping, size).
    ///   - firstDeviceID: the daemon id of the recording's first device (the others follow it).
    ///   - idSource: touch ids, shared with the other devices of the same process.
    public init(
        recording: Recording, source: String, settings: PipelineSettings, firstDeviceID: Int = 1,
        idSource: TouchIDSource = TouchIDSource(), deviceSettings: ((DeviceDescription) -> PipelineSettings)? = nil
    ) {
        self.recording = recording
        pipelines = recording.devices.enumerated().map { index, device in
            DevicePipeline(
                deviceID: firstDeviceID + index, description: device.description, source: source,
                settings: deviceSettings?(device.description) ?? settings, idSource: idSource)
        }
        cursors = Array(repeating: 0, count: recording.devices.count)
    }

    /// The earliest event time of the recording (what plays first); nil when it has no events.
    public var origin: Timestamp? {
        recording.devices.compactMap { $0.events.first?.time }.min()
    }

    /// True once every step has been taken.
    public var isFinished: Bool { announced && ended == pipelines.count }

    /// The devices clients see now: announced and not yet ended.
    public var presentDevices: [PipelineDevice] {
        announced ? pipelines[ended...].map(\.device) : []
    }

    /// Runs `body` on the pipeline of device `id` (a routing request, a transform); nil when the
    /// recording has no such device.
    public mutating func withPipeline<R>(device id: Int, _ body: (inout DevicePipeline) -> R) -> R? {
        guard let index = pipelines.firstIndex(where: { $0.deviceID == id }) else { return nil }
        return body(&pipelines[index])
    }

    /// The step to take next; nil when the schedule is finished.
    public var nextStep: Step? {
        guard announced else { return .announce }
        guard ended < pipelines.count else { return nil }
        if ended > 0 { return endStep(ended) }
        var best: Step?
        var bestTime = Timestamp(microseconds: .max)
        var bestIsFrame = false
        for (index, device) in recording.devices.enumerated() where cursors[index] < device.events.count {
            let frameTime = device.events[cursors[index]].time
            if let deadline = pipelines[index].nextDeadline, deadline < frameTime {
                if deadline < bestTime {
                    best = .timer(index: index, deadline: deadline)
                    bestTime = deadline
                    bestIsFrame = false
                }
            } else if frameTime < bestTime || (frameTime == bestTime && !bestIsFrame) {
                // Frames win ties with timers of other devices: those fire at their own device's next
                // frame or end, as the pipeline's own advance does.
                best = .frame(index: index, time: frameTime)
                bestTime = frameTime
                bestIsFrame = true
            }
        }
        return best ?? endStep(0)
    }

    private func endStep(_ index: Int) -> Step {
        .end(index: index, time: recording.devices[index].events.last?.time ?? Timestamp(microseconds: 0))
    }

    /// Takes `step` (which must be `nextStep`), appending its output to `out`.
    public mutating func take(_ step: Step, into out: inout [PipelineOutput]) {
        switch step {
        case .announce:
            announced = true
            for pipeline in pipelines { out.append(.deviceAdded(pipeline.device)) }
            for note in recording.notes { out.append(.recordingNote(note)) }
        case .frame(let index, _):
            let events = recording.devices[index].events
            var i = cursors[index]
            while i < events.count {
                let event = events[i]
                pipelines[index].push(event, into: &out)
                i += 1
                if event.isSynReport { break }
            }
            cursors[index] = i
        case .timer(let index, let deadline):
            pipelines[index].advance(to: deadline, into: &out)
        case .end(let index, let time):
            pipelines[index].end(at: time, reason: .endOfRecording, into: &out)
            ended = index + 1
        }
    }

    /// Ends every device still present at `time` (daemon shutdown): touches cancelled, `ended` with
    /// `reason`. The schedule is finished afterwards.
    public mutating func stop(at time: Timestamp, reason: DeviceEndReason) -> [PipelineOutput] {
        guard !isFinished else { return [] }
        var out: [PipelineOutput] = []
        if announced {
            for index in ended..<pipelines.count { pipelines[index].end(at: time, reason: reason, into: &out) }
        }
        announced = true
        ended = pipelines.count
        return out
    }

    /// Who asked for predictions of each device (`DevicePipeline.setPredictions`).
    public mutating func setPredictions(_ requests: (Int) -> PredictionRequests) {
        for index in pipelines.indices { pipelines[index].setPredictions(requests(pipelines[index].deviceID)) }
    }
}
