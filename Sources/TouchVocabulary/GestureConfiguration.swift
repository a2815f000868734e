/// Gesture thresholds and options, in mm, ms, degrees and percent, measured in the isotropic
/// millimetre space whatever the published space is.
///
/// Every field is listed once, in `GestureConfiguration.fields`: its TOML key, its range, its unit and
/// one line of meaning. Sanitising (`problems`, `sanitized`), the `[gestures]` TOML section (module
/// Configuration) and the tests that keep config/multitouchd.toml, docs/CONFIGURATION.md and
/// docs/GESTURES.md in step all read that table. Where each default comes from: docs/GESTURES.md.
public struct GestureConfiguration: Hashable, Sendable {
    /// Any segment (one finger or several) begins once the fingers' centroid moved this far from where
    /// the finger set last changed, re-based at the crossing. Between Android's TOUCH_SLOP (8 dp =
    /// 1.3 mm) and Hammer.js Pan `threshold` (10 CSS px = 2.6 mm).
    public var panSlopMillimeters: Double = 2.0
    /// Two or more fingers may rotate the content.
    public var rotation: Bool = true
    /// Rotation engages once the fingers of a segment turned this far, then catches up with them.
    /// Mapbox GL JS' touch handler used 10 degrees, mapbox-gestures-android 15.3; we take 12.
    public var rotationThresholdDegrees: Double = 12
    /// Zoom engages once the fingers' spread changed by this percentage, then catches up. Mapbox GL
    /// JS' touch handler used 15 %; 10 % keeps two-finger scrolls (4-8 % spread drift) from zooming.
    public var scaleThresholdPercent: Double = 10
    /// After a finger-count decrease the segment boundary waits this long, while the content keeps
    /// following the fingers that stay, so fingers lifting a few ms apart make no segment of their own.
    public var fingerChurnDebounceMilliseconds: Double = 50
    /// Cumulative scale limits, applied to the incoming segment at its boundary.
    public var minimumScale: Double = 0.05
    public var maximumScale: Double = 50.0
    /// Past a scale limit the content stretches a little (rubber band) and springs back on release,
    /// instead of stopping at the limit.
    public var rubberBand: Bool = false
    /// Velocities are least-squares slopes over this much of each finger's most recent motion:
    /// Android VelocityTracker's 100 ms horizon.
    public var velocityWindowMilliseconds: Double = 100
    /// A finger that has not moved for this long before an update or its lift has velocity 0: Android
    /// VelocityTracker's ASSUME_POINTER_STOPPED_TIME (40 ms).
    public var velocityStopMilliseconds: Double = 40
    /// After the last finger lifts, the content keeps moving and decelerates (published as
    /// `momentum` gesture updates).
    public var momentum: Bool = false
    /// Momentum keeps this fraction of its speed per millisecond: UIScrollView.DecelerationRate.normal
    /// (0.998; .fast is 0.99).
    public var momentumDecelerationRate: Double = 0.998
    /// Momentum starts above, and stops below, this speed: Android's MINIMUM_FLING_VELOCITY (50 dp/s).
    public var momentumMinimumSpeedMillimetersPerSecond: Double = 8
    /// Longest session that still counts as a tap: Hammer.js Tap `time` (250 ms).
    public var tapMaximumDurationMilliseconds: Double = 250
    /// Farthest a tapping finger may move: Hammer.js Tap `threshold` (9 px = 2.4 mm), rounded up for
    /// multi-finger taps whose fingers roll while landing.
    public var tapMaximumMovementMillimeters: Double = 3.0
    /// Longest gap between taps of a multi-tap (from a lift to the next landing): Android
    /// DOUBLE_TAP_TIMEOUT and Hammer.js Tap `interval` (300 ms).
    public var doubleTapIntervalMilliseconds: Double = 300
    /// Farthest the second tap may land from the first: between Hammer.js `posThreshold` (10 px, 2.6
    /// mm) and Android DOUBLE_TAP_SLOP (100 dp, 16 mm).
    public var doubleTapDistanceMillimeters: Double = 10.0
    /// A one-finger double tap zooms the cumulative transform by this factor about the tap point (a
    /// two-finger double tap never does); 1 disables.
    public var doubleTapZoomFactor: Double = 1.0
    /// A two-finger tap zooms by this factor about the fingers' centroid (0.5: out one step, as map
    /// apps do), once for a two-finger double tap; 1 disables.
    public var twoFingerTapZoomFactor: Double = 1.0
    /// Tap zooms and the rubber band's spring-back animate over this long; 0 applies them at once.
    public var zoomAnimationMilliseconds: Double = 250
    /// Animation frames (zooms, momentum) are published at this rate, on virtual-time timers.
    public var animationFrameRateHz: Double = 60
    /// A single tap is published only once a double tap can no longer follow (UIKit
    /// `require(toFail:)` between a single- and a double-tap recognizer).
    public var singleTapWaitsForDoubleTap: Bool = false
    /// One finger that taps and then lands again and drags zooms (drag down zooms in) about where it
    /// landed, as Google Maps and Apple Maps do.
    public var quickZoom: Bool = true
    /// Quick zoom doubles the scale per this much downward drag.
    public var quickZoomMillimetersPerDoubling: Double = 25
    /// A finger held this long without moving beyond `longPressMovementMillimeters` is a long press:
    /// UIKit UILongPressGestureRecognizer.minimumPressDuration (0.5 s); Android uses 400-500 ms.
    public var longPressDurationMilliseconds: Double = 500
    /// UIKit allowableMovement is 10 pt (1.6 mm on a 163 ppi phone); touchscreens on kiosks are coarser.
    public var longPressMovementMillimeters: Double = 3.0
    /// On clickpads, touches resting in the button area and thumbs (libinput's rules) are left out
    /// of gestures.
    public var thumbDetection: Bool = true
    /// A clickpad touch in the lowest 8 % pressing harder than this (force 0...1) is a thumb; 0 turns
    /// the pressure rule off (libinput takes the threshold from a per-device quirk).
    public var thumbPressure: Double = 0
    /// A clickpad touch whose major axis is longer than this while its minor axis is shorter than
    /// 0.6 times it is a thumb; 0 turns the size rule off (libinput: a per-device quirk).
    public var thumbSizeMillimeters: Double = 0

