import Gestures
import Logging
import MultitouchCore
import Prediction
import TouchRouting

/// Per-device settings of the pipeline: gesture thresholds and where the coordinates go.
public struct PipelineSettings: Hashable, Sendable {
    public var gestures: GestureConfiguration
    /// Map a touchscreen onto an output (published space in pixels); nil publishes millimetres.
    public var output: OutputMapping?
    /// Physical size (width, height) in mm for devices that report no resolution.
    public var sizeMillimeters: [Double]?
    public var tapCounting: TapCountParameters
    /// Predicted touches this many ms ahead in every message (replay --predict-ms); nil: none.
    public var predictionMilliseconds: Int?

    public init(
        gestures: GestureConfiguration = .default, output: OutputMapping? = nil, sizeMillimeters: [Double]? = nil,
        tapCounting: TapCountParameters? = nil
    ) {
        self.gestures = gestures
        self.output = output
        self.sizeMillimeters = sizeMillimeters
        // UITouch.tapCount follows the double-tap thresholds unless told otherwise.
        self.tapCounting =
            tapCounting
            ?? TapCountParameters(
                intervalMilliseconds: gestures.doubleTapIntervalMilliseconds,
                distanceMillimeters: gestures.doubleTapDistanceMillimeters,
                maximumDurationMilliseconds: gestures.tapMaximumDurationMilliseconds,
                maximumMovementMillimeters: gestures.tapMaximumMovementMillimeters)
    }
}

/// One device's pure pipeline: frame assembly -> contact tracking -> gestures -> (optionally) touch
/// routing -> typed output (`PipelineOutput`). Live devices and replays run exactly this code; only the
/// source of events differs. Not thread-safe: owned by one thread (the daemon's event loop, or the
/// replay driver).
public struct DevicePipeline {
    public let deviceID: Int
    public let device: PipelineDevice
    /// What the gesture engine knows of the device (type, clickpad, height): also what each of its
    /// routed regions' sessions run on.
    public let gestureSurface: GestureSurface
    /// The device's gesture thresholds (its routed regions' sessions use them too).
    public let gestureConfiguration: GestureConfiguration
    private var assembler = FrameAssembler()
    private var tracker: ContactTracker
    private var engine: GestureEngine
    private var lastTime: Timestamp?
    /// Frames (SYN_REPORTs) seen, for stats.
    public private(set) var frameCount: UInt64 = 0
    /// Predicted touches, when asked for (`predict(horizonMilliseconds:)`); nil costs nothing.
    private var prediction: TouchPredictor?
    private let mapper: CoordinateMapper
    /// The routing stage: present while some client declared regions here (`startRouting()`), and
    /// until it is idle again (no regions, no exclusive touch down). Nil costs one branch per frame.
    public private(set) var routing: DeviceRouting?

    /// - Parameter logger: the gesture engine logs its state transitions at debug here.
    public init(
        deviceID: Int, description: DeviceDescription, source: String = "", settings: PipelineSettings = .init(),
        idSource: TouchIDSource = TouchIDSource(), logger: Logger? = nil
    ) {
        self.deviceID = deviceID
        var size: (Double, Double)?
        if let s = settings.sizeMillimeters, s.count == 2 { size = (s[0], s[1]) }
        let mapper = CoordinateMapper(description: description, output: settings.output, configuredSize: size)
        device = PipelineDevice(id: deviceID, source: source, description: description, mapper: mapper)
        self.mapper = mapper
        tracker = ContactTracker(
            description: description, mapper: mapper, idSource: idSource, tapCounting: settings.tapCounting)
        gestureSurface = GestureSurface(description: description, mapper: mapper)
        gestureConfiguration = settings.gestures
        engine = GestureEngine(configuration: settings.gestures, surface: gestureSurface, logger: logger)
        predict(horizonMilliseconds: settings.predictionMilliseconds)
    }

    /// Timer deadlines the engine or the router still reported after being advanced to them (a bug):
    /// left to the device's next frame so that no caller spins on them.
    private var stuckDeadline: Timestamp?
    private var stuckRoutingDeadline: Timestamp?

    /// The whole-device engine's next deadline, unless it is stuck.
    private var engineDeadline: Timestamp? {
        guard let deadline = engine.nextDeadline, deadline != stuckDeadline else { return nil }
        return deadline
    }

    /// The earliest timer deadline of the device (its gesture engine's and its routed regions'), for the
    /// event loop to arm or the replay schedule to take. Guaranteed to advance: after `advance(to: t)`
    /// it is nil or later than `t`, so a caller may loop `while let d = nextDeadline, d <= now {
    /// advance(to: d) }` without a guard of its own.
    public var nextDeadline: Timestamp? {
        let own = engineDeadline
        guard let routed = routing?.nextDeadline, routed != stuckRoutingDeadline else { return own }
        guard let own else { return routed }
        return min(own, routed)
    }

