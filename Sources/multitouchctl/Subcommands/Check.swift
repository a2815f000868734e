import ArgumentParser
import FoundationEssentials
import Publishing
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
            naming what failed. Directories are searched with their sub-folders (a folder inside another one \
            given is checked once). A description no events file uses, a recording without events and a device that \
            is not a touch device are reported as SKIP with the reason, never counted as passed. Every finger \
            segment is held to the pin invariant (DESIGN.md 9, docs/GESTURES.md): once 250 ms passed since it \
            began and since zoom or rotation unlocked, the content under the fingers stays within 0.25 mm of them \
            (beyond the best fit of the unlocked degrees of freedom and a lag up to the pan slop); each line prints \
            the worst pin error (pin=) and the largest one-frame step of the content under the fingers (step=). With --regions LAYOUT (a JSON array with one array of region objects per \
            client, as in declareRegions) each recording is also replayed with those clients' regions \
            declared on every device, and the routing invariants are checked: every touch has one owner, \
            every touch and gesture session delivered to a region ends exactly once. With --noninterference N \
            each recording is also rehearsed with N layouts of six programs, one of them an exclusive PIN pad \
            (DESIGN.md invariant 11): once as it is and once with the pad's touches deleted from it; every \
            other program must receive the same bytes. Devices whose contacts cannot be deleted one by one \
            (protocol A, single touch, semi-mt, touchpads counting fingers beyond their slots) are said, not \
            counted as checked.
            """)

    @Argument(help: "Recordings or directories of recordings.")
    var paths: [String]

    @OptionGroup var recordingOptions: RecordingOptions

    @Flag(name: .long, help: "Print every failure, not only the first few per recording.")
    var verbose = false

    @Option(name: .long, help: "Region layout (JSON): also check the routing invariants with these clients' regions.")
    var regions: String?

    @Option(
        name: .long,
        help: "Also check noninterference: N seeded layouts with an exclusive pad per recording (1...1000).")
    var noninterference: Int?

    func validate() throws {
        if let n = noninterference, !(1...1000).contains(n) {
            throw ValidationError("--noninterference takes 1...1000 layouts")
        }
    }

    func run() throws {
        var jobs: [(events: String, description: String?)] = []
        var problems: [String] = []
        var seen = Set<String>()
        var skipped: [String] = []
        for path in paths {
            var isDirectory = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                problems.append("\(path): no such file or directory")
                continue
            }
            if isDirectory {
                // Sub-folders too; a folder named twice, or inside another one named, is checked once.
                let found: [RecordingJob]
                do {
                    found = try RecordingSet.scanTree(directory: path)
                } catch {
                    problems.append("\(error)")
                    continue
                }
                if !found.contains(where: { if case .skipped = $0.status { false } else { true } }) {
                    problems.append(
                        "\(path): no recordings (.evemu, .events with a .desc, libinput .yml) in this directory")
                }
                for job in found {
                    let key = URL(fileURLWithPath: job.path).standardizedFileURL.path
                    guard seen.insert(key).inserted else { continue }
                    switch job.status {
                    case .ready: jobs.append((job.path, job.descriptionPath))
                    case .problem(let why): problems.append("\(job.path): \(why)")
                    case .skipped(let why):
                        // A description no events file uses, or another recording-named file that is
                        // not a recording: said, never counted as passed.
                        let name = job.path.split(separator: "/").last.map(String.init) ?? job.path
                        let ext = name.split(separator: ".").last.map { $0.lowercased() } ?? ""
                        if RecordingSet.recordingExtensions.contains(ext)
                            && !why.hasPrefix("device description, used by")
                        {
                            skipped.append("\(job.path): \(why)")
                        }
                    }
                }
            } else if let problem = recordingOptions.problem(with: path) {
                problems.append(problem)
            } else {
                jobs.append((path, recordingOptions.desc))
            }
        }
        let layout = try regions.map { try loadRegionLayout($0, command: "check") }
        var failed = 0
        var passed = 0
        var skippedCount = 0
        for line in skipped {
            print("SKIP \(line)")
            skippedCount += 1
        }
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
            if let why = Self.notTouch(recording) {
                print("SKIP \(name): \(why)")
                skippedCount += 1
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
            if let layouts = noninterference {
                routingText += Self.noninterference(recording, layouts: layouts, into: &report)
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
        print(
            "check: \(passed) passed, \(failed) failed, \(skippedCount) skipped (no events to check, or not a touch device)"
        )
        if failed > 0 { throw ExitCode.failure }
    }
}

extension Check {
    /// The differential noninterference check's part of a recording's line (and its failures).
    static func noninterference(_ recording: Recording, layouts: Int, into report: inout RecordingCheckReport) -> String
    {
        if let why = NoninterferenceCheck.unsupported(recording) { return " | noninterference not checked: \(why)" }
        let outcomes = NoninterferenceCheck.run(recording: recording, layouts: layouts)
        let compared = outcomes.filter { $0.skipped == nil && $0.secureContacts > 0 }
        let skippedLayouts = outcomes.filter { $0.skipped != nil }.count
        for o in outcomes { report.failures += o.differences.map { "noninterference (layout \(o.seed)): \($0)" } }
        let hidden = compared.reduce(0) { $0 + $1.secureContacts }
        let bytes = compared.reduce(0) { $0 + $1.comparedBytes }
        return
            " | noninterference layouts=\(compared.count)/\(layouts) secure-contacts=\(hidden) compared-bytes=\(bytes)"
            + (skippedLayouts > 0 ? " skipped=\(skippedLayouts)" : "")
    }

    /// Why a recording is no touch recording to check (nil when it is one): no device serves touch, or
    /// no device recorded any event.
    static func notTouch(_ recording: Recording) -> String? {
        if recording.devices.isEmpty { return "no device in the recording" }
        let touch = recording.devices.filter { $0.description.deviceClass != .other }
        if touch.isEmpty {
            let reasons = recording.devices.map { $0.description.classification.reason }
            return "not a touch device (\(reasons.joined(separator: "; ")))"
        }
        if touch.allSatisfy({ $0.events.isEmpty }) { return "a device description without events" }
        return nil
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
