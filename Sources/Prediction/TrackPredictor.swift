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
    /// A constant-acceleration Kalman filter with Chromium's constants (kalman_filter.cc: process
    /// noise 0.01, measurement noise 1.0, in DIPs and sample intervals; kalman_predictor.cc predicts
    /// position + velocity t + acceleration t²/2 from the filtered state).
    case kalman
}

/// What the daemon's predictor does with a touch's samples (see docs/PREDICTION.md for how the
/// numbers were chosen on the project's recordings).
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
    /// The prediction goes no faster than this many times the newest step's speed: a finger that
    /// slows sharply is followed at once, before the filter's velocity catches up.
    public var stepSpeedFactor: Double

    public init(
        jerkDensity: Double, measurementNoise: Double, stationarySpeed: Double, accelerationWeight: Double,
        maximumDisplacement: Double, jumpSpeed: Double, stepSpeedFactor: Double
    ) {
        self.jumpSpeed = jumpSpeed
        self.stepSpeedFactor = stepSpeedFactor
        self.jerkDensity = jerkDensity
        self.measurementNoise = measurementNoise
        self.stationarySpeed = stationarySpeed
        self.accelerationWeight = accelerationWeight
        self.maximumDisplacement = maximumDisplacement
    }

    /// The daemon's values for a touchscreen finger, tuned on ../shared/recordings and its
    /// evemu-devices with `predict-report --parameters` (a grid over jerk density 3e5-1e8, noise
    /// 0.03-0.3 mm, acceleration weight 0-1, jump speed 300-3000, step factor 1-3; docs/PREDICTION.md):
    /// any acceleration weight above 0 raised the errors, so only a decelerating finger's acceleration
    /// is used (to find where it stops).
    public static let direct = PredictorParameters(
        jerkDensity: 1e6, measurementNoise: 0.05, stationarySpeed: 5, accelerationWeight: 0,
        maximumDisplacement: 40, jumpSpeed: 800, stepSpeedFactor: 1.25)

    /// The same for touchpads: the same filter, held to the newest step's speed (touchpads report at
    /// ~80 Hz, so a step is long enough to be a good speed reading), and the jump test for glitches
    /// such as freedesktop.org bug 23890's.
    public static let indirect = PredictorParameters(
        jerkDensity: 1e6, measurementNoise: 0.05, stationarySpeed: 5, accelerationWeight: 0,
        maximumDisplacement: 40, jumpSpeed: 800, stepSpeedFactor: 1)

    /// The tuned values for a touch type.
    public static func tuned(for type: TouchType) -> PredictorParameters {
        switch type {
        case .direct: return .direct
        case .indirect: return .indirect
        }
    }
}

/// One touch's predictor: its samples (time, millimetres) in, a predicted millimetre position out.
/// Pure and deterministic; inline state (the references keep a short history on the heap).
public struct TrackPredictor: Sendable {
    public let kind: PredictorKind
    public let parameters: PredictorParameters
    private var kalman: KalmanAxes
    /// Newest sample.
    private var newestTime: Int64 = 0
    private var newest = SIMD2<Double>(0, 0)
    private var sampleCount = 0
    /// The newest sample is where the one before it was: the finger may have stopped.
    private var newestIsStill = false
    /// Speed of the newest step (mm/s): a finger that slows sharply shows it here first.
    private var newestStepSpeed = 0.0
    /// Recent samples for the history-based references (last-two, least-squares), oldest first.
    private var history: [(time: Int64, position: SIMD2<Double>)] = []
    /// Mean sample interval in seconds (the Kalman reference's unit of time), an exponential average.
    private var meanInterval = 0.0

    /// Millimetres per DIP at 96 DPI: Chromium's constants are in DIPs.
    static let millimetresPerDIP = 25.4 / 96

    public init(kind: PredictorKind = .daemon, parameters: PredictorParameters = .direct) {
        self.kind = kind
        self.parameters = parameters
        switch kind {
        case .kalman:
            kalman = KalmanAxes(
                jerkDensity: 0.01, measurementVariance: 1, velocityVariance: 1e4, accelerationVariance: 1e4)
        case .daemon, .none, .lastTwo, .leastSquares:
            let r = parameters.measurementNoise * parameters.measurementNoise
            kalman = KalmanAxes(
                jerkDensity: parameters.jerkDensity, measurementVariance: r, velocityVariance: 1e4,
                accelerationVariance: 1e6)
        }
    }

    /// Adds a sample at `time` (microseconds). A sample at the time of the newest replaces nothing and
    /// is ignored (the same instant), one from the past too.
    public mutating func add(time: Int64, millimeters: Point) {
        let z = SIMD2(millimeters.x, millimeters.y)
        if sampleCount > 0 && time <= newestTime {
            if time == newestTime { newest = z }
            return
        }
        let dt = sampleCount > 0 ? Double(time - newestTime) / 1e6 : 0
        switch kind {
        case .daemon:
            if sampleCount > 0 {
                // The surprise: how far the sample lands from where the filter's motion said it would.
                let step = z - newest - kalman.velocity * dt
                if (step * step).sum().squareRoot() > parameters.jumpSpeed * dt { kalman.restart() }
            }
            kalman.update(z, dt: dt)
        case .kalman:
            // In sample intervals (dt = 1) and DIPs, as Chromium's filter runs.
            kalman.update(z / Self.millimetresPerDIP, dt: 1)
            if sampleCount > 0 { meanInterval = sampleCount == 1 ? dt : 0.8 * meanInterval + 0.2 * dt }
        case .lastTwo, .leastSquares:
            history.append((time, z))
            if history.count > 64 || (history.count > 2 && time - history[0].time > 50_000) {
                history.removeFirst()
            }
        case .none:
            break
        }
        newestIsStill = sampleCount > 0 && z == newest
        if sampleCount > 0, dt > 0 {
            let step = z - newest
            newestStepSpeed = (step * step).sum().squareRoot() / dt
        }
        newestTime = time
        newest = z
        sampleCount += 1
    }

    /// The predicted position `horizon` microseconds after the newest sample (the newest position
    /// before two samples have come).
    public func predict(horizon: Int64) -> Point {
        let h = Double(horizon) / 1e6
        let p: SIMD2<Double>
        switch kind {
        case .none:
            p = newest
        case .daemon:
            p = newest + daemonDisplacement(h)
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

    /// The daemon's displacement: the filtered velocity and (weighted) acceleration carried over the
    /// horizon, cut short where a decelerating finger would come to rest, nothing for a still finger.
    private func daemonDisplacement(_ h: Double) -> SIMD2<Double> {
        guard kalman.updates >= 2, !newestIsStill else { return .zero }
        let v = kalman.velocity
        let speed = (v * v).sum().squareRoot()
        guard speed >= parameters.stationarySpeed else { return .zero }
        let a = kalman.acceleration
        let along = (a * v).sum() / speed
        var d: SIMD2<Double>
        if along < 0 {
            // Decelerating: the finger stops after speed / |along| seconds; predict no further.
            let tau = min(h, speed / -along)
            d = v * tau + a * (0.5 * tau * tau)
        } else {
            d = v * h + a * (0.5 * h * h * parameters.accelerationWeight)
        }
        let length = (d * d).sum().squareRoot()
        let limit = min(parameters.maximumDisplacement, newestStepSpeed * parameters.stepSpeedFactor * h)
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
