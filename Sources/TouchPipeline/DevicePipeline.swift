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
    /// Regions the configuration declares on the device (`[[tuio.region]]`), in force from its first
    /// frame.
    public var configuredRegions: [ConfiguredRegion] = []

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

/// One device's pure pipeline: frame assembly -> contact tracking -> the device's views -> typed
/// output (`PipelineOutput`). Live devices and replays run exactly this code; only the source of events
/// differs. Not thread-safe: owned by one thread (the daemon's event loop, or the replay driver).
///
/// Every stream a client can hold is a view of the device's touches with every per-client feature
/// (DESIGN.md invariant 12): the whole-device view (its own gesture engine over every touch but the
/// secure ones, `[gestures]` settings, the whole-device subscribers' prediction horizons), and, with a
/// routing stage, each region's view (the touches bound to it at `began`, its own engine with the
/// region's settings, its client's horizon). One filter state per touch feeds every horizon.
/// Secure touches (they began in an exclusive region) exist for their region's client only: the
/// whole-device view, its engine, ids, slots, tap counts, timers and prediction scores never see them,
/// so deleting them from the input changes nothing anyone else receives (DESIGN.md invariant 11).
public struct DevicePipeline {
    public let deviceID: Int
    public let device: PipelineDevice
    /// What the gesture engine knows of the device (class, clickpad, height): also what each of its
    /// routed regions' sessions run on.
    public let gestureSurface: GestureSurface
    /// The device's gesture thresholds (its routed regions' sessions use them, under their own settings).
    public let gestureConfiguration: GestureConfiguration
    private var assembler = FrameAssembler()
    private var tracker: ContactTracker
    /// The whole-device view's gesture engine: fed every frame's public touches only.
    private var engine: GestureEngine
    /// What the whole-device view last published of the device: a frame whose public touches did not
    /// change (only secure ones did) is not published, exactly as the tracker publishes no frame where
    /// nothing changed.
    private var wholeDeviceFingers = 0
    private var wholeDeviceButton = false
    private var lastTime: Timestamp?
    /// Frames (SYN_REPORTs) seen, for stats.
    public private(set) var frameCount: UInt64 = 0
    /// One filter per live touch while anyone asked for predictions; nil costs nothing.
    private var predictor: TouchPredictor?
    /// Who asked for predictions here.
    public private(set) var predictions = PredictionRequests.none
    /// The whole-device view's horizons, ascending (from `predictions`, or `PipelineSettings`).
    private var wholeDeviceHorizons: [Int] = []
    /// Every horizon predicted here, ascending: the whole-device view's and the regions' clients'.
    private var horizons: [Int] = []
    private let mapper: CoordinateMapper
    /// The routing stage: present while some client declared regions here, dropped once none has
    /// (secure touches still down stay hidden without it: they are secure by id). Nil costs one branch
    /// per frame.
    public private(set) var routing: DeviceRouting?
    /// `PipelineSettings.predictionMilliseconds`: a whole-device horizon kept whatever clients ask
    /// (`replay --predict-ms`).
    private let fixedHorizon: Int?
    /// Who each configured region is for (`PipelineSettings.configuredRegions`), by its client id.
    private var configuredLabels: [ClientID: String] = [:]
    /// The whole-device engine's events of the last frame: its storage is handed to the frame's output
    /// and reused by the next frame once the caller has dropped that output (the daemon does, after
    /// each frame), so the engine's output allocates nothing per frame.
    private var events: [GestureEvent] = []
    /// The same for a frame of deferred ends, which goes out in one batch with the frame before it,
    /// and for the timers that fire before a frame.
    private var deferredEvents: [GestureEvent] = []
    private var timerEvents: [GestureEvent] = []

    /// - Parameter logger: the gesture engine logs its state transitions at debug here.
    public init(
        deviceID: Int, description: DeviceDescription, source: String = "", settings: PipelineSettings = .init(),
        idSource: TouchIDSource = TouchIDSource(), logger: Logger? = nil
    ) {
        self.deviceID = deviceID
        var size: (Double, Double)?
        if let s = settings.sizeMillimeters, s.count == 2 { size = (s[0], s[1]) }
        let mapper = CoordinateMapper(description: description, output: settings.output, configuredSize: size)
        // The device's class, chosen once: the tracker, the gesture surface (its regions' sessions'
        // too) and the publishing edge are configured with it.
        let kind = description.kind
        device = PipelineDevice(id: deviceID, source: source, description: description, mapper: mapper, kind: kind)
        self.mapper = mapper
        tracker = ContactTracker(
            description: description, mapper: mapper, kind: kind, idSource: idSource, tapCounting: settings.tapCounting)
        gestureSurface = GestureSurface(kind: kind, description: description, mapper: mapper)
        gestureConfiguration = settings.gestures
        engine = GestureEngine(configuration: settings.gestures, surface: gestureSurface, logger: logger)
        fixedHorizon = settings.predictionMilliseconds.map { min(max($0, 0), PredictionRequests.maximumMilliseconds) }
        updateHorizons()
        if !settings.configuredRegions.isEmpty { declareConfiguredRegions(settings.configuredRegions) }
    }