    public init() {}
    public static let `default` = GestureConfiguration()

    /// Longest duration any millisecond field may hold (one day): deadlines are microsecond integers.
    public static let maximumDurationMilliseconds = 86_400_000.0

    /// What is wrong with these values, one line per field (empty when they are usable). The
    /// configuration loader reports these as errors; the engine replaces each bad value with its
    /// default (`sanitized`), so bad input never traps.
    public var problems: [String] {
        var found: [String] = []
        for field in Self.fields {
            guard case .number(let keyPath, let range) = field.value else { continue }
            let value = self[keyPath: keyPath]
            if !range.accepts(value) { found.append("\(field.property) must be \(range.expectation), got \(value)") }
        }
        return found
    }

    /// These values with every invalid one (see `problems`) replaced by its default.
    public var sanitized: GestureConfiguration {
        var c = self
        for field in Self.fields {
            guard case .number(let keyPath, let range) = field.value else { continue }
            if !range.accepts(c[keyPath: keyPath]) { c[keyPath: keyPath] = Self.default[keyPath: keyPath] }
        }
        return c
    }
}

extension GestureConfiguration {
    /// The accepted values of a numeric field.
    public enum Range: Hashable, Sendable {
        /// >= 0 (distances; 0 turns a rule off where the field says so).
        case nonNegative
        /// > 0 (factors, sizes, speeds).
        case positive
        /// 0 ms ... one day.
        case duration
        /// > 0 ms ... one day.
        case positiveDuration
        /// 0 ... 1 (a normalized force).
        case fraction
        /// Strictly between 0 and 1 (a deceleration rate).
        case openFraction
        /// 0 ... 180 degrees.
        case angle
        /// 0 ... 100 percent.
        case percent
        /// A lower scale limit: > 0 and at most 1, so the identity transform is in range.
        case scaleMinimum
        /// An upper scale limit: finite and at least 1.
        case scaleMaximum
        /// 1 ... 1000 Hz.
        case rate

        public func accepts(_ value: Double) -> Bool {
            guard value.isFinite else { return false }
            switch self {
            case .nonNegative: return value >= 0
            case .positive: return value > 0
            case .duration: return value >= 0 && value <= GestureConfiguration.maximumDurationMilliseconds
            case .positiveDuration: return value > 0 && value <= GestureConfiguration.maximumDurationMilliseconds
            case .fraction: return value >= 0 && value <= 1
            case .openFraction: return value > 0 && value < 1
            case .angle: return value >= 0 && value <= 180
            case .percent: return value >= 0 && value <= 100
            case .scaleMinimum: return value > 0 && value <= 1
            case .scaleMaximum: return value >= 1
            case .rate: return value >= 1 && value <= 1000
            }
        }

