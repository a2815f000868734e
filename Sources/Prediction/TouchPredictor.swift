import MultitouchCore

/// A device's predicted touches: one `TrackPredictor` per live touch, fed every frame of the device.
/// Each frame gives back the frame `horizon` later as the predictor sees it: the live touches moved to
/// their predicted positions (all three spaces), for the wire's `predicted` and for a copy of the
/// gesture engine to turn into the predicted matrix. Pure: the same frames give the same predictions.
public struct TouchPredictor: Sendable {
    /// Microseconds ahead of each frame's time.
    public let horizon: Int64
    private let mapper: CoordinateMapper
    /// Live touches' predictors, in order of arrival: a handful at most, so a linear search beats
    /// hashing (profiles: the dictionary's get and set cost more than the filter).
    private var tracks: [(id: UInt64, predictor: TrackPredictor)] = []
    /// Per live touch: its newest sample and the predictions whose time has not come yet (oldest first),
    /// to score them against where the touch then was (`error`).
    private var pending: [(id: UInt64, time: Int64, at: Point, due: [(time: Int64, mm: Point)])] = []
    /// How far the predictions were from where the fingers went, so far (the daemon's `stats`).
    public private(set) var error = RunningPredictionError()

    public init(horizonMilliseconds: Int, mapper: CoordinateMapper) {
        horizon = Int64(horizonMilliseconds) * 1000
        self.mapper = mapper
    }

    /// Feeds a frame; returns its live touches where they are predicted `horizon` after the frame's time
    /// (phase `moved`, or `stationary` for a touch predicted not to move; `previousLocation` is the
    /// measured location), in the frame's order. Ended and cancelled touches are forgotten.
    public mutating func predict(after frame: TouchFrame) -> TouchFrame {
        var predicted: [Touch] = []
        predicted.reserveCapacity(frame.touches.count)
        let time = Timestamp(microseconds: frame.time.microseconds &+ horizon)
        for touch in frame.touches {
            let index = tracks.firstIndex { $0.id == touch.id }
            score(touch)
            if touch.phase.isTerminal {
                if let index { tracks.remove(at: index) }
                if let p = pending.firstIndex(where: { $0.id == touch.id }) { pending.remove(at: p) }
                continue
            }
            let i: Int
            if let index {
                i = index
            } else {
                tracks.append((touch.id, TrackPredictor(kind: .daemon, parameters: .tuned(for: touch.type))))
                i = tracks.count - 1
            }
            tracks[i].predictor.add(time: touch.timestamp.microseconds, millimeters: touch.millimeters)
            let mm = tracks[i].predictor.predict(horizon: horizon)
            if let p = pending.firstIndex(where: { $0.id == touch.id }) {
                pending[p].due.append((time.microseconds, mm))
            } else {
                pending.append((touch.id, touch.timestamp.microseconds, touch.millimeters, [(time.microseconds, mm)]))
            }
            var next = touch
            next.previousLocation = touch.location
            next.timestamp = time
            if mm != touch.millimeters {
                next.millimeters = mm
                next.normalized = normalized(mm)
                // The published space is affine in the millimetre space: move the location by the image
                // of the displacement, so a touch predicted not to move keeps its location exactly.
                let shifted =
                    touch.location + mapper.published(normalized: next.normalized, millimeters: mm)
                    - mapper.published(normalized: touch.normalized, millimeters: touch.millimeters)
                // A broken calibration (NaN) publishes millimetres, as the tracker does.
                next.location = shifted.isFinite ? shifted : touch.location + (mm - touch.millimeters)
                next.phase = .moved
            } else {
                next.phase = .stationary
            }
            predicted.append(next)
        }
        return TouchFrame(
            time: time, touches: predicted,
            fingerCount: max(predicted.count, frame.fingerCount - (frame.touches.count - predicted.count)),
            isSemiMT: frame.isSemiMT, isButtonPressed: frame.isButtonPressed)
    }

    /// Scores the touch's predictions that fell due by this sample against its position then,
    /// interpolated between its previous sample and this one; remembers this sample.
    private mutating func score(_ touch: Touch) {
        guard let p = pending.firstIndex(where: { $0.id == touch.id }) else { return }
        let now = touch.timestamp.microseconds
        let (before, at) = (pending[p].time, pending[p].at)
        guard now > before else { return }
        var taken = 0
        for prediction in pending[p].due where prediction.time <= now {
            let f = Double(prediction.time - before) / Double(now - before)
            let truth = at + (touch.millimeters - at) * max(0, f)
            error.add(prediction.mm.distance(to: truth))
            taken += 1
        }
        if taken > 0 { pending[p].due.removeFirst(taken) }
        pending[p].time = now
        pending[p].at = touch.millimeters
    }

    /// Live touches being predicted.
    public var trackCount: Int { tracks.count }

    private func normalized(_ mm: Point) -> Point {
        Point(
            x: mm.x * mapper.unitsPerMillimeterX / max(1, mapper.xAxis.span),
            y: mm.y * mapper.unitsPerMillimeterY / max(1, mapper.yAxis.span))
    }
}

/// A running score of predictions against where the fingers then were: count, mean and largest error in
/// millimetres. Pure arithmetic, no clock.
public struct RunningPredictionError: Hashable, Sendable {
    public private(set) var count: UInt64 = 0
    public private(set) var sum: Double = 0
    public private(set) var maximum: Double = 0

    public init() {}

    public mutating func add(_ error: Double) {
        count &+= 1
        sum += error
        maximum = max(maximum, error)
    }

    /// Mean error in mm (0 before the first).
    public var mean: Double { count == 0 ? 0 : sum / Double(count) }
}