    /// Holds the configuration's regions under their own client ids, with every right (the
    /// configuration is the administrator's). A region the router refuses (checked when the
    /// configuration was read, so not expected) is left out; the others stand.
    private mutating func declareConfiguredRegions(_ configured: [ConfiguredRegion]) {
        startRouting()
        for entry in configured {
            configuredLabels[entry.client] = entry.label
            _ = withRouting { routing -> DeviceRouting.Outcome in
                routing.setGrant(.all, for: entry.client)
                let own = configured.filter { $0.client == entry.client }.map(\.region)
                return routing.replace(client: entry.client, with: own)
            }
        }
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

    /// The whole-device view's cumulative transform.
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
        timerEvents.removeAll(keepingCapacity: true)
        engine.advance(to: time, into: &timerEvents)
        let events = timerEvents
        if let deadline = engine.nextDeadline, deadline <= time { stuckDeadline = deadline }
        guard !events.isEmpty else { return }
        var predictions: [FramePrediction] = []
        if !wholeDeviceHorizons.isEmpty, events.contains(where: \.isSegmentUpdate) {
            for h in wholeDeviceHorizons {
                // An animation's frame: the engine copy runs on to the predicted time.
                var copy = engine
                _ = copy.advance(to: Timestamp(microseconds: time.microseconds &+ Int64(h) * 1000))
                predictions.append(FramePrediction(horizonMilliseconds: h, locations: [], matrix: copy.transform))
            }
        }
        out.append(.timers(device: deviceID, events: events, predictions: predictions))
    }