        /// The range in words, for error messages ("must be ...", "expected ...").
        public var expectation: String {
            switch self {
            case .nonNegative: return "a non-negative number"
            case .positive: return "a positive number"
            case .duration: return "a duration from 0 to 86400000 ms (one day)"
            case .positiveDuration: return "a positive duration of at most 86400000 ms (one day)"
            case .fraction: return "a number from 0 to 1"
            case .openFraction: return "a number between 0 and 1 (exclusive)"
            case .angle: return "an angle from 0 to 180 degrees"
            case .percent: return "a percentage from 0 to 100"
            case .scaleMinimum: return "a number > 0 and at most 1 (the identity transform must be in range)"
            case .scaleMaximum: return "a number >= 1 (the identity transform must be in range)"
            case .rate: return "a rate from 1 to 1000 Hz"
            }
        }
    }

    /// What a field holds and where.
    public enum Value {
        case number(WritableKeyPath<GestureConfiguration, Double>, Range)
        case flag(WritableKeyPath<GestureConfiguration, Bool>)
    }

    /// One option: the Swift property, the TOML key (the property in snake_case with its unit as the
    /// suffix), its value and range, its unit for the docs, and one line of meaning (the shipped
    /// configuration file's comment and the docs table say the same).
    public struct Field {
        public let property: String
        public let key: String
        public let value: Value
        /// "mm", "ms", "deg", "%", "Hz", "mm/s", or "" for factors and flags.
        public let unit: String
        public let meaning: String

        /// The default as it is written in TOML (`2.0`, `true`).
        public var defaultLiteral: String {
            switch value {
            case .number(let keyPath, _):
                let v = GestureConfiguration.default[keyPath: keyPath]
                return v == v.rounded() && abs(v) < 1e15 ? String(format1: v) : String(v)
            case .flag(let keyPath):
                return String(GestureConfiguration.default[keyPath: keyPath])
            }
        }
    }

