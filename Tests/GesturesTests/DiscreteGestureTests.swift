import MultitouchCore
import Testing

@testable import Gestures

@Suite("Taps, double taps, long presses")
struct DiscreteGestureTests {
    @Test func singleTap() throws {
        var h = Harness()
        var f = FrameBuilder()
        let a = f.down(30, 40)
        h.feed(f.frame())
        f.moveBy(a, 0.5, 0)
        h.feed(f.frame(after: 40))
        f.up(a)
        let out = h.feed(f.frame(after: 40))
        #expect(out.taps.map(\.count) == [1])
        #expect(out.taps.map(\.fingers) == [1])
        #expect(h.updates.isEmpty)
        #expect(h.checker.statistics.taps == 1)
    }

    @Test func tapThresholdsAreMillimetresWhateverThePublishedSpace() {
        var h = Harness()
        var f = FrameBuilder(publishedScale: 10)  // 10 published units (pixels) per mm
        let a = f.down(30, 40)
        h.feed(f.frame())
        f.moveBy(a, 1.5, 0)  // 15 published units, 1.5 mm: still a tap, not yet a pan
        h.feed(f.frame(after: 40))
        f.up(a)
        let out = h.feed(f.frame(after: 40))
        #expect(out.taps.map(\.count) == [1])
        #expect(h.updates.isEmpty)
        // The second tap lands 8 mm (80 units) away: within the 10 mm double-tap distance.
        let b = f.down(38, 40)
        h.feed(f.frame(after: 100))
        f.up(b)
        #expect(h.feed(f.frame(after: 40)).doubleTaps == 1)
        #expect(h.checker.isClean, "\(h.checker.violations)")
    }

    @Test func slowOrMovingTouchIsNoTap() {
        var h = Harness()
        var f = FrameBuilder()
        let a = f.down(30, 40)
        h.feed(f.frame())
        f.up(a)
        #expect(h.feed(f.frame(after: 300)).taps.isEmpty)
        let b = f.down(30, 40)
        h.feed(f.frame(after: 1000))
        f.moveBy(b, 4, 0)
        h.feed(f.frame())
        f.up(b)
        #expect(h.feed(f.frame()).taps.isEmpty)
    }

    @Test func doubleTapCountsAndZooms() throws {
        var config = GestureConfiguration()
        config.doubleTapZoomFactor = 2
        // Applied at once: an animated zoom would be stopped where it is by the third tap's landing.
        config.zoomAnimationMilliseconds = 0
        var h = Harness(config)
        var f = FrameBuilder()
        for _ in 0..<3 {
            let a = f.down(30, 40)
            h.feed(f.frame(after: 100))
            f.up(a)
            h.feed(f.frame(after: 50))
        }
        #expect(h.events.taps.map(\.count) == [1, 2, 3])
        #expect(h.events.doubleTaps == 1)
        let m = h.engine.transform
        #expect(close(m.scaleFactor, 2))
        #expect(close(m.apply(Point(x: 30, y: 40)), Point(x: 30, y: 40)))
        #expect(h.checker.isClean, "\(h.checker.violations)")
        #expect(h.checker.statistics.doubleTaps == 1)
    }

    @Test func tapsTooFarApartOrTooLateStartAgain() {
        var h = Harness()
        var f = FrameBuilder()
        let a = f.down(30, 40)
        h.feed(f.frame())
        f.up(a)
        h.feed(f.frame(after: 50))
        let b = f.down(50, 40)  // 20 mm away
        h.feed(f.frame(after: 100))
        f.up(b)
        h.feed(f.frame(after: 50))
        let c = f.down(50, 40)  // 400 ms later
        h.feed(f.frame(after: 400))
        f.up(c)
        h.feed(f.frame(after: 50))
        #expect(h.events.taps.map(\.count) == [1, 1, 1])
        #expect(h.events.doubleTaps == 0)
    }

    @Test func twoFingerTap() {
        var h = Harness()
        var f = FrameBuilder()
        let a = f.down(30, 40)
        let b = f.down(50, 40)
        h.feed(f.frame())
        f.up(a)
        h.feed(f.frame(after: 60))
        f.up(b)
        h.feed(f.frame(after: 8))
        #expect(h.events.taps.map(\.fingers) == [2])
        // A tap never opens a continuous segment (issue 10 target 8).
        #expect(h.events.phases.isEmpty)
    }