    /// The device's cumulative transform.
    public var transform: AffineTransform { engine.transform }

    /// Feeds one raw event. When it closes a frame, the frame's output is appended to `out`.
    public mutating func push(_ event: InputEvent, into out: inout [PipelineOutput]) {
        guard let result = assembler.push(event) else { return }
        switch result {
        case .frame(let frame):
            process(frame, into: &out)
        case .dropped(let time, let discarded):
            frameCount &+= 1
            out.append(.dropped(device: deviceID, time: time, .synDropped(count: discarded)))
        case .resync(let frame, let droppedAt):
            push(resync: frame, droppedAt: droppedAt, into: &out)
        }
    }

    /// Announces an overflow at `droppedAt` (`PipelineDrop.overflow`) and feeds the state difference
    /// libevdev produced while resyncing: the live path's resync, and a recorded one.
    // Rare (an overflow): kept out of line so that `push(_:into:)`, on every event, stays small enough
    // to inline (inlined, this cost 1.3 % more instructions per event).
    @inline(never)
    public mutating func push(resync frame: EventFrame, droppedAt: Timestamp, into out: inout [PipelineOutput]) {
        // Timers due by the overflow fire before it is announced, in time order, as a replay of the
        // recorded resync fires them (a reader stopped past a long-press deadline reads both at once).
        advanceEngine(to: droppedAt, into: &out)
        out.append(.dropped(device: deviceID, time: droppedAt, .overflow))
        var resync = frame
        resync.isResync = true
        process(resync, into: &out)
    }

    /// Advances virtual time, firing the gesture timers (the device's and its routed regions') due at
    /// or before `time`.
    public mutating func advance(to time: Timestamp, into out: inout [PipelineOutput]) {
        advanceEngine(to: time, into: &out)
        guard routing != nil else { return }
        let deliveries = routing?.advance(to: time) ?? []
        if let deadline = routing?.nextDeadline, deadline <= time { stuckRoutingDeadline = deadline }
        appendRouted(deliveries, into: &out)
    }

    /// The whole-device engine's timers only: a frame's own routing fires its regions' timers itself.
    private mutating func advanceEngine(to time: Timestamp, into out: inout [PipelineOutput]) {
        var events = engine.advance(to: time)
        if let deadline = engine.nextDeadline, deadline <= time { stuckDeadline = deadline }
        guard !events.isEmpty else { return }
        var predictedMatrix: AffineTransform?
        if let prediction {
            // An animation's frame: the engine copy runs on to the predicted time.
            var copy = engine
            _ = copy.advance(to: Timestamp(microseconds: time.microseconds &+ prediction.horizon))
            predictedMatrix = copy.transform
        }
        if routing != nil {
            events = routing?.wholeDevice(events: events) ?? events
            // Predictions reach only the whole-device stream of devices nobody routes (docs/PREDICTION.md).
            predictedMatrix = nil
            if events.isEmpty { return }
        }
        out.append(.timers(device: deviceID, events: events, predictedMatrix: predictedMatrix))
    }

    private func appendRouted(_ deliveries: [RoutingDelivery], into out: inout [PipelineOutput]) {
        guard !deliveries.isEmpty else { return }
        out.append(.routed(RoutedOutput(device: deviceID, isSemiMT: gestureSurface.isSemiMT, deliveries: deliveries)))
    }

    /// Ends the device's input: a trailing partial frame is reported dropped, every touch and gesture
    /// ends `cancelled` at `time`, pending timers fire or lapse, the routed regions' touches and sessions
    /// end, and `ended` closes the output. Used at the end of a recording, on unplug and at shutdown.
    public mutating func end(at time: Timestamp, reason: DeviceEndReason, into out: inout [PipelineOutput]) {
        let partial = assembler.takePartialFrame()
        if !partial.isEmpty {
            out.append(
                .dropped(device: deviceID, time: partial.last?.time ?? time, .partialFrame(count: partial.count)))
        }
        let end = max(time, lastTime ?? time)
        advanceEngine(to: end, into: &out)
        if let frame = tracker.cancelAll(at: end) {
            let events = engine.process(frame)
            emit(frame, events, into: &out)
        }
        // Timers still pending after the last touch (a tap waiting for double-tap failure, the frames
        // of an animation) fire at their deadlines: virtual time runs on past the end of input. Every
        // timer moves its deadline on and animations end (momentum after 20 s at most); a deadline that
        // does not move on ends the loop (`engineDeadline`).
        while let deadline = engineDeadline {
            advanceEngine(to: deadline, into: &out)
        }
        // Everything the device's regions had open ends before the device does.
        if routing != nil { appendRouted(routing?.finish() ?? [], into: &out) }
        out.append(.ended(device: deviceID, time: time, reason: reason))
    }

