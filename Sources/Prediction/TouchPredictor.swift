import MultitouchCore

/// A device's predicted touches: one `TrackPredictor` per live touch, updated once per frame with
/// every touch (`update`), and evaluated at any number of horizons (`predicted(_:horizonMilliseconds:)`,
/// which changes nothing): each client stream gets its own horizon from the one shared filter state
/// (docs/PREDICTION.md). A predicted frame has the live touches moved to their predicted positions (all
/// three spaces), for the wire's `predicted` and for a copy of a gesture engine to turn into the
/// predicted matrix. Pure: the same frames give the same predictions.
public struct TouchPredictor: Sendable {
    private let mapper: CoordinateMapper
    /// Live touches' predictors, in order of arrival: a handful at most, so a linear search beats
    /// hashing (profiles: the dictionary's get and set cost more than the filter).
    private var tracks: [(id: UInt64, predictor: TrackPredictor)] = []
    /// Per horizon being scored: per live public touch, its newest sample and the predictions whose
    /// time has not come yet (oldest first), to score them against where the touch then was.
    private var scores: [HorizonScore] = []

    private struct HorizonScore: Sendable {
        var horizonMilliseconds: Int
        var pending: [(id: UInt64, time: Int64, at: Point, due: [(time: Int64, mm: Point)])] = []
        var error = RunningPredictionError()
    }

    public init(mapper: CoordinateMapper) {
        self.mapper = mapper
    }

    /// Feeds a frame: each touch's filter takes the frame's sample once; ended and cancelled touches
    /// are forgotten. Predictions recorded earlier (`record`) that fell due by this frame are scored
    /// against where their touch then was. `publicChanged` false: only secure touches changed, and
    /// the public touches take no sample (for them the frame does not exist: DESIGN.md invariant 11).
    public mutating func update(_ frame: TouchFrame, publicChanged: Bool = true) {
        for touch in frame.touches {
            if !touch.isSecure && !publicChanged { continue }
            if !scores.isEmpty && !touch.isSecure { score(touch) }
            let index = tracks.firstIndex { $0.id == touch.id }
            if touch.phase.isTerminal {
                if let index { tracks.remove(at: index) }
                continue
            }
            if let index {
                tracks[index].predictor.add(time: touch.timestamp.microseconds, millimeters: touch.millimeters)
            } else {
                var predictor = TrackPredictor(kind: .daemon, parameters: .tuned(for: touch.type))
                predictor.add(time: touch.timestamp.microseconds, millimeters: touch.millimeters)
                tracks.append((touch.id, predictor))
            }
        }
    }

    /// The frame's live touches where they are predicted `horizonMilliseconds` after the frame's time
    /// (phase `moved`, or `stationary` for a touch predicted not to move; `previousLocation` is the
    /// measured location), in the frame's order. Call after `update` with the same frame.
    public func predicted(_ frame: TouchFrame, horizonMilliseconds: Int) -> PredictedFrame {
        let horizon = Int64(horizonMilliseconds) * 1000
        var predicted: [Touch] = []
        predicted.reserveCapacity(frame.touches.count)
        let time = Timestamp(microseconds: frame.time.microseconds &+ horizon)
        for touch in frame.touches where !touch.phase.isTerminal {
            guard let track = tracks.first(where: { $0.id == touch.id }) else { continue }
            let mm = track.predictor.predict(horizon: horizon)
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
        let live = frame.touches.reduce(0) { $0 + ($1.phase.isTerminal ? 0 : 1) }
        return PredictedFrame(
            horizonMilliseconds: horizonMilliseconds,
            frame: TouchFrame(
                time: time, touches: predicted,
                fingerCount: max(predicted.count, frame.fingerCount - (live - predicted.count)),
                isButtonPressed: frame.isButtonPressed))
    }

    /// Sets the horizons whose predictions are scored (the daemon's `stats`): those some client asked
    /// for. A horizon no longer asked for drops its score; a new one starts at zero.
    public mutating func score(horizons: [Int]) {
        scores.removeAll { !horizons.contains($0.horizonMilliseconds) }
        for h in horizons where !scores.contains(where: { $0.horizonMilliseconds == h }) {
            scores.append(HorizonScore(horizonMilliseconds: h))
        }
        scores.sort { $0.horizonMilliseconds < $1.horizonMilliseconds }
    }

    /// Remembers a predicted frame of a scored horizon, to score its public touches when their time
    /// comes (secure touches are never scored: their figures would show they exist). Call after
    /// `update` with the frame it was predicted from.
    public mutating func record(_ predicted: PredictedFrame) {
        guard let s = scores.firstIndex(where: { $0.horizonMilliseconds == predicted.horizonMilliseconds }) else {
            return
        }
        let time = predicted.frame.time.microseconds
        for touch in predicted.frame.touches where !touch.isSecure {
            guard let p = scores[s].pending.firstIndex(where: { $0.id == touch.id }) else { continue }
            scores[s].pending[p].due.append((time, touch.millimeters))
        }
    }

    /// Scores each horizon's predictions of the touch that fell due by this sample against its
    /// position then, interpolated between its previous sample and this one; remembers this sample
    /// (a touch seen for the first time starts its record here).
    private mutating func score(_ touch: Touch) {
        let now = touch.timestamp.microseconds
        for s in scores.indices {
            guard let p = scores[s].pending.firstIndex(where: { $0.id == touch.id }) else {
                if !touch.phase.isTerminal { scores[s].pending.append((touch.id, now, touch.millimeters, [])) }
                continue
            }
            scoreDue(s, p, now: now, at: touch.millimeters)
            if touch.phase.isTerminal { scores[s].pending.remove(at: p) }
        }
    }

    private mutating func scoreDue(_ s: Int, _ p: Int, now: Int64, at mm: Point) {
        let (before, at) = (scores[s].pending[p].time, scores[s].pending[p].at)
        guard now > before else { return }
        var taken = 0
        for prediction in scores[s].pending[p].due where prediction.time <= now {
            let f = Double(prediction.time - before) / Double(now - before)
            let truth = at + (mm - at) * max(0, f)
            scores[s].error.add(prediction.mm.distance(to: truth))
            taken += 1
        }
        if taken > 0 { scores[s].pending[p].due.removeFirst(taken) }
        scores[s].pending[p].time = now
        scores[s].pending[p].at = mm
    }

    /// How far each scored horizon's predictions were from where the fingers went, ascending by horizon.
    public var errors: [(horizonMilliseconds: Int, error: RunningPredictionError)] {
        scores.map { ($0.horizonMilliseconds, $0.error) }
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
