import MultitouchCore
import Testing

@testable import Gestures

/// The engine's parts that hold its state, each on its own: the session's facts, what the animator
/// makes of a release, and the segment publisher (issue 22 item 4: GestureEngine only coordinates).
@Suite("GestureSession")
struct GestureSessionTests {
    private static func at(_ ms: Int64) -> Timestamp { Timestamp(microseconds: ms * 1000) }

    @Test func aSessionNumbersItselfAndStartsWithNoFacts() {
        var s = GestureSession()
        #expect(!s.isActive && s.id == 0)
        s.handle(.began(time: Self.at(10), quickZoomPivot: Point(x: 1, y: 2)))
        #expect(s.isActive && s.id == 1 && s.facts.start == Self.at(10))
        #expect(s.facts.quickZoomPivot == Point(x: 1, y: 2))
        s.handle(.segmentBegan)
        s.handle(.cancelled)
        s.handle(.ended)
        s.handle(.began(time: Self.at(20), quickZoomPivot: nil))
        #expect(s.id == 2)
        #expect(!s.facts.moved && !s.facts.cancelled && s.facts.quickZoomPivot == nil)
    }

    @Test func framesAccumulateLandingsAndTheLargestCountsAndTravel() {
        var s = GestureSession()
        s.handle(.began(time: Self.at(0), quickZoomPivot: nil))
        s.handle(
            .frame(
                fingers: 1, joined: (Point(x: 10, y: 10), Point(x: 1, y: 1), 1), travel: 0.5, buttonPressed: false))
        s.handle(
            .frame(
                fingers: 2, joined: (Point(x: 30, y: 10), Point(x: 3, y: 1), 1), travel: 0.2, buttonPressed: false))
        s.handle(.frame(fingers: 1, joined: (.zero, .zero, 0), travel: 0.3, buttonPressed: true))
        #expect(s.facts.landings == 2 && s.facts.maxFingers == 2)
        #expect(s.facts.maxTravel == 0.5)
        #expect(s.facts.clicked)
        #expect(s.facts.tapLocation == Point(x: 20, y: 10))
        #expect(s.facts.tapLocationMM == Point(x: 2, y: 1))
        // Three fingers landing in one frame count even when the frame's count says fewer.
        s.handle(.frame(fingers: 1, joined: (.zero, .zero, 3), travel: 0, buttonPressed: false))
        #expect(s.facts.maxFingers == 3)
    }

    @Test func factsRecordWhatTheEngineReportsAndOutliveTheSession() {
        var s = GestureSession()
        s.handle(.began(time: Self.at(0), quickZoomPivot: Point(x: 5, y: 5)))
        s.handle(.engaged(scale: true, rotation: false))
        #expect(s.facts.scaleEngaged && !s.facts.rotationEngaged)
        s.handle(.engaged(scale: false, rotation: true))
        #expect(s.facts.scaleEngaged && s.facts.rotationEngaged, "engaged stays engaged")
        s.handle(.quickZoomDeclined)
        #expect(s.facts.quickZoomPivot == nil)
        s.handle(.pressed)
        s.handle(.counted(fingers: 2))
        s.handle(.ended)
        #expect(!s.isActive)
        #expect(s.id == 1 && s.facts.pressed && s.facts.lastFingers == 2)
    }
}

@Suite("TransformAnimator: what follows a release")
struct ReleaseDecisionTests {
    private static let time = Timestamp(microseconds: 1_000_000)

    private static func release(_ mode: GestureMode, speedMM: Double) -> TransformAnimator.Release {
        TransformAnimator.Release(
            centroid: Point(x: 40, y: 30), velocity: Point(x: speedMM, y: 0), speedMM: speedMM, mode: mode)
    }

    @Test func nothingFollowsWithMomentumAndRubberBandOff() {
        var a = TransformAnimator(configuration: .default)
        #expect(a.released(Self.release(.pan, speedMM: 500), springBackFactor: 2, at: Self.time) == .none)
        #expect(a.state.name == .idle)
    }

