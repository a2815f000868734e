import MultitouchCore
import Recordings
import TouchPipeline
import TouchVocabulary

/// How the daemon serves a recording as if it were live devices.
public struct ReplayOptions: Sendable {
    public var recording: Recording
    /// Shown as the device `source` (the file name, as `multitouchctl replay` does).
    public var source: String
    /// The recording's path as given: what the configuration's `[[devices.rule]]` path patterns match,
    /// as `multitouchctl replay --config` matches it (one mapping path, docs/RECORDINGS.md).
    public var path: String
    /// Start over at the end, with fresh device ids.
    public var loop: Bool
    /// Time scale: 2 plays twice as fast.
    public var speed: Double
    /// Wait until this many clients have subscribed before starting (tests, demos).
    public var waitForSubscribers: Int
    /// Wait until a region with each of these ids is in force on the recording's devices, declared by a
    /// client that has subscribed (or by the configuration), before starting: a rehearsal starts once
    /// every program is ready, however many connections each one opens.
    public var waitForRegions: [String]
    /// Stop the daemon (exit status 0) once a pass that does not loop has ended.
    public var exitWhenDone: Bool

    public init(
        recording: Recording, source: String, path: String? = nil, loop: Bool = false, speed: Double = 1,
        waitForSubscribers: Int = 0, waitForRegions: [String] = [], exitWhenDone: Bool = false
    ) {
        self.recording = recording
        self.source = source
        self.path = path ?? source
        self.loop = loop
        self.speed = speed
        self.waitForSubscribers = waitForSubscribers
        self.waitForRegions = waitForRegions
        self.exitWhenDone = exitWhenDone
    }

    /// Whether the first pass waits for subscribers or regions (its devices are announced meanwhile).
    public var waits: Bool { waitForSubscribers > 0 || !waitForRegions.isEmpty }

    /// The speeds `--speed` accepts: a thousandth of real time would turn a one-second gesture into 17
    /// minutes, a thousand times makes a minute of input last 60 ms; beyond these the pacing arithmetic
    /// (ns in a UInt64) is the only limit, and nobody needs it.
    public static let speeds: ClosedRange<Double> = 0.001...1000

    /// Why `--speed` is refused, or nil when it is in `speeds`.
    public static func speedProblem(_ speed: Double) -> String? {
        guard speed.isFinite, speeds.contains(speed) else {
            return "--speed must be a number from \(speeds.lowerBound) to \(speeds.upperBound.formatted)"
        }
        return nil
    }

    /// Why these options cannot be served, or nil when they can: the speed's range, and a `--loop` of a
    /// recording that takes no time (no events, or all at one timestamp), which would start pass after
    /// pass without ever waiting.
    public var problem: String? {
        if let problem = ReplayOptions.speedProblem(speed) { return problem }
        if loop {
            let times = recording.devices.flatMap { [$0.events.first?.time, $0.events.last?.time] }.compactMap { $0 }
            guard let first = times.min(), let last = times.max(), first < last else {
                return "--loop needs a recording whose events span some time; \(source) has "
                    + (times.isEmpty ? "no events" : "all its events at one timestamp")
            }
        }
        return nil
    }
}

/// Replay options the daemon cannot serve (`ReplayOptions.problem`).
public struct ReplayOptionsError: Error, CustomStringConvertible, Sendable {
    public var description: String
}

extension Double {
    /// `1000`, not `1000.0`, for messages.
    fileprivate var formatted: String { self == rounded() && abs(self) < 1e15 ? String(Int64(self)) : String(self) }
}

/// One pass over a recording in real (scaled) time: the steps of `ReplaySchedule` (the order
/// `multitouchctl replay` prints), each taken when its scaled recording time comes.
struct ReplayPass {
    private let options: ReplayOptions
    private var schedule: ReplaySchedule
    /// Monotonic ns at which recording time `origin` plays.
    private var startNanoseconds: UInt64
    private let originMicroseconds: Int64
    /// The recording's notes, held back by `announceDevices()` until the pass starts (they are about the
    /// playing, and the subscribers it waits for are not there yet).
    private var heldNotes: [PipelineOutput] = []
    /// False while announced and waiting for `start(now:)`: recording time stands at the origin.
    private var started = true

    /// - Parameter settings: each device's pipeline settings (the configuration's device rule that
    ///   matches it, as for a live device).
    init(
        options: ReplayOptions, firstDeviceID: Int, idSource: TouchIDSource,
        settings: @escaping (DeviceDescription) -> PipelineSettings, now: UInt64
    ) {
        self.options = options
        schedule = ReplaySchedule(
            recording: options.recording, source: options.source, settings: PipelineSettings(),
            firstDeviceID: firstDeviceID, idSource: idSource, deviceSettings: settings)
        startNanoseconds = now
        originMicroseconds = schedule.origin?.microseconds ?? 0
    }

