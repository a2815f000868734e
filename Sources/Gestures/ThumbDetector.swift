import MultitouchCore

/// Which clickpad touches are left out of gestures: a finger resting in the button area, and thumbs.
/// The rules are libinput's, measured in mm on the surface (`GestureSurface`):
///
/// - Button area (evdev-mt-touchpad-buttons.c): a touch that lands in the bottom min(10 mm, 15 %) of a
///   clickpad is a button press, not a gesture finger, until it moves more than 5 mm from where it
///   landed or leaves the area upwards (then it counts for good).
/// - Thumbs (evdev-mt-touchpad-thumb.c, clickpads at least 50 mm tall):
///   - pressure: in the lowest 8 % (below the 92 % line) with force above `thumbPressure`;
///   - size: major axis above `thumbSizeMillimeters` while the minor axis is below 0.6 times it;
///   - position and speed ("jail"): a touch landing below the 85 % line, while no other touch is down,
///     stays out until it leaves that area or has moved faster than 20 mm/s in 10 frames more than it
///     moved slower (libinput's THUMB_IGNORE_SPEED_THRESHOLD and its exceeded count);
///   - context: when a touch lands while others are down, the two lowest are compared: closer than
///     35 mm across and 25 mm down, both count (two-finger scroll); all landed within 100 ms and the
///     lowest is above the 92 % line, all count; otherwise, more than 25 mm apart vertically, the
///     lowest is a thumb. A touch landing while another moves fast (exceeded count above 5) and not
///     within scroll distance of it is a thumb.
///
/// Pure: decides from positions, forces, sizes and frame times only.
struct ThumbDetector: Sendable {
    /// Why a touch is left out.
    enum Exclusion: String, Sendable {
        case buttonArea, thumb
    }

    /// libinput: THUMB_IGNORE_SPEED_THRESHOLD, mm/s.
    static let speedThreshold = 20.0
    /// libinput: a touch that moved more than this far in the button area is a finger (mm).
    static let buttonMovement = 5.0
    /// libinput SCROLL_MM_X / SCROLL_MM_Y: two touches this close are a two-finger scroll.
    static let scrollDistance = (x: 35.0, y: 25.0)
    /// libinput THUMB_TIMEOUT: touches landing this close together (ms) are a deliberate multi-finger
    /// touch.
    static let landingWindowMilliseconds = 100.0

    let surface: GestureSurface
    let pressure: Double
    let majorAxis: Double
    let enabled: Bool

    init(surface: GestureSurface, configuration: GestureConfiguration) {
        self.surface = surface
        enabled = configuration.thumbDetection && surface.isClickpad && surface.type == .indirect
        pressure = configuration.thumbPressure
        majorAxis = configuration.thumbSizeMillimeters
    }

    /// The per-touch facts the rules need.
    struct TouchFacts {
        var mm: Point
        var landingMM: Point
        var landingTime: Timestamp
        var force: Double?
        var majorRadius: Double?
        var minorRadius: Double?
        var speedExceeded: Int
        var began: Bool
        var exclusion: Exclusion?
        /// Released from the button area or a thumb jail: never excluded by the landing rules again.
        var released: Bool
    }

    /// Updates the exclusion of every touch of a frame. `touches` are the active ones.
    func classify(_ touches: inout [TouchFacts]) {
        guard enabled else { return }
        let buttonTop = surface.buttonAreaTop
        let lines = surface.thumbLines
        let othersDown = touches.count > 1
        for i in touches.indices {
            var t = touches[i]
            defer { touches[i] = t }
            if t.began {
                if let top = buttonTop, t.mm.y >= top {
                    t.exclusion = .buttonArea
                } else if let lines, !othersDown, t.mm.y >= lines.upper {
                    t.exclusion = .thumb
                }
            }
            if !t.released, t.exclusion == .buttonArea, let top = buttonTop {
                if t.mm.distance(to: t.landingMM) > Self.buttonMovement || t.mm.y < top {
                    t.exclusion = nil
                    t.released = true
                }
            }
            if !t.released, t.exclusion == .thumb, let lines, !isThumbByHardware(t) {
                if t.mm.y < lines.upper || t.speedExceeded >= 10 {
                    t.exclusion = nil
                    t.released = true
                }
            }
            if t.exclusion == nil, lines != nil, isThumbByHardware(t) { t.exclusion = .thumb }
        }
        guard lines != nil, touches.count >= 2, touches.contains(where: \.began) else { return }
        contextRules(&touches)
    }

    /// Pressure and size say thumb (libinput tp_thumb_detect_pressure_size).
    private func isThumbByHardware(_ t: TouchFacts) -> Bool {
        if pressure > 0, let lines = surface.thumbLines, let force = t.force, force > pressure, t.mm.y > lines.lower {
            return true
        }
        if majorAxis > 0, let major = t.majorRadius, let minor = t.minorRadius,
            major * 2 > majorAxis, minor * 2 < majorAxis * 0.6
        {
            return true
        }
        return false
    }

    /// libinput tp_thumb_update_multifinger, when a touch lands while others are down.
    private func contextRules(_ touches: inout [TouchFacts]) {
        guard let lines = surface.thumbLines else { return }
        // The two lowest touches (largest y).
        var first = -1
        var second = -1
        for i in touches.indices {
            if first < 0 || touches[i].mm.y > touches[first].mm.y {
                second = first
                first = i
            } else if second < 0 || touches[i].mm.y > touches[second].mm.y {
                second = i
            }
        }
        guard first >= 0, second >= 0 else { return }
        let dx = abs(touches[first].mm.x - touches[second].mm.x)
        let dy = abs(touches[first].mm.y - touches[second].mm.y)
        let close = dx < Self.scrollDistance.x && dy < Self.scrollDistance.y
        // Speed rule: a finger is moving fast and a new touch lands away from it.
        let moving = touches.contains { !$0.began && $0.speedExceeded > 5 }
        if moving && !close {
            for i in touches.indices where touches[i].began && touches[i].exclusion != .buttonArea {
                touches[i].exclusion = .thumb
            }
            return
        }
        if close {
            for i in [first, second] where touches[i].exclusion == .thumb {
                touches[i].exclusion = nil
                touches[i].released = true
            }
            return
        }
        // The landing times' span, read in place (a mapped array allocated on every such frame).
        var newest = touches[first].landingTime
        var oldest = newest
        for touch in touches {
            newest = max(newest, touch.landingTime)
            oldest = min(oldest, touch.landingTime)
        }
        if newest.milliseconds(since: oldest) < Self.landingWindowMilliseconds, touches[first].mm.y < lines.lower {
            return
        }
        if dy > Self.scrollDistance.y, touches[first].exclusion == nil, !touches[first].released {
            touches[first].exclusion = .thumb
        }
    }
}
