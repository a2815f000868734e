import MultitouchCore

/// One sample of a touch's path: time in microseconds and position in millimetres.
public struct TrackSample: Hashable, Sendable {
    public var time: Int64
    public var millimeters: Point

    public init(time: Int64, millimeters: Point) {
        self.time = time
        self.millimeters = millimeters
    }
}

/// How well one predictor did at one horizon over a set of samples.
public struct PredictionScore: Hashable, Sendable {
    /// Predictions scored (samples whose predicted time is still within the touch's life).
    public var count: Int
    /// Mean and 95th percentile of the distance between prediction and truth, mm.
    public var mean: Double
    public var p95: Double
    /// Share of the predictions where the finger moved at least 0.1 mm that point away from where
    /// it went (negative dot product: Chromium's PredictionMetricsHandler "WrongDirection").
    public var wrongDirectionRate: Double
    /// Predictions made in the 50 ms after a stop, their mean error, and the largest distance a
    /// prediction went past where the finger came to rest, along its last direction (mm).
    public var stopCount: Int
    public var stopMean: Double
    public var stopOvershoot: Double
}

/// Scores predictors against the truth: each touch's own later positions, linearly interpolated.
/// Every predictor sees the same samples; a prediction is made at every sample of a touch and scored
/// for each horizon whose time the touch is still down at.
public struct PredictionEvaluation: Sendable {
    public let kinds: [PredictorKind]
    /// Horizons in milliseconds.
    public let horizons: [Int]
    public let parameters: PredictorParameters
    /// The parameters of `PredictorKind.issue20`.
    public let issue20Parameters: PredictorParameters
    /// Errors per kind and horizon (index kind * horizons.count + horizon).
    private var errors: [[Double]]
    private var wrong: [Int]
    private var moving: [Int]
    private var stopErrors: [[Double]]
    private var overshoot: [Double]

    public init(
        kinds: [PredictorKind], horizons: [Int], parameters: PredictorParameters = .direct,
        issue20Parameters: PredictorParameters = .issue20(for: .direct)
    ) {
        self.kinds = kinds
        self.horizons = horizons
        self.parameters = parameters
        self.issue20Parameters = issue20Parameters
        let n = kinds.count * horizons.count
        errors = Array(repeating: [], count: n)
        wrong = Array(repeating: 0, count: n)
        moving = Array(repeating: 0, count: n)
        stopErrors = Array(repeating: [], count: n)
        overshoot = Array(repeating: 0, count: n)
    }

    /// A stop: the finger moved at least 1 mm over the 50 ms before a sample and then stays within
    /// 0.5 mm of it for the next 100 ms. Returns the sample indices, the unit directions of the motion
    /// before, and where along that direction the finger came to rest (mm past the stop sample).
    static func stops(in track: [TrackSample]) -> [(index: Int, direction: Point, rest: Double)] {
        var found: [(Int, Point, Double)] = []
        var i = 0
        while i < track.count {
            let s = track[i]
            guard s.time - track[0].time >= 50_000, let last = track.last, last.time - s.time >= 100_000,
                let before = position(in: track, at: s.time - 50_000)
            else {
                i += 1
                continue
            }
            let motion = s.millimeters - before
            var still = true
            var j = i + 1
            while j < track.count && track[j].time - s.time <= 100_000 {
                if track[j].millimeters.distance(to: s.millimeters) > 0.5 { still = false }
                j += 1
            }
            if motion.length >= 1, still {
                let direction = motion / motion.length
                var rest = 0.0
                for k in i..<j {
                    let d = track[k].millimeters - s.millimeters
                    rest = max(rest, d.x * direction.x + d.y * direction.y)
                }
                found.append((i, direction, rest))
                i = j  // one stop per resting spell
            } else {
                i += 1
            }
        }
        return found
    }

