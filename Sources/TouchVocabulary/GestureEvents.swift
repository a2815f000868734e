/// Phase of a continuous gesture segment (UIGestureRecognizer.State for continuous recognizers).
public enum GesturePhase: String, Hashable, Sendable {
    case began, changed, ended, cancelled
}

/// What a segment tracks. Finger segments: one finger pans, two or more pinch and rotate about their
/// centroid, one finger that tapped and landed again zooms. Animation segments (no fingers, driven by
/// virtual-time timers at `GestureConfiguration.animationFrameRateHz`): momentum after a release, and
/// an animated zoom (a tap zoom, or the rubber band springing back to a scale limit).
public enum GestureMode: String, Hashable, Sendable, CaseIterable {
    /// One finger: S(p) = p + translation.
    case pan
    /// Two or more fingers: S(p) = c + s R(r) (p - c0), pivot at the centroid.
    case pinchRotate
    /// One finger after a tap (double-tap-and-drag): scale about the landing point, no translation.
    case quickZoom
    /// No finger: the content keeps the release velocity and decelerates (pan-like translation).
    case momentum
    /// No finger: a zoom about a fixed point animated over `zoomAnimationMilliseconds`.
    case animatedZoom

    /// True for the segments fingers drive (they have `fingers >= 1`).
    public var isFingerDriven: Bool {
        switch self {
        case .pan, .pinchRotate, .quickZoom: return true
        case .momentum, .animatedZoom: return false
        }
    }
}

/// UIKit-style velocities: published units per second, scale per second, radians per second.
public struct GestureVelocity: Hashable, Sendable {
    public var translation: Point
    public var scale: Double
    public var rotation: Double

    public init(translation: Point = .zero, scale: Double = 0, rotation: Double = 0) {
        self.translation = translation
        self.scale = scale
        self.rotation = rotation
    }

    public static let zero = GestureVelocity()
}

/// One update of a pan or pinchRotate segment. `translation`, `scale` and `rotation` are relative to
/// the segment's start; `matrix` is the device's cumulative transform after this update.
public struct GestureUpdate: Hashable, Sendable {
    /// The session the segment belongs to (an animation segment: the session whose release or tap
    /// started it; it runs after that session ended).
    public var session: UInt64
    /// Increasing per device for every gesture update, so a client can see what it missed.
    public var seq: UInt64
    public var time: Timestamp
    public var phase: GesturePhase
    public var mode: GestureMode
    public var fingers: Int
    public var centroid: Point
    public var translation: Point
    public var scale: Double
    /// Radians, unwrapped (a +400 degree twist is 6.98, not 0.70).
    public var rotation: Double
    public var velocity: GestureVelocity
    public var matrix: AffineTransform

    public init(
        session: UInt64, seq: UInt64, time: Timestamp, phase: GesturePhase, mode: GestureMode, fingers: Int,
        centroid: Point, translation: Point, scale: Double, rotation: Double, velocity: GestureVelocity,
        matrix: AffineTransform
    ) {
        self.session = session
        self.seq = seq
        self.time = time
        self.phase = phase
        self.mode = mode
        self.fingers = fingers
        self.centroid = centroid
        self.translation = translation
        self.scale = scale
        self.rotation = rotation
        self.velocity = velocity
        self.matrix = matrix
    }
}

/// Phase of a long press (a discrete-then-continuous gesture: began when the duration passes, ended when
/// the finger lifts, cancelled when it moves too far or the touch is cancelled).
public enum LongPressPhase: String, Hashable, Sendable {
    case began, ended, cancelled
}

/// Everything the gesture engine reports, in the order it happened.
public enum GestureEvent: Hashable, Sendable {
    /// First finger down.
    case sessionBegan(session: UInt64, time: Timestamp)
    /// Last finger up (`cancelled` when the session ended through a cancelled touch).
    case sessionEnded(session: UInt64, time: Timestamp, cancelled: Bool)
    /// A pan or pinchRotate segment update.
    case update(GestureUpdate)
    /// A tap (fingers down and up again quickly without moving), with its tap count.
    case tap(session: UInt64, time: Timestamp, location: Point, tapCount: Int, fingers: Int)
    /// Second tap of a double tap. `matrix` is the cumulative transform after the optional zoom when it
    /// is applied at once; when the zoom is animated it is the transform before it, and `animatedZoom`
    /// updates follow.
    case doubleTap(session: UInt64, time: Timestamp, location: Point, matrix: AffineTransform)
    /// A long press began, ended or was cancelled.
    case longPress(session: UInt64, time: Timestamp, phase: LongPressPhase, location: Point, fingers: Int)

    /// The session the event belongs to.
    /// A segment update (the events that carry a matrix a predicted one can go with).
    public var isSegmentUpdate: Bool {
        if case .update = self { return true }
        return false
    }

    public var session: UInt64 {
        switch self {
        case .sessionBegan(let s, _), .sessionEnded(let s, _, _): return s
        case .update(let u): return u.session
        case .tap(let s, _, _, _, _), .doubleTap(let s, _, _, _), .longPress(let s, _, _, _, _): return s
        }
    }

    /// Time the event belongs to.
    public var time: Timestamp {
        switch self {
        case .sessionBegan(_, let t), .sessionEnded(_, let t, _): return t
        case .update(let u): return u.time
        case .tap(_, let t, _, _, _), .doubleTap(_, let t, _, _), .longPress(_, let t, _, _, _): return t
        }
    }
}
