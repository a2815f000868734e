import MultitouchCore
import Testing

@testable import Gestures

/// Issue 23: the intent thresholds' catch-up converges and never passes the fingers, the pin invariant
/// catches content that does not stay under the fingers, and a two-finger double tap never zooms in.
@Suite("Pinned fingers")
struct PinnedFingerTests {
    /// The catch-up is spent by motion back too: the published value never moves away from the fingers'
    /// value and reaches it after one lag's worth of motion in any direction.
    @Test func catchUpConvergesWhenTheFingersTurnBack() {
        var intent = IntentThreshold(threshold: 0.2, engaged: false)
        var raws: [Double] = []
        for i in 0...30 { raws.append(Double(i) * 0.01) }  // on to 0.3: engages at 0.2 with a lag of 0.19
        for i in 1...30 { raws.append(0.3 - Double(i) * 0.01) }  // back to 0.0
        var published: [Double] = []
        for raw in raws { published.append(intent.publish(raw)) }
        var gaps: [Double] = []
        for (raw, value) in zip(raws, published) { gaps.append(raw - value) }
        // Never past the fingers' value, and the gap only shrinks once engaged.
        #expect(gaps.allSatisfy { $0 >= -1e-12 })
        let engagedAt = published.firstIndex(where: { $0 != 0 }) ?? raws.count
        for i in engagedAt..<(gaps.count - 1) { #expect(gaps[i + 1] <= gaps[i] + 1e-12) }
        // Spent: the fingers moved 0.1 on and 0.3 back after engaging, more than the lag.
        #expect(abs(gaps.last ?? 1) < 1e-12)
        // Turning back, the content never turns back past where the fingers are.
        for i in engagedAt..<(published.count - 1) where raws[i + 1] < raws[i] {
            #expect(published[i + 1] <= published[i] + 1e-12)
            #expect(published[i + 1] <= raws[i + 1] + 1e-12)
        }
    }

    /// Going on the way it engaged, the content moves at most twice as fast as the fingers (gain 2).
    @Test func catchUpGoingOnIsAtMostTwiceTheFingers() {
        var intent = IntentThreshold(threshold: 0.2, engaged: false)
        var last = 0.0
        var lastPublished = 0.0
        for i in 0...60 {
            let raw = Double(i) * 0.01
            let value = intent.publish(raw)
            #expect(value - lastPublished <= 2 * (raw - last) + 1e-12)
            #expect(value <= raw + 1e-12)
            last = raw
            lastPublished = value
        }
        #expect(abs(lastPublished - 0.6) < 1e-12)
    }

    /// A twist past the rotation threshold that then turns back (a circle): the content never turns
    /// faster than twice the fingers once rotation unlocked in a running segment, and a quarter second
    /// after rotation unlocked the content is pinned under the fingers again, and the check agrees. Run from a still start (the segment begins at
    /// the threshold) and after a short pan (the segment begins at the slop, the twist crosses later).
    @Test(arguments: [0.0, 3.0])
    func reversingTwistIsPinnedAgain(panFirst: Double) {
        var h = Harness()
        var f = FrameBuilder()
        var center = Point(x: 60, y: 40)
        let radius = 20.0
        func place(_ degrees: Double) -> (Point, Point) {
            let r = degrees * Double.pi / 180
            let d = Point(x: radius * cos(r), y: radius * sin(r))
            return (center + d, center - d)
        }
        let (p, q) = place(0)
        let a = f.down(p.x, p.y)
        let b = f.down(q.x, q.y)
        h.feed(f.frame())
        for _ in 0..<Int(panFirst) {
            center = center + Point(x: 1, y: 0)
            let (p, q) = place(0)
            f.move(a, to: p.x, p.y)
            f.move(b, to: q.x, q.y)
            h.feed(f.frame(after: 10))
        }
        // 20 degrees on in 200 ms, then 25 degrees back in 250 ms, then still.
        var angles: [Double] = []
        for i in 1...20 { angles.append(Double(i)) }
        for i in 1...25 { angles.append(20 - Double(i)) }
        for _ in 0..<30 { angles.append(-5) }
        var rotations: [Double] = [0]
        for angle in angles {
            let (p, q) = place(angle)
            f.move(a, to: p.x, p.y)
            f.move(b, to: q.x, q.y)
            h.feed(f.frame(after: 10))
            rotations.append(h.engine.transform.rotationAngle * 180 / Double.pi)
        }
        // Once rotation unlocked, the gap between the fingers' twist since the segment began and the
        // content's only shrinks and never changes side (the content never passes the fingers).
        if panFirst > 0 {
            let side = (rotations[20] < 0 ? -1.0 : 1.0)
            var previousGap: Double?
            for i in 1..<rotations.count where rotations[i] != 0 {
                let gap = side * angles[i - 1] - rotations[i]
                if let previous = previousGap {
                    #expect(abs(gap) <= abs(previous) + 1e-9, "frame \(i): \(rotations)")
                    #expect(gap * previous >= -1e-12, "frame \(i) passed the fingers: \(rotations)")
                }
                previousGap = gap
            }
        }
        // The content ends turned as the fingers: -5 degrees (the sign of the published space).
        #expect(abs(abs(rotations.last ?? 0) - 5) < 1e-6, "\(rotations)")
        #expect(h.checker.statistics.largestPinError <= 0.25, "\(h.checker.statistics.largestPinError)")
        #expect(h.checker.isClean, "\(h.checker.violations)")
        f.up(a)
        f.up(b)
        h.feed(f.frame())
    }

    /// A twist that slows down right after rotation unlocked: the catch-up's time constant pins the
    /// content again within a quarter second although the fingers move far less than the lag.
    @Test func slowTwistIsPinnedWithinAQuarterSecond() {
        var h = Harness()
        var f = FrameBuilder()
        let center = Point(x: 60, y: 40)
        let radius = 20.0
        func place(_ degrees: Double) -> (Point, Point) {
            let r = degrees * Double.pi / 180
            let d = Point(x: radius * cos(r), y: radius * sin(r))
            return (center + d, center - d)
        }
        let (p, q) = place(0)
        let a = f.down(p.x, p.y)
        let b = f.down(q.x, q.y)
        h.feed(f.frame())
        // A 3 mm pan first (the segment begins at the slop), then 14 degrees in 140 ms, then 0.05
        // degree a frame.
        var angles: [Double] = []
        for i in 1...14 { angles.append(Double(i)) }
        for i in 1...40 { angles.append(14 + Double(i) * 0.05) }
        var shift = 0.0
        for _ in 0..<3 {
            shift += 1
            let (p, q) = place(0)
            f.move(a, to: p.x + shift, p.y)
            f.move(b, to: q.x + shift, q.y)
            h.feed(f.frame(after: 10))
        }
        var unlockedAt: Int?
        for (i, angle) in angles.enumerated() {
            let (p, q) = place(angle)
            f.move(a, to: p.x + shift, p.y)
            f.move(b, to: q.x + shift, q.y)
            h.feed(f.frame(after: 10))
            let rotation = abs(h.engine.transform.rotationAngle * 180 / Double.pi)
            if unlockedAt == nil && rotation > 0 { unlockedAt = i }
            if let unlockedAt, i >= unlockedAt + 25 {
                #expect(
                    abs(rotation - angle) < 0.1,
                    "\(Double(i - unlockedAt) * 10) ms after the unlock: \(rotation) vs \(angle)")
            }
        }
        #expect(unlockedAt != nil)
        #expect(h.checker.statistics.largestPinError <= 0.25, "\(h.checker.statistics.largestPinError)")
        #expect(h.checker.isClean, "\(h.checker.violations)")
    }

