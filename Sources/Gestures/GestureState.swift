import MultitouchCore

// The engine's state, split from GestureEngine.swift so the transitions there read against one list of
// cases. The diagram is docs/state-machines/gesture.md; a test checks every case name appears in it.

extension GestureEngine {
    /// The unified segment state machine of one device (DESIGN.md "Unified gesture state machine").
    enum State: Sendable {
        /// No finger on the surface, no session.
        case idle
        /// A session whose one finger has not yet moved beyond the pan slop: no segment runs. The pan
        /// that follows is re-based where the slop is passed, so the slop never jumps the content.
        case panPossible(originMM: Point)
        /// The finger count dropped: the next segment waits for the churn debounce or for motion, so
        /// fingers lifting a few ms apart make no spurious segment. Its references are already taken.
        case settling(deadline: Timestamp)
        /// A one-finger pan segment runs (`GestureEngine.segment`).
        case panning
        /// A segment with two or more fingers runs (dead bands may still hold its changes back).
        case pinchRotating
        /// A touch was cancelled (palm, device removal, resync loss): the remaining fingers are ignored
        /// until the last one lifts, then the session ends with `cancelled: true`.
        case draining

        /// Case names without payloads, for logs and for the diagram test.
        enum Name: String, CaseIterable, Sendable {
            case idle, panPossible, settling, panning, pinchRotating, draining
        }

        var name: Name {
            switch self {
            case .idle: return .idle
            case .panPossible: return .panPossible
            case .settling: return .settling
            case .panning: return .panning
            case .pinchRotating: return .pinchRotating
            case .draining: return .draining
            }
        }
    }

    /// One pan or pinchRotate segment: its references (taken when the finger set last changed) and its
    /// latest measured values. Published values come from `effective*`, which hold identity while the
    /// segment is still inside its dead bands.
    struct Segment: Sendable {
        var mode: GestureMode
        var fingers: Int
        /// Start centroid c0, published space and mm.
        var c0: Point
        var c0MM: Point
        /// Start spread (mean distance to the centroid); 0 while the fingers started coincident, then
        /// taken lazily so the held scale continues.
        var spread0: Double
        var spread0MM: Double
        /// The incoming segment's scale limits, derived at its start from the cumulative scale so the
        /// total stays within the configured limits (clamping at the boundary, never of a total).
        var scaleLow: Double
        var scaleHigh: Double
        /// Latest measurement.
        var centroid: Point
        var centroidMM: Point
        var spread: Double = 0
        var spreadMM: Double
        var rawScale: Double = 1
        var rotation: Double = 0
        /// Out of the dead bands: changes are published.
        var live: Bool

        var scale: Double { min(max(rawScale, scaleLow), scaleHigh) }
        var effectiveCentroid: Point { live ? centroid : c0 }
        var effectiveScale: Double { live && mode == .pinchRotate ? scale : 1 }
        var effectiveRotation: Double { live && mode == .pinchRotate ? rotation : 0 }
        var effectiveTranslation: Point { effectiveCentroid - c0 }

        /// S: the segment's own transform in published space.
        var transform: AffineTransform {
            switch mode {
            case .pan:
                return .translation(effectiveTranslation)
            case .pinchRotate:
                return .pivot(from: c0, to: effectiveCentroid, scale: effectiveScale, rotation: effectiveRotation)
            }
        }
    }

    /// One touch the engine follows, kept in a small array (no per-touch dictionary on the hot path).
    struct FingerTrack: Sendable {
        var id: UInt64
        var location: Point
        var mm: Point
        var landingMM: Point
        /// Frame stamp of the last frame that carried this touch.
        var seen: UInt64
        /// Ended, cancelled or missing in the current frame: removed after the frame.
        var terminal: Bool
        /// Member of the current (or prepared) segment's finger set.
        var inSegment: Bool = false
        /// Unwrapped turn about the centroid since the segment start (radians).
        var angleValid: Bool = false
        var lastAngle: Double = 0
        var turned: Double = 0
    }

    /// Facts about the running session that the discrete recognizers and the hysteresis need.
    struct Session: Sendable {
        var id: UInt64
        var start: Timestamp
        var maxFingers: Int = 0
        /// Farthest any finger got from where it landed, mm.
        var maxMovementMM: Double = 0
        /// A segment has left its hysteresis (pan slop passed or pinch dead band left): from here on
        /// segments start live, taps and long presses fail.
        var moved: Bool = false
        var cancelled: Bool = false
        /// A long press began in this session (no tap then).
        var pressed: Bool = false
        var landingSum: Point = .zero
        var landingSumMM: Point = .zero
        var landings: Int = 0
        /// Active finger count after the previous frame (a decrease fails or ends a long press).
        var lastFingers: Int = 0

        var tapLocation: Point { landings > 0 ? landingSum / Double(landings) : .zero }
        var tapLocationMM: Point { landings > 0 ? landingSumMM / Double(landings) : .zero }
    }

    /// The long-press recognizer, armed at the first touch down of a session.
    enum LongPressState: Sendable {
        /// No session, or the press already failed or finished in this one.
        case idle
        /// Waiting for `deadline` with the fingers still and all down.
        case armed(deadline: Timestamp)
        /// Began; ends when a finger lifts, is cancelled by movement or a cancelled touch.
        case pressing(fingers: Int)

        enum Name: String, CaseIterable, Sendable { case idle, armed, pressing }

        var name: Name {
            switch self {
            case .idle: return .idle
            case .armed: return .armed
            case .pressing: return .pressing
            }
        }
    }

    /// A finished tap that a following tap may continue (tapCount), or hold (wait for double tap).
    struct LastTap: Sendable {
        var session: UInt64
        var time: Timestamp
        var location: Point
        var mm: Point
        var count: Int
        var fingers: Int
    }

    /// The multi-tap recognizer.
    enum TapState: Sendable {
        /// No earlier tap to continue.
        case ready
        /// A tap was published; the next one within the interval and distance continues its count.
        case tapped(LastTap)
        /// singleTapWaitsForDoubleTap: a first tap is held until `deadline`, when a second tap can no
        /// longer complete.
        case waiting(LastTap, deadline: Timestamp)

        enum Name: String, CaseIterable, Sendable { case ready, tapped, waiting }

        var name: Name {
            switch self {
            case .ready: return .ready
            case .tapped: return .tapped
            case .waiting: return .waiting
            }
        }
    }
}
