import MultitouchCore

/// One device's touch paths, for cross-validation.
public struct ValidationDevice: Sendable {
    /// What the report calls it (the recording or the device).
    public var name: String
    /// The physical device the samples come from: every device of a group is held out together (a
    /// scripted variant with its source, several recordings of one device together).
    public var group: String
    public var type: TouchType
    public var cadenceClass: CadenceClass
    /// Touch paths in time order, one sample per instant.
    public var tracks: [[TrackSample]]

    public init(name: String, group: String, type: TouchType, cadenceClass: CadenceClass, tracks: [[TrackSample]]) {
        self.name = name
        self.group = group
        self.type = type
        self.cadenceClass = cadenceClass
        self.tracks = tracks
    }
}

/// Leave-one-device-out cross-validation of the daemon's predictor parameters (issue 30 item 2): for
/// each group of devices, the parameters are chosen on every other group (per touch type, from
/// `grid`) and the group is scored with them; the held-out scores, pooled per device class, are the
/// figures docs/PREDICTION.md reports. The references have nothing to tune and are scored as they are,
/// but issue 20's predictor (the "before") can be held out the same way (`issue20Grid`), so that its
/// figures are not training figures beside the daemon's held-out ones.
///
/// The choice minimizes the sum, over every device class of the training devices of that touch type
/// and every horizon, of the predictor's mean and p95 error as fractions of no prediction's, and of
/// its mean error in the 50 ms after a stop as a fraction of no prediction's mean error (no
/// prediction is exact after a stop, so its own error there cannot be the unit), each pooled over
/// that class's training devices: every class weighs the same, however many samples it has, and
/// the tail and the stops weigh as much as the mean. Pooled p95s come from log-spaced histograms
/// (bins 2 % wide), exact enough to rank; the reported figures are exact.
public struct PredictionCrossValidation: Sendable {
    /// The references scored once per device (the first, no prediction, is what the choice measures
    /// against).
    public static let references: [PredictorKind] = [.none]

    /// One held-out group: its devices and the parameters chosen without them.
    public struct Fold: Sendable {
        public var group: String
        public var devices: [String]
        public var parameters: [TouchType: PredictorParameters]
        /// Issue 20's predictor's, chosen the same way (its fixed values without `issue20Grid`).
        public var issue20: [TouchType: PredictorParameters]
    }

    /// Held-out scores per device class, with the kinds `kinds` (the daemon's with each fold's choice).
    public private(set) var heldOut: [CadenceClass: PredictionEvaluation] = [:]
    /// Held-out scores per device (name), in the devices' order.
    public private(set) var perDevice: [(name: String, cadenceClass: CadenceClass, evaluation: PredictionEvaluation)] =
        []
    public private(set) var folds: [Fold] = []
    /// The choice on every device: what the daemon should ship.
    public private(set) var chosen: [TouchType: PredictorParameters] = [:]