    @Test func singleTapWaitsForDoubleTapFailure() throws {
        var config = GestureConfiguration()
        config.singleTapWaitsForDoubleTap = true
        var h = Harness(config)
        var f = FrameBuilder()
        let a = f.down(30, 40)
        h.feed(f.frame())
        f.up(a)
        #expect(h.feed(f.frame(after: 50)).taps.isEmpty)
        let lift = f.now
        #expect(h.engine.nextDeadline == lift.adding(milliseconds: 300))
        let fired = h.advance(to: lift.adding(milliseconds: 400))
        #expect(fired.taps.map(\.count) == [1])
        #expect(fired.taps.first?.time == lift.adding(milliseconds: 300))

        // A double tap publishes no single tap at all.
        let b = f.down(30, 40)
        h.feed(f.frame(after: 1000))
        f.up(b)
        h.feed(f.frame(after: 50))
        let c = f.down(31, 40)
        h.feed(f.frame(after: 100))
        f.up(c)
        let second = h.feed(f.frame(after: 50))
        #expect(second.taps.map(\.count) == [2])
        #expect(second.doubleTaps == 1)
        h.advance(to: f.now.adding(milliseconds: 1000))
        #expect(h.events.taps.map(\.count) == [1, 2])

        // A second touch that is no tap releases the held tap when it ends.
        let d = f.down(30, 40)
        h.feed(f.frame(after: 1000))
        f.up(d)
        h.feed(f.frame(after: 50))
        let e = f.down(30, 40)
        h.feed(f.frame(after: 100))
        f.moveBy(e, 5, 0)
        let dragged = h.feed(f.frame())
        f.up(e)
        let released = h.feed(f.frame())
        // The drag after a tap is a quick zoom; the held tap stands and is published as it begins.
        #expect(dragged.phases.first == "quickZoom.began")
        #expect(dragged.taps.map(\.count) == [1])
        #expect(released.taps.isEmpty)
        #expect(h.checker.isClean, "\(h.checker.violations)")
    }

    @Test func longPressBeganAtItsDeadlineAndEndedAtLift() throws {
        var h = Harness()
        var f = FrameBuilder()
        let a = f.down(30, 40)
        h.feed(f.frame())
        let down = f.now
        #expect(h.engine.nextDeadline == down.adding(milliseconds: 500))
        let fired = h.advance(to: down.adding(milliseconds: 600))
        #expect(fired.longPresses == [.began])
        #expect(fired.first?.time == down.adding(milliseconds: 500))
        f.up(a)
        let end = h.feed(f.frame(after: 700))
        #expect(end.longPresses == [.ended])
        #expect(end.taps.isEmpty)
        #expect(h.checker.statistics.longPresses == 1)
        #expect(h.checker.isClean, "\(h.checker.violations)")
    }

    @Test func longPressFailsOrCancelsOnMovement() {
        var h = Harness()
        var f = FrameBuilder()
        let a = f.down(30, 40)
        h.feed(f.frame())
        f.moveBy(a, 4, 0)
        h.feed(f.frame(after: 100))
        h.advance(to: f.now.adding(milliseconds: 1000))
        f.up(a)
        h.feed(f.frame(after: 1000))
        #expect(h.events.longPresses.isEmpty)

        let b = f.down(30, 40)
        h.feed(f.frame(after: 1000))
        h.advance(to: f.now.adding(milliseconds: 500))
        f.moveBy(b, 4, 0)
        h.feed(f.frame(after: 510))
        f.up(b)
        h.feed(f.frame())
        #expect(h.events.longPresses == [.began, .cancelled])
        #expect(h.checker.isClean, "\(h.checker.violations)")
    }

    @Test func timersFireInsideProcessWhenTheCallerSkipsAdvance() {
        var engine = GestureEngine()
        var f = FrameBuilder()
        let a = f.down(30, 40)
        _ = engine.process(f.frame())
        f.up(a)
        let out = engine.process(f.frame(after: 800))
        #expect(out.longPresses == [.began, .ended])
        #expect(out.first?.time == Timestamp(microseconds: f.time - 800_000 + 500_000))
    }
}

@Suite("Configuration values")
struct ConfigurationValueTests {
    @Test func defaultsHaveNoProblems() {
        #expect(GestureConfiguration.default.problems.isEmpty)
        #expect(GestureConfiguration.default.sanitized == .default)
    }

    @Test func badValuesAreReportedAndNeverTrap() {
        var c = GestureConfiguration()
        c.fingerChurnDebounceMilliseconds = .nan
        c.longPressDurationMilliseconds = -5
        c.minimumScale = 0
        c.doubleTapZoomFactor = .infinity
        c.velocityWindowMilliseconds = 1e300
        #expect(c.problems.count == 5)
        var engine = GestureEngine(configuration: c)
        #expect(engine.configuration.fingerChurnDebounceMilliseconds == 50)
        #expect(engine.configuration.minimumScale == GestureConfiguration.default.minimumScale)
        var f = FrameBuilder()
        let a = f.down(1, 1)
        _ = engine.process(f.frame())
        f.up(a)
        _ = engine.process(f.frame())
        #expect(engine.nextDeadline == nil)
    }
}
