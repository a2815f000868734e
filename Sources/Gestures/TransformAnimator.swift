import MultitouchCore

/// Animations of the cumulative transform that run without fingers: momentum after a release and a
/// zoom about a fixed point (a tap zoom, the rubber band's spring-back). Frames are virtual-time
/// timers: frame k of an animation that starts at t0 is due at t0 + k / `animationFrameRateHz`
/// (rounded to the microsecond; 60 Hz by default, the rate most panels and displays refresh at), the
/// daemon's loop arms its timerfd from `nextDeadline` as for every other gesture timer, and a replay
/// fires the frames at their deadlines. No clock is read.
///
/// - Momentum (UIScrollView-style): the release velocity v0 decays by `momentumDecelerationRate` per
///   millisecond: v(t) = v0 r^(1000 t), offset(t) = v0 (1 - r^(1000 t)) / lambda with lambda =
///   -1000 ln r per second. It ends at the first frame whose speed is below
///   `momentumMinimumSpeedMillimetersPerSecond`, and after 20 s at the latest.
/// - Zoom: log scale eased out cubically, log f * (1 - (1 - u)^3), u = elapsed / duration; the last
///   frame lands exactly at the end with the full factor.
struct TransformAnimator: Sendable {
    /// What runs.
    enum State: Sendable {
        /// Nothing animates.
        case idle
        /// Momentum with its release velocity (published units/s and mm/s).
        case momentum(Momentum)
        /// A zoom by `factor` about `pivot`.
        case zoom(Zoom)

        enum Name: String, CaseIterable, Sendable { case idle, momentum, zoom }

        var name: Name {
            switch self {
            case .idle: return .idle
            case .momentum: return .momentum
            case .zoom: return .zoom
            }
        }
    }

    struct Momentum: Sendable {
        var start: Timestamp
        var frame: Int
        var velocity: Point
        var speedMM: Double
    }

    struct Zoom: Sendable {
        var start: Timestamp
        var frame: Int
        var durationMicroseconds: Int64
        var logFactor: Double
        var pivot: Point
    }

    /// Values of one animation frame.
    struct Frame: Sendable {
        var time: Timestamp
        /// Offset from the start (momentum), or 0.
        var translation: Point
        /// Scale since the start (zoom), or 1.
        var scale: Double
        /// Velocity at the frame (translation per second, scale per second).
        var velocity: GestureVelocity
        /// The last frame of the animation.
        var finished: Bool
    }

    /// A finger segment that ended with the last finger up: where its reference point is, the velocity
    /// of its `ended` update (published units/s) and the fingers' speed (mm/s).
    struct Release: Sendable, Equatable {
        var centroid: Point
        var velocity: Point
        var speedMM: Double
        var mode: GestureMode
    }

    /// What follows a release.
    enum ReleaseAction: Sendable, Equatable {
        /// Nothing animates.
        case none
        /// M is past a scale limit: the engine opens an animated zoom by `factor` about `pivot`.
        case springBack(factor: Double, about: Point)
        /// Momentum started from `centroid`: the engine opens its segment.
        case momentum(from: Point)
    }

    private(set) var state: State = .idle
    private let periodMicroseconds: Double
    private let lambda: Double
    private let minimumSpeed: Double
    private let rubberBand: Bool
    private let momentum: Bool
    static let longestMomentumMicroseconds: Int64 = 20_000_000

    init(configuration c: GestureConfiguration) {
        periodMicroseconds = 1_000_000 / c.animationFrameRateHz
        lambda = -1000 * _log(c.momentumDecelerationRate)
        minimumSpeed = c.momentumMinimumSpeedMillimetersPerSecond
        rubberBand = c.rubberBand
        momentum = c.momentum
    }

    /// The last finger lifted at `time`, ending a finger segment as `release` (not cancelled, no tap
    /// zoom); `springBackFactor` brings M's scale back inside the limits (1 when it is inside). With
    /// the rubber band on, a scale past a limit springs back; else a pan or pinch released at
    /// `momentumMinimumSpeedMillimetersPerSecond` or faster starts momentum.
    mutating func released(_ release: Release, springBackFactor: Double, at time: Timestamp) -> ReleaseAction {
        if rubberBand && springBackFactor != 1 { return .springBack(factor: springBackFactor, about: release.centroid) }
        switch release.mode {
        case .pan, .pinchRotate:
            guard momentum, release.speedMM >= minimumSpeed, lambda > 0 else { return .none }
            state = .momentum(Momentum(start: time, frame: 0, velocity: release.velocity, speedMM: release.speedMM))
            return .momentum(from: release.centroid)
        case .quickZoom, .momentum, .animatedZoom:
            return .none
        }
    }

    mutating func startZoom(at time: Timestamp, factor: Double, about pivot: Point, durationMilliseconds: Double) {
        let duration = Int64((durationMilliseconds * 1000).rounded())
        guard duration > 0, factor > 0, factor.isFinite, factor != 1 else { return }
        state = .zoom(
            Zoom(start: time, frame: 0, durationMicroseconds: duration, logFactor: _log(factor), pivot: pivot))
    }

    mutating func stop() { state = .idle }

    /// When the next frame is due; nil when nothing animates.
    var nextDeadline: Timestamp? {
        switch state {
        case .idle: return nil
        case .momentum(let m): return frameTime(m.start, m.frame + 1)
        case .zoom(let z):
            return min(
                frameTime(z.start, z.frame + 1), Timestamp(microseconds: z.start.microseconds &+ z.durationMicroseconds)
            )
        }
    }

    private func frameTime(_ start: Timestamp, _ k: Int) -> Timestamp {
        Timestamp(microseconds: start.microseconds &+ Int64((Double(k) * periodMicroseconds).rounded()))
    }

    /// Produces the frame due now (call when `nextDeadline` is due) and moves on; the state is idle
    /// after the last frame.
    mutating func nextFrame() -> Frame? {
        guard let time = nextDeadline else { return nil }
        switch state {
        case .idle:
            return nil
        case .momentum(var m):
            m.frame += 1
            let t = Double(time.microseconds &- m.start.microseconds) / 1_000_000
            let decay = _exp(-lambda * t)
            let offset = m.velocity * ((1 - decay) / lambda)
            let velocity = m.velocity * decay
            let finished =
                m.speedMM * decay < minimumSpeed
                || time.microseconds &- m.start.microseconds >= Self.longestMomentumMicroseconds
            state = finished ? .idle : .momentum(m)
            return Frame(
                time: time, translation: offset, scale: 1,
                velocity: GestureVelocity(translation: finished ? .zero : velocity), finished: finished)
        case .zoom(var z):
            z.frame += 1
            let elapsed = time.microseconds &- z.start.microseconds
            let u = min(1, Double(elapsed) / Double(z.durationMicroseconds))
            let eased = 1 - (1 - u) * (1 - u) * (1 - u)
            let scale = _exp(z.logFactor * eased)
            // d scale / dt = scale * logFactor * 3 (1 - u)^2 / duration.
            let rate = scale * z.logFactor * 3 * (1 - u) * (1 - u) / (Double(z.durationMicroseconds) / 1_000_000)
            let finished = u >= 1
            state = finished ? .idle : .zoom(z)
            return Frame(
                time: time, translation: .zero, scale: scale,
                velocity: GestureVelocity(scale: finished ? 0 : rate), finished: finished)
        }
    }
}
