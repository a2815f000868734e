import Gestures
import MultitouchCore
import MultitouchTestKit

/// The test kit's seeded PRNG, by its short name for every file of these tests.
typealias SplitMix64 = MultitouchTestKit.SplitMix64

/// Scripted fingers for engine tests: positions in mm; the published space is `mm * publishedScale`
/// (so a test with a scale other than 1 proves thresholds are measured in mm).
struct FrameBuilder {
    struct Finger {
        var id: UInt64
        var mm: Point
        var previous: Point
        var phase: TouchPhase
    }

    var time: Int64 = 1_000_000
    var publishedScale: Double
    var fingers: [Finger] = []
    var nextID: UInt64 = 1
    /// When set, the frame's fingerCount (BTN_TOOL_*TAP); otherwise the active touch count.
    var fingerCountOverride: Int?

    init(publishedScale: Double = 1) { self.publishedScale = publishedScale }

    @discardableResult
    mutating func down(_ x: Double, _ y: Double) -> UInt64 {
        let id = nextID
        nextID += 1
        fingers.append(Finger(id: id, mm: Point(x: x, y: y), previous: Point(x: x, y: y), phase: .began))
        return id
    }

    mutating func move(_ id: UInt64, to x: Double, _ y: Double) {
        guard let i = fingers.firstIndex(where: { $0.id == id }) else { return }
        fingers[i].mm = Point(x: x, y: y)
        if fingers[i].phase != .began { fingers[i].phase = .moved }
    }

    mutating func moveBy(_ id: UInt64, _ dx: Double, _ dy: Double) {
        guard let i = fingers.firstIndex(where: { $0.id == id }) else { return }
        move(id, to: fingers[i].mm.x + dx, fingers[i].mm.y + dy)
    }

    func position(_ id: UInt64) -> Point { fingers.first(where: { $0.id == id })?.mm ?? .zero }

    mutating func up(_ id: UInt64) {
        guard let i = fingers.firstIndex(where: { $0.id == id }) else { return }
        fingers[i].phase = .ended
    }

    mutating func cancel(_ id: UInt64) {
        guard let i = fingers.firstIndex(where: { $0.id == id }) else { return }
        fingers[i].phase = .cancelled
    }

    func published(_ mm: Point) -> Point { mm * publishedScale }

    /// Advances time by `milliseconds` and returns the frame; ended fingers leave afterwards, the rest
    /// become stationary.
    mutating func frame(after milliseconds: Double = 10) -> TouchFrame {
        time += Int64((milliseconds * 1000).rounded())
        let stamp = Timestamp(microseconds: time)
        var touches: [Touch] = []
        var active = 0
        for f in fingers {
            if !f.phase.isTerminal { active += 1 }
            touches.append(
                Touch(
                    id: f.id, slot: Int(f.id % 16), trackingID: Int32(f.id), phase: f.phase,
                    location: published(f.mm), previousLocation: published(f.phase == .began ? f.mm : f.previous),
                    millimeters: f.mm, normalized: Point(x: f.mm.x / 100, y: f.mm.y / 100), timestamp: stamp,
                    type: .direct))
        }
        let frame = TouchFrame(
            time: stamp, touches: touches, fingerCount: fingerCountOverride ?? active)
        fingers.removeAll(where: { $0.phase.isTerminal })
        for i in fingers.indices {
            fingers[i].phase = .stationary
            fingers[i].previous = fingers[i].mm
        }
        return frame
    }

    var now: Timestamp { Timestamp(microseconds: time) }
}

/// An engine plus the invariant checker, fed the way the daemon's loop does: timers first, then the frame.
struct Harness {
    var engine: GestureEngine
    var checker = GestureInvariantChecker()
    var events: [GestureEvent] = []

    /// - Parameter isSemiMT: the engine serves a semi-mt touchpad (its class, given once), else a
    ///   touchscreen.
    init(_ configuration: GestureConfiguration = .default, isSemiMT: Bool = false) {
        let surface = isSemiMT ? GestureSurface(kind: .semiMTTouchpad) : .touchscreen
        engine = GestureEngine(configuration: configuration, surface: surface)
        checker = GestureInvariantChecker(surface: surface, configuration: configuration)
    }

    /// Feeds one frame; returns everything it caused (timers due before it included).
    @discardableResult
    mutating func feed(_ frame: TouchFrame) -> [GestureEvent] {
        var produced: [GestureEvent] = []
        if let deadline = engine.nextDeadline, deadline < frame.time {
            let fired = engine.advance(to: Timestamp(microseconds: frame.time.microseconds - 1))
            checker.check(timerEvents: fired)
            produced += fired
        }
        let out = engine.process(frame)
        checker.check(frame: frame, events: out)
        produced += out
        events += produced
        return produced
    }

    @discardableResult
    mutating func advance(to time: Timestamp) -> [GestureEvent] {
        let fired = engine.advance(to: time)
        checker.check(timerEvents: fired)
        events += fired
        return fired
    }

    mutating func setTransform(_ t: AffineTransform) {
        engine.setTransform(t)
        checker.transformWasSet(t)
    }

    var updates: [GestureUpdate] { events.updates }
}

extension [GestureEvent] {
    var updates: [GestureUpdate] { compactMap { if case .update(let u) = $0 { return u } else { return nil } } }
    var phases: [String] { updates.map { "\($0.mode.rawValue).\($0.phase.rawValue)" } }
    var taps: [(count: Int, fingers: Int, time: Timestamp)] {
        compactMap { if case .tap(_, let t, _, let c, let f) = $0 { return (c, f, t) } else { return nil } }
    }
    var doubleTaps: Int { filter { if case .doubleTap = $0 { return true } else { return false } }.count }
    var longPresses: [LongPressPhase] {
        compactMap { if case .longPress(_, _, let p, _, _) = $0 { return p } else { return nil } }
    }
    var sessionEnds: [Bool] {
        compactMap { if case .sessionEnded(_, _, let c) = $0 { return c } else { return nil } }
    }
}

func close(_ a: Double, _ b: Double, _ tolerance: Double = 1e-9) -> Bool {
    abs(a - b) <= tolerance * max(1, abs(a), abs(b))
}

func close(_ a: Point, _ b: Point, _ tolerance: Double = 1e-9) -> Bool {
    close(a.x, b.x, tolerance) && close(a.y, b.y, tolerance)
}
