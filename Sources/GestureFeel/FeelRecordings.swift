import Gestures
import MultitouchCore
import Recordings

/// The feel numbers real recordings answer (../shared/recordings: the issue names the two-finger
/// scrolls, the Wacom circles and the N-Trig panel), plus the lift-frame change over every recording.
enum FeelRecordings {
    /// File name fragments of the two-finger scroll recordings (target 4: no rotation, no zoom).
    static let scrolls = ["EP0430M09.2-finger-scroll-down", "SynPS2_Synaptics_TouchPad.two-finger-vert-scroll"]

    static func measure(directory: String, configuration: GestureConfiguration) -> [FeelRow] {
        guard let jobs = try? RecordingSet.scanTree(directory: directory) else {
            return [FeelRow(target: "recordings", measure: "\(directory)", value: "cannot list", goal: "-", met: false)]
        }
        var rows: [FeelRow] = []
        var worstLift = (degrees: 0.0, scale: 0.0, name: "")
        var worstPin = (mm: 0.0, name: "")
        var count = 0
        for job in jobs {
            guard case .ready = job.status else { continue }
            let name = job.path.split(separator: "/").last.map(String.init) ?? job.path
            let recording: Recording
            do {
                recording = try RecordingReader.read(path: job.path, descriptionPath: job.descriptionPath)
            } catch {
                rows.append(
                    FeelRow(target: "recordings", measure: name, value: "\(error)", goal: "readable", met: false))
                continue
            }
            count += 1
            let trace = FeelTrace.replay(recording, configuration: configuration)
            let lift = FeelReport.liftFrameChange(trace)
            let pin = pinError(trace, configuration: configuration)
            if pin > worstPin.mm || worstPin.name.isEmpty { worstPin = (pin, name) }
            if lift.degrees + lift.scale * 100 > worstLift.degrees + worstLift.scale * 100 {
                worstLift = (lift.degrees, lift.scale, name)
            }
            if name.contains("Wacom_ISDv4") {
                rows.append(
                    FeelRow(
                        target: "2 lift frames",
                        measure: "Wacom ISDv4 circle (recording): lift-frame rotation (deg), scale",
                        value: "\(FeelReport.f(lift.degrees, 3)), \(FeelReport.f(lift.scale, 4))",
                        goal: "<= 0.1, <= 0.002",
                        met: lift.degrees <= 0.1 && lift.scale <= 0.002))
            }
            if let scroll = scrolls.first(where: { name.contains($0) }) {
                let d = FeelReport.largestDeviation(trace)
                rows.append(
                    FeelRow(
                        target: "4 intent thresholds",
                        measure: "\(scroll) (recording): largest |rotation| (deg), |scale - 1|",
                        value: "\(FeelReport.f(d.degrees, 2)), \(FeelReport.f(d.scale, 4))", goal: "<= 1, small",
                        met: d.degrees <= 1))
            }
            if name.contains("N-Trig") {
                let taps = trace.events.compactMap {
                    if case .tap(_, _, _, _, let n) = $0 { return n } else { return nil }
                }
                var oneTouchPinches = 0
                for entry in trace.entries {
                    guard let frame = entry.frame, frame.touches.filter({ !$0.phase.isTerminal }).count <= 1 else {
                        continue
                    }
                    for event in entry.events {
                        if case .update(let u) = event, u.phase == .began, u.mode == .pinchRotate {
                            oneTouchPinches += 1
                        }
                    }
                }
                rows.append(
                    FeelRow(
                        target: "9 touchpads",
                        measure: "N-Trig (recording): pinchRotate segments begun with one touch; tap fingers",
                        value: "\(oneTouchPinches); \(taps.map(String.init).joined(separator: ","))",
                        goal: "0; 1 per tap",
                        met: oneTouchPinches == 0 && !taps.contains(where: { $0 > 1 })))
            }
        }
        rows.append(
            FeelRow(
                target: "2 lift frames",
                measure: "all \(count) recordings: worst lift-frame rotation (deg), scale (\(worstLift.name))",
                value: "\(FeelReport.f(worstLift.degrees, 3)), \(FeelReport.f(worstLift.scale, 4))",
                goal: "<= 0.1, <= 0.002",
                met: worstLift.degrees <= 0.1 && worstLift.scale <= 0.002))
        rows.append(
            FeelRow(
                target: "1 pinned",
                measure: "all \(count) recordings: worst pin error (mm, DESIGN.md 9) (\(worstPin.name))",
                value: FeelReport.f(worstPin.mm, 3), goal: "<= 0.25", met: worstPin.mm <= 0.25))
        return rows
    }

    /// The worst pin error (`GestureInvariantChecker`, DESIGN.md invariant 9) of a replay, in mm.
    static func pinError(_ trace: FeelTrace, configuration: GestureConfiguration) -> Double {
        var checker = GestureInvariantChecker(configuration: configuration)
        feed(trace, to: &checker)
        return checker.statistics.largestPinError
    }

    /// Feeds every entry of a replay to an invariant checker, in order.
    static func feed(_ trace: FeelTrace, to checker: inout GestureInvariantChecker) {
        for entry in trace.entries {
            switch entry {
            case .frame(let frame, let events): checker.check(frame: frame, events: events)
            case .timers(let events): checker.check(timerEvents: events)
            }
        }
    }
}
