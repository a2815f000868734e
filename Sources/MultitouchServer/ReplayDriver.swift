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
        if options.waitForSubscribers <= 0 {
            startPass()
        } else {
            var fresh = makePass()
            let announcement = fresh.announceDevices()
            pass = fresh
            emit(announcement, clock())
            devicesChanged()
        }
    }

    /// A client subscribed: a replay waiting for `subscribers` starts.
    func clientSubscribed(subscribers: Int) {
        guard !started, subscribers >= options.waitForSubscribers else { return }
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
        pass = nil
        devicesChanged()
        if options.loop && !stopping {
            startPass()
        } else {
            logger.info("replay: finished")
        }
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
