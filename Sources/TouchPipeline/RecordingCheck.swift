import Gestures
import MultitouchCore
import Recordings
import WireProtocol

/// The result of checking one recording: the invariants that failed (empty when it passed) and the
/// statistics the check line prints.
public struct RecordingCheckReport: Sendable {
    public struct DeviceReport: Sendable {
        public var info: DeviceInfo
        public var evdevFrames: UInt64 = 0
        public var touches = TouchInvariantChecker()
        /// One-line gesture statistics (sessions, segments, taps, final transform, continuity error).
        public var gestureSummary: String?
        public var gestures = GestureInvariantChecker.Statistics()
    }

    public var name: String
    public var devices: [DeviceReport]
    public var messages: Int
    public var bytes: Int
    public var failures: [String]

    public var passed: Bool { failures.isEmpty }
}

/// Observer that feeds the touch checker of one device.
struct CheckObserver: PipelineObserver {
    var touches = TouchInvariantChecker()
    var gestures: GestureInvariantChecker

    init(isSemiMT: Bool, configuration: GestureConfiguration) {
        gestures = GestureInvariantChecker(isSemiMT: isSemiMT, configuration: configuration)
    }

    mutating func observe(frame: TouchFrame, events: [GestureEvent]) {
        touches.observe(frame)
        gestures.check(frame: frame, events: events)
    }

    mutating func observe(timerEvents: [GestureEvent]) { gestures.check(timerEvents: timerEvents) }
}

/// `multitouchctl check` for one recording: replays it twice, compares the bytes, and verifies the
/// invariants of DESIGN.md that the pipeline can check on its own output.
public enum RecordingCheck {
    public static func run(
        recording: Recording, name: String, settings: PipelineSettings = .init()
    ) -> RecordingCheckReport {
        var failures: [String] = []
        var observers = recording.devices.map {
            CheckObserver(isSemiMT: $0.description.isSemiMT, configuration: settings.gestures)
        }
        // Digests, not the text: the output of a long recording is many times its size.
        var first = OutputDigest()
        var messageCount = 0
        var frames = [UInt64](repeating: 0, count: recording.devices.count)
        var infos: [DeviceInfo] = []
        Replay.run(recording: recording, source: name, settings: settings, observers: &observers) { batch in
            messageCount += batch.count
            for message in batch {
                if case .deviceAdded(let info) = message { infos.append(info) }
            }
            first.append(batch)
        }
        first.finish()
        var second = OutputDigest()
        Replay.run(recording: recording, source: name, settings: settings) { second.append($0) }
        second.finish()
        if let offset = first.firstDifference(from: second) {
            failures.append(
                "determinism: two replays differ (first in the MiB at byte \(offset); \(first.byteCount) and \(second.byteCount) bytes)"
            )
        }
        if first.nonFiniteCount > 0 {
            failures.append("finite: \(first.nonFiniteCount) non-finite numbers written as null")
        }
        var devices: [RecordingCheckReport.DeviceReport] = []
        for index in observers.indices {
            observers[index].touches.finish()
            for violation in observers[index].touches.violations {
                failures.append("device \(index + 1) phases: \(violation)")
            }
            observers[index].gestures.finish()
            for violation in observers[index].gestures.violations.prefix(50) {
                failures.append("device \(index + 1) gestures: \(violation)")
            }
            var report = RecordingCheckReport.DeviceReport(info: infos[index])
            report.touches = observers[index].touches
            report.gestures = observers[index].gestures.statistics
            let g = report.gestures
            report.gestureSummary =
                "sessions=\(g.sessions) segments pan=\(g.panSegments) pinchRotate=\(g.pinchRotateSegments)"
                + " quickZoom=\(g.quickZoomSegments) animation=\(g.animationSegments)"
                + " taps=\(g.taps) doubleTaps=\(g.doubleTaps) longPresses=\(g.longPresses)"
                + " scale=\(rounded(g.finalScale, 4)) rotation=\(rounded(g.finalRotation * 180 / Double.pi, 2))deg"
                + " max-continuity-error=\(g.largestContinuityError)"
                + " lift-frame-excess=\(rounded(g.largestLiftRotation, 3))deg/\(rounded(g.largestLiftScale, 5))"
                + " pin=\(rounded(g.largestPinError, 3))mm step=\(rounded(g.largestContentStep, 2))"
            report.evdevFrames = UInt64(recording.devices[index].events.lazy.filter(\.isSynReport).count)
            devices.append(report)
            frames[index] = report.evdevFrames
        }
        return RecordingCheckReport(
            name: name, devices: devices, messages: messageCount, bytes: first.byteCount, failures: failures)
    }
}

private func rounded(_ value: Double, _ digits: Int) -> Double {
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    return (value * scale).rounded() / scale
}
