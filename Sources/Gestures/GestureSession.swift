import MultitouchCore

/// The session of one device, from the first finger down to the last finger up, and the facts about
/// it that the recognisers judge it by (a tap, a long press, whether later segments start live).
///
/// NIO style: one `Event` in through one exhaustive `handle`, no I/O, no clock. The engine reports
/// what happened; the session only records it. The facts stay readable after the session ended (a
/// timer or an animation that follows still names it) until the next session begins.
struct GestureSession: Sendable {
    /// What the recognisers read about a session.
    struct Facts: Sendable {
        var id: UInt64
        var start: Timestamp
        var maxFingers = 0
        /// Farthest any counting finger got from where it landed, mm.
        var maxTravel = 0.0
        /// A segment began (the slop was passed): no tap, no long press, later segments start live.
        var moved = false
        var cancelled = false
        /// A long press began (no tap then).
        var pressed = false
        /// BTN_LEFT was pressed (a clickpad click: no tap).
        var clicked = false
        var landingSum = Point.zero
        var landingSumMM = Point.zero
        var landings = 0
        /// Fingers after the previous frame.
        var lastFingers = 0
        /// Zoom and rotation engaged in an earlier segment: later segments need no threshold.
        var scaleEngaged = false
        var rotationEngaged = false
        /// The first landing continues a one-finger tap: a one-finger drag is a quick zoom about
        /// `quickZoomPivot`.
        var quickZoomPivot: Point?

        init(id: UInt64, start: Timestamp) {
            self.id = id
            self.start = start
        }

        var tapLocation: Point { landings > 0 ? landingSum / Double(landings) : .zero }
        var tapLocationMM: Point { landings > 0 ? landingSumMM / Double(landings) : .zero }
    }

    /// What the engine reports.
    enum Event: Sendable {
        /// The first finger is down at `time`; `quickZoomPivot` when it continues a one-finger tap.
        case began(time: Timestamp, quickZoomPivot: Point?)
        /// A frame of the session: `fingers` count, `joined` touches landed in it (their location sums),
        /// `travel` the farthest any finger is from its landing, `buttonPressed` BTN_LEFT is down.
        case frame(fingers: Int, joined: (location: Point, mm: Point, count: Int), travel: Double, buttonPressed: Bool)
        /// A segment began: the fingers passed the slop.
        case segmentBegan
        /// A segment measured zoom or rotation past its threshold.
        case engaged(scale: Bool, rotation: Bool)
        /// A segment of other than one finger began: a later one-finger drag is no quick zoom.
        case quickZoomDeclined
        /// The long press began.
        case pressed
        /// A touch was cancelled.
        case cancelled
        /// The frame is done with `fingers` down (the count the next frame compares against).
        case counted(fingers: Int)
        /// The last finger lifted.
        case ended
    }

    /// From the first finger down to the last finger up.
    private(set) var isActive = false
    /// The running session's facts, or the last one's until the next begins.
    private(set) var facts = Facts(id: 0, start: Timestamp(microseconds: 0))
    private var counter: UInt64 = 0

    var id: UInt64 { facts.id }

    mutating func handle(_ event: Event) {
        switch event {
        case .began(let time, let pivot):
            counter &+= 1
            isActive = true
            facts = Facts(id: counter, start: time)
            facts.quickZoomPivot = pivot
        case .frame(let fingers, let joined, let travel, let buttonPressed):
            facts.landingSum = facts.landingSum + joined.location
            facts.landingSumMM = facts.landingSumMM + joined.mm
            facts.landings += joined.count
            facts.maxFingers = max(facts.maxFingers, fingers, joined.count)
            facts.maxTravel = max(facts.maxTravel, travel)
            if buttonPressed { facts.clicked = true }
        case .segmentBegan:
            facts.moved = true
        case .engaged(let scale, let rotation):
            if scale { facts.scaleEngaged = true }
            if rotation { facts.rotationEngaged = true }
        case .quickZoomDeclined:
            facts.quickZoomPivot = nil
        case .pressed:
            facts.pressed = true
        case .cancelled:
            facts.cancelled = true
        case .counted(let fingers):
            facts.lastFingers = fingers
        case .ended:
            isActive = false
        }
    }
}
