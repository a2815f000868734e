import Gestures
import Logging
import MultitouchCore
import Prediction
import WireProtocol

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

/// Observes what the pipeline computes, typed, before it becomes JSON (used by `multitouchctl check`).
public protocol PipelineObserver {
    mutating func observe(frame: TouchFrame, events: [GestureEvent])
    mutating func observe(timerEvents: [GestureEvent])
}

/// One device's pure pipeline: frame assembly -> contact tracking -> gestures -> wire messages. Live
/// devices and replays run exactly this code; only the source of events differs. Not thread-safe: owned
/// by one thread (the daemon's event loop, or the replay driver).
public struct DevicePipeline {
    public let deviceID: Int
    public let info: DeviceInfo
    /// What the gesture engine knows of the device (type, clickpad, height): also what each of its
    /// routed regions' sessions run on (`DeviceRouting`).
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

    /// - Parameter logger: the gesture engine logs its state transitions at debug here.
    public init(
        deviceID: Int, description: DeviceDescription, source: String = "", settings: PipelineSettings = .init(),
        idSource: TouchIDSource = TouchIDSource(), logger: Logger? = nil
    ) {
        self.deviceID = deviceID
        var size: (Double, Double)?
        if let s = settings.sizeMillimeters, s.count == 2 { size = (s[0], s[1]) }
        let mapper = CoordinateMapper(description: description, output: settings.output, configuredSize: size)
        info = DeviceInfo(id: deviceID, source: source, description: description, mapper: mapper)
        self.mapper = mapper
        tracker = ContactTracker(
            description: description, mapper: mapper, idSource: idSource, tapCounting: settings.tapCounting)
        gestureSurface = GestureSurface(description: description, mapper: mapper)
        gestureConfiguration = settings.gestures
        engine = GestureEngine(configuration: settings.gestures, surface: gestureSurface, logger: logger)
        predict(horizonMilliseconds: settings.predictionMilliseconds)
    }

    /// A timer deadline the engine still reported after being advanced to it (an engine bug): left to
    /// the device's next frame so that no caller spins on it.
    private var stuckDeadline: Timestamp?

    /// The earliest gesture timer deadline, for the event loop to arm (or the replay schedule to take).
    /// Guaranteed to advance: after `advance(to: t)` it is nil or later than `t`, so a caller may loop
    /// `while let d = nextDeadline, d <= now { advance(to: d) }` without a guard of its own.
    public var nextDeadline: Timestamp? {
        guard let deadline = engine.nextDeadline, deadline != stuckDeadline else { return nil }
        return deadline
    }

    /// The device's cumulative transform.
    public var transform: AffineTransform { engine.transform }

    /// Feeds one raw event. When it closes a frame, the frame's messages are appended to `out`.
    public mutating func push(_ event: InputEvent, into out: inout [Message]) {
        var ignored = NoObserver()
        push(event, into: &out, observer: &ignored)
    }

    public mutating func push<O: PipelineObserver>(_ event: InputEvent, into out: inout [Message], observer: inout O) {
        guard let result = assembler.push(event) else { return }
        switch result {
        case .frame(let frame):
            process(frame, into: &out, observer: &observer)
        case .dropped(let time, let discarded):
            frameCount &+= 1
            out.append(
                .dropped(
                    DroppedMessage(device: deviceID, time: time, count: discarded, unit: .events, reason: "SYN_DROPPED")
                ))
        case .resync(let frame, let droppedAt):
            push(resync: frame, droppedAt: droppedAt, into: &out, observer: &observer)
        }
    }

    /// Announces an overflow at `droppedAt` with its `dropped` message (unit `overflows`) and feeds the
    /// state difference libevdev produced while resyncing: the live path's resync, and a recorded one.
    public mutating func push(resync frame: EventFrame, droppedAt: Timestamp, into out: inout [Message]) {
        var ignored = NoObserver()
        push(resync: frame, droppedAt: droppedAt, into: &out, observer: &ignored)
    }

    // Rare (an overflow): kept out of line so that `push(_:into:observer:)`, on every event, stays small
    // enough to inline (inlined, this cost 1.3 % more instructions per event).
    @inline(never)
    private mutating func push<O: PipelineObserver>(
        resync frame: EventFrame, droppedAt: Timestamp, into out: inout [Message], observer: inout O
    ) {
        // Timers due by the overflow fire before it is announced, in time order, as a replay of the
        // recorded resync fires them (a reader stopped past a long-press deadline reads both at once).
        advance(to: droppedAt, into: &out, observer: &observer)
        out.append(
            .dropped(
                DroppedMessage(
                    device: deviceID, time: droppedAt, count: 1, unit: .overflows,
                    reason: "SYN_DROPPED: kernel buffer overflowed; resynced from the device state")))
        var resync = frame
        resync.isResync = true
        process(resync, into: &out, observer: &observer)
    }

    /// Advances virtual time, firing gesture timers due at or before `time`.
    public mutating func advance(to time: Timestamp, into out: inout [Message]) {
        var ignored = NoObserver()
        advance(to: time, into: &out, observer: &ignored)
    }

