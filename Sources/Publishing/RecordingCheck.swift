import Gestures
import MultitouchCore
import Recordings
import TouchPipeline
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

/// The touch and gesture checkers of one device, fed the pipeline's typed output.
struct DeviceChecks {
    var touches = TouchInvariantChecker()
    var gestures: GestureInvariantChecker

    init(kind: DeviceKind, configuration: GestureConfiguration) {
        gestures = GestureInvariantChecker(surface: GestureSurface(kind: kind), configuration: configuration)
    }

    mutating func check(_ output: PipelineOutput) {
        switch output {
        case .frame(let f):
            guard !f.isWithheld else { return }
            touches.observe(f.frame)
            gestures.check(frame: f.frame, events: f.events)
        case .timers(_, let events, _):
            gestures.check(timerEvents: events)
        case .deviceAdded, .recordingNote, .dropped, .routed, .answer, .ended:
            break
        }
    }
}

/// `multitouchctl check` for one recording: replays it twice, compares the bytes, and verifies the
/// invariants of DESIGN.md that the pipeline can check on its own output.
public enum RecordingCheck {
    public static func run(
        recording: Recording, name: String, settings: PipelineSettings = .init()
    ) -> RecordingCheckReport {
        var failures: [String] = []
        var observers = recording.devices.map {
            DeviceChecks(kind: $0.description.kind, configuration: settings.gestures)
        }
        // Digests, not the text: the output of a long recording is many times its size.
        var first = OutputDigest()
        var messageCount = 0
        var frames = [UInt64](repeating: 0, count: recording.devices.count)
        var infos: [DeviceInfo] = []
        var messages: [Message] = []
        var edge = PipelineMessages()
        Replay.run(recording: recording, source: name, settings: settings) { batch in
            for output in batch {
                // Devices are numbered from 1 in the recording's order.
                if let device = output.device, observers.indices.contains(device - 1) {
                    observers[device - 1].check(output)
                }
                if case .deviceAdded(let device) = output { infos.append(PipelineMessages.deviceInfo(device)) }
            }
            edge.append(batch, to: &messages)
            messageCount += messages.count
            first.append(messages)
            messages.removeAll(keepingCapacity: true)
        }
        first.finish()
        var second = OutputDigest()
        MessageReplay.run(recording: recording, source: name, settings: settings) { second.append($0) }
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
