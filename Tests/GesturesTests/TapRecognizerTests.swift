import MultitouchCore
import Testing

@testable import Gestures

/// The tap rule lives in `TapRecognizer` (issue 22 item 4): it judges the facts of the session that
/// ended, so each disqualifying fact is checked here without an engine.
@Suite("TapRecognizer: the tap rule")
struct TapRecognizerTests {
    /// A one-finger session that landed at 0 ms, still and undisturbed.
    private func session() -> GestureSession.Facts {
        var s = GestureSession.Facts(id: 7, start: Timestamp(microseconds: 0))
        s.maxFingers = 1
        s.landings = 1
        s.landingSum = Point(x: 10, y: 20)
        s.landingSumMM = Point(x: 10, y: 20)
        s.maxTravel = 0.5
        return s
    }

    private func taps(_ s: GestureSession.Facts, liftMs: Int64 = 100) -> [GestureEvent] {
        var recognizer = TapRecognizer(configuration: .default)
        let actions = recognizer.handle(
            .sessionEnded(s, time: Timestamp(microseconds: liftMs * 1000), cumulativeScale: 1))
        return actions.compactMap {
            if case .publish(let event) = $0, case .tap = event { return event } else { return nil }
        }
    }

    @Test func aShortStillSessionIsATap() throws {
        let out = taps(session())
        #expect(out.count == 1)
        let event = try #require(out.first)
        guard case .tap(let id, _, let location, let count, let fingers) = event else { return }
        #expect(id == 7 && count == 1 && fingers == 1)
        #expect(location == Point(x: 10, y: 20))
    }

    @Test func eachDisqualifyingFactMakesItNoTap() {
        var moved = session()
        moved.moved = true
        var pressed = session()
        pressed.pressed = true
        var clicked = session()
        clicked.clicked = true
        var cancelled = session()
        cancelled.cancelled = true
        var far = session()
        far.maxTravel = GestureConfiguration.default.tapMaximumMovementMillimeters + 0.1
        var noLanding = session()
        noLanding.landings = 0
        for s in [moved, pressed, clicked, cancelled, far, noLanding] { #expect(taps(s).isEmpty) }
        let tooLong = Int64(GestureConfiguration.default.tapMaximumDurationMilliseconds) + 1
        #expect(taps(session(), liftMs: tooLong).isEmpty)
    }
}

/// The tap recogniser as a machine on its own: the events the engine gives it and the actions it
/// returns (taps, the double-tap zoom at once or animated, the two-finger-tap zoom, the held single
/// tap), each decision without an engine.
@Suite("TapRecognizer: decisions")
struct TapDecisionTests {
    private static func at(_ ms: Int64) -> Timestamp { Timestamp(microseconds: ms * 1000) }

    /// A still session of `fingers` fingers that landed at `startMs` at (x, 20) mm.
    private static func facts(id: UInt64, startMs: Int64, fingers: Int = 1, x: Double = 10) -> GestureSession.Facts {
        var s = GestureSession.Facts(id: id, start: at(startMs))
        s.maxFingers = fingers
        s.landings = fingers
        s.landingSum = Point(x: x, y: 20) * Double(fingers)
        s.landingSumMM = Point(x: x, y: 20) * Double(fingers)
        return s
    }

    /// A tap of session `id` landing at `startMs` and lifting 50 ms later.
    private static func tap(
        _ r: inout TapRecognizer, id: UInt64, startMs: Int64, fingers: Int = 1, x: Double = 10, scale: Double = 1
    ) -> [TapRecognizer.Action] {
        let s = facts(id: id, startMs: startMs, fingers: fingers, x: x)
        return r.handle(.landed(mm: Point(x: x, y: 20), time: at(startMs)))
            + r.handle(.sessionEnded(s, time: at(startMs + 50), cumulativeScale: scale))
    }

    private static func tapAction(
        id: UInt64, ms: Int64, count: Int, fingers: Int = 1, x: Double = 10
    )
        -> TapRecognizer.Action
    {
        .publish(.tap(session: id, time: at(ms), location: Point(x: x, y: 20), tapCount: count, fingers: fingers))
    }

    @Test func aDoubleTapWithoutZoomPublishesDoubleTapOnly() {
        var r = TapRecognizer(configuration: .default)
        #expect(Self.tap(&r, id: 1, startMs: 0) == [Self.tapAction(id: 1, ms: 50, count: 1)])
        #expect(r.state.name == .tapped)
        #expect(
            Self.tap(&r, id: 2, startMs: 200) == [
                Self.tapAction(id: 2, ms: 250, count: 2), .doubleTap(session: 2, location: Point(x: 10, y: 20)),
            ])
    }

    /// The actions of the second of two one-finger taps 200 ms apart.
    private static func secondTap(_ c: GestureConfiguration) -> [TapRecognizer.Action] {
        var r = TapRecognizer(configuration: c)
        _ = tap(&r, id: 1, startMs: 0)
        return tap(&r, id: 2, startMs: 200)
    }

