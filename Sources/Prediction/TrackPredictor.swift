import MultitouchCore

/// The predictors `multitouchctl predict-report` compares: the daemon's own and the references the
/// issue names, computed on the same samples.
public enum PredictorKind: String, Hashable, Sendable, CaseIterable {
    /// The daemon's predictor (`PredictorParameters.direct` / `.indirect`).
    case daemon
    /// No prediction: the newest position.
    case none
    /// Linear extrapolation of the last two samples.
    case lastTwo = "last-two"
    /// A least-squares line over the samples of the last 50 ms, evaluated at the predicted time.
    case leastSquares = "least-squares"
    /// A constant-acceleration Kalman filter with fixed parameters, Chromium's constants
    /// (kalman_filter.cc: process noise 0.01, measurement noise 1.0, in DIPs and sample intervals;
    /// kalman_predictor.cc predicts position + velocity t + acceleration t²/2 from the filtered state).
    case kalman
    /// Issue 20's predictor with its parameters, as it was before issue 30 (the "before" of
    /// docs/PREDICTION.md): the filter fed every sample, a touch whose newest sample did not move
    /// predicted still, the prediction held to the newest sample step's speed.
    case issue20 = "issue-20"
}

/// What the daemon's predictor does with a touch's samples (see docs/PREDICTION.md for how the
/// numbers were chosen: leave-one-device-out cross-validation over the project's recordings).
public struct PredictorParameters: Hashable, Sendable {
    /// Spectral density of the white jerk of the finger model, mm²/s⁵.
    public var jerkDensity: Double
    /// Standard deviation of a measured position, mm.
    public var measurementNoise: Double
    /// Below this filtered speed (mm/s) a touch is stationary and predicts no motion.
    public var stationarySpeed: Double
    /// How much of the estimated acceleration an accelerating finger's prediction keeps (0...1):
    /// acceleration estimates are noisy, and extrapolating them squares the horizon.
    public var accelerationWeight: Double
    /// Largest predicted displacement, mm (a bound on what a glitch can throw).
    public var maximumDisplacement: Double
    /// A sample further from the previous one than this speed allows (mm/s) is a jump (a sensor
    /// glitch, two fingers read as one): the filter starts over there instead of reading a velocity.
    public var jumpSpeed: Double
    /// The prediction goes no faster than this many times the newest reading step's speed: a finger
    /// that slows sharply is followed at once, before the filter's velocity catches up.
    public var stepSpeedFactor: Double
    /// A touch rests once the chance that its sensor has merely not read anew yet falls below this
    /// (0...1): the chance that a reading takes more reports than the position has now been held,
    /// from the reports per reading the touch has seen (`SensorCadence`). Stationarity is decided
    /// over the sensor's own time window: a sensor that reads at every report rests at the first
    /// repeat, one that reads every second or third report only once a third report has repeated.
    public var restChance: Double
    /// The newest step's speed is read over this many reading steps (1 or 2).
    public var stepReadings: Int

    public init(
        jerkDensity: Double, measurementNoise: Double, stationarySpeed: Double, accelerationWeight: Double,
        maximumDisplacement: Double, jumpSpeed: Double, stepSpeedFactor: Double, restChance: Double,
        stepReadings: Int
    ) {
        self.jerkDensity = jerkDensity
        self.measurementNoise = measurementNoise
        self.stationarySpeed = stationarySpeed
        self.accelerationWeight = accelerationWeight
        self.maximumDisplacement = maximumDisplacement
        self.jumpSpeed = jumpSpeed
        self.stepSpeedFactor = stepSpeedFactor
        self.restChance = restChance
        self.stepReadings = stepReadings
    }

    /// The daemon's values for a touchscreen finger: what `predict-report --scripted --cross-validate`
    /// chooses on every recording of ../shared/recordings (docs/PREDICTION.md gives the grid and the
    /// held-out figures of the same procedure).
    public static let direct = PredictorParameters(
        jerkDensity: 3e5, measurementNoise: 0.03, stationarySpeed: 5, accelerationWeight: 0,
        maximumDisplacement: 40, jumpSpeed: 800, stepSpeedFactor: 1, restChance: 0.3, stepReadings: 2)

