import MultitouchCore
import Testing

@testable import Gestures

#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

/// Positions of two fingers on a circle about `c`: radius `r`, angle `theta` (radians) for the first,
/// opposite for the second.
private func pair(_ c: Point, _ r: Double, _ theta: Double) -> (Point, Point) {
    let v = Point(x: r * cos(theta), y: r * sin(theta))
    return (c + v, c - v)
}

@Suite("Unified segments: scripted")
struct SegmentTests {
    @Test func pinchToScaleTwoAboutKnownCentroid() throws {
        var h = Harness()
        var f = FrameBuilder()
        let a = f.down(40, 50)
        let b = f.down(60, 50)
        h.feed(f.frame())
        for i in 1...20 {
            let d = 10 + Double(i) * 0.5
            f.move(a, to: 50 - d, 50)
            f.move(b, to: 50 + d, 50)
            h.feed(f.frame())
        }
        let last = try #require(h.updates.last)
        #expect(last.mode == .pinchRotate && last.phase == .changed && last.fingers == 2)
        #expect(close(last.scale, 2))
        #expect(close(last.centroid, Point(x: 50, y: 50)))
        #expect(abs(last.rotation) < 1e-12)
        let m = h.engine.transform
        #expect(close(m.apply(Point(x: 50, y: 50)), Point(x: 50, y: 50)))
        #expect(close(m.apply(Point(x: 60, y: 50)), Point(x: 70, y: 50)))
        f.up(a)
        f.up(b)
        h.feed(f.frame())
        #expect(h.events.phases.first == "pinchRotate.began")
        #expect(h.events.phases.last == "pinchRotate.ended")
        #expect(h.checker.isClean, "\(h.checker.violations)")
        #expect(close(h.checker.statistics.finalScale, 2))
    }

    @Test func rotationByNinetyDegrees() throws {
        var h = Harness()
        var f = FrameBuilder()
        let c = Point(x: 50, y: 50)
        var (p, q) = pair(c, 10, 0)
        let a = f.down(p.x, p.y)
        let b = f.down(q.x, q.y)
        h.feed(f.frame())
        for i in 1...18 {
            (p, q) = pair(c, 10, Double(i) * 5 * .pi / 180)
            f.move(a, to: p.x, p.y)
            f.move(b, to: q.x, q.y)
            h.feed(f.frame())
        }
        let last = try #require(h.updates.last)
        #expect(close(last.rotation, .pi / 2))
        #expect(close(last.scale, 1))
        let m = h.engine.transform
        #expect(abs(m.a) < 1e-9 && close(m.b, 1) && close(m.c, -1) && abs(m.d) < 1e-9)
        #expect(close(m.apply(c), c))
        #expect(h.checker.isClean, "\(h.checker.violations)")
    }

    @Test func rotationByFourHundredDegreesIsUnwrapped() throws {
        var h = Harness()
        var f = FrameBuilder()
        let c = Point(x: 50, y: 50)
        var (p, q) = pair(c, 15, 0)
        let a = f.down(p.x, p.y)
        let b = f.down(q.x, q.y)
        h.feed(f.frame())
        for i in 1...40 {
            (p, q) = pair(c, 15, Double(i) * 10 * .pi / 180)
            f.move(a, to: p.x, p.y)
            f.move(b, to: q.x, q.y)
            h.feed(f.frame())
        }
        let last = try #require(h.updates.last)
        #expect(close(last.rotation, 400 * .pi / 180))
        #expect(abs(last.rotation - 6.98) < 0.01)
        // The matrix can only hold the wrapped angle.
        #expect(close(h.checker.statistics.finalRotation, 40 * .pi / 180, 1e-9))
        #expect(h.checker.isClean, "\(h.checker.violations)")
    }

