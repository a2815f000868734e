import Logging
import MultitouchCore
import TouchPipeline

/// The daemon's replay source, one job: passes over a recording in scaled real time (`ReplayPass`,
/// the steps of `ReplaySchedule`), announced at once or waiting for subscribers, looping on request,
/// paced by the replay timer it arms, ended at shutdown. Its output goes to `emit` like a live
/// device's. Owned by the loop thread; a test drives it with a virtual clock.
final class ReplayDriver {
    private let options: ReplayOptions
    private let loop: any DeviceLoop
    private let clock: () -> UInt64
    private let logger: Logger
    private let idSource: TouchIDSource
    private var pass: ReplayPass?
    private var started = false

    /// Where each batch goes, with the monotonic ns it was taken at.
    var emit: ([PipelineOutput], UInt64) -> Void = { _, _ in }
    /// Device ids for a new pass: returns the first of `count` fresh ones.
    var allocateDevices: (_ count: Int) -> Int = { _ in 1 }
    /// A pass ended: its pipelines (their last frame counts, for the statistics of departed devices).
    var passEnded: ([DevicePipeline]) -> Void = { _ in }
    /// The set of devices changed: a waiting pass announced, or a pass ended.
    var devicesChanged: () -> Void = {}
    /// The pipeline settings a new pass gives each device (the configuration may have been reloaded).
    var settings: (DeviceDescription) -> PipelineSettings = { _ in PipelineSettings() }
    /// Who asked for predictions of a device, for new passes too.
    var predictions: (Int) -> PredictionRequests = { _ in .none }
    /// A pass that does not loop ended, and the options ask the daemon to exit then.
    var finished: () -> Void = {}
    /// What the first pass waits for has come: subscribers counted, region ids declared by them.
    private var subscribers = 0
    private var declaredRegions: Set<String> = []
    /// The clock of the pass that ended last: clients may still ask for frames of what it played.
    private var lastClock: ReplayClock?

    init(
        options: ReplayOptions, loop: any DeviceLoop, clock: @escaping () -> UInt64, logger: Logger,
        idSource: TouchIDSource
    ) {
        self.options = options
        self.loop = loop
        self.clock = clock
        self.logger = logger
        self.idSource = idSource
    }

    /// The recording's path as given (what device rules match).
    var path: String { options.path }

    /// The devices clients see now: announced and not yet ended.
    var devices: [PipelineDevice] { pass?.devices ?? [] }
    var pipelines: [DevicePipeline] { pass?.pipelines ?? [] }
    /// A pass is playing (its timer may need arming when a routing stage got a deadline).
    var isPlaying: Bool { started && pass != nil }

    /// Starts now unless it waits for subscribers; a waiting replay's devices are announced now, so they
    /// are in every client's hello (as a live device present at connect is, with no `deviceAdded` after
    /// it) and accept regions before the first frame plays.
    func startIfNotWaiting() {
        if !options.waits {
            startPass()
        } else {
            var fresh = makePass()
            let announcement = fresh.announceDevices()
            pass = fresh
            emit(announcement, clock())
            devicesChanged()
            logWaiting()
        }
    }

    /// A client subscribed: a replay waiting for `subscribers` starts.
    func clientSubscribed(subscribers: Int) {
        self.subscribers = subscribers
        startIfReady()
    }

    /// The region ids in force on the replay's devices that subscribed clients (or the configuration)
    /// declared changed: a replay waiting for regions starts once it has all of them.
    func regionsDeclared(_ ids: Set<String>, subscribers: Int) {
        guard !started, ids != declaredRegions || subscribers != self.subscribers else { return }
        declaredRegions = ids
        self.subscribers = subscribers
        if !startIfReady() { logWaiting() }
    }

    /// The region ids the first pass still waits for (empty when it waits for none, or started).
    var missingRegions: [String] {
        started ? [] : options.waitForRegions.filter { !declaredRegions.contains($0) }
    }

    @discardableResult
    private func startIfReady() -> Bool {
        guard !started, subscribers >= options.waitForSubscribers, missingRegions.isEmpty else { return false }
        if var waiting = pass {
            // Announced while waiting: its pacing starts now.
            waiting.start(now: clock())
            pass = waiting
            started = true
            logStart()
            loop.armReplay(at: clock())
        } else {
            startPass()
        }
        return true
    }

    private func logWaiting() {
        var metadata: Logger.Metadata = [:]
        if options.waitForSubscribers > 0 {
            metadata["replay.subscribers"] = "\(subscribers) of \(options.waitForSubscribers)"
        }
        if !options.waitForRegions.isEmpty {
            metadata["replay.regions_missing"] = "\(missingRegions.joined(separator: ","))"
        }
        logger.info("replay: waiting", metadata: metadata)
    }

    /// The replay timer fired: takes the steps that are due and arms the timer for the next one.
    func run(stopping: Bool) {
        loop.acknowledgeReplay()
        guard var playing = pass else { return }
        pass = nil  // taken out and put back: not copied
        let now = clock()
        let next = playing.run(now: now, clock: clock) { batch, taken in emit(batch, taken) }
        pass = playing
        if let next {
            loop.armReplay(at: next)
            return
        }
        passEnded(playing.pipelines)
        lastClock = playing.clock
        pass = nil
        devicesChanged()
        if options.loop && !stopping {
            startPass()
        } else {
            logger.info("replay: finished")
            if options.exitWhenDone && !stopping { finished() }
        }
    }

    /// The recording's time that plays at monotonic `now` ns: the present pass's (waiting: its origin),
    /// else the last pass's, which ran on past its end (a frame-aligned client still takes its last
    /// touches); nil before the first pass.
    func recordingTime(atMonotonic now: UInt64) -> Timestamp? {
        pass.map { $0.recordingTime(at: now) } ?? lastClock?.recordingTime(at: now)
    }

    /// Comes back at once (a region request gave a routing stage a deadline sooner than the armed one).
    func wake() {
        if isPlaying { loop.armReplay(at: clock()) }
    }

    /// Runs `body` on the pipeline of a present device; nil when the pass has none.
    func withPipeline<R>(device id: Int, _ body: (inout DevicePipeline) -> R) -> R? {
        guard var playing = pass, playing.devices.contains(where: { $0.id == id }) else { return nil }
        pass = nil
        let result = playing.withPipeline(device: id, body)
        pass = playing
        return result
    }

    /// Every device reads who asked for predictions anew (a subscription changed).
    func predictionsChanged() {
        guard var playing = pass else { return }
        pass = nil
        playing.setPredictions(predictions)
        pass = playing
    }

    /// Ends the pass at shutdown: touches cancelled at the recording time playing now, devices removed.
    func shutdown() -> [PipelineOutput] {
        guard var playing = pass else { return [] }
        let outputs = playing.shutdown(now: clock(), reason: .shutdown)
        pass = playing
        return outputs
    }

    /// A new pass over the recording (fresh device ids), not yet run.
    private func makePass() -> ReplayPass {
        var fresh = ReplayPass(
            options: options, firstDeviceID: allocateDevices(options.recording.devices.count), idSource: idSource,
            settings: settings, now: clock())
        fresh.setPredictions(predictions)
        return fresh
    }

    private func startPass() {
        started = true
        pass = makePass()
        logStart()
        // The pass runs from the event loop, never from here: a `--loop` pass that takes no time then
        // starts the next one on the next turn of the loop (serving clients and signals in between)
        // instead of recursing.
        loop.armReplay(at: clock())
    }

    private func logStart() {
        logger.info(
            "replay: starting", metadata: ["replay.source": "\(options.source)", "replay.speed": "\(options.speed)"])
    }
}