    /// Turns predicted touches on with a horizon in milliseconds (0-50 on the wire), or off with nil.
    /// With it on, every frame carries a `FramePrediction` (docs/PREDICTION.md) and every timer batch
    /// its predicted matrix.
    public mutating func predict(horizonMilliseconds: Int?) {
        prediction = horizonMilliseconds.map { TouchPredictor(horizonMilliseconds: $0, mapper: mapper) }
    }

    /// The horizon being predicted and how far its predictions were from where the fingers went (the
    /// daemon's `stats`); nil when predictions are off.
    public var predictionError: (horizonMilliseconds: Int, error: RunningPredictionError)? {
        prediction.map { (Int($0.horizon / 1000), $0.error) }
    }

    /// Replaces the cumulative transform (client set/reset).
    public mutating func setTransform(_ transform: AffineTransform) {
        engine.setTransform(transform)
    }

    // MARK: Routing stage

    /// Makes the routing stage (a client's first region declaration here); no-op when present.
    public mutating func startRouting(budget: RoutingBudget = .default) {
        guard routing == nil else { return }
        routing = DeviceRouting(
            device: deviceID, surface: gestureSurface, gestures: gestureConfiguration, budget: budget)
    }

    /// Runs a request on the routing stage (nil without one) and drops the stage once it is idle; what
    /// the request delivers is the caller's to send (a reply's cancellations).
    public mutating func withRouting<R>(_ body: (inout DeviceRouting) -> R) -> R? {
        // Taken out and put back, not copied: a copy of the router would copy every region's engine.
        guard var stage = routing.take() else { return nil }
        let result = body(&stage)
        if !stage.isIdle { routing = stage }
        return result
    }

    private mutating func process(_ frame: EventFrame, into out: inout [PipelineOutput]) {
        frameCount &+= 1
        advanceEngine(to: frame.time, into: &out)
        lastTime = frame.time
        // A new frame gives a stuck timer its next chance (the guarantee holds: one advance per frame).
        stuckDeadline = nil
        stuckRoutingDeadline = nil
        if let touchFrame = tracker.process(frame) {
            let events = engine.process(touchFrame)
            emit(touchFrame, events, into: &out)
        }
        // A touch that began and ended within this one frame: its end follows at once, in a frame of
        // its own with the same time, so the engine sees began before ended.
        if tracker.hasDeferredEnds, let ends = tracker.takeDeferredEnds() {
            let events = engine.process(ends)
            emit(ends, events, into: &out)
        }
    }

    private mutating func emit(_ frame: TouchFrame, _ events: [GestureEvent], into out: inout [PipelineOutput]) {
        var output = PipelineFrame(device: deviceID, frame: frame, events: events)
        if prediction != nil { output.prediction = predicted(frame, events) }
        if routing != nil { routeStage(&output) }
        out.append(.frame(output))
    }

    /// The routing stage's share of a frame: its deliveries, and the whole-device stream filtered for
    /// exclusive regions. Out of line: the unrouted path stays as small as before routing existed.
    @inline(never)
    private mutating func routeStage(_ output: inout PipelineFrame) {
        output.routed = routing?.route(output.frame) ?? []
        if let shown = routing?.wholeDevice(output.frame) {
            output.frame = shown
        } else {
            output.isWithheld = true
        }
        output.events = routing?.wholeDevice(events: output.events) ?? output.events
        // Predictions reach only the whole-device stream of devices nobody routes (docs/PREDICTION.md).
        output.prediction = nil
        // Kept past its regions' clients while it hides an exclusive touch; dropped once that ends.
        if routing?.isIdle == true { routing = nil }
    }

    /// The frame's live touches predicted `horizon` ahead, and a copy of the engine (a struct: copying
    /// shares its storage until written) fed that predicted frame for the matrix the content should
    /// show then.
    @inline(never)
    private mutating func predicted(_ frame: TouchFrame, _ events: [GestureEvent]) -> FramePrediction? {
        // Optional chaining mutates the predictor in place (a copy out and back cost 15 % of this).
        guard let predicted = prediction?.predict(after: frame) else { return nil }
        let locations = predicted.touches.map(\.location)
        guard events.contains(where: { if case .update = $0 { true } else { false } }) else {
            return FramePrediction(locations: locations, matrix: nil)
        }
        var copy = engine
        _ = copy.advance(to: predicted.time)
        if !predicted.touches.isEmpty { _ = copy.process(predicted) }
        return FramePrediction(locations: locations, matrix: copy.transform)
    }
}