    /// DESIGN.md invariant 7: 1,000 cycles of 2 -> 1 -> 2 that bring the fingers back end at identity.
    /// Each cycle pinches by a random factor and turns by a random angle about c, lifts a finger and pans
    /// by a random d, lands it, pinches and turns back about c + d, lifts it, pans back, lands it again.
    /// DESIGN.md invariant 7. With the slop and the intent thresholds at 0 the engine follows the
    /// fingers exactly, so the transform comes back to identity; with the defaults the first segment
    /// keeps what the slop and the thresholds hid until rotation and zoom engaged (within the first
    /// few cycles), and nothing more accumulates: the transform after cycle 1000 equals the one after
    /// cycle 20.
    @Test(arguments: [(UInt64(7), true), (8, true), (9, true), (7, false), (8, false)])
    func thousandHandoffCyclesDoNotDrift(seed: UInt64, exact: Bool) throws {
        var configuration = GestureConfiguration()
        if exact {
            configuration.panSlopMillimeters = 0
            configuration.rotationThresholdDegrees = 0
            configuration.scaleThresholdPercent = 0
        }
        var h = Harness(configuration)
        var f = FrameBuilder()
        var rng = SplitMix64(seed: seed)
        let c = Point(x: 50, y: 50)
        let (a0, b0) = pair(c, 10, 0.3)
        let a = f.down(a0.x, a0.y)
        var b = f.down(b0.x, b0.y)
        h.feed(f.frame())
        var afterFirst: AffineTransform?
        for cycle in 0..<1000 {
            let d = Point(x: Double.random(in: 2...6, using: &rng), y: Double.random(in: -6...(-2), using: &rng))
            let k = Double.random(in: 0.5...3, using: &rng)
            let turn = Double.random(in: -1...1, using: &rng)
            // Pinch to k while turning about c.
            for i in 1...8 {
                let t = Double(i) / 8
                let (p, q) = pair(c, 10 * (1 + t * (k - 1)), 0.3 + t * turn)
                f.move(a, to: p.x, p.y)
                f.move(b, to: q.x, q.y)
                h.feed(f.frame())
            }
            let b1 = f.position(b)
            f.up(b)
            h.feed(f.frame(after: 5))
            for _ in 1...4 {
                f.moveBy(a, d.x / 4, d.y / 4)
                h.feed(f.frame())
            }
            b = f.down(b1.x + d.x, b1.y + d.y)
            h.feed(f.frame())
            // Pinch back to 1 and turn back about c + d.
            for i in 1...8 {
                let t = Double(i) / 8
                let (p, q) = pair(c + d, 10 * (k + t * (1 - k)), 0.3 + turn - t * turn)
                f.move(a, to: p.x, p.y)
                f.move(b, to: q.x, q.y)
                h.feed(f.frame())
            }
            f.up(b)
            h.feed(f.frame(after: 5))
            for _ in 1...4 {
                f.moveBy(a, -d.x / 4, -d.y / 4)
                h.feed(f.frame())
            }
            b = f.down(b0.x, b0.y)
            h.feed(f.frame())
            if cycle == 19 { afterFirst = h.engine.transform }
        }
        f.up(a)
        f.up(b)
        h.feed(f.frame())
        let m = h.engine.transform
        let reference = exact ? AffineTransform.identity : try #require(afterFirst)
        #expect(m.relativeDifference(to: reference) <= 1e-9, "\(m) vs \(reference)")
        #expect(h.checker.isClean, "\(h.checker.violations.prefix(5))")
        #expect(h.checker.statistics.panSegments == 2000)
        #expect(h.checker.statistics.pinchRotateSegments == 2001)
        #expect(h.checker.statistics.largestContinuityError == 0)
    }