    /// The same for touchpads.
    public static let indirect = PredictorParameters(
        jerkDensity: 1e6, measurementNoise: 0.03, stationarySpeed: 5, accelerationWeight: 0,
        maximumDisplacement: 40, jumpSpeed: 800, stepSpeedFactor: 1, restChance: 0.2, stepReadings: 1)

    /// The tuned values for a touch type.
    public static func tuned(for type: TouchType) -> PredictorParameters {
        switch type {
        case .direct: return .direct
        case .indirect: return .indirect
        }
    }

    /// Issue 20's values (`PredictorKind.issue20`; `restChance` unused there: it rests at every repeat).
    public static func issue20(for type: TouchType) -> PredictorParameters {
        PredictorParameters(
            jerkDensity: 1e6, measurementNoise: 0.05, stationarySpeed: 5, accelerationWeight: 0,
            maximumDisplacement: 40, jumpSpeed: 800, stepSpeedFactor: type == .direct ? 1.25 : 1, restChance: 1,
            stepReadings: 1)
    }
}

/// One touch's predictor: its samples (time, millimetres) in, a predicted millimetre position out.
/// `add` updates the state once per sample; `predict` reads it, with no side effect, so one state
/// serves any number of horizons per frame in any order. Pure and deterministic; inline state (the
/// references keep a short history on the heap).
///
/// The daemon's predictor reads motion from time, not from the newest sample alone: a sample whose
/// position differs from the one before is a reading, and only readings (and rests) update the
/// filter, at their real times; a repeated position is the sensor not having read anew yet (a sensor
/// slower than the report rate, sub-resolution motion, another finger's frame). The touch learns how
/// many reports its sensor takes per reading (`SensorCadence`); it predicts where the device will
/// report the finger, the path carried from the newest reading over the expected age of the reading
/// the device will then show, and rests once its position has been held longer than the sensor
/// takes to read (`restChance`).
public struct TrackPredictor: Sendable {
    public let kind: PredictorKind
    public let parameters: PredictorParameters
    private var kalman: KalmanAxes
    /// Newest sample.
    private var newestTime: Int64 = 0
    private var newest = SIMD2<Double>(0, 0)
    private var sampleCount = 0
    /// Time of the newest reading (the newest position change), and of the filter's newest update
    /// (a reading, or a rest).
    private var readingTime: Int64 = 0
    private var filterTime: Int64 = 0
    /// The reading before the newest one (the first sample until there is one).
    private var previousReading = SIMD2<Double>(0, 0)
    private var previousReadingTime: Int64 = 0
    /// Speed over the newest `stepReadings` reading steps (mm/s): a finger that slows sharply shows it
    /// here first. For issue 20's predictor, the newest sample step's.
    private var stepSpeed = 0.0
    /// Mean interval between samples (the report interval), seconds; an exponential average, 0
    /// until known.
    private var reportInterval = 0.0
    /// Reports since the newest reading, and how many the sensor takes per reading.
    private var heldReports = 0
    private var cadence = SensorCadence()
    /// The position has been held longer than the sensor takes to read: the finger rests. For issue
    /// 20's predictor: the newest sample is where the one before it was.
    private var isResting = false
    /// Recent samples for the history-based references (last-two, least-squares), oldest first.
    private var history: [(time: Int64, position: SIMD2<Double>)] = []
    /// Mean sample interval in seconds (the Kalman reference's unit of time), an exponential average.
    private var meanInterval = 0.0

    /// Millimetres per DIP at 96 DPI: Chromium's constants are in DIPs.
    static let millimetresPerDIP = 25.4 / 96
    /// Weight of the newest interval in the interval averages.
    static let intervalWeight = 0.25
    /// Report gaps longer than this (s) are pauses, not the device's rhythm.
    static let longestInterval = 0.05

    public init(kind: PredictorKind = .daemon, parameters: PredictorParameters = .direct) {
        self.kind = kind
        self.parameters = parameters
        switch kind {
        case .kalman:
            kalman = KalmanAxes(
                jerkDensity: 0.01, measurementVariance: 1, velocityVariance: 1e4, accelerationVariance: 1e4)
        case .daemon, .issue20, .none, .lastTwo, .leastSquares:
            let r = parameters.measurementNoise * parameters.measurementNoise
            kalman = KalmanAxes(
                jerkDensity: parameters.jerkDensity, measurementVariance: r, velocityVariance: 1e4,
                accelerationVariance: 1e6)
        }
    }

