import Configuration
import DeviceInput
import Logging
import MultitouchCore
import Prediction
import TouchPipeline
import TouchRouting

/// A device's figures for `stats`, typed (the client side makes the wire object of them).
struct DeviceFigures: Hashable, Sendable {
    var device: PipelineDevice
    /// Evdev frames read (SYN_REPORTs, resyncs and drops included).
    var frames: UInt64
    /// False for a device that has gone.
    var active: Bool
    /// Per horizon asked for: how far its predictions were from where the public fingers went.
    var predictionErrors: [(horizonMilliseconds: Int, error: RunningPredictionError)]

    static func == (a: DeviceFigures, b: DeviceFigures) -> Bool {
        a.device == b.device && a.frames == b.frames && a.active == b.active
            && a.predictionErrors.map(\.horizonMilliseconds) == b.predictionErrors.map(\.horizonMilliseconds)
            && a.predictionErrors.map(\.error) == b.predictionErrors.map(\.error)
    }
    func hash(into hasher: inout Hasher) { hasher.combine(device) }
}

/// The devices' side of the daemon: the live devices (`DeviceHost`), the replay (`ReplayDriver`), the
/// device ids and touch ids they share, per-device statistics, who asked for predictions, and the
/// clients' requests carried, typed, to the pipeline of the device they name (`apply`): the answer and
/// what the request cancelled leave through `sink` like any other output of the device. Owned by the
/// loop thread.
final class Devices {
    let live: DeviceHost
    private let replay: ReplayDriver?
    private let clock: () -> UInt64
    private var nextDeviceID = 1
    private let idSource = TouchIDSource()
    /// Departed devices whose frame counts `stats` still reports (the newest `departedDevicesKept`), so
    /// a daemon that sees endless hotplug (or a `--loop` replay, new device ids each pass) stays bounded.
    private var departed: [(device: PipelineDevice, frames: UInt64)] = []
    static let departedDevicesKept = 16

    /// Where every device's output goes (whole-device and routed alike, in pipeline order), with the
    /// monotonic ns of the read that produced it.
    var sink: ([PipelineOutput], UInt64) -> Void = { _, _ in }
    /// Sees every batch the devices emit, after the clients' fan-out (the TUIO output, TUIOHook).
    var observer: (([PipelineOutput]) -> Void)?
    /// Called when the set of devices changed (the systemd status line counts them).
    var devicesChanged: () -> Void = {}
    /// Called when a client connected or left (the status line counts them too).
    var onClientsChanged: () -> Void = {}
    /// Called when a replay that does not loop ended and was asked to end the daemon then
    /// (`--exit-when-done`).
    var replayFinished: () -> Void = {}
    /// Who asked for predictions of a device (the client side knows the subscriptions).
    var predictions: (Int) -> PredictionRequests = { _ in .none } {
        didSet {
            live.predictions = predictions
            replay?.predictions = predictions
        }
    }

    /// - Parameters:
    ///   - loop: where the devices' descriptors are watched and the gesture deadline and replay timers
    ///     armed (gesture deadlines on CLOCK_MONOTONIC, like the kernel's event times).
    ///   - clock: CLOCK_MONOTONIC ns.
    init(
        configuration: DaemonConfiguration, replay options: ReplayOptions?, logger: Logger, loop: any DeviceLoop,
        clock: @escaping () -> UInt64 = Sys.monotonicNanoseconds
    ) {
        self.clock = clock
        live = DeviceHost(configuration: configuration, logger: logger, loop: loop, idSource: idSource, clock: clock)
        let ids = idSource
        replay = options.map { ReplayDriver(options: $0, loop: loop, clock: clock, logger: logger, idSource: ids) }
        live.allocateDevice = { [unowned self] in
            defer { nextDeviceID += 1 }
            return nextDeviceID
        }
        live.emit = { [unowned self] batch, readAt in emit(batch, readAt) }
        live.devicesChanged = { [unowned self] in devicesChanged() }
        live.departed = { [unowned self] device, frames in remember(device, frames: frames) }
        guard let replay else { return }
        replay.emit = { [unowned self] batch, taken in emit(batch, taken) }
        replay.allocateDevices = { [unowned self] count in
            defer { nextDeviceID += count }
            return nextDeviceID
        }
        replay.passEnded = { [unowned self] pipelines in
            for p in pipelines { remember(p.device, frames: p.frameCount) }
        }
        replay.devicesChanged = { [unowned self] in devicesChanged() }
        replay.finished = { [unowned self] in replayFinished() }
        replay.settings = { [unowned self, path = replay.path] description in
            live.configuration.pipelineSettings(path: path, description: description)
        }
    }