    /// Runs the cross-validation. `grid` is the candidate parameters; `issue20Grid` issue 20's
    /// predictor's (empty: its fixed values, `PredictorParameters.issue20(for:)`); `kinds` the kinds
    /// scored on the held-out devices (the daemon's and the references at least); `fallback` the
    /// parameters of a touch type no training device has.
    public init(
        devices: [ValidationDevice], grid: [PredictorParameters], issue20Grid: [PredictorParameters] = [],
        horizons: [Int], kinds: [PredictorKind], fallback: (TouchType) -> PredictorParameters
    ) {
        precondition(!grid.isEmpty && !horizons.isEmpty, "cross-validation needs a grid and horizons")
        let scored = devices.map { DeviceScores(device: $0, grid: grid, horizons: horizons) }
        let scored20 =
            issue20Grid.isEmpty
            ? [] : devices.map { DeviceScores(device: $0, grid: issue20Grid, horizons: horizons, kind: .issue20) }
        let groups = devices.reduce(into: [String]()) { if !$0.contains($1.group) { $0.append($1.group) } }
        for group in groups {
            var parameters: [TouchType: PredictorParameters] = [:]
            var issue20: [TouchType: PredictorParameters] = [:]
            for type in [TouchType.direct, .indirect] {
                let training = scored.indices.filter { devices[$0].group != group && devices[$0].type == type }
                parameters[type] =
                    Self.choose(training.map { scored[$0] }, grid: grid, horizons: horizons).map { grid[$0] }
                    ?? fallback(type)
                issue20[type] =
                    scored20.isEmpty
                    ? .issue20(for: type)
                    : Self.choose(training.map { scored20[$0] }, grid: issue20Grid, horizons: horizons).map {
                        issue20Grid[$0]
                    } ?? .issue20(for: type)
            }
            let members = devices.filter { $0.group == group }
            folds.append(
                Fold(group: group, devices: members.map(\.name), parameters: parameters, issue20: issue20))
            for device in members {
                let p = parameters[device.type] ?? fallback(device.type)
                var evaluation = PredictionEvaluation(
                    kinds: kinds, horizons: horizons, parameters: p,
                    issue20Parameters: issue20[device.type] ?? .issue20(for: device.type))
                for track in device.tracks where track.count > 1 { evaluation.add(track: track) }
                perDevice.append((device.name, device.cadenceClass, evaluation))
                heldOut[
                    device.cadenceClass,
                    default: PredictionEvaluation(kinds: kinds, horizons: horizons, parameters: p)
                ].merge(evaluation)
            }
        }
        for type in [TouchType.direct, .indirect] {
            let all = scored.indices.filter { devices[$0].type == type }.map { scored[$0] }
            chosen[type] = Self.choose(all, grid: grid, horizons: horizons).map { grid[$0] } ?? fallback(type)
        }
    }

    /// The grid index with the least objective over `devices`; nil without devices.
    static func choose(_ devices: [DeviceScores], grid: [PredictorParameters], horizons: [Int]) -> Int? {
        guard !devices.isEmpty else { return nil }
        var classes: [CadenceClass: [DeviceScores]] = [:]
        for d in devices { classes[d.cadenceClass, default: []].append(d) }
        var objective = [Double](repeating: 0, count: grid.count)
        var terms = 0
        for members in classes.values {
            for h in horizons.indices {
                // No prediction's mean and p95 over the class, then each candidate's pooled histogram.
                var none = ErrorHistogram()
                for d in members { none.merge(d.references[0][h]) }
                let noneMean = none.mean
                let noneP95 = none.quantile(0.95)
                guard noneMean > 0, noneP95 > 0 else { continue }
                terms += 1
                for g in grid.indices {
                    var pooled = ErrorHistogram()
                    var stops = StopErrors()
                    for d in members {
                        pooled.merge(d.grid[g][h])
                        stops.merge(d.gridStops[g][h])
                    }
                    objective[g] += pooled.mean / noneMean + pooled.quantile(0.95) / noneP95 + stops.mean / noneMean
                }
            }
        }
        guard terms > 0 else { return nil }
        return grid.indices.min { objective[$0] < objective[$1] }
    }
}

/// One device's error histograms: per reference kind and horizon, and per grid point and horizon;
/// and per grid point and horizon, the errors in the 50 ms after a stop.
struct DeviceScores: Sendable {
    let cadenceClass: CadenceClass
    /// [reference][horizon]
    var references: [[ErrorHistogram]]
    /// [grid point][horizon]
    var grid: [[ErrorHistogram]]
    /// [grid point][horizon]
    var gridStops: [[StopErrors]]

