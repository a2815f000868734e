import Foundation
import MultitouchCore
import MultitouchTestKit
import Recordings
import Testing

@testable import Gestures

/// Runs touch frames through an engine and the invariant checker the way a replay does: timers due
/// before a frame first, pending timers after the last one.
private func check(_ frames: [TouchFrame], semi: Bool) -> (GestureInvariantChecker, [GestureEvent]) {
    let surface = semi ? GestureSurface(kind: .semiMTTouchpad) : .touchscreen
    var engine = GestureEngine(surface: surface)
    var checker = GestureInvariantChecker(surface: surface)
    var all: [GestureEvent] = []
    for frame in frames {
        if let deadline = engine.nextDeadline, deadline < frame.time {
            let fired = engine.advance(to: frame.time)
            checker.check(timerEvents: fired)
            all += fired
        }
        let out = engine.process(frame)
        checker.check(frame: frame, events: out)
        all += out
    }
    while let deadline = engine.nextDeadline {
        let fired = engine.advance(to: deadline)
        checker.check(timerEvents: fired)
        all += fired
    }
    checker.finish()
    return (checker, all)
}

@Suite("Engine on recorded input")
struct RecordedInputTests {
    @Test(arguments: Fixtures.all.map(\.name)) func fixtureKeepsTheInvariants(name: String) throws {
        let fixture = try #require(Fixtures.all.first { $0.name == name })
        let frames = TouchFrames.track(fixture.events, device: fixture.device)
        let (checker, events) = check(frames, semi: fixture.device.kind.isSemiMT)
        #expect(checker.isClean, "\(name): \(checker.violations.prefix(5))")
        #expect(checker.statistics.sessions > 0)
        #expect(!events.isEmpty)
    }

    @Test func pinchRotateFixtureHandsOff() throws {
        let fixture = Fixtures.pinchRotate()
        let (checker, events) = check(TouchFrames.track(fixture.events, device: fixture.device), semi: false)
        // pinch out and turn, 2 -> 1 pan, 1 -> 2 pinch in: one session, pinch / pan / pinch.
        #expect(checker.statistics.sessions == 1)
        let began = events.updates.filter { $0.phase == .began }.map(\.mode)
        #expect(began == [.pinchRotate, .pan, .pinchRotate])
        let firstPinchEnd = try #require(events.updates.first { $0.phase == .ended })
        #expect(abs(firstPinchEnd.scale - 2) < 0.01)
        #expect(abs(firstPinchEnd.rotation - Double.pi / 2) < 0.01)
        #expect(checker.isClean)
    }

    @Test func discreteFixtures() {
        let tour = Fixtures.panTapLongPress()
        let (checker, _) = check(TouchFrames.track(tour.events, device: tour.device), semi: false)
        #expect(checker.statistics.taps >= 2)
        #expect(checker.statistics.doubleTaps == 1)
        #expect(checker.statistics.longPresses == 1)
        #expect(checker.statistics.panSegments >= 1)
        let palm = Fixtures.palm()
        let (palmChecker, _) = check(TouchFrames.track(palm.events, device: palm.device), semi: false)
        #expect(palmChecker.statistics.cancelledSessions >= 1)
        #expect(palmChecker.isClean, "\(palmChecker.violations)")
    }

    static let shared: String = {
        // Tests/GesturesTests/<file> -> checkout -> ../shared/recordings
        var path = #filePath
        for _ in 0..<4 { path = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)]) }
        return path + "/shared/recordings"
    }()

    /// The shared recordings live beside the checkout on the development machine only.
    static var available: Bool { FileManager.default.fileExists(atPath: shared) }

    @Test(.enabled(if: available)) func sharedRecordingsKeepTheInvariants() throws {
        let jobs = try RecordingSet.scan(directory: Self.shared)
        var checked = 0
        for job in jobs {
            guard case .ready = job.status else { continue }
            let recording = try RecordingReader.read(path: job.path, descriptionPath: job.descriptionPath)
            for device in recording.devices {
                let frames = TouchFrames.track(device.events, device: device.description)
                let (checker, _) = check(frames, semi: device.description.kind.isSemiMT)
                #expect(checker.isClean, "\(job.path): \(checker.violations.prefix(5))")
                #expect(checker.statistics.sessions > 0, "\(job.path): no session")
                checked += 1
            }
        }
        #expect(checked >= 9)  // the README's nine replayable recordings
    }
}
