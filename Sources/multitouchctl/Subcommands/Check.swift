import ArgumentParser
import Foundation
import Recordings
import TouchPipeline

/// `multitouchctl check`: replays recordings and verifies the pipeline's invariants on each.
struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Replay recordings and verify the pipeline's invariants on each.",
        discussion: """
            Checks that touch phases are well formed, every number is finite, two replays are byte-identical, \
            and the gesture invariants hold (continuity at every segment change, pivot, pan translation equal \
            to the finger motion) with the feel invariants of docs/GESTURES.md (no scale or rotation change at \
            a lift or landing frame beyond what the fingers that stay explain, no rotation below the \
            threshold, no velocity faster than the fingers moved). In a directory, each events-only file is paired with the .desc beside it \
            whose name is the longest prefix of the events file's name. Prints one line per recording; exits 1 \
            naming what failed. With --regions LAYOUT (a JSON array with one array of region objects per \
            client, as in declareRegions) each recording is also replayed with those clients' regions \
            declared on every device, and the routing invariants are checked: every touch has one owner, \
            every touch and gesture session delivered to a region ends exactly once.
            """)

    @Argument(help: "Recordings or directories of recordings.")
    var paths: [String]

    @Option(name: .long, help: "Device description for a single events-only file.")
    var desc: String?

    @Flag(name: .long, help: "Print every failure, not only the first few per recording.")
    var verbose = false

    @Option(name: .long, help: "Region layout (JSON): also check the routing invariants with these clients' regions.")
    var regions: String?

    func run() throws {
        var jobs: [(events: String, description: String?)] = []
        var problems: [String] = []
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                problems.append("\(path): no such file or directory")
                continue
            }
            if isDirectory.boolValue {
                do {
                    let found = try RecordingSet.scan(directory: path)
                    if !found.contains(where: { if case .skipped = $0.status { false } else { true } }) {
                        problems.append(
                            "\(path): no recordings (.evemu, .events with a .desc, libinput .yml) in this directory")
                    }
                    for job in found {
                        switch job.status {
                        case .ready: jobs.append((job.path, job.descriptionPath))
                        case .problem(let why): problems.append("\(job.path): \(why)")
                        case .skipped: break
                        }
                    }
                } catch {
                    problems.append("\(error)")
                }
            } else if path.hasSuffix(".desc") && desc == nil {
                problems.append("\(path): a .desc only describes a device; check its events file with --desc \(path)")
            } else {
                jobs.append((path, desc))
            }
        }
        let layout = try regions.map { try loadRegionLayout($0, command: "check") }
        var failed = 0
        var passed = 0
        for job in jobs {
            let name = job.events.split(separator: "/").last.map(String.init) ?? job.events
            let recording: Recording
            do {
                recording = try RecordingReader.read(path: job.events, descriptionPath: job.description)
            } catch {
                print("FAIL \(name): \(error)")
                failed += 1
                continue
            }
            var report = RecordingCheck.run(recording: recording, name: name)
            var routingText = ""
            if let layout {
                let routed = RoutedReplay.run(
                    recording: recording, source: name, layout: layout, keepingMessages: false)
                report.failures += routed.violations.map { "routing: \($0)" }
                let cancelled = routed.cancellations.values.reduce(0, +)
                routingText =
                    " | routing clients=\(layout.count) touch-messages=\(routed.touchMessages)"
                    + " gesture-events=\(routed.gestureEvents) router-cancelled=\(cancelled)"
            }
            print(CheckFormat.line(report) + routingText)
            if report.passed {
                passed += 1
            } else {
                failed += 1
                for failure in report.failures.prefix(verbose ? .max : 5) { print("    \(failure)") }
                if !verbose && report.failures.count > 5 { print("    ... \(report.failures.count - 5) more") }
            }
        }
        for problem in problems {
            print("FAIL \(problem)")
            failed += 1
        }
        print("check: \(passed) passed, \(failed) failed")
        if failed > 0 { throw ExitCode.failure }
    }
}

enum CheckFormat {
    static func line(_ report: RecordingCheckReport) -> String {
        var parts: [String] = []
        for device in report.devices {
            let info = device.info
            var text = "\(info.deviceClass.rawValue) protocol=\(info.multitouchProtocol.rawValue) slots=\(info.slots)"
            if info.isSemiMT { text += " semi-mt" }
            text += " frames=\(device.evdevFrames) touch-frames=\(device.touches.touchFrames)"
            text += " touches=\(device.touches.touchesBegun) max-down=\(device.touches.maximumTouchesDown)"
            text += " max-fingers=\(device.touches.maximumFingers)"
            if let gestures = device.gestureSummary { text += " | " + gestures }
            parts.append(text)
        }
        return "\(report.passed ? "PASS" : "FAIL") \(report.name): " + parts.joined(separator: " ; ")
    }
}