    /// A lift keeps the segment open while the count settles (the remaining finger drives it, so the
    /// content never freezes); the segment ends and the next begins when the debounce passes or a
    /// finger lands, always `ended` then `began` with the same matrix.
    @Test func everyHandoffPublishesEndedThenBegan() throws {
        var h = Harness()
        var f = FrameBuilder()
        let a = f.down(40, 50)
        let b = f.down(60, 50)
        h.feed(f.frame())
        f.move(a, to: 35, 50)
        h.feed(f.frame())
        f.up(b)
        let lift = h.feed(f.frame())
        #expect(lift.phases.isEmpty)
        let before = h.engine.transform
        f.moveBy(a, 3, 0)  // the remaining finger drives the open segment at once
        let moved = h.feed(f.frame())
        #expect(moved.phases == ["pinchRotate.changed"])
        #expect(close(h.engine.transform.tx - before.tx, 3) && h.engine.transform.ty == before.ty)
        let settled = h.advance(to: f.now.adding(milliseconds: 60))
        #expect(settled.phases == ["pinchRotate.ended", "pan.began"])
        #expect(settled.updates[0].matrix == settled.updates[1].matrix)
        let c = f.down(70, 50)
        _ = c
        let land = h.feed(f.frame(after: 60))
        #expect(land.phases == ["pan.ended", "pinchRotate.began"])
        #expect(land.updates[0].matrix == land.updates[1].matrix)
        #expect(h.checker.isClean, "\(h.checker.violations)")
    }

    @Test func fingersThatLandAndLiftInOneFrame() {
        var h = Harness()
        var f = FrameBuilder()
        let a = f.down(50, 50)
        f.up(a)
        let out = h.feed(f.frame())
        #expect(out.count == 3)
        #expect(out.first == .sessionBegan(session: 1, time: f.now))
        #expect(out.taps.map(\.count) == [1])
        #expect(out.sessionEnds == [false])
        #expect(out.updates.isEmpty)

        // A swap inside one frame (one finger lifts, another lands) is a segment change too.
        let p = f.down(40, 50)
        let q = f.down(60, 50)
        h.feed(f.frame(after: 500))
        f.move(p, to: 30, 50)
        h.feed(f.frame())
        f.up(q)
        let r = f.down(70, 60)
        let swap = h.feed(f.frame())
        #expect(swap.phases == ["pinchRotate.ended", "pinchRotate.began"])
        f.move(r, to: 75, 65)
        h.feed(f.frame())
        f.up(p)
        f.up(r)
        h.feed(f.frame())
        #expect(h.checker.isClean, "\(h.checker.violations)")
    }

    @Test func coincidentFingersHoldScaleAndAngle() throws {
        var h = Harness()
        var f = FrameBuilder()
        // Start coincident: no NaN, scale taken once they separate.
        let a = f.down(50, 50)
        let b = f.down(50, 50)
        h.feed(f.frame())
        f.move(b, to: 50, 50)
        h.feed(f.frame())
        f.move(a, to: 45, 50)
        f.move(b, to: 55, 50)
        h.feed(f.frame())
        f.move(a, to: 40, 50)
        f.move(b, to: 60, 50)
        h.feed(f.frame())
        var last = try #require(h.updates.last)
        #expect(close(last.scale, 2))
        // Converge to one point: the last scale and angle hold.
        f.move(a, to: 49, 50)
        f.move(b, to: 51, 50)
        h.feed(f.frame())
        last = try #require(h.updates.last)
        let held = (last.scale, last.rotation)
        f.move(a, to: 50, 50)
        f.move(b, to: 50, 50)
        h.feed(f.frame())
        last = try #require(h.updates.last)
        #expect(last.scale == held.0 && last.rotation == held.1)
        #expect(last.scale.isFinite && last.rotation.isFinite && h.engine.transform.isFinite)
        f.up(a)
        f.up(b)
        h.feed(f.frame())
        #expect(h.checker.isClean, "\(h.checker.violations)")
    }

