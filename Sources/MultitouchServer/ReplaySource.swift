import Gestures
import MultitouchCore
import Recordings
import TouchPipeline
import WireProtocol

/// How the daemon serves a recording as if it were live devices.
public struct ReplayOptions: Sendable {
    public var recording: Recording
    /// Shown as the device `source` (the file name, as `multitouchctl replay` does).
    public var source: String
    /// Start over at the end, with fresh device ids.
    public var loop: Bool
    /// Time scale: 2 plays twice as fast.
    public var speed: Double
    /// Wait until this many clients have subscribed before starting (tests, demos).
    public var waitForSubscribers: Int

    public init(recording: Recording, source: String, loop: Bool = false, speed: Double = 1, waitForSubscribers: Int = 0) {
        self.recording = recording
        self.source = source
        self.loop = loop
        self.speed = speed
        self.waitForSubscribers = waitForSubscribers
    }
}

/// One pass over a recording in real (scaled) time: produces the same messages, in the same order, as
/// `TouchPipeline.Replay.run` (deviceAdded for each device, the recording's notes, frames merged in time
/// order with ties to the lower device index, then each device's end). Gesture timers fire at their own
/// scaled deadlines instead of at the next frame; that changes only when a message is sent, not which.
struct ReplayPass {
    private let options: ReplayOptions
    private(set) var pipelines: [DevicePipeline]
    private var cursors: [Int]
    /// Monotonic ns at which recording time `originMicroseconds` plays.
    private let startNanoseconds: UInt64
    private let originMicroseconds: Int64
    private var announced = false
    private var stuckDeadline: [Timestamp?]
    private(set) var finished = false

    init(options: ReplayOptions, firstDeviceID: Int, idSource: TouchIDSource, settings: PipelineSettings, now: UInt64) {
        self.options = options
        pipelines = options.recording.devices.enumerated().map { index, device in
            DevicePipeline(
                deviceID: firstDeviceID + index, description: device.description, source: options.source,
                settings: settings, idSource: idSource)
        }
        cursors = Array(repeating: 0, count: options.recording.devices.count)
        stuckDeadline = Array(repeating: nil, count: options.recording.devices.count)
        startNanoseconds = now
        originMicroseconds = options.recording.devices.compactMap { $0.events.first?.time.microseconds }.min() ?? 0
    }

    /// Monotonic ns at which recording time `t` plays.
    func playTime(_ t: Timestamp) -> UInt64 {
        let offset = Double(t.microseconds &- originMicroseconds) * 1000 / options.speed
        return offset <= 0 ? startNanoseconds : startNanoseconds &+ UInt64(offset)
    }

    /// Recording time that plays at monotonic `now` (for cancelling at shutdown).
    func recordingTime(at now: UInt64) -> Timestamp {
        let elapsed = Double(now &- startNanoseconds) * options.speed / 1000
        return Timestamp(microseconds: originMicroseconds &+ Int64(elapsed))
    }

    private enum Step {
        case frame(device: Int, time: Timestamp)
        case timer(device: Int, deadline: Timestamp)
        case end
    }

    private func nextStep() -> Step {
        var best: Step = .end
        var bestTime = Timestamp(microseconds: .max)
        var bestIsFrame = false
        for (index, device) in options.recording.devices.enumerated() where cursors[index] < device.events.count {
            let frameTime = device.events[cursors[index]].time
            // A timer of this device due strictly before its own next frame fires at its deadline; at equal
            // times the frame's own advance fires it, exactly as the offline replay does. After a device's
            // last frame its timers are left to `finish`, as offline.
            if let deadline = pipelines[index].nextDeadline, deadline < frameTime, deadline != stuckDeadline[index] {
                if deadline < bestTime {
                    best = .timer(device: index, deadline: deadline)
                    bestTime = deadline
                    bestIsFrame = false
                }
            } else if frameTime < bestTime || (frameTime == bestTime && !bestIsFrame) {
                // Frames win ties with timers of other devices (the offline replay fires those timers only
                // at their own device's next frame).
                best = .frame(device: index, time: frameTime)
                bestTime = frameTime
                bestIsFrame = true
            }
        }
        return best
    }

    /// Runs everything due at monotonic `now`, handing each batch to `sink` with the ns it was taken at.
    /// Returns when the next step lies in the future (its monotonic time) or the pass is over (nil).
    mutating func run(now: UInt64, clock: () -> UInt64, sink: ([Message], UInt64) -> Void) -> UInt64? {
        var batch: [Message] = []
        if !announced {
            announced = true
            for pipeline in pipelines { batch.append(.deviceAdded(pipeline.info)) }
            for note in options.recording.notes { batch.append(.error(ErrorMessage(.recording, note))) }
            sink(batch, now)
            batch.removeAll(keepingCapacity: true)
        }
        var steps = 0
        while !finished {
            switch nextStep() {
            case .timer(let device, let deadline):
                let due = playTime(deadline)
                if due > now { return due }
                let taken = clock()
                pipelines[device].advance(to: deadline, into: &batch)
                if pipelines[device].nextDeadline == deadline {
                    // The engine did not move its own deadline on (a bug there): the replay must not spin,
                    // so this deadline is left to the device's next frame.
                    stuckDeadline[device] = deadline
                }
                sink(batch, taken)
                batch.removeAll(keepingCapacity: true)
            case .frame(let device, let time):
                let due = playTime(time)
                if due > now { return due }
                let taken = clock()
                let events = options.recording.devices[device].events
                var i = cursors[device]
                while i < events.count {
                    let event = events[i]
                    pipelines[device].push(event, into: &batch)
                    i += 1
                    if event.isSynReport { break }
                }
                cursors[device] = i
                if !batch.isEmpty { sink(batch, taken) }
                batch.removeAll(keepingCapacity: true)
            case .end:
                for index in pipelines.indices {
                    let end = options.recording.devices[index].events.last?.time ?? Timestamp(microseconds: 0)
                    pipelines[index].finish(at: end, into: &batch)
                    batch.append(
                        .deviceRemoved(
                            DeviceRemovedMessage(device: pipelines[index].deviceID, time: end, reason: "end of recording")))
                    sink(batch, clock())
                    batch.removeAll(keepingCapacity: true)
                }
                finished = true
                return nil
            }
            steps += 1
            // Yield to the event loop now and then during a catch-up burst so clients and signals are served.
            if steps >= 256 { return now }
        }
        return nil
    }

    /// Cancels everything at shutdown (time: the recording time playing now) and removes the devices.
    mutating func shutdown(now: UInt64, reason: String) -> [Message] {
        guard !finished else { return [] }
        finished = true
        var out: [Message] = []
        let time = recordingTime(at: now)
        for index in pipelines.indices {
            pipelines[index].finish(at: time, into: &out)
            out.append(.deviceRemoved(DeviceRemovedMessage(device: pipelines[index].deviceID, time: time, reason: reason)))
        }
        return out
    }

    mutating func setTransform(index: Int, _ transform: AffineTransform) {
        pipelines[index].setTransform(transform)
    }

    var deviceInfos: [DeviceInfo] { finished ? [] : (announced ? pipelines.map(\.info) : []) }
    var deviceCount: Int { pipelines.count }
}
