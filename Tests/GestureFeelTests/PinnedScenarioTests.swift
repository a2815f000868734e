import Gestures
import Testing

@testable import GestureFeel

/// Issue 23: every scripted feel scenario also keeps the content pinned under the fingers (DESIGN.md
/// invariant 9), including the ones where the engine leaves a resting thumb out (judged on the touches
/// it uses) and the ones past a scale limit (not judged once the limit is reached).
@Suite("Pinned scripted scenarios")
struct PinnedScenarioTests {
    static let scenarios: [(String, FeelScenario)] = [
        ("pan swipe", FeelReport.panSwipe()), ("lift mid-drag", FeelReport.liftMidDrag()),
        ("slow hand-off", FeelReport.slowHandoff()), ("bounce", FeelReport.bounce()),
        ("twist", FeelReport.twist()), ("sloppy two-finger pan", FeelReport.sloppyTwoFingerPan()),
        ("resting middle finger", FeelReport.restingMiddleFinger()),
        ("pinch past the limit", FeelReport.pinchPastLimit(configuration: .default)),
        ("swipe 60 Hz", FeelReport.swipe(rateHz: 60)), ("fast hand-off", FeelReport.fastHandoff()),
        ("thumb on the button", FeelReport.thumbOnButton()), ("semi-mt third finger", FeelReport.semiMTThirdFinger()),
    ]

    /// The invariant checker after the scenario's replay.
    static func checked(_ scenario: FeelScenario) -> GestureInvariantChecker {
        var checker = GestureInvariantChecker(configuration: scenario.configuration)
        FeelRecordings.feed(FeelTrace.replay(scenario), to: &checker)
        return checker
    }

    @Test(arguments: scenarios.map(\.0))
    func scenarioIsPinned(name: String) throws {
        let scenario = try #require(Self.scenarios.first { $0.0 == name }?.1)
        let checker = Self.checked(scenario)
        #expect(checker.statistics.largestPinError <= 0.25, "\(name): \(checker.statistics.largestPinError) mm")
        #expect(checker.statistics.pinFailedSegments == 0)
        #expect(!checker.violations.contains { $0.message.hasPrefix("pin:") }, "\(checker.violations)")
    }

    /// The thumb scenario is judged at all: its index finger's pan segment counts.
    @Test func thumbScenarioIsJudged() {
        let checker = Self.checked(FeelReport.thumbOnButton())
        #expect(checker.statistics.pinSegments >= 1)
    }
}