    @Test func churnDebounceMakesNoSpuriousPan() {
        var h = Harness()
        var f = FrameBuilder()
        let a = f.down(40, 50)
        let b = f.down(60, 50)
        h.feed(f.frame())
        f.move(a, to: 30, 50)
        h.feed(f.frame())
        f.up(a)
        h.feed(f.frame())
        f.up(b)
        h.feed(f.frame(after: 10))
        #expect(h.events.phases.filter { $0.hasPrefix("pan") }.isEmpty)
        #expect(h.events.phases.last == "pinchRotate.ended")

        // The remaining finger still sliding 1.5 mm while it lifts 10 ms later: no pan either, yet
        // the content followed the slide (issue 10 target 3: the open segment follows the finger that
        // stays during the debounce instead of freezing; DESIGN.md's "no spurious segment" holds
        // because no segment of its own is made).
        let c = f.down(40, 50)
        let d = f.down(60, 50)
        h.feed(f.frame(after: 500))
        f.move(c, to: 30, 50)
        h.feed(f.frame())
        f.up(c)
        h.feed(f.frame())
        let before = h.engine.transform
        f.moveBy(d, 1.5, 0)
        let slid = h.feed(f.frame(after: 5))
        #expect(slid.phases == ["pinchRotate.changed"])
        #expect(close(h.engine.transform.tx - before.tx, 1.5))
        f.up(d)
        h.feed(f.frame(after: 5))
        #expect(h.events.phases.filter { $0.hasPrefix("pan") }.isEmpty)
        #expect(h.checker.statistics.sessions == 2)
        #expect(h.checker.isClean, "\(h.checker.violations)")
    }

    @Test func debounceElapsesIntoAPan() throws {
        var h = Harness()
        var f = FrameBuilder()
        let a = f.down(40, 50)
        let b = f.down(60, 50)
        h.feed(f.frame())
        f.move(a, to: 30, 50)
        h.feed(f.frame())
        f.up(a)
        h.feed(f.frame())
        let lift = f.now
        let deadline = try #require(h.engine.nextDeadline)
        #expect(deadline == lift.adding(milliseconds: 50))
        let fired = h.advance(to: lift.adding(milliseconds: 80))
        #expect(fired.phases == ["pinchRotate.ended", "pan.began"])
        #expect(fired.first?.time == deadline)
        f.moveBy(b, 0, 4)
        let moved = h.feed(f.frame(after: 90))
        #expect(moved.phases == ["pan.changed"])
        #expect(close(moved.updates[0].translation, Point(x: 0, y: 4)))
        f.up(b)
        h.feed(f.frame())
        #expect(h.checker.isClean, "\(h.checker.violations)")
    }

    @Test func panSlopIsMeasuredInMillimetresAndRebases() throws {
        var h = Harness()
        var f = FrameBuilder(publishedScale: 3)  // 3 published units per mm
        let a = f.down(10, 10)
        h.feed(f.frame())
        for _ in 1...3 {
            f.moveBy(a, 0.5, 0)  // 1.5 mm = 4.5 published units: still inside the 2 mm slop
            h.feed(f.frame())
        }
        #expect(h.updates.isEmpty)
        f.moveBy(a, 0.5, 0)
        let start = h.feed(f.frame())
        #expect(start.phases == ["pan.began"])
        let began = try #require(start.updates.first)
        #expect(began.translation == .zero && began.centroid == Point(x: 36, y: 30))
        #expect(h.engine.transform == .identity)
        f.moveBy(a, 1, 0)
        let moved = h.feed(f.frame())
        #expect(close(try #require(moved.updates.first).translation, Point(x: 3, y: 0)))
        #expect(close(h.engine.transform.tx, 3))
        f.up(a)
        h.feed(f.frame())
        #expect(h.checker.isClean, "\(h.checker.violations)")
    }

    /// Two fingers that barely move open no segment at all (a two-finger tap never nudges the
    /// content); a pinch past the 10 % scale threshold begins one, published at identity.
    @Test func twoFingerSmallMotionOpensNoSegment() {
        var h = Harness()
        var f = FrameBuilder()
        let a = f.down(40, 50)
        let b = f.down(60, 50)
        h.feed(f.frame())
        f.move(a, to: 39.7, 50.2)  // centroid 0.18 mm, spread 0.15 mm, angle < 1 degree
        h.feed(f.frame())
        #expect(h.events.phases.isEmpty)
        f.move(a, to: 37, 50)  // spread +15 %: past the scale threshold (centroid 1.5 mm: inside the slop)
        h.feed(f.frame())
        #expect(h.events.phases.first == "pinchRotate.began")
        #expect(h.updates.first?.matrix == .identity)
        f.up(a)
        f.up(b)
        h.feed(f.frame())
        #expect(h.checker.isClean, "\(h.checker.violations)")
    }

