/// A constant-acceleration Kalman filter over the two axes of one touch (state: position, velocity,
/// acceleration per axis; Chromium's ui/base/prediction/kalman_filter.cc uses the same model, one
/// filter per axis). Both axes share the sample times and the noise parameters, so they share the
/// covariance and the gain: one 3x3 covariance serves both, and the gains never depend on the
/// positions. The filter is therefore linear in the measurements. Inline storage, no allocation.
struct KalmanAxes: Sendable {
    /// Position, velocity and acceleration along x and along y (measurement units, per second).
    private(set) var x = SIMD3<Double>(0, 0, 0)
    private(set) var y = SIMD3<Double>(0, 0, 0)
    /// The shared covariance, by rows.
    private var p0 = SIMD3<Double>(0, 0, 0)
    private var p1 = SIMD3<Double>(0, 0, 0)
    private var p2 = SIMD3<Double>(0, 0, 0)
    /// Measurements taken so far.
    private(set) var updates = 0

    /// Spectral density of the white jerk that drives the model (units²/s⁵).
    let jerkDensity: Double
    /// Variance of one measurement (units²).
    let measurementVariance: Double
    /// Initial variances of the unknown velocity and acceleration.
    let velocityVariance: Double
    let accelerationVariance: Double

    init(jerkDensity: Double, measurementVariance: Double, velocityVariance: Double, accelerationVariance: Double) {
        self.jerkDensity = jerkDensity
        self.measurementVariance = measurementVariance
        self.velocityVariance = velocityVariance
        self.accelerationVariance = accelerationVariance
    }

    /// Velocity (units per second) of both axes.
    var velocity: SIMD2<Double> { SIMD2(x[1], y[1]) }
    /// Acceleration (units per second²) of both axes.
    var acceleration: SIMD2<Double> { SIMD2(x[2], y[2]) }
    /// Filtered position.
    var position: SIMD2<Double> { SIMD2(x[0], y[0]) }

    /// Forgets the state: the next measurement starts the filter again.
    mutating func restart() { updates = 0 }

    /// Takes a measurement `dt` seconds after the previous one (the first one starts the filter at
    /// rest, velocity and acceleration unknown).
    mutating func update(_ z: SIMD2<Double>, dt: Double) {
        guard updates > 0 else {
            x = SIMD3(z.x, 0, 0)
            y = SIMD3(z.y, 0, 0)
            p0 = SIMD3(measurementVariance, 0, 0)
            p1 = SIMD3(0, velocityVariance, 0)
            p2 = SIMD3(0, 0, accelerationVariance)
            updates = 1
            return
        }
        let dt2 = dt * dt
        let dt3 = dt2 * dt
        // x' = F x with F = [[1, dt, dt²/2], [0, 1, dt], [0, 0, 1]].
        let f0 = SIMD3(1, dt, 0.5 * dt2)
        let f1 = SIMD3(0, 1, dt)
        x = SIMD3((f0 * x).sum(), (f1 * x).sum(), x[2])
        y = SIMD3((f0 * y).sum(), (f1 * y).sum(), y[2])
        // P' = F P Fᵀ + Q; Q of the continuous white-jerk model (Bar-Shalom, Li, Kirubarajan,
        // "Estimation with Applications to Tracking and Navigation", 6.2.3).
        let a0 = p0 + dt * p1 + 0.5 * dt2 * p2  // rows of F P
        let a1 = p1 + dt * p2
        let a2 = p2
        let q = jerkDensity
        let n0 = SIMD3((a0 * f0).sum(), (a0 * f1).sum(), a0[2]) + q * SIMD3(dt3 * dt2 / 20, dt2 * dt2 / 8, dt3 / 6)
        let n1 = SIMD3((a1 * f0).sum(), (a1 * f1).sum(), a1[2]) + q * SIMD3(dt2 * dt2 / 8, dt3 / 3, dt2 / 2)
        let n2 = SIMD3((a2 * f0).sum(), (a2 * f1).sum(), a2[2]) + q * SIMD3(dt3 / 6, dt2 / 2, dt)
        // Gain K = P Hᵀ / (H P Hᵀ + R) with H = [1, 0, 0]; then P = (I - K H) P.
        let k = SIMD3(n0[0], n1[0], n2[0]) / (n0[0] + measurementVariance)
        x += k * (z.x - x[0])
        y += k * (z.y - y[0])
        p0 = n0 - k[0] * n0
        p1 = n1 - k[1] * n0
        p2 = n2 - k[2] * n0
        updates += 1
    }
}