    /// The track's position at `time`, interpolated between its samples; nil outside its life.
    static func position(in track: [TrackSample], at time: Int64) -> Point? {
        guard let first = track.first, let last = track.last, time >= first.time, time <= last.time else {
            return nil
        }
        var lo = 0
        var hi = track.count - 1
        while hi - lo > 1 {
            let mid = (lo + hi) / 2
            if track[mid].time <= time { lo = mid } else { hi = mid }
        }
        let a = track[lo]
        let b = track[hi]
        guard b.time > a.time else { return time >= b.time ? b.millimeters : a.millimeters }
        let f = Double(time - a.time) / Double(b.time - a.time)
        return a.millimeters + (b.millimeters - a.millimeters) * f
    }

    /// Scores every predictor on one touch's path (samples in time order; one per instant).
    public mutating func add(track: [TrackSample]) {
        let stops = Self.stops(in: track)
        for (k, kind) in kinds.enumerated() {
            var predictor = TrackPredictor(kind: kind, parameters: kind == .issue20 ? issue20Parameters : parameters)
            var stopIndex = 0
            for (i, sample) in track.enumerated() {
                predictor.add(time: sample.time, millimeters: sample.millimeters)
                while stopIndex < stops.count
                    && track[stops[stopIndex].index].time + 50_000 < sample.time
                {
                    stopIndex += 1
                }
                let stop: (index: Int, direction: Point, rest: Double)? =
                    stopIndex < stops.count && stops[stopIndex].index <= i ? stops[stopIndex] : nil
                for (h, horizon) in horizons.enumerated() {
                    let target = sample.time + Int64(horizon) * 1000
                    guard let truth = Self.position(in: track, at: target) else { continue }
                    let predicted = predictor.predict(horizon: Int64(horizon) * 1000)
                    let slot = k * horizons.count + h
                    let error = predicted.distance(to: truth)
                    errors[slot].append(error)
                    let real = truth - sample.millimeters
                    if real.length >= 0.1 {
                        moving[slot] += 1
                        let guess = predicted - sample.millimeters
                        if guess.x * real.x + guess.y * real.y < 0 { wrong[slot] += 1 }
                    }
                    if let stop {
                        stopErrors[slot].append(error)
                        let past = predicted - track[stop.index].millimeters
                        overshoot[slot] = max(
                            overshoot[slot], past.x * stop.direction.x + past.y * stop.direction.y - stop.rest)
                    }
                }
            }
        }
    }

    /// Adds another evaluation's samples (same kinds and horizons).
    public mutating func merge(_ other: PredictionEvaluation) {
        precondition(other.kinds == kinds && other.horizons == horizons, "merging different evaluations")
        for i in errors.indices {
            errors[i] += other.errors[i]
            wrong[i] += other.wrong[i]
            moving[i] += other.moving[i]
            stopErrors[i] += other.stopErrors[i]
            overshoot[i] = max(overshoot[i], other.overshoot[i])
        }
    }

    /// The score of one predictor at one horizon (milliseconds); nil if either was not evaluated.
    public func score(_ kind: PredictorKind, horizon: Int) -> PredictionScore? {
        guard let k = kinds.firstIndex(of: kind), let h = horizons.firstIndex(of: horizon) else { return nil }
        let slot = k * horizons.count + h
        let e = errors[slot].sorted()
        let mean = e.isEmpty ? 0 : e.reduce(0, +) / Double(e.count)
        let p95 = e.isEmpty ? 0 : e[min(e.count - 1, Int((Double(e.count) * 0.95).rounded(.up)) - 1)]
        let s = stopErrors[slot]
        return PredictionScore(
            count: e.count, mean: mean, p95: p95,
            wrongDirectionRate: moving[slot] == 0 ? 0 : Double(wrong[slot]) / Double(moving[slot]),
            stopCount: s.count, stopMean: s.isEmpty ? 0 : s.reduce(0, +) / Double(s.count),
            stopOvershoot: overshoot[slot])
    }
}