    @Test func aFastPanOrPinchStartsMomentumAndASlowOneDoesNot() {
        var c = GestureConfiguration()
        c.momentum = true
        for mode in [GestureMode.pan, .pinchRotate] {
            var a = TransformAnimator(configuration: c)
            #expect(
                a.released(Self.release(mode, speedMM: 100), springBackFactor: 1, at: Self.time)
                    == .momentum(from: Point(x: 40, y: 30)))
            #expect(a.state.name == .momentum)
            #expect(a.nextDeadline.map { $0 > Self.time } == true)
            var slow = TransformAnimator(configuration: c)
            let minimum = c.momentumMinimumSpeedMillimetersPerSecond
            #expect(
                slow.released(Self.release(mode, speedMM: minimum / 2), springBackFactor: 1, at: Self.time) == .none)
            #expect(slow.state.name == .idle)
        }
        var quick = TransformAnimator(configuration: c)
        #expect(quick.released(Self.release(.quickZoom, speedMM: 100), springBackFactor: 1, at: Self.time) == .none)
    }

    @Test func theRubberBandSpringsBackBeforeAnyMomentum() {
        var c = GestureConfiguration()
        c.momentum = true
        c.rubberBand = true
        var a = TransformAnimator(configuration: c)
        #expect(
            a.released(Self.release(.pinchRotate, speedMM: 100), springBackFactor: 0.5, at: Self.time)
                == .springBack(factor: 0.5, about: Point(x: 40, y: 30)))
        #expect(a.state.name == .idle, "the engine opens the zoom; nothing runs yet")
        #expect(
            a.released(Self.release(.pinchRotate, speedMM: 100), springBackFactor: 1, at: Self.time)
                == .momentum(from: Point(x: 40, y: 30)))
    }
}

@Suite("SegmentPublisher")
struct SegmentPublisherTests {
    private static func at(_ ms: Int64) -> Timestamp { Timestamp(microseconds: ms * 1000) }

    private static func updates(_ events: [GestureEvent]) -> [GestureUpdate] {
        events.compactMap { if case .update(let u) = $0 { return u } else { return nil } }
    }

    @Test func aSegmentBeginsAtIdentityAndEndsWithItsRelease() throws {
        var p = SegmentPublisher(configuration: .default)
        var store = TransformStore()
        store.set(.translation(Point(x: 5, y: 0)))
        let tracks = FingerTracks()
        var out: [GestureEvent] = []
        let segment = TransformStore.Segment(
            mode: .pan, fingers: 1, session: 3, c0: Point(x: 10, y: 10), base: store.current)
        p.begin(segment, store: store, time: Self.at(0), into: &out)
        store.set(AffineTransform.translation(Point(x: 7, y: 0)))
        let release = try #require(p.end(.ended, tracks: tracks, store: store, time: Self.at(20), into: &out))
        let u = Self.updates(out)
        #expect(u.map(\.phase) == [.began, .ended])
        #expect(u.map(\.seq) == [1, 2])
        #expect(u[0].centroid == Point(x: 10, y: 10) && u[0].matrix == .translation(Point(x: 5, y: 0)))
        #expect(u[1].translation == Point(x: 2, y: 0))
        #expect(release.centroid == Point(x: 12, y: 10) && release.mode == .pan)
        #expect(release.velocity == u[1].velocity.translation)
        #expect(p.segment == nil)
        #expect(p.end(.ended, tracks: tracks, store: store, time: Self.at(30), into: &out) == nil)
    }

    @Test func aCancelledSegmentHasNoRelease() {
        var p = SegmentPublisher(configuration: .default)
        let store = TransformStore()
        var out: [GestureEvent] = []
        p.begin(
            TransformStore.Segment(mode: .pinchRotate, fingers: 2, session: 1, c0: .zero, base: .identity),
            store: store, time: Self.at(0), into: &out)
        #expect(p.end(.cancelled, tracks: FingerTracks(), store: store, time: Self.at(5), into: &out) == nil)
        #expect(Self.updates(out).map(\.phase) == [.began, .cancelled])
        #expect(p.segment == nil)
    }

    @Test func anAnimationClosesWithItsLastFrame() {
        var p = SegmentPublisher(configuration: .default)
        var store = TransformStore()
        var out: [GestureEvent] = []
        p.begin(
            TransformStore.Segment(mode: .animatedZoom, fingers: 0, session: 1, c0: .zero, base: .identity),
            store: store, time: Self.at(0), into: &out)
        store.set(.scaling(by: 1.5, about: .zero))
        p.publishAnimation(.changed, time: Self.at(16), scale: 1.5, velocity: .zero, store: store, into: &out)
        #expect(p.segment != nil)
        store.set(.scaling(by: 2, about: .zero))
        p.publishAnimation(.ended, time: Self.at(33), scale: 2, velocity: .zero, store: store, into: &out)
        #expect(p.segment == nil)
        #expect(Self.updates(out).map(\.scale) == [1, 1.5, 2])
        #expect(Self.updates(out).last?.matrix == .scaling(by: 2, about: .zero))
    }