    var configuration: DaemonConfiguration {
        get { live.configuration }
        set { live.configuration = newValue }
    }

    /// Devices present now: the replay's, then the live ones by id.
    func currentDevices() -> [PipelineDevice] { (replay?.devices ?? []) + live.devices }

    /// Whether `device` is present (a request naming another gets `unknown-device` at once).
    func hasDevice(_ device: Int) -> Bool { currentDevices().contains { $0.id == device } }

    /// Frame counts and prediction errors of present and recently departed devices, for `stats`.
    func statistics() -> [DeviceFigures] {
        var figures: [DeviceFigures] = departed.map {
            DeviceFigures(device: $0.device, frames: $0.frames, active: false, predictionErrors: [])
        }
        for pipeline in replay?.pipelines ?? [] where (replay?.devices ?? []).contains(pipeline.device) {
            figures.append(
                DeviceFigures(
                    device: pipeline.device, frames: pipeline.frameCount, active: true,
                    predictionErrors: pipeline.predictionErrors))
        }
        for device in live.devices {
            figures.append(
                DeviceFigures(
                    device: device, frames: live.frameCount(device.id) ?? 0, active: true,
                    predictionErrors: live.predictionErrors(device.id) ?? []))
        }
        return figures.sorted { $0.device.id < $1.device.id }
    }

    private func remember(_ device: PipelineDevice, frames: UInt64) {
        departed.removeAll { $0.device.id == device.id }
        departed.append((device, frames))
        if departed.count > Self.departedDevicesKept { departed.removeFirst(departed.count - Self.departedDevicesKept) }
    }

    /// Carries a client's request to the pipeline of `device`; its answer and what it cancelled go out
    /// through `sink`. False (nothing sent) when the device is not present.
    @discardableResult
    func apply(_ request: PipelineRequest, device: Int, token: UInt64) -> Bool {
        var out: [PipelineOutput] = []
        let done: Void? =
            live.withPipeline(device) { $0.handle(request, token: token, into: &out) }
            ?? replay?.withPipeline(device: device) { $0.handle(request, token: token, into: &out) }
        guard done != nil else { return false }
        // A region's engine may have a deadline now.
        replay?.wake()
        emit(out, clock())
        return true
    }

    /// The client disconnected: its regions vanish everywhere (what that cancels is for nobody).
    func clientGone(_ client: ClientID) {
        for device in currentDevices() {
            var out: [PipelineOutput] = []
            _ =
                live.withPipeline(device.id) { $0.handle(.clientGone(client), token: 0, into: &out) }
                ?? replay?.withPipeline(device: device.id) { $0.handle(.clientGone(client), token: 0, into: &out) }
        }
        replay?.wake()
    }

    /// Every pipeline reads who asked for predictions anew (a subscription or a region changed).
    func predictionsChanged() {
        live.predictionsChanged()
        replay?.predictionsChanged()
    }

    // MARK: Replay

    /// Starts the replay (if there is one) now, unless it waits for subscribers (`ReplayDriver`).
    func startReplayIfNotWaiting() {
        replay?.startIfNotWaiting()
        // The configuration's regions are in force from the announcement: a replay waiting only for
        // them starts now.
        readinessChanged(subscribed: [])
    }

    /// A client subscribed: a replay waiting for `subscribers` starts.
    func clientSubscribed(subscribers: Int) { replay?.clientSubscribed(subscribers: subscribers) }