    @Test func scaleLimitsClampTheIncomingSegment() throws {
        var config = GestureConfiguration()
        config.maximumScale = 2
        config.minimumScale = 0.5
        var h = Harness(config)
        var f = FrameBuilder()
        let a = f.down(45, 50)
        let b = f.down(55, 50)
        h.feed(f.frame())
        for i in 1...10 {
            f.move(a, to: 45 - Double(i), 50)
            f.move(b, to: 55 + Double(i), 50)
            h.feed(f.frame())
        }
        #expect(close(try #require(h.updates.last).scale, 2))
        #expect(close(h.engine.transform.scaleFactor, 2))
        f.up(a)
        f.up(b)
        h.feed(f.frame())
        // A new segment may not grow the total beyond the limit but may shrink it.
        let c = f.down(45, 50)
        let d = f.down(55, 50)
        h.feed(f.frame(after: 500))
        f.move(c, to: 40, 50)
        f.move(d, to: 60, 50)
        h.feed(f.frame())
        #expect(close(h.engine.transform.scaleFactor, 2))
        // Turning back responds at once: the reference moved with the clamp, so a quarter of the
        // spread at the limit is a quarter of the scale (issue 10 target 6: no dead zone).
        f.move(c, to: 47.5, 50)
        f.move(d, to: 52.5, 50)
        h.feed(f.frame())
        #expect(close(h.engine.transform.scaleFactor, 0.5))
        f.up(c)
        f.up(d)
        h.feed(f.frame())
        // A transform set beyond the limits starts no jump: the segment begins where it is.
        h.setTransform(AffineTransform(a: 4, b: 0, c: 0, d: 4, tx: 0, ty: 0))
        let e = f.down(45, 50)
        let g = f.down(55, 50)
        #expect(h.feed(f.frame(after: 500)).updates.isEmpty)
        f.move(e, to: 40, 50)
        f.move(g, to: 60, 50)
        let began = h.feed(f.frame())
        #expect(began.updates.first?.phase == .began)
        #expect(began.updates.first?.matrix == AffineTransform(a: 4, b: 0, c: 0, d: 4, tx: 0, ty: 0))
        #expect(close(h.engine.transform.scaleFactor, 4))
        f.move(e, to: 47.5, 50)
        f.move(g, to: 52.5, 50)
        h.feed(f.frame())
        #expect(close(h.engine.transform.scaleFactor, 1))
        f.up(e)
        f.up(g)
        h.feed(f.frame())
        #expect(h.checker.isClean, "\(h.checker.violations)")
    }

    @Test func setTransformMidSegmentKeepsRelativeValues() throws {
        var h = Harness()
        var f = FrameBuilder()
        let a = f.down(50, 50)
        h.feed(f.frame())
        f.moveBy(a, 3, 0)  // past the slop: the pan begins, keeping all but the 2 mm slop
        h.feed(f.frame())
        f.moveBy(a, 5, 0)
        h.feed(f.frame())
        #expect(close(h.engine.transform.tx, 6))
        let reset = AffineTransform.identity
        h.setTransform(reset)
        #expect(h.engine.transform == reset)
        f.moveBy(a, 1, 0)
        let moved = h.feed(f.frame())
        let u = try #require(moved.updates.first)
        #expect(close(u.translation, Point(x: 7, y: 0)))
        #expect(close(u.matrix.tx, 1))
        // A non-finite or singular transform is refused and changes nothing.
        let before = h.engine.transform
        let refusedNaN = h.engine.setTransform(AffineTransform(a: .nan, b: 0, c: 0, d: 1, tx: 0, ty: 0))
        let refusedSingular = h.engine.setTransform(AffineTransform(a: 0, b: 0, c: 0, d: 0, tx: 1, ty: 1))
        #expect(!refusedNaN && !refusedSingular)
        #expect(h.engine.transform == before)
        f.up(a)
        h.feed(f.frame())
        #expect(h.checker.isClean, "\(h.checker.violations)")
    }