    /// Announces the devices before the pass starts (a replay waiting for subscribers): they are present
    /// from now on, in every client's hello, and accept regions before the first frame plays. Returns the
    /// `deviceAdded` outputs; the recording's notes come when the pass starts.
    mutating func announceDevices() -> [PipelineOutput] {
        guard schedule.nextStep == .announce else { return [] }
        var batch: [PipelineOutput] = []
        schedule.take(.announce, into: &batch)
        let devices = batch.filter { if case .deviceAdded = $0 { true } else { false } }
        heldNotes = batch.filter { if case .deviceAdded = $0 { false } else { true } }
        started = false
        return devices
    }

    /// Starts the pacing now: recording time `origin` plays at monotonic `now`.
    mutating func start(now: UInt64) {
        startNanoseconds = now
        started = true
    }

    var pipelines: [DevicePipeline] { schedule.pipelines }
    var finished: Bool { schedule.isFinished }

    /// Monotonic ns at which recording time `t` plays (saturating: a recording spanning more than the
    /// clock can hold plays its far end at the end of time rather than trapping).
    func playTime(_ t: Timestamp) -> UInt64 {
        let offset = Double(t.microseconds &- originMicroseconds) * 1000 / options.speed
        guard offset > 0 else { return startNanoseconds }
        guard offset < Double(UInt64.max - startNanoseconds) else { return .max }
        return startNanoseconds + UInt64(offset)
    }

    /// Recording time that plays at monotonic `now` (for cancelling at shutdown, and for a client's
    /// `frame` time); before the start, and while the pass waits, the origin.
    func recordingTime(at now: UInt64) -> Timestamp { clock.recordingTime(at: now) }

    /// How monotonic time maps onto the recording's, as it stands.
    var clock: ReplayClock {
        ReplayClock(
            startNanoseconds: startNanoseconds, originMicroseconds: originMicroseconds, speed: options.speed,
            started: started)
    }

    /// Takes every step due at monotonic `now`, handing each batch to `sink` with the ns it was taken at.
    /// Returns when the next step lies in the future (its monotonic time), after a burst of 256 steps
    /// (`now`: come back at once, so clients and signals are served in between), or when the pass is over
    /// (nil).
    mutating func run(now: UInt64, clock: () -> UInt64, sink: ([PipelineOutput], UInt64) -> Void) -> UInt64? {
        var batch: [PipelineOutput] = []
        if !heldNotes.isEmpty {
            sink(heldNotes, now)
            heldNotes = []
        }
        var steps = 0
        while let step = schedule.nextStep {
            if let time = step.time {
                let due = playTime(time)
                if due > now { return due }
            }
            if steps >= 256 { return now }
            let taken = step == .announce ? now : clock()
            schedule.take(step, into: &batch)
            if !batch.isEmpty || step == .announce { sink(batch, taken) }
            batch.removeAll(keepingCapacity: true)
            steps += 1
        }
        return nil
    }

    /// Cancels everything at shutdown (time: the recording time playing now) and removes the devices.
    mutating func shutdown(now: UInt64, reason: DeviceEndReason) -> [PipelineOutput] {
        schedule.stop(at: recordingTime(at: now), reason: reason)
    }

    /// Who asked for predictions of each device of the recording.
    mutating func setPredictions(_ requests: (Int) -> PredictionRequests) {
        schedule.setPredictions(requests)
    }

    /// The devices clients see now: announced and not yet ended.
    var devices: [PipelineDevice] { schedule.presentDevices }

    /// Runs `body` on the pipeline of device `id` (a region request); nil when the pass has no such device.
    mutating func withPipeline<R>(device id: Int, _ body: (inout DevicePipeline) -> R) -> R? {
        schedule.withPipeline(device: id, body)
    }
}

/// How a pass maps CLOCK_MONOTONIC onto the recording's clock: recording time `origin` played at
/// monotonic `start`, and time runs `speed` times as fast (standing at the origin until it started).
struct ReplayClock: Hashable, Sendable {
    var startNanoseconds: UInt64
    var originMicroseconds: Int64
    var speed: Double
    var started: Bool

    /// The recording time that plays (or played) at monotonic `now`; the origin before the start.
    func recordingTime(at now: UInt64) -> Timestamp {
        guard started, now > startNanoseconds else { return Timestamp(microseconds: originMicroseconds) }
        let elapsed = Double(now - startNanoseconds) * speed / 1000
        guard elapsed < Double(Int64.max - max(0, originMicroseconds)) else { return Timestamp(microseconds: .max) }
        return Timestamp(microseconds: originMicroseconds &+ Int64(elapsed))
    }
}
