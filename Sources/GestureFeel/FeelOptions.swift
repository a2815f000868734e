import Gestures
import MultitouchCore

/// Rows of the feel report that need an option the engine may not have (rotation off, rubber band,
/// momentum, two-finger-tap zoom): "n/a" until it has them.
enum FeelOptions {
    static func unavailable(_ target: String, _ measure: String, _ goal: String) -> FeelRow {
        FeelRow(target: target, measure: measure, value: "n/a (no such option)", goal: goal, met: false)
    }

    static func rotationOffRows(_ c: GestureConfiguration) -> [FeelRow] {
        [unavailable("4 intent thresholds", "45 deg twist with rotation = false: map rotation (deg)", "0")]
    }

    static func rubberBandRows(_ c: GestureConfiguration) -> [FeelRow] {
        [unavailable("6 limits", "rubber band past max_scale, then release: final scale / limit", "1 (springs back)")]
    }

    static func momentumRows(_ c: GestureConfiguration) -> [FeelRow] {
        [unavailable("7 velocities", "momentum after a 300 mm/s fling: updates, extra travel (mm)", "> 0, decelerating")]
    }

    static func twoFingerTapZoomRows(_ c: GestureConfiguration) -> [FeelRow] {
        [unavailable("8 discrete", "two-finger tap with zoom out on: final scale", "0.5")]
    }
}
