import MultitouchCore
import Testing

@testable import Gestures

/// The tap rule lives in `TapRecognizer` (issue 22 item 4): it judges the facts of the session that
/// ended, so each disqualifying fact is checked here without an engine.
@Suite("TapRecognizer: the tap rule")
struct TapRecognizerTests {
    /// A one-finger session that landed at 0 ms, still and undisturbed.
    private func session() -> GestureEngine.Session {
        var s = GestureEngine.Session(id: 7, start: Timestamp(microseconds: 0))
        s.maxFingers = 1
        s.landings = 1
        s.landingSum = Point(x: 10, y: 20)
        s.landingSumMM = Point(x: 10, y: 20)
        s.maxTravel = 0.5
        return s
    }

    private func taps(_ s: GestureEngine.Session, liftMs: Int64 = 100) -> [GestureEvent] {
        var recognizer = TapRecognizer(configuration: .default)
        var out: [GestureEvent] = []
        _ = recognizer.sessionEnded(s, time: Timestamp(microseconds: liftMs * 1000), into: &out)
        return out.filter { if case .tap = $0 { return true } else { return false } }
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