    /// Every option, in the order config/multitouchd.toml and docs/CONFIGURATION.md list them. A test
    /// fails when a stored property of `GestureConfiguration` is missing here.
    public static var fields: [Field] {
        func number(
            _ property: String, _ key: String, _ keyPath: WritableKeyPath<GestureConfiguration, Double>, _ range: Range,
            _ unit: String, _ meaning: String
        ) -> Field {
            Field(property: property, key: key, value: .number(keyPath, range), unit: unit, meaning: meaning)
        }
        func flag(
            _ property: String, _ key: String, _ keyPath: WritableKeyPath<GestureConfiguration, Bool>, _ meaning: String
        ) -> Field {
            Field(property: property, key: key, value: .flag(keyPath), unit: "", meaning: meaning)
        }
        return [
            number(
                "panSlopMillimeters", "pan_slop_mm", \.panSlopMillimeters, .nonNegative, "mm",
                "A pan, pinch or rotation begins once the fingers' centroid moved this far (or the spread or angle passed its threshold); the content then moves the travel minus this slop."
            ),
            flag("rotation", "rotation", \.rotation, "Two or more fingers may rotate the content."),
            number(
                "rotationThresholdDegrees", "rotation_threshold_deg", \.rotationThresholdDegrees, .angle, "deg",
                "Rotation engages once the fingers turned this far, then catches up with them within as much again."),
            number(
                "scaleThresholdPercent", "scale_threshold_percent", \.scaleThresholdPercent, .percent, "%",
                "Zoom engages once the fingers' spread changed by this percentage, then catches up the same way."),
            number(
                "fingerChurnDebounceMilliseconds", "finger_churn_debounce_ms", \.fingerChurnDebounceMilliseconds,
                .duration, "ms",
                "After a finger lifts, the segment boundary waits this long (the content keeps following the fingers that stay), so fingers lifting a few ms apart make no segment of their own."
            ),
            number(
                "minimumScale", "min_scale", \.minimumScale, .scaleMinimum, "",
                "Lower limit of the cumulative scale."),
            number(
                "maximumScale", "max_scale", \.maximumScale, .scaleMaximum, "",
                "Upper limit of the cumulative scale; must be greater than min_scale."),
            flag(
                "rubberBand", "rubber_band", \.rubberBand,
                "Past a scale limit the content stretches a little and springs back on release, instead of stopping at the limit."
            ),
            number(
                "velocityWindowMilliseconds", "velocity_window_ms", \.velocityWindowMilliseconds, .positiveDuration,
                "ms",
                "Velocities are fitted over this much of each finger's most recent motion."),
            number(
                "velocityStopMilliseconds", "velocity_stop_ms", \.velocityStopMilliseconds, .positiveDuration, "ms",
                "A finger that has not moved for this long has velocity 0."),
            flag(
                "momentum", "momentum", \.momentum,
                "After the last finger lifts, the content keeps moving and decelerates (momentum gesture updates)."),
            number(
                "momentumDecelerationRate", "momentum_deceleration_rate", \.momentumDecelerationRate, .openFraction, "",
                "Fraction of its speed momentum keeps per millisecond (0.998 is UIScrollView's normal rate, 0.99 its fast one)."
            ),
            number(
                "momentumMinimumSpeedMillimetersPerSecond", "momentum_min_speed_mm_per_s",
                \.momentumMinimumSpeedMillimetersPerSecond, .positive, "mm/s",
                "Momentum starts above and stops below this speed."),
            number(
                "tapMaximumDurationMilliseconds", "tap_max_duration_ms", \.tapMaximumDurationMilliseconds,
                .positiveDuration, "ms", "Longest touch that is still a tap."),
            number(
                "tapMaximumMovementMillimeters", "tap_max_movement_mm", \.tapMaximumMovementMillimeters, .nonNegative,
                "mm", "Farthest a tapping finger may move."),
            number(
                "doubleTapIntervalMilliseconds", "double_tap_interval_ms", \.doubleTapIntervalMilliseconds, .duration,
                "ms", "Longest gap from the first lift to the second landing of a double tap."),
            number(
                "doubleTapDistanceMillimeters", "double_tap_distance_mm", \.doubleTapDistanceMillimeters, .nonNegative,
                "mm", "Farthest the second tap may land from the first."),
            number(
                "doubleTapZoomFactor", "double_tap_zoom_factor", \.doubleTapZoomFactor, .positive, "",
                "A one-finger double tap zooms the cumulative transform by this factor about the tap point (a two-finger double tap never does); 1 disables it."
            ),
            number(
                "twoFingerTapZoomFactor", "two_finger_tap_zoom_factor", \.twoFingerTapZoomFactor, .positive, "",
                "A two-finger tap zooms by this factor about the fingers' centroid (0.5 zooms out one step), once for a two-finger double tap; 1 disables it."
            ),
            number(
                "zoomAnimationMilliseconds", "zoom_animation_ms", \.zoomAnimationMilliseconds, .duration, "ms",
                "Tap zooms and the rubber band's spring-back animate over this long; 0 applies them at once."),
            number(
                "animationFrameRateHz", "animation_frame_rate_hz", \.animationFrameRateHz, .rate, "Hz",
                "Animation frames (zooms, momentum) are published at this rate."),
            flag(
                "singleTapWaitsForDoubleTap", "single_tap_waits_for_double_tap", \.singleTapWaitsForDoubleTap,
                "Publish a single tap only once no double tap can follow (delays taps by double_tap_interval_ms)."),
            flag(
                "quickZoom", "quick_zoom", \.quickZoom,
                "Tap, then land again and drag: the drag zooms (down zooms in) about where the finger landed."),
            number(
                "quickZoomMillimetersPerDoubling", "quick_zoom_mm_per_doubling", \.quickZoomMillimetersPerDoubling,
                .positive, "mm", "Quick zoom doubles the scale per this much downward drag."),
            number(
                "longPressDurationMilliseconds", "long_press_duration_ms", \.longPressDurationMilliseconds,
                .positiveDuration, "ms", "A finger held this long is a long press,"),
            number(
                "longPressMovementMillimeters", "long_press_movement_mm", \.longPressMovementMillimeters, .nonNegative,
                "mm", "if it moved no farther than this."),
            flag(
                "thumbDetection", "thumb_detection", \.thumbDetection,
                "On clickpads, leave touches resting in the button area and thumbs out of gestures (libinput's rules)."),
            number(
                "thumbPressure", "thumb_pressure", \.thumbPressure, .fraction, "",
                "A clickpad touch in the lowest 8 % pressing harder than this (0...1) is a thumb; 0 turns the rule off."
            ),
            number(
                "thumbSizeMillimeters", "thumb_size_mm", \.thumbSizeMillimeters, .nonNegative, "mm",
                "A clickpad touch longer than this and narrower than 0.6 times it is a thumb; 0 turns the rule off."),
        ]
    }
}

extension String {
    /// `2.0` for 2, as TOML and the docs write whole floating-point defaults.
    init(format1 value: Double) {
        self = String(Int64(value)) + ".0"
    }
}