    public mutating func advance<O: PipelineObserver>(to time: Timestamp, into out: inout [Message], observer: inout O)
    {
        let events = engine.advance(to: time)
        if let deadline = engine.nextDeadline, deadline <= time { stuckDeadline = deadline }
        guard !events.isEmpty else { return }
        observer.observe(timerEvents: events)
        if let prediction {
            // An animation's frame: the engine copy runs on to the predicted time.
            var copy = engine
            _ = copy.advance(to: Timestamp(microseconds: time.microseconds &+ prediction.horizon))
            appendGestures(events, predictedMatrix: copy.transform, into: &out)
            return
        }
        for event in events { out.append(.gesture(GestureMessage(device: deviceID, event: event))) }
    }

    /// Ends the device's input: a trailing partial frame is reported dropped, every touch and gesture
    /// ends `cancelled` at `time`, and pending timers fire or lapse. Used at the end of a recording, on
    /// unplug and at shutdown.
    public mutating func finish(at time: Timestamp, into out: inout [Message]) {
        var ignored = NoObserver()
        finish(at: time, into: &out, observer: &ignored)
    }

    public mutating func finish<O: PipelineObserver>(at time: Timestamp, into out: inout [Message], observer: inout O) {
        let partial = assembler.takePartialFrame()
        if !partial.isEmpty {
            out.append(
                .dropped(
                    DroppedMessage(
                        device: deviceID, time: partial.last?.time ?? time, count: partial.count, unit: .events,
                        reason: "partial frame without SYN_REPORT at end of input")))
        }
        let end = max(time, lastTime ?? time)
        advance(to: end, into: &out, observer: &observer)
        if let frame = tracker.cancelAll(at: end) {
            let events = engine.process(frame)
            observer.observe(frame: frame, events: events)
            emit(frame, events, into: &out)
        }
        // Timers still pending after the last touch (a tap waiting for double-tap failure, the frames
        // of an animation) fire at their deadlines: virtual time runs on past the end of input. Every
        // timer moves its deadline on and animations end (momentum after 20 s at most); a deadline that
        // does not move on ends the loop (`nextDeadline`).
        while let deadline = nextDeadline {
            advance(to: deadline, into: &out, observer: &observer)
        }
    }

    /// Turns predicted touches on with a horizon in milliseconds (0-50 on the wire), or off with nil.
    /// With it on, every live touch of a `touches` message carries `predicted` and every gesture
    /// update a `predictedMatrix` (docs/PREDICTION.md); off, the messages are exactly as before.
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

    private mutating func process<O: PipelineObserver>(
        _ frame: EventFrame, into out: inout [Message], observer: inout O
    ) {
        frameCount &+= 1
        advance(to: frame.time, into: &out, observer: &observer)
        lastTime = frame.time
        // A new frame gives a stuck timer its next chance (the guarantee holds: one advance per frame).
        stuckDeadline = nil
        if let touchFrame = tracker.process(frame) {
            let events = engine.process(touchFrame)
            observer.observe(frame: touchFrame, events: events)
            emit(touchFrame, events, into: &out)
        }
        // A touch that began and ended within this one frame: its end follows at once, in a frame of
        // its own with the same time, so the engine sees began before ended.
        if tracker.hasDeferredEnds, let ends = tracker.takeDeferredEnds() {
            let events = engine.process(ends)
            observer.observe(frame: ends, events: events)
            emit(ends, events, into: &out)
        }
    }

    private mutating func emit(_ frame: TouchFrame, _ events: [GestureEvent], into out: inout [Message]) {
        if prediction != nil {
            emitPredicted(frame, events, into: &out)
            return
        }
        out.append(.touches(TouchesMessage(device: deviceID, frame: frame)))
        for event in events { out.append(.gesture(GestureMessage(device: deviceID, event: event))) }
    }

    /// `emit` with predictions: the frame's live touches predicted `horizon` ahead, and a copy of the
    /// engine (a struct: copying shares its storage until written) fed that predicted frame for the
    /// matrix the content should show then.
    @inline(never)
    private mutating func emitPredicted(_ frame: TouchFrame, _ events: [GestureEvent], into out: inout [Message]) {
        // Optional chaining mutates the predictor in place (a copy out and back cost 15 % of this).
        guard let predicted = prediction?.predict(after: frame) else { return }
        var message = TouchesMessage(device: deviceID, frame: frame)
        var next = 0
        for i in message.touches.indices where !message.touches[i].phase.isTerminal && next < predicted.touches.count {
            message.touches[i].predicted = predicted.touches[next].location
            next += 1
        }
        out.append(.touches(message))
        guard events.contains(where: { if case .update = $0 { true } else { false } }) else {
            for event in events { out.append(.gesture(GestureMessage(device: deviceID, event: event))) }
            return
        }
        var copy = engine
        _ = copy.advance(to: predicted.time)
        if !predicted.touches.isEmpty { _ = copy.process(predicted) }
        appendGestures(events, predictedMatrix: copy.transform, into: &out)
    }

    private func appendGestures(_ events: [GestureEvent], predictedMatrix: AffineTransform, into out: inout [Message]) {
        for event in events {
            switch event {
            case .update:
                out.append(.gesture(GestureMessage(device: deviceID, event: event, predictedMatrix: predictedMatrix)))
            case .sessionBegan, .sessionEnded, .tap, .doubleTap, .longPress:
                out.append(.gesture(GestureMessage(device: deviceID, event: event)))
            }
        }
    }
}

/// An observer that ignores everything.
public struct NoObserver: PipelineObserver {
    public init() {}
    public mutating func observe(frame: TouchFrame, events: [GestureEvent]) {}
    public mutating func observe(timerEvents: [GestureEvent]) {}
}
