import MultitouchCore
import Testing

@testable import Gestures

/// Generated input: random finger paths, 1 to 10 fingers, random landings, lifts and churn (fingers
/// lifting 0-20 ms apart), coincident fingers, cancelled touches, more fingers than touches, repeated
/// timestamps, random published scales, random configurations and client `setTransform` calls.
struct GeneratedRun {
    var frames = 0
    var events: [GestureEvent] = []
    var perFrame: [[GestureEvent]] = []
    var touchFrames: [TouchFrame] = []
    var checker: GestureInvariantChecker
    var cancels = 0
    var cancelledSessionEnds = 0

    init(seed: UInt64, sessions: Int = 30) {
        var rng = SplitMix64(seed: seed)
        var config = GestureConfiguration()
        config.singleTapWaitsForDoubleTap = Bool.random(using: &rng)
        config.doubleTapZoomFactor = Bool.random(using: &rng) ? 1 : 2
        config.maximumScale = Bool.random(using: &rng) ? 50 : 3
        var h = Harness(config)
        var f = FrameBuilder(publishedScale: [0.5, 1, 3.7].randomElement(using: &rng) ?? 1)
        for _ in 0..<sessions {
            let maxFingers = Int.random(in: 1...10, using: &rng)
            let length = Int.random(in: 5...80, using: &rng)
            var cancelledThisSession = false
            for step in 0..<length {
                var dt = Double(Int.random(in: 1...30, using: &rng))
                if Int.random(in: 0..<20, using: &rng) == 0 { dt = 0 }
                let active = f.fingers.count
                if active < maxFingers && (active == 0 || Int.random(in: 0..<7, using: &rng) == 0) {
                    f.down(Double.random(in: 0...100, using: &rng), Double.random(in: 0...100, using: &rng))
                }
                if active > 0 && step > 2 && Int.random(in: 0..<10, using: &rng) == 0,
                    let victim = f.fingers.randomElement(using: &rng)
                {
                    if Int.random(in: 0..<60, using: &rng) == 0 {
                        f.cancel(victim.id)
                        cancelledThisSession = true
                        cancels += 1
                    } else {
                        f.up(victim.id)
                    }
                }
                if active >= 2 && Int.random(in: 0..<40, using: &rng) == 0 {
                    // Two fingers on one spot.
                    let p = f.fingers[0].mm
                    f.move(f.fingers[1].id, to: p.x, p.y)
                }
                for finger in f.fingers where finger.phase != .ended && finger.phase != .cancelled {
                    if Int.random(in: 0..<3, using: &rng) > 0 {
                        f.moveBy(
                            finger.id, Double.random(in: -2...2, using: &rng), Double.random(in: -2...2, using: &rng))
                    }
                }
                let live = f.fingers.filter { !$0.phase.isTerminal }.count
                f.fingerCountOverride = live > 0 && Int.random(in: 0..<15, using: &rng) == 0 ? live + 1 : nil
                let frame = f.frame(after: dt)
                touchFrames.append(frame)
                frames += 1
                perFrame.append(h.feed(frame))
                if Int.random(in: 0..<200, using: &rng) == 0 {
                    let s = Double.random(in: 0.5...2, using: &rng)
                    h.setTransform(AffineTransform(a: s, b: 0, c: 0, d: s, tx: 3, ty: -2))
                }
            }
            // Lift what is left, fingers a few ms apart (churn), then pause.
            f.fingerCountOverride = nil
            while let finger = f.fingers.first {
                f.up(finger.id)
                perFrame.append(h.feed(f.frame(after: Double(Int.random(in: 0...20, using: &rng)))))
                frames += 1
            }
            if cancelledThisSession { cancelledSessionEnds += 1 }
            let pause = f.now.adding(milliseconds: Double(Int.random(in: 0...600, using: &rng)))
            h.advance(to: pause)
            f.time = pause.microseconds + 1000
        }
        h.advance(to: f.now.adding(milliseconds: 5000))
        h.checker.finish()
        events = h.events
        checker = h.checker
    }
}

@Suite("Invariants over generated input")
struct PropertyTests {
    static let seeds: [UInt64] = Array(1...16)

    /// DESIGN.md invariants 1-5 and 8 through the checker: balance, continuity, pivot, pan
    /// displacement, finiteness; cancelled touches end cancelled.
    @Test(arguments: seeds) func invariantsHold(seed: UInt64) {
        let run = GeneratedRun(seed: seed)
        #expect(run.checker.isClean, "seed \(seed): \(run.checker.violations.prefix(5))")
        let stats = run.checker.statistics
        #expect(stats.sessions >= 30)  // fingers all lifting mid-script start more
        #expect(stats.largestContinuityError <= 1e-9)
        #expect(stats.largestPivotError <= 1e-6)
        #expect(stats.panSegments + stats.pinchRotateSegments > 0)
        #expect(stats.cancelledSessions == run.cancelledSessionEnds)
    }

    /// Invariant 6: the same input gives the same output.
    @Test(arguments: [UInt64(3), 11]) func deterministic(seed: UInt64) {
        let a = GeneratedRun(seed: seed)
        let b = GeneratedRun(seed: seed)
        #expect(a.events == b.events)
        #expect(a.events.count > 100)
    }

    /// Within one frame: session began before any segment or discrete output, session ended last.
    @Test(arguments: [UInt64(5), 6, 7]) func orderWithinFrames(seed: UInt64) {
        let run = GeneratedRun(seed: seed)
        for out in run.perFrame {
            if let end = out.firstIndex(where: { if case .sessionEnded = $0 { return true } else { return false } }) {
                // Anything after a session end belongs to a later session (never happens within a frame).
                #expect(end == out.count - 1, "\(out)")
            }
            if let begin = out.firstIndex(where: { if case .sessionBegan = $0 { return true } else { return false } }) {
                for e in out[..<begin] {
                    // Only a previous session's held single tap or timers may come before it.
                    switch e {
                    case .update(let u): #expect(u.time < out[begin].time || u.session != run.sessionID(of: out[begin]))
                    case .sessionBegan, .sessionEnded, .tap, .doubleTap, .longPress: break
                    }
                }
            }
        }
    }

    /// Generated pan-only sessions: the cumulative translation equals the finger's travel after the slop.
    @Test(arguments: [UInt64(21), 22, 23]) func panFollowsTheFinger(seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        var h = Harness()
        var f = FrameBuilder(publishedScale: 2)
        let a = f.down(50, 50)
        h.feed(f.frame())
        var beganAt: Point?
        for _ in 0..<500 {
            f.moveBy(a, Double.random(in: -1...1, using: &rng), Double.random(in: -1...1, using: &rng))
            let out = h.feed(f.frame(after: Double(Int.random(in: 0...16, using: &rng))))
            if let b = out.updates.first(where: { $0.phase == .began }) { beganAt = b.centroid }
        }
        let start = try #require(beganAt)
        let finger = f.published(f.position(a))
        #expect(close(h.engine.transform.apply(start), finger, 1e-9))
        #expect(h.checker.isClean, "\(h.checker.violations.prefix(3))")
    }
}

extension GeneratedRun {
    func sessionID(of event: GestureEvent) -> UInt64? {
        if case .sessionBegan(let id, _) = event { return id }
        return nil
    }
}

@Suite("The checker itself")
struct CheckerTests {
    private func update(
        _ phase: GesturePhase, seq: UInt64, matrix: AffineTransform, centroid: Point = .zero,
        translation: Point = .zero, mode: GestureMode = .pan
    ) -> GestureEvent {
        .update(
            GestureUpdate(
                session: 1, seq: seq, time: Timestamp(microseconds: Int64(seq)), phase: phase, mode: mode,
                fingers: mode == .pan ? 1 : 2, centroid: centroid, translation: translation, scale: 1, rotation: 0,
                velocity: .zero, matrix: matrix))
    }

    @Test func reportsAJumpAndAnUnbalancedSession() {
        var checker = GestureInvariantChecker()
        let t0 = Timestamp(microseconds: 0)
        checker.check(timerEvents: [
            .sessionBegan(session: 1, time: t0),
            update(.began, seq: 1, matrix: .identity),
            update(
                .changed, seq: 2, matrix: .translation(Point(x: 5, y: 0)), centroid: Point(x: 5, y: 0),
                translation: Point(x: 5, y: 0)),
            update(
                .ended, seq: 3, matrix: .translation(Point(x: 5, y: 0)), centroid: Point(x: 5, y: 0),
                translation: Point(x: 5, y: 0)),
            // The next segment begins somewhere else: a jump.
            update(.began, seq: 4, matrix: .identity),
        ])
        checker.finish()
        #expect(!checker.isClean)
        #expect(checker.violations.contains { $0.message.hasPrefix("continuity") })
        #expect(checker.violations.contains { $0.message.contains("open session") })
        #expect(checker.statistics.largestContinuityError == 5 / 5)
    }

    @Test func reportsAPivotThatDrifts() {
        var checker = GestureInvariantChecker()
        let bad = AffineTransform.pivot(from: Point(x: 10, y: 10), to: Point(x: 12, y: 10), scale: 2, rotation: 0)
        checker.check(timerEvents: [
            .sessionBegan(session: 1, time: Timestamp(microseconds: 0)),
            update(.began, seq: 1, matrix: .identity, centroid: Point(x: 10, y: 10), mode: .pinchRotate),
            update(.changed, seq: 2, matrix: bad, centroid: Point(x: 20, y: 10), mode: .pinchRotate),
        ])
        #expect(checker.violations.contains { $0.message.hasPrefix("pivot") })
    }
}

@Suite("Garbage input")
struct GarbageInputTests {
    /// Frames no tracker would produce: random ids and phases, duplicates, NaN and infinite positions,
    /// negative finger counts, time running backwards. The engine must not trap and must publish only
    /// finite numbers.
    @Test(arguments: [UInt64(31), 32, 33, 34]) func garbageNeverTrapsOrPublishesNaN(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        // Every other seed serves a semi-mt touchpad: its bounding-box measurement gets the garbage too.
        var engine = GestureEngine(surface: seed % 2 == 0 ? GestureSurface(kind: .semiMTTouchpad) : .touchscreen)
        var time: Int64 = 1_000_000
        let phases: [TouchPhase] = [.began, .moved, .stationary, .ended, .cancelled]
        let odd: [Double] = [.nan, .infinity, -.infinity, 1e308, -1e308, 0]
        var published = 0
        for _ in 0..<20_000 {
            time += Int64.random(in: -20_000...40_000, using: &rng)
            var touches: [Touch] = []
            for _ in 0..<Int.random(in: 0...6, using: &rng) {
                func coordinate() -> Double {
                    Int.random(in: 0..<30, using: &rng) == 0
                        ? (odd.randomElement(using: &rng) ?? 0) : Double.random(in: -50...150, using: &rng)
                }
                let p = Point(x: coordinate(), y: coordinate())
                let stamp = Timestamp(microseconds: time)
                touches.append(
                    Touch(
                        id: UInt64.random(in: 0...7, using: &rng), slot: 0, trackingID: 0,
                        phase: phases.randomElement(using: &rng) ?? .moved, location: p, previousLocation: p,
                        millimeters: p, normalized: p, timestamp: stamp, type: .direct))
            }
            let frame = TouchFrame(
                time: Timestamp(microseconds: time), touches: touches, fingerCount: Int.random(in: -2...8, using: &rng))
            var events = engine.advance(to: frame.time)
            events += engine.process(frame)
            for event in events {
                if case .update(let u) = event {
                    published += 1
                    let numbers =
                        [
                            u.centroid.x, u.centroid.y, u.translation.x, u.translation.y, u.scale, u.rotation,
                            u.velocity.translation.x, u.velocity.translation.y, u.velocity.scale, u.velocity.rotation,
                        ] + u.matrix.components
                    let finite = numbers.allSatisfy { $0.isFinite }
                    #expect(finite, "\(u)")
                }
            }
        }
        #expect(published > 0)
        #expect(engine.transform.isFinite)
    }
}