    /// Adds a sample at `time` (microseconds). A sample at the time of the newest replaces its
    /// position only (the same instant), one from the past is ignored.
    public mutating func add(time: Int64, millimeters: Point) {
        let z = SIMD2(millimeters.x, millimeters.y)
        if sampleCount > 0 && time <= newestTime {
            if time == newestTime { newest = z }
            return
        }
        switch kind {
        case .daemon:
            addReading(z, time: time)
        case .issue20:
            let dt = sampleCount > 0 ? Double(time - newestTime) / 1e6 : 0
            if sampleCount > 0 {
                let step = z - newest - kalman.velocity * dt
                if (step * step).sum().squareRoot() > parameters.jumpSpeed * dt { kalman.restart() }
                let moved = z - newest
                stepSpeed = (moved * moved).sum().squareRoot() / dt
            }
            kalman.update(z, dt: dt)
            isResting = sampleCount > 0 && z == newest
        case .kalman:
            // In sample intervals (dt = 1) and DIPs, as Chromium's filter runs.
            kalman.update(z / Self.millimetresPerDIP, dt: 1)
            let dt = Double(time - newestTime) / 1e6
            if sampleCount > 0 { meanInterval = sampleCount == 1 ? dt : 0.8 * meanInterval + 0.2 * dt }
        case .lastTwo, .leastSquares:
            history.append((time, z))
            if history.count > 64 || (history.count > 2 && time - history[0].time > 50_000) {
                history.removeFirst()
            }
        case .none:
            break
        }
        newestTime = time
        newest = z
        sampleCount += 1
    }

    /// The daemon's update: readings go to the filter at their times and teach the touch its
    /// sensor's cadence; a held position only ages the newest reading until it has been held longer
    /// than the sensor takes to read, then tells the filter the finger is there.
    private mutating func addReading(_ z: SIMD2<Double>, time: Int64) {
        guard sampleCount > 0 else {
            kalman.update(z, dt: 0)
            readingTime = time
            filterTime = time
            previousReading = z
            previousReadingTime = time
            return
        }
        let report = Double(time - newestTime) / 1e6
        if report < Self.longestInterval {
            reportInterval =
                reportInterval == 0 ? report : reportInterval + Self.intervalWeight * (report - reportInterval)
        }
        if z != newest {
            // A hold of 50 ms or more is a pause, not the sensor's cadence. A shorter one counts even
            // after a rest: a slow sensor's first held reports look like a stop until it has been
            // seen reading after them.
            if Double(time - readingTime) / 1e6 < Self.longestInterval { cadence.learn(reports: heldReports + 1) }
            let dt = Double(time - filterTime) / 1e6
            // The surprise: how far the reading lands from where the filter's motion said it would.
            let surprise = z - newest - kalman.velocity * dt
            if (surprise * surprise).sum().squareRoot() > parameters.jumpSpeed * dt { kalman.restart() }
            kalman.update(z, dt: dt)
            // Over the last `stepReadings` reading steps: a single interval's timestamp can be off by
            // the device's report jitter (Wacom ISDv4 finger sensors stamp even steps 8 and 12 ms
            // apart), where two average it out.
            let (from, fromTime) =
                parameters.stepReadings >= 2 ? (previousReading, previousReadingTime) : (newest, readingTime)
            let step = z - from
            stepSpeed = (step * step).sum().squareRoot() / (Double(time - fromTime) / 1e6)
            previousReading = newest
            previousReadingTime = readingTime
            readingTime = time
            filterTime = time
            heldReports = 0
            isResting = false
        } else {
            heldReports += 1
            if isResting || cadence.stillReading(afterHeld: heldReports) < parameters.restChance {
                // Held longer than the sensor takes to read: the finger is there now, and its velocity
                // decays in the filter.
                kalman.update(z, dt: Double(time - filterTime) / 1e6)
                filterTime = time
                isResting = true
            }
        }
    }