    @Test func aDoubleTapZoomIsAnimatedAfterTheSessionOrAppliedAtOnce() {
        var c = GestureConfiguration()
        c.doubleTapZoomFactor = 2
        let here = Point(x: 10, y: 20)
        let count2 = Self.tapAction(id: 2, ms: 250, count: 2)
        #expect(
            Self.secondTap(c) == [count2, .doubleTap(session: 2, location: here), .animateZoom(factor: 2, about: here)])
        c.zoomAnimationMilliseconds = 0
        // Zoomed before `doubleTap`, so its matrix is the zoomed one.
        #expect(Self.secondTap(c) == [count2, .zoom(factor: 2, about: here), .doubleTap(session: 2, location: here)])
    }

    @Test func theZoomIsLimitedToTheScaleLimits() {
        var c = GestureConfiguration()
        c.doubleTapZoomFactor = 4
        var r = TapRecognizer(configuration: c)
        _ = Self.tap(&r, id: 1, startMs: 0)
        // M is at 25x of a 50x maximum: only 2x is left.
        let limited = Self.tap(&r, id: 2, startMs: 200, scale: 25)
        #expect(limited.last == .animateZoom(factor: 2, about: Point(x: 10, y: 20)))
        var atMaximum = TapRecognizer(configuration: c)
        _ = Self.tap(&atMaximum, id: 1, startMs: 0)
        let none = Self.tap(&atMaximum, id: 2, startMs: 200, scale: 50)
        #expect(none.last == .doubleTap(session: 2, location: Point(x: 10, y: 20)), "no zoom is left: \(none)")
    }

    @Test func aTwoFingerTapZoomsOutOnceAndItsDoubleDoesNotZoomIn() {
        var c = GestureConfiguration()
        c.twoFingerTapZoomFactor = 0.5
        c.doubleTapZoomFactor = 2
        var r = TapRecognizer(configuration: c)
        #expect(
            Self.tap(&r, id: 1, startMs: 0, fingers: 2) == [
                Self.tapAction(id: 1, ms: 50, count: 1, fingers: 2),
                .animateZoom(factor: 0.5, about: Point(x: 10, y: 20)),
            ])
        #expect(Self.tap(&r, id: 2, startMs: 200, fingers: 2) == [Self.tapAction(id: 2, ms: 250, count: 2, fingers: 2)])
    }

    @Test func aHeldSingleTapIsPublishedAtItsDeadline() {
        var c = GestureConfiguration()
        c.singleTapWaitsForDoubleTap = true
        var r = TapRecognizer(configuration: c)
        #expect(Self.tap(&r, id: 1, startMs: 0).isEmpty)
        #expect(r.state.name == .waiting)
        #expect(r.nextDeadline == Self.at(350))
        // The held tap carries its deadline as its time.
        #expect(r.handle(.timeout) == [Self.tapAction(id: 1, ms: 350, count: 1)])
        #expect(r.state.name == .tapped && r.nextDeadline == nil)
        #expect(r.handle(.timeout).isEmpty)
    }

    @Test func aHeldTapBecomesADoubleTapOrStandsWhenTheNextLandingCannotComplete() {
        var c = GestureConfiguration()
        c.singleTapWaitsForDoubleTap = true
        var r = TapRecognizer(configuration: c)
        _ = Self.tap(&r, id: 1, startMs: 0)
        // A near landing pushes the deadline to when it can no longer be a tap.
        #expect(r.handle(.landed(mm: Point(x: 12, y: 20), time: Self.at(200))).isEmpty)
        #expect(r.nextDeadline == Self.at(450))
        let second = r.handle(.sessionEnded(Self.facts(id: 2, startMs: 200), time: Self.at(250), cumulativeScale: 1))
        #expect(
            second == [Self.tapAction(id: 2, ms: 250, count: 2), .doubleTap(session: 2, location: Point(x: 10, y: 20))])

        var far = TapRecognizer(configuration: c)
        _ = Self.tap(&far, id: 1, startMs: 0)
        #expect(
            far.handle(.landed(mm: Point(x: 40, y: 20), time: Self.at(200))) == [
                Self.tapAction(id: 1, ms: 200, count: 1)
            ])
        #expect(far.state.name == .tapped)
    }

    @Test func aSessionThatIsNoTapReleasesTheHeldTap() {
        var c = GestureConfiguration()
        c.singleTapWaitsForDoubleTap = true
        var r = TapRecognizer(configuration: c)
        _ = Self.tap(&r, id: 1, startMs: 0)
        var moved = Self.facts(id: 2, startMs: 200)
        moved.moved = true
        #expect(
            r.handle(.sessionEnded(moved, time: Self.at(260), cumulativeScale: 1)) == [
                Self.tapAction(id: 1, ms: 260, count: 1)
            ])
    }

    @Test func aQuickZoomUsesTheTapAndStartsTheCountOver() {
        var c = GestureConfiguration()
        c.singleTapWaitsForDoubleTap = true
        var r = TapRecognizer(configuration: c)
        _ = Self.tap(&r, id: 1, startMs: 0)
        #expect(r.continuesOneFingerTap(landingAt: Point(x: 11, y: 20), time: Self.at(100)))
        #expect(!r.continuesOneFingerTap(landingAt: Point(x: 11, y: 20), time: Self.at(400)))
        #expect(!r.continuesOneFingerTap(landingAt: Point(x: 40, y: 20), time: Self.at(100)))
        #expect(r.handle(.quickZoomBegan(time: Self.at(150))) == [Self.tapAction(id: 1, ms: 150, count: 1)])
        #expect(r.state.name == .ready)
        #expect(!r.continuesOneFingerTap(landingAt: Point(x: 11, y: 20), time: Self.at(200)))
        #expect(r.handle(.quickZoomBegan(time: Self.at(300))).isEmpty)
    }

    @Test func twoFingerTapsDoNotContinueAOneFingerTap() {
        var r = TapRecognizer(configuration: .default)
        _ = Self.tap(&r, id: 1, startMs: 0)
        let two = Self.tap(&r, id: 2, startMs: 100, fingers: 2)
        #expect(two == [Self.tapAction(id: 2, ms: 150, count: 1, fingers: 2)])
        #expect(!r.continuesOneFingerTap(landingAt: Point(x: 10, y: 20), time: Self.at(200)))
    }
}