    /// Subscriptions or regions changed: a replay waiting for named regions (`--wait-for-regions`)
    /// counts the region ids in force on its devices that clients in `subscribed` (or the
    /// configuration) declared, and starts once it has every one.
    func readinessChanged(subscribed: Set<ClientID>) {
        guard let replay, !replay.missingRegions.isEmpty else { return }
        var ids: Set<String> = []
        for pipeline in replay.pipelines {
            for (client, regions) in pipeline.routing?.router.regions.byClient ?? [:]
            where client.isConfigured || subscribed.contains(client) {
                ids.formUnion(regions.map(\.id))
            }
        }
        replay.regionsDeclared(ids, subscribers: subscribed.count)
    }

    /// The time on the messages' clock at CLOCK_MONOTONIC `time`: with a replay, the recording's time
    /// then (a client's `frame` request gives its display's monotonic time, and the replay's messages
    /// carry the recording's clock; after a pass, that pass's clock runs on); else `time` itself (live
    /// devices' events carry CLOCK_MONOTONIC).
    func messageTime(atMonotonic time: Timestamp) -> Timestamp {
        guard time.microseconds >= 0,
            let replayed = replay?.recordingTime(atMonotonic: UInt64(time.microseconds) &* 1000)
        else { return time }
        return replayed
    }

    /// The replay timer fired.
    func runReplay(stopping: Bool) { replay?.run(stopping: stopping) }

    // MARK: Output

    /// Sends a batch of pipeline output to the clients, then to the observer (the socket clients'
    /// latency does not include the TUIO sends).
    private func emit(_ batch: [PipelineOutput], _ readAt: UInt64) {
        guard !batch.isEmpty else { return }
        sink(batch, readAt)
        observer?(batch)
    }

    // MARK: Shutdown

    /// Every live device's and the replay's touches and gestures end cancelled; devices are removed.
    func shutdown() {
        live.shutdown()
        if let outputs = replay?.shutdown(), !outputs.isEmpty { emit(outputs, clock()) }
    }
}

extension DaemonConfiguration {
    /// A device's pipeline settings: `[gestures]`, and the output mapping (size, rotation, calibration)
    /// and size of the device rule that matches it, the one mapping path of live devices and replays
    /// (`multitouchd --replay` and `multitouchctl replay --config` agree: docs/RECORDINGS.md).
    func pipelineSettings(path: String, description: DeviceDescription) -> PipelineSettings {
        let decision = DeviceMatcher(configuration: devices).decide(path: path, description: description)
        var settings = PipelineSettings(
            gestures: gestures, output: decision.output, sizeMillimeters: decision.sizeMillimeters)
        settings.configuredRegions = configuredRegions(path: path, description: description)
        return settings
    }

    /// The `[[tuio.region]]` targets whose device match takes this device, as regions the daemon holds
    /// (each under its own configured client id: its index in `[tuio]`). A TUIO region has no
    /// gesture session of its own: the program recognises its gestures from the touches.
    func configuredRegions(path: String, description: DeviceDescription) -> [ConfiguredRegion] {
        let deviceClass = description.classification.0
        return tuio.regions.enumerated().compactMap { index, target in
            guard target.rect.count == 4,
                DeviceMatcher.matches(
                    target.match, path: path, links: [], name: description.name, deviceClass: deviceClass) != nil
            else { return nil }
            let rect = RegionRect(x: target.rect[0], y: target.rect[1], width: target.rect[2], height: target.rect[3])
            let region = Region(
                id: target.id, shape: .rectangle(rect), z: target.z, mode: .opaque,
                options: RegionOptions(exclusive: target.exclusive, gestures: false))
            return ConfiguredRegion(
                client: .configured(index), region: region, label: "tuio.region[\(index + 1)] for \(target.owner)")
        }
    }
}

/// The client side's view of the devices: typed requests in, typed output out through the sink.
extension Devices: ClientHubHost {
    func deviceFigures() -> [DeviceFigures] { statistics() }
    func clientsChanged() { onClientsChanged() }
    func messageClock(_ time: Timestamp) -> Timestamp { messageTime(atMonotonic: time) }
}