    /// Three fingers pan 3 mm (the segment begins at the slop), spread 14 % (past the zoom threshold)
    /// and pinch back to 90 %: the scale of their least-squares fit is caught up the same way, the
    /// content ends at the fingers' scale since the segment began and the pin check agrees.
    @Test func threeFingerReversingPinchIsPinnedAgain() {
        var h = Harness()
        var f = FrameBuilder()
        var center = Point(x: 80, y: 60)
        func place(_ spread: Double) -> [Point] {
            (0..<3).map { k in
                let r = Double(k) * 2 * Double.pi / 3 + 0.3
                return center + Point(x: 20 * spread * cos(r), y: 20 * spread * sin(r))
            }
        }
        let ids = place(1).map { f.down($0.x, $0.y) }
        h.feed(f.frame())
        var spreads: [Double] = [1, 1, 1]
        for i in 1...14 { spreads.append(1 + Double(i) * 0.01) }
        for i in 1...24 { spreads.append(1.14 - Double(i) * 0.01) }
        for _ in 0..<30 { spreads.append(0.9) }
        for (i, spread) in spreads.enumerated() {
            if i < 3 { center = center + Point(x: 1, y: 0) }
            for (id, p) in zip(ids, place(spread)) { f.move(id, to: p.x, p.y) }
            h.feed(f.frame(after: 10))
        }
        #expect(h.checker.statistics.pinchRotateSegments == 1)
        #expect(close(h.engine.transform.scaleFactor, 0.9, 1e-9), "\(h.engine.transform.scaleFactor)")
        #expect(h.checker.statistics.largestPinError <= 0.25, "\(h.checker.statistics.largestPinError)")
        #expect(h.checker.isClean, "\(h.checker.violations)")
    }