    /// The predicted position `horizon` microseconds after the newest sample (the newest position
    /// before two samples have come). No side effect on the state.
    public func predict(horizon: Int64) -> Point {
        let h = Double(horizon) / 1e6
        let p: SIMD2<Double>
        switch kind {
        case .none:
            p = newest
        case .daemon:
            p = newest + daemonDisplacement(h)
        case .issue20:
            p = newest + issue20Displacement(h)
        case .lastTwo:
            guard history.count >= 2 else { return point(newest) }
            let a = history[history.count - 2]
            let b = history[history.count - 1]
            p = b.position + (b.position - a.position) * (h / (Double(b.time - a.time) / 1e6))
        case .leastSquares:
            p = leastSquares(at: newestTime + horizon)
        case .kalman:
            // Chromium predicts once the filter is stable: kStableIterNum = 4 updates (kalman_filter.cc).
            guard kalman.updates >= 4, meanInterval > 0 else { return point(newest) }
            let t = h / meanInterval
            p = (kalman.position + kalman.velocity * t + kalman.acceleration * (0.5 * t * t)) * Self.millimetresPerDIP
        }
        return point(p)
    }

    /// The daemon's displacement from the newest position, nothing for a resting finger: what the
    /// device will report `h` from now, the path carried from the newest reading (the filtered
    /// velocity, cut short where a decelerating finger would come to rest) over the expected age of
    /// the reading it will then show (`SensorCadence.expectedAge`). When the sensor reads at every
    /// report this is the velocity carried over `h`.
    private func daemonDisplacement(_ h: Double) -> SIMD2<Double> {
        guard kalman.updates >= 2, !isResting, h > 0 else { return .zero }
        let tau = cadence.expectedAge(
            held: Double(newestTime - readingTime) / 1e6, heldReports: heldReports, reportInterval: reportInterval,
            horizon: h)
        guard tau > 0 else { return .zero }
        return carried(over: tau)
    }

    /// Issue 20's displacement: the same carry over the horizon, nothing when the newest sample did
    /// not move.
    private func issue20Displacement(_ h: Double) -> SIMD2<Double> {
        guard kalman.updates >= 2, !isResting else { return .zero }
        return carried(over: h)
    }

    /// The filtered velocity and (weighted) acceleration carried over `tau` seconds, cut short where a
    /// decelerating finger stops, held to the newest step's speed and to the largest displacement.
    private func carried(over tau: Double) -> SIMD2<Double> {
        let v = kalman.velocity
        let speed = (v * v).sum().squareRoot()
        guard speed >= parameters.stationarySpeed else { return .zero }
        let a = kalman.acceleration
        let along = (a * v).sum() / speed
        var d: SIMD2<Double>
        if along < 0 {
            // Decelerating: the finger stops after speed / |along| seconds; predict no further.
            let t = min(tau, speed / -along)
            d = v * t + a * (0.5 * t * t)
        } else {
            d = v * tau + a * (0.5 * tau * tau * parameters.accelerationWeight)
        }
        let length = (d * d).sum().squareRoot()
        let limit = min(parameters.maximumDisplacement, stepSpeed * parameters.stepSpeedFactor * tau)
        if length > limit { d *= limit / length }
        return d
    }

    private func leastSquares(at time: Int64) -> SIMD2<Double> {
        let window = history.filter { newestTime - $0.time <= 50_000 }
        guard window.count >= 2 else { return newest }
        let t0 = Double(newestTime)
        var st = 0.0
        var stt = 0.0
        var sp = SIMD2<Double>(0, 0)
        var stp = SIMD2<Double>(0, 0)
        for s in window {
            let t = (Double(s.time) - t0) / 1e6
            st += t
            stt += t * t
            sp += s.position
            stp += s.position * t
        }
        let n = Double(window.count)
        let denominator = n * stt - st * st
        guard denominator > 0 else { return newest }
        let slope = (stp * n - sp * st) / denominator
        let intercept = (sp - slope * st) / n
        return intercept + slope * ((Double(time) - t0) / 1e6)
    }

    private func point(_ v: SIMD2<Double>) -> Point { Point(x: v.x, y: v.y) }
}