    @Test func velocitiesFromRealEventTimes() throws {
        // Thresholds off: the pinch below follows from its first frame (its velocities are exact).
        var configuration = GestureConfiguration()
        configuration.scaleThresholdPercent = 0
        configuration.rotationThresholdDegrees = 0
        var h = Harness(configuration)
        var f = FrameBuilder()
        let a = f.down(10, 10)
        h.feed(f.frame())
        for _ in 1...20 {
            f.moveBy(a, 1, 0)  // 1 mm per 10 ms = 100 mm/s
            h.feed(f.frame())
        }
        let last = try #require(h.updates.last)
        #expect(close(last.velocity.translation.x, 100) && last.velocity.translation.y == 0)
        f.moveBy(a, 1, 0)
        f.up(a)
        let end = try #require(h.feed(f.frame()).updates.last)
        #expect(end.phase == .ended && close(end.velocity.translation.x, 100))

        // A pause before the lift: the end velocity is zero.
        let b = f.down(10, 10)
        h.feed(f.frame(after: 500))
        for _ in 1...5 {
            f.moveBy(b, 1, 0)
            h.feed(f.frame())
        }
        f.up(b)
        let paused = try #require(h.feed(f.frame(after: 200)).updates.last)
        #expect(paused.phase == .ended && paused.velocity == .zero)

        // Pinch: scale and rotation per second.
        let c = Point(x: 50, y: 50)
        var (p, q) = pair(c, 10, 0)
        let u = f.down(p.x, p.y)
        let v = f.down(q.x, q.y)
        h.feed(f.frame(after: 500))
        for i in 1...10 {
            // Log scale +0.01 and +0.01 rad per 10 ms: the velocities are fitted on the log scale (a
            // steady pinch multiplies the scale at a steady rate), published as scale per second.
            (p, q) = pair(c, 10 * _exp(Double(i) * 0.01), Double(i) * 0.01)
            f.move(u, to: p.x, p.y)
            f.move(v, to: q.x, q.y)
            h.feed(f.frame())
        }
        let pinch = try #require(h.updates.last)
        #expect(
            close(pinch.velocity.scale, pinch.scale, 1e-9) && close(pinch.velocity.rotation, 1, 1e-9),
            "\(pinch.velocity)")
        // Time that does not advance gives zero, never infinity.
        (p, q) = pair(c, 12, 0.2)
        f.move(u, to: p.x, p.y)
        f.move(v, to: q.x, q.y)
        f.up(u)
        h.feed(f.frame(after: 0))
        let same = try #require(h.updates.last)
        #expect(same.velocity.scale.isFinite && same.velocity.rotation.isFinite)
        f.up(v)
        h.feed(f.frame())
        #expect(h.checker.isClean, "\(h.checker.violations)")
    }

    @Test func velocityIsZeroWhenTimeDoesNotAdvance() throws {
        var h = Harness()
        var f = FrameBuilder()
        let a = f.down(40, 50)
        let b = f.down(60, 50)
        h.feed(f.frame())
        f.move(a, to: 30, 50)
        let out = h.feed(f.frame(after: 0))
        // The motion passes the slop: the segment begins and follows in this frame, both at rest.
        #expect(out.phases == ["pinchRotate.began", "pinchRotate.changed"])
        #expect(out.updates.allSatisfy { $0.velocity == .zero })
        f.up(a)
        f.up(b)
        h.feed(f.frame())
        #expect(h.checker.isClean)
    }

    @Test func semiMTScalesFromTheBoundingBoxAndNeverRotates() throws {
        var h = Harness(isSemiMT: true)
        var f = FrameBuilder()
        let a = f.down(40, 40)
        let b = f.down(60, 60)
        h.feed(f.frame())
        // The corners swap diagonals (what a semi-mt pad reports when fingers turn): no rotation.
        f.move(a, to: 40, 60)
        f.move(b, to: 60, 40)
        h.feed(f.frame())
        f.move(a, to: 30, 70)
        f.move(b, to: 70, 30)
        h.feed(f.frame())
        let last = try #require(h.updates.last)
        #expect(last.rotation == 0)
        #expect(close(last.scale, 2))
        #expect(close(last.centroid, Point(x: 50, y: 50)))
        f.up(a)
        f.up(b)
        h.feed(f.frame())
        #expect(h.checker.isClean, "\(h.checker.violations)")
    }

    @Test func cancelledTouchCancelsSegmentAndSession() {
        var h = Harness()
        var f = FrameBuilder()
        let a = f.down(40, 50)
        let b = f.down(60, 50)
        h.feed(f.frame())
        f.move(a, to: 30, 50)
        h.feed(f.frame())
        f.cancel(a)  // palm
        let cancel = h.feed(f.frame())
        #expect(cancel.phases == ["pinchRotate.cancelled"])
        f.moveBy(b, 10, 0)
        #expect(h.feed(f.frame()).isEmpty)
        f.up(b)
        let end = h.feed(f.frame())
        #expect(end.sessionEnds == [true])
        #expect(end.taps.isEmpty)
        #expect(h.checker.isClean, "\(h.checker.violations)")
        #expect(h.checker.statistics.cancelledSegments == 1)
        #expect(h.checker.statistics.cancelledSessions == 1)
    }

    @Test func moreFingersThanTouches() throws {
        var h = Harness()
        var f = FrameBuilder()
        f.fingerCountOverride = 3
        let a = f.down(40, 50)
        let b = f.down(60, 50)
        h.feed(f.frame())
        f.move(a, to: 30, 50)
        f.move(b, to: 70, 50)
        h.feed(f.frame())
        let u = try #require(h.updates.last)
        #expect(u.mode == .pinchRotate && u.fingers == 3 && close(u.scale, 2))
        // One touch, two fingers: still a pinchRotate (positions from the touch, no NaN).
        f.fingerCountOverride = 2
        f.up(b)
        h.feed(f.frame())
        f.moveBy(a, -5, 0)
        h.feed(f.frame(after: 100))
        let one = try #require(h.updates.last)
        #expect(one.mode == .pinchRotate && one.fingers == 2 && one.scale.isFinite)
        f.fingerCountOverride = nil
        f.up(a)
        h.feed(f.frame())
        #expect(h.checker.isClean, "\(h.checker.violations)")
    }

    @Test func outputOrderWithinAFrame() {
        var h = Harness()
        var f = FrameBuilder()
        let a = f.down(40, 50)
        let b = f.down(60, 50)
        let first = h.feed(f.frame())
        #expect(first.first == .sessionBegan(session: 1, time: f.now))
        #expect(first.phases.isEmpty)  // no segment before the slop or a threshold
        f.moveBy(a, -6, 0)
        #expect(h.feed(f.frame()).phases == ["pinchRotate.began", "pinchRotate.changed"])
        f.up(a)
        f.up(b)
        let last = h.feed(f.frame(after: 50))
        // segment ended, session ended
        guard last.count == 2, case .update(let u) = last[0], case .sessionEnded = last[1] else {
            Issue.record("unexpected order \(last)")
            return
        }
        #expect(u.phase == .ended)
        // A two-finger tap: discrete (the tap), then session ended.
        let c = f.down(40, 50)
        let d = f.down(60, 50)
        h.feed(f.frame(after: 500))
        f.up(c)
        f.up(d)
        let tap = h.feed(f.frame(after: 50))
        guard tap.count == 2, case .tap(_, _, _, 1, 2) = tap[0], case .sessionEnded = tap[1] else {
            Issue.record("unexpected order \(tap)")
            return
        }
        let seqs = h.updates.map(\.seq)
        #expect(seqs == Array(1...UInt64(seqs.count)))
    }
}