    @Test func aReplacedTransformMovesTheOpenSegmentsBase() {
        var p = SegmentPublisher(configuration: .default)
        var store = TransformStore()
        var out: [GestureEvent] = []
        p.begin(
            TransformStore.Segment(mode: .pan, fingers: 1, session: 1, c0: .zero, base: .identity), store: store,
            time: Self.at(0), into: &out)
        store.set(.translation(Point(x: 3, y: 0)))
        #expect(p.replace(&store, with: .translation(Point(x: 10, y: 0))))
        // The segment's own translation (3) continues: base' = S^-1 * T.
        #expect(p.segment?.base == .translation(Point(x: 7, y: 0)))
        #expect(store.current == .translation(Point(x: 10, y: 0)))
        let singular = AffineTransform(a: 0, b: 0, c: 0, d: 0, tx: 0, ty: 0)
        #expect(!p.replace(&store, with: singular))
        #expect(store.current == .translation(Point(x: 10, y: 0)))
    }
}

@Suite("LongPressRecognizer")
struct LongPressRecognizerTests {
    private static func at(_ ms: Int64) -> Timestamp { Timestamp(microseconds: ms * 1000) }
    private static let here = Point(x: 5, y: 6)

    private static func frame(
        ms: Int64, lifted: Bool = false, travel: Double = 0, moved: Bool = false, cancelled: Bool = false
    ) -> LongPressRecognizer.Event {
        .frame(
            session: 4, lifted: lifted, travel: travel, moved: moved, cancelled: cancelled, location: here,
            time: at(ms))
    }

    private static func phases(_ events: [GestureEvent]) -> [LongPressPhase] {
        events.compactMap { if case .longPress(_, _, let phase, _, _) = $0 { return phase } else { return nil } }
    }

    @Test func aStillPressBeginsAtItsDeadlineAndEndsAtTheLift() {
        var r = LongPressRecognizer(configuration: .default)
        var out: [GestureEvent] = []
        r.handle(.sessionBegan(time: Self.at(0)), into: &out)
        let deadline = Self.at(0).adding(milliseconds: GestureConfiguration.default.longPressDurationMilliseconds)
        #expect(r.nextDeadline == deadline)
        r.handle(Self.frame(ms: 100, travel: 0.5), into: &out)
        #expect(out.isEmpty && r.state.name == .armed)
        r.handle(.timeout(session: 4, fingers: 2, location: Self.here, time: deadline), into: &out)
        #expect(out == [.longPress(session: 4, time: deadline, phase: .began, location: Self.here, fingers: 2)])
        #expect(r.isPressing && r.nextDeadline == nil)
        r.handle(Self.frame(ms: 900, lifted: true), into: &out)
        #expect(Self.phases(out) == [.began, .ended])
        #expect(r.state.name == .idle)
    }

    @Test(arguments: [
        (lifted: true, travel: 0.0, moved: false, cancelled: false),
        (lifted: false, travel: 100.0, moved: false, cancelled: false),
        (lifted: false, travel: 0.0, moved: true, cancelled: false),
        (lifted: false, travel: 0.0, moved: false, cancelled: true),
    ])
    func anArmedPressFails(lifted: Bool, travel: Double, moved: Bool, cancelled: Bool) {
        var r = LongPressRecognizer(configuration: .default)
        var out: [GestureEvent] = []
        r.handle(.sessionBegan(time: Self.at(0)), into: &out)
        r.handle(
            Self.frame(ms: 100, lifted: lifted, travel: travel, moved: moved, cancelled: cancelled), into: &out)
        #expect(r.state.name == .idle && r.nextDeadline == nil && out.isEmpty)
    }

    @Test func aPressThatMovesTooFarIsCancelledAndNoFingerMeansNoPress() {
        var r = LongPressRecognizer(configuration: .default)
        var out: [GestureEvent] = []
        r.handle(.sessionBegan(time: Self.at(0)), into: &out)
        r.handle(.timeout(session: 4, fingers: 1, location: Self.here, time: Self.at(500)), into: &out)
        r.handle(Self.frame(ms: 600, travel: 100), into: &out)
        #expect(Self.phases(out) == [.began, .cancelled])
        var none = LongPressRecognizer(configuration: .default)
        var nothing: [GestureEvent] = []
        none.handle(.sessionBegan(time: Self.at(0)), into: &nothing)
        none.handle(.timeout(session: 4, fingers: 0, location: Self.here, time: Self.at(500)), into: &nothing)
        #expect(nothing.isEmpty && none.state.name == .idle)
        none.handle(.sessionBegan(time: Self.at(1000)), into: &nothing)
        none.handle(.sessionEnded, into: &nothing)
        #expect(none.state.name == .idle && nothing.isEmpty)
    }
}