    /// Scores `kind` (the daemon's predictor, or issue 20's) with each of `parameters`.
    init(
        device: ValidationDevice, grid parameters: [PredictorParameters], horizons: [Int], kind: PredictorKind = .daemon
    ) {
        cadenceClass = device.cadenceClass
        let tracks = device.tracks.filter { $0.count > 1 }
        // The truth of every sample at every horizon, once: [track][sample * horizons + h], nil after
        // the touch lifted.
        let truths: [[Point?]] = tracks.map { track in
            track.flatMap { sample in
                horizons.map { PredictionEvaluation.position(in: track, at: sample.time + Int64($0) * 1000) }
            }
        }
        // Whether each sample is in the 50 ms after a stop (PredictionEvaluation's stops).
        let afterStop: [[Bool]] = tracks.map { track in
            var marks = [Bool](repeating: false, count: track.count)
            for stop in PredictionEvaluation.stops(in: track) {
                let end = track[stop.index].time + 50_000
                var i = stop.index
                while i < track.count && track[i].time <= end {
                    marks[i] = true
                    i += 1
                }
            }
            return marks
        }
        func score(_ kind: PredictorKind, _ p: PredictorParameters) -> ([ErrorHistogram], [StopErrors]) {
            var histograms = [ErrorHistogram](repeating: ErrorHistogram(), count: horizons.count)
            var stops = [StopErrors](repeating: StopErrors(), count: horizons.count)
            for (t, track) in tracks.enumerated() {
                var predictor = TrackPredictor(kind: kind, parameters: p)
                for (i, sample) in track.enumerated() {
                    predictor.add(time: sample.time, millimeters: sample.millimeters)
                    for (h, horizon) in horizons.enumerated() {
                        guard let truth = truths[t][i * horizons.count + h] else { continue }
                        let error = predictor.predict(horizon: Int64(horizon) * 1000).distance(to: truth)
                        histograms[h].add(error)
                        if afterStop[t][i] { stops[h].add(error) }
                    }
                }
            }
            return (histograms, stops)
        }
        references = PredictionCrossValidation.references.map { score($0, .tuned(for: device.type)).0 }
        let scores = parameters.map { score(kind, $0) }
        grid = scores.map(\.0)
        gridStops = scores.map(\.1)
    }
}

/// The errors of the predictions made in the 50 ms after a stop: their count and sum (mm).
struct StopErrors: Sendable {
    private(set) var count = 0
    private(set) var sum = 0.0

    mutating func add(_ error: Double) {
        count += 1
        sum += error
    }

    mutating func merge(_ other: StopErrors) {
        count += other.count
        sum += other.sum
    }

    var mean: Double { count == 0 ? 0 : sum / Double(count) }
}

/// Errors (mm) counted in log-spaced bins 2 % wide from 1 µm (below: the first bin) to 100 mm (above:
/// the last), with their exact sum: the mean is exact, a quantile within a bin.
struct ErrorHistogram: Sendable {
    /// Upper edges of the bins but the last: 1 µm, then each 2 % above the one before, to 100 mm.
    static let edges: [Double] = {
        var edges = [1e-3]
        while let last = edges.last, last < 100 { edges.append(last * 1.02) }
        return edges
    }()
    private(set) var bins = [UInt32](repeating: 0, count: edges.count + 1)
    private(set) var count = 0
    private(set) var sum = 0.0

    mutating func add(_ error: Double) {
        count += 1
        sum += error
        // The first edge at or above the error.
        var lo = 0
        var hi = Self.edges.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if Self.edges[mid] < error { lo = mid + 1 } else { hi = mid }
        }
        bins[lo] += 1
    }

    mutating func merge(_ other: ErrorHistogram) {
        count += other.count
        sum += other.sum
        for i in bins.indices { bins[i] += other.bins[i] }
    }

    var mean: Double { count == 0 ? 0 : sum / Double(count) }

    /// The `q` quantile: the middle of its bin (0 without errors).
    func quantile(_ q: Double) -> Double {
        guard count > 0 else { return 0 }
        let rank = UInt32(min(Double(count), (Double(count) * q).rounded(.up)))
        var seen: UInt32 = 0
        for (i, n) in bins.enumerated() {
            seen += n
            guard seen >= rank else { continue }
            let upper = i < Self.edges.count ? Self.edges[i] : Self.edges[Self.edges.count - 1] * 1.02
            return i == 0 ? upper / 2 : (upper + upper / 1.02) / 2
        }
        return Self.edges[Self.edges.count - 1]
    }
}