    private func appendRouted(_ deliveries: [RoutingDelivery], into out: inout [PipelineOutput]) {
        guard !deliveries.isEmpty else { return }
        out.append(.routed(RoutedOutput(device: deviceID, deliveries: deliveries)))
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
        if let frame = tracker.cancelAll(at: end) { emit(frame, into: &out) }
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

    // MARK: Predictions

    /// Sets who asked for predictions (docs/PREDICTION.md): the whole-device view predicts at every
    /// horizon its subscribers asked for, each region's view at its client's. Horizons are clamped to
    /// 0...`PredictionRequests.maximumMilliseconds`.
    public mutating func setPredictions(_ requests: PredictionRequests) {
        predictions = requests
        updateHorizons()
    }

    private mutating func updateHorizons() {
        let limit = PredictionRequests.maximumMilliseconds
        var whole = Set(predictions.wholeDevice.map { min(max($0, 0), limit) })
        if let fixedHorizon { whole.insert(fixedHorizon) }
        wholeDeviceHorizons = whole.sorted()
        if routing != nil {
            for (client, h) in predictions.clients { routing?.setHorizon(min(max(h, 0), limit), for: client) }
            for client in routing?.router.horizons.keys.map({ $0 }) ?? [] where predictions.clients[client] == nil {
                routing?.setHorizon(nil, for: client)
            }
        }
        let all = whole.union(routing?.router.requestedHorizons ?? []).sorted()
        horizons = all
        if all.isEmpty {
            predictor = nil
        } else {
            if predictor == nil { predictor = TouchPredictor(mapper: mapper) }
            predictor?.score(horizons: all)
        }
    }

    /// How far each predicted horizon's predictions were from where the fingers went (the daemon's
    /// `stats`; public touches only), ascending by horizon; empty when predictions are off.
    public var predictionErrors: [(horizonMilliseconds: Int, error: RunningPredictionError)] {
        predictor?.errors ?? []
    }

    // MARK: Requests

    /// Carries out a client's request (`PipelineRequest`): appends its answer (`.answer`) and then what
    /// it cancelled (the client's touches and sessions of removed regions, observers' touches a
    /// recognition claimed).
    public mutating func handle(_ request: PipelineRequest, token: UInt64, into out: inout [PipelineOutput]) {
        let (outcome, cancelled) = carryOut(request)
        out.append(.answer(PipelineAnswer(token: token, device: deviceID, outcome: outcome)))
        appendRouted(cancelled, into: &out)
    }

    private mutating func carryOut(_ request: PipelineRequest) -> (PipelineAnswer.Outcome, [RoutingDelivery]) {
        switch request {
        case .declareRegions(let client, let regions, let grant):
            return regionRequest(client: client, grant: grant, isEmpty: regions.isEmpty) {
                $0.replace(client: client, with: regions)
            }
        case .updateRegions(let client, let upserting, let removing, let grant):
            return regionRequest(client: client, grant: grant, isEmpty: upserting.isEmpty && removing.isEmpty) {
                $0.update(client: client, upserting: upserting, removing: removing)
            }
        case .recognized(let client, let region):
            guard let cancelled = withRouting({ $0.recognized(client: client, region: region) }) ?? nil else {
                return (.rejected(Self.noRegion(region)), [])
            }
            return (.recognized, cancelled)
        case .setRegionTransform(let client, let region, let matrix):
            let outcome = withRouting { routing -> DeviceRouting.TransformOutcome? in
                guard routing.isRouted(client) else { return nil }
                return routing.setTransform(client: client, region: region, matrix ?? .identity)
            }
            switch outcome ?? nil {
            case .set(let m)?: return (.transform(m), [])
            case .rejected(let error)?: return (.rejected(error), [])
            case nil: return (.rejected(Self.noRegion(region)), [])
            }
        case .setTransform(let matrix):
            engine.setTransform(matrix)
            return (.transform(matrix), [])
        case .clientGone(let client):
            _ = withRouting { $0.clientGone(client) }
            updateHorizons()
            return (.done, [])
        case .listRegions:
            return (.listing(regionEntries()), [])
        }
    }

    /// Every region of the device, top first: highest z, then by client and declaration order.
    private func regionEntries() -> [RegionEntry] {
        guard let regions = routing?.router.regions else { return [] }
        var entries: [(entry: RegionEntry, order: Int)] = []
        for client in regions.byClient.keys.sorted() {
            let band = regions.grant(of: client).zBand
            for (order, region) in (regions.byClient[client] ?? []).enumerated() {
                entries.append(
                    (
                        RegionEntry(client: client, region: region, band: band, configured: configuredLabels[client]),
                        order
                    ))
            }
        }
        entries.sort { a, b in
            if a.entry.region.z != b.entry.region.z { return a.entry.region.z > b.entry.region.z }
            if a.entry.client != b.entry.client { return a.entry.client < b.entry.client }
            return a.order < b.order
        }
        return entries.map(\.entry)
    }

    private static func noRegion(_ region: String) -> RoutingRequestError {
        RoutingRequestError(problems: ["no region \"\(region)\" of this client on this device"])
    }

    private mutating func regionRequest(
        client: ClientID, grant: RoutingGrant, isEmpty: Bool, _ body: (inout DeviceRouting) -> DeviceRouting.Outcome
    ) -> (PipelineAnswer.Outcome, [RoutingDelivery]) {
        if routing == nil {
            if isEmpty { return (.regions([]), []) }
            routing = DeviceRouting(device: deviceID, surface: gestureSurface, gestures: gestureConfiguration)
        }
        let outcome = withRouting { routing -> DeviceRouting.Outcome in
            routing.setGrant(grant, for: client)
            return body(&routing)
        }
        updateHorizons()
        switch outcome {
        case .inForce(let ids, let cancelled)?: return (.regions(ids), cancelled)
        case .rejected(let error)?: return (.rejected(error), [])
        case nil: return (.regions([]), [])
        }
    }

    /// The tracker asks the routing stage's hit index whether a beginning touch is secure.
    private mutating func syncSecureAreas() {
        tracker.secureAreas = routing?.secureAreas
    }

    // MARK: Routing stage

    /// Makes the routing stage (a client's first region declaration here); no-op when present.
    public mutating func startRouting(budget: RoutingBudget = .default) {
        guard routing == nil else { return }
        routing = DeviceRouting(
            device: deviceID, surface: gestureSurface, gestures: gestureConfiguration, budget: budget)
    }

    /// Runs `body` on the routing stage (nil without one) and drops the stage once it is idle; the
    /// tracker then learns where touches are secure. What `body` delivers is the caller's to send.
    public mutating func withRouting<R>(_ body: (inout DeviceRouting) -> R) -> R? {
        // Taken out and put back, not copied: a copy of the router would copy every region's engine.
        guard var stage = routing.take() else { return nil }
        let result = body(&stage)
        if !stage.isIdle { routing = stage }
        syncSecureAreas()
        return result
    }

    // MARK: Frames

    private mutating func process(_ frame: EventFrame, into out: inout [PipelineOutput]) {
        frameCount &+= 1
        advanceEngine(to: frame.time, into: &out)
        lastTime = frame.time
        // A new frame gives a stuck timer its next chance (the guarantee holds: one advance per frame).
        stuckDeadline = nil
        stuckRoutingDeadline = nil
        // The regions' timers due by the frame fire before it, whether or not the frame changes
        // anything (a frame whose only change is a secure touch must not be when they fire).
        if let due = routing?.nextDeadline, due <= frame.time {
            appendRouted(routing?.advance(to: frame.time) ?? [], into: &out)
        }
        if let touchFrame = tracker.process(frame) { emit(touchFrame, into: &out) }
        // A touch that began and ended within this one frame: its end follows at once, in a frame of
        // its own with the same time, so the engine sees began before ended.
        if tracker.hasDeferredEnds, let ends = tracker.takeDeferredEnds() { emit(ends, deferred: true, into: &out) }
    }

    /// One tracked frame through the views: predictions updated once, the regions' views (routing),
    /// then the whole-device view (its public touches, its engine, its horizons).
    private mutating func emit(_ frame: TouchFrame, deferred: Bool = false, into out: inout [PipelineOutput]) {
        var output = PipelineFrame(device: deviceID, frame: frame, events: [])
        // Whether the frame changed anything of the public touches: a frame in which only secure
        // touches changed does not exist for anyone else (no whole-device frame, no sample for a
        // public touch's filter, no step of a public region's session), exactly as if the secure
        // touches had never been (DESIGN.md invariant 11).
        var publicChanged = true
        if frame.touches.contains(where: \.isSecure) {
            let (shown, changed) = wholeDeviceView(of: frame)
            output.frame = shown
            output.isWithheld = !changed
            publicChanged = changed
        }
        var predicted: [PredictedFrame] = []
        if predictor != nil { predicted = predict(frame, publicChanged: publicChanged) }
        if routing != nil {
            output.routed = routing?.route(frame, predicted: predicted, publicChanged: publicChanged) ?? []
        }
        guard publicChanged else {
            if !output.routed.isEmpty { out.append(.frame(output)) }
            return
        }
        wholeDeviceFingers = output.frame.fingerCount
        wholeDeviceButton = output.frame.isButtonPressed
        if deferred { swap(&events, &deferredEvents) }
        events.removeAll(keepingCapacity: true)
        engine.process(output.frame, into: &events)
        output.events = events
        if deferred { swap(&events, &deferredEvents) }
        if !wholeDeviceHorizons.isEmpty {
            output.predictions = wholeDevicePredictions(output.frame, output.events, predicted)
        }
        out.append(.frame(output))
    }

    /// The frame as the whole-device view shows it: without secure touches, the fingers they add
    /// taken off the count; `changed` false when none of its public touches changed (nor their count,
    /// nor the button): the tracker would have published no frame without the secure touches.
    private func wholeDeviceView(of frame: TouchFrame) -> (frame: TouchFrame, changed: Bool) {
        var shown = frame
        var hiddenLive = 0
        var changed = false
        shown.touches.removeAll(keepingCapacity: true)
        for touch in frame.touches {
            if touch.isSecure {
                if !touch.phase.isTerminal { hiddenLive += 1 }
            } else {
                shown.touches.append(touch)
                if touch.phase != .stationary { changed = true }
            }
        }
        shown.fingerCount = max(0, frame.fingerCount - hiddenLive)
        if shown.fingerCount != wholeDeviceFingers { changed = true }
        if frame.isButtonPressed != wholeDeviceButton && !shown.touches.isEmpty { changed = true }
        return (shown, changed)
    }

    /// Every touch's filter takes the frame once (a public touch's only when the public touches
    /// changed); the frame predicted at each horizon asked for here.
    @inline(never)
    private mutating func predict(_ frame: TouchFrame, publicChanged: Bool) -> [PredictedFrame] {
        guard var predictor = predictor.take() else { return [] }
        predictor.update(frame, publicChanged: publicChanged)
        var predicted: [PredictedFrame] = []
        predicted.reserveCapacity(horizons.count)
        for h in horizons {
            let p = predictor.predicted(frame, horizonMilliseconds: h)
            if publicChanged { predictor.record(p) }
            predicted.append(p)
        }
        self.predictor = predictor
        return predicted
    }

    /// The whole-device view's predictions: its touches' predicted locations at each of its horizons,
    /// and a copy of its engine (a struct: copying shares its storage until written) fed those touches
    /// for the matrix the content should show then.
    @inline(never)
    private func wholeDevicePredictions(
        _ frame: TouchFrame, _ events: [GestureEvent], _ predicted: [PredictedFrame]
    ) -> [FramePrediction] {
        let updates = events.contains(where: \.isSegmentUpdate)
        var out: [FramePrediction] = []
        for h in wholeDeviceHorizons {
            guard let p = predicted.first(where: { $0.horizonMilliseconds == h }) else { continue }
            var matrix: AffineTransform?
            if updates {
                let touches = p.frame(of: frame.touches)
                var copy = engine
                _ = copy.advance(to: touches.time)
                if !touches.touches.isEmpty { _ = copy.process(touches) }
                matrix = copy.transform
            }
            out.append(
                FramePrediction(horizonMilliseconds: h, locations: p.locations(of: frame.touches), matrix: matrix))
        }
        return out
    }
}

extension PredictionRequests {
    /// The longest horizon (ms) a client may ask for (the wire's `predictMs` range).
    public static let maximumMilliseconds = 50
}