    /// The pin check fails content that lags the fingers by more than the slop once settled.
    @Test func pinCheckCatchesContentThatStaysBehind() {
        var checker = GestureInvariantChecker()
        var f = FrameBuilder()
        let a = f.down(30, 40)
        let first = f.frame()
        var engine = GestureEngine()
        checker.check(frame: first, events: engine.process(first))
        var frames: [TouchFrame] = []
        for _ in 0..<40 {
            f.moveBy(a, 1, 0)
            frames.append(f.frame(after: 10))
        }
        for frame in frames {
            var events = engine.process(frame)
            // Content drawn 3 mm short of where the engine put it: a lag beyond the 2 mm slop.
            for index in events.indices {
                if case .update(var u) = events[index], u.phase == .changed {
                    u.translation = u.translation - Point(x: 3, y: 0)
                    u.centroid = u.centroid - Point(x: 3, y: 0)
                    u.matrix = AffineTransform.translation(Point(x: -3, y: 0)).concatenating(after: u.matrix)
                    events[index] = .update(u)
                }
            }
            checker.check(frame: frame, events: events)
        }
        #expect(checker.statistics.largestPinError > 0.25)
        #expect(checker.violations.contains { $0.message.hasPrefix("pin:") })
    }

    /// With the double-tap zoom on, a two-finger double tap never zooms in; the two-finger tap zoom
    /// (when set) zooms out once for the pair.
    @Test func twoFingerDoubleTapNeverZoomsIn() {
        for outFactor in [1.0, 0.5] {
            var config = GestureConfiguration()
            config.doubleTapZoomFactor = 2
            config.twoFingerTapZoomFactor = outFactor
            config.zoomAnimationMilliseconds = 0
            var h = Harness(config)
            var f = FrameBuilder()
            for _ in 0..<2 {
                let a = f.down(30, 40)
                let b = f.down(50, 40)
                h.feed(f.frame(after: 100))
                f.up(a)
                f.up(b)
                h.feed(f.frame(after: 50))
            }
            #expect(h.events.taps.map(\.fingers) == [2, 2])
            #expect(h.events.doubleTaps == 0)
            #expect(close(h.engine.transform.scaleFactor, outFactor), "\(outFactor): \(h.engine.transform)")
            #expect(h.checker.isClean, "\(h.checker.violations)")
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif
