import Gestures
import MultitouchCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Whatever cumulative transform a client sets, every number the engine publishes stays finite: issue
/// 11 saw `setTransform [1,0,0,1,1.7e308,1.7e308]` turn 78 of 84 later gesture matrices into `null`.
@Suite struct ExtremeTransformTests {
    /// Finite, invertible bases at the edge of Double: each is accepted by `setTransform`.
    static let bases: [AffineTransform] = [
        AffineTransform(a: 1, b: 0, c: 0, d: 1, tx: 1.7e308, ty: 1.7e308),
        AffineTransform(a: 1, b: 0, c: 0, d: 1, tx: -1.7e308, ty: 1.7e308),
        AffineTransform(a: 1e154, b: 0, c: 0, d: 1e154, tx: 1e300, ty: -1e300),
        AffineTransform(a: 0, b: 1e150, c: -1e150, d: 0, tx: 1.7e308, ty: 0),
        AffineTransform(a: 1e-100, b: 0, c: 0, d: 1e-100, tx: 1e200, ty: -1e200),
    ]

    @Test(arguments: bases)
    func everyPublishedNumberStaysFinite(base: AffineTransform) {
        let events = Self.play(base: base)
        let updates = events.updates
        // Began and ended at least: with a base this large, small steps may not change M at all, and
        // the engine publishes `changed` only when M changes.
        #expect(updates.count >= 4)
        for u in updates {
            let finite =
                u.centroid.isFinite && u.translation.isFinite && u.scale.isFinite && u.rotation.isFinite
                && u.velocity.translation.isFinite && u.velocity.scale.isFinite && u.velocity.rotation.isFinite
                && u.matrix.isFinite
            #expect(finite, "\(u)")
        }
        for event in events {
            switch event {
            case .doubleTap(_, _, let location, let matrix): #expect(location.isFinite && matrix.isFinite, "\(event)")
            case .tap(_, _, let location, _, _), .longPress(_, _, _, let location, _): #expect(location.isFinite)
            case .update, .sessionBegan, .sessionEnded: break
            }
        }
    }

    /// The script really pinches, turns, pans and double-taps: with the identity base it publishes
    /// a scale past 2 and a double tap.
    @Test func theScriptExercisesEveryComposition() {
        let events = Self.play(base: .identity)
        #expect(events.updates.count > 30)
        #expect(events.updates.contains { $0.scale > 2 })
        #expect(events.updates.contains { abs($0.rotation) > 0.5 })
        #expect(events.updates.contains { $0.mode == .pan && $0.translation.length > 30 })
        #expect(events.doubleTaps == 1)
    }

    /// Sets `base`, then plays a pinch that spreads to 3x while turning both ways, a one-finger pan and
    /// a double tap (zoom factor 2), and returns everything the engine published.
    static func play(base: AffineTransform) -> [GestureEvent] {
        var configuration = GestureConfiguration.default
        configuration.doubleTapZoomFactor = 2
        var engine = GestureEngine(configuration: configuration)
        let accepted = engine.setTransform(base)
        #expect(accepted)
        var f = FrameBuilder()
        var events: [GestureEvent] = []
        func feed(_ frame: TouchFrame) {
            if let deadline = engine.nextDeadline, deadline < frame.time {
                events += engine.advance(to: Timestamp(microseconds: frame.time.microseconds - 1))
            }
            events += engine.process(frame)
        }
        let first = f.down(40, 50)
        let second = f.down(60, 50)
        feed(f.frame())
        for step in 1...30 {
            let radius = 10 + Double(step)
            let angle = sin(Double(step) / 5) * 1.2
            f.move(first, to: 50 - radius * cos(angle), 50 - radius * sin(angle))
            f.move(second, to: 50 + radius * cos(angle), 50 + radius * sin(angle))
            feed(f.frame())
        }
        f.up(first)
        f.up(second)
        feed(f.frame())
        let finger = f.down(50, 50)
        feed(f.frame(after: 400))
        for _ in 1...10 {
            f.moveBy(finger, 4, -3)
            feed(f.frame())
        }
        f.up(finger)
        feed(f.frame())
        for pause in [400.0, 100] {
            let tap = f.down(30, 30)
            feed(f.frame(after: pause))
            f.up(tap)
            feed(f.frame(after: 40))
        }
        events += engine.advance(to: Timestamp(microseconds: f.time + 5_000_000))
        #expect(engine.transform.isFinite)
        return events
    }
}
