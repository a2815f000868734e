import ArgumentParser
import Foundation
import MultitouchCore
import Recordings
import TouchPipeline
import WireProtocol

/// `multitouchctl bench`: the project's throughput benchmark for the pure pipeline (DESIGN.md budget:
/// over 5 million evdev events per second on one core, release build; memory flat over a
/// million-frame replay).
struct Bench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure the pure pipeline's throughput and memory on a recording (use a release build).",
        discussion: """
            Repeats the recording's events (shifted in time) until at least --events events, then times \
            --runs replays of: the pipeline alone (frames, tracking, gestures, typed messages) and the \
            pipeline plus JSON encoding. Prints the median, min and max events per second and the resident \
            memory before and after. Timing belongs here, never in unit tests.
            """)

    static let defaultRecording = "touchscreen-pinch-rotate.evemu"

    @Argument(help: """
        Recording to repeat (default: the bundled \(defaultRecording), from tests/fixtures in a checkout or \
        share/multitouchd/recordings where multitouchd is installed).
        """)
    var file: String?

    @Option(name: .long, help: "Device description for an events-only file.")
    var desc: String?

    @Option(name: .long, help: "Events per run (at least).")
    var events: Int = 2_000_000

    @Option(name: .long, help: "Timed runs per measurement.")
    var runs: Int = 5

    func run() throws {
        guard let file = file ?? BundledRecordings.path(Self.defaultRecording) else {
            printError(
                "multitouchctl bench: no recording given and no bundled \(Self.defaultRecording) in "
                    + BundledRecordings.directories.joined(separator: ", "))
            throw ExitCode.failure
        }
        let recording: Recording
        do {
            recording = try RecordingReader.read(path: file, descriptionPath: desc)
        } catch {
            printError("multitouchctl bench: \(error)")
            throw ExitCode.failure
        }
        guard let device = recording.devices.first, let last = device.events.last, let first = device.events.first,
              !device.events.isEmpty
        else {
            printError("multitouchctl bench: \(file) has no events")
            throw ExitCode.failure
        }
        // Whole frames only, repeated with a gap so every copy is a fresh gesture.
        var base = device.events
        if let lastSyn = base.lastIndex(where: \.isSynReport) { base.removeSubrange((lastSyn + 1)...) }
        let period = last.time.microseconds - first.time.microseconds + 1_000_000
        var stream: [InputEvent] = []
        stream.reserveCapacity(events + base.count)
        var copy: Int64 = 0
        while stream.count < events {
            for var e in base {
                e.time = Timestamp(microseconds: e.time.microseconds + copy * period)
                stream.append(e)
            }
            copy += 1
        }
        let frames = stream.lazy.filter(\.isSynReport).count
        print("bench: \(baseName(file)): \(stream.count) events, \(frames) frames, \(copy) copies, \(runs) runs")
        let rssBefore = residentMegabytes()

        var messageCount = 0
        let pipelineOnly = measure(runs: runs) {
            var pipeline = DevicePipeline(deviceID: 1, description: device.description)
            var out: [Message] = []
            out.reserveCapacity(64)
            var count = 0
            for event in stream {
                pipeline.push(event, into: &out)
                count += out.count
                out.removeAll(keepingCapacity: true)
            }
            messageCount = count
        }
        var byteCount = 0
        let withJSON = measure(runs: runs) {
            var pipeline = DevicePipeline(deviceID: 1, description: device.description)
            var out: [Message] = []
            out.reserveCapacity(64)
            var writer = JSONWriter(capacity: 1 << 20)
            var bytes = 0
            for event in stream {
                pipeline.push(event, into: &out)
                for message in out {
                    message.write(to: &writer)
                    writer.newline()
                }
                out.removeAll(keepingCapacity: true)
                if writer.bytes.count > 1 << 20 {
                    bytes += writer.bytes.count
                    writer = JSONWriter(capacity: 1 << 20)
                }
            }
            byteCount = bytes + writer.bytes.count
        }
        let rssAfter = residentMegabytes()
        report("pipeline", pipelineOnly, events: stream.count, frames: frames)
        report("pipeline+json", withJSON, events: stream.count, frames: frames)
        print("bench: messages per run \(messageCount), JSON bytes per run \(byteCount)")
        print(String(format: "bench: resident memory %.1f MiB before, %.1f MiB after", rssBefore, rssAfter))
    }

    private func measure(runs: Int, _ body: () -> Void) -> [Double] {
        var seconds: [Double] = []
        for _ in 0..<max(1, runs) {
            let start = ContinuousClock.now
            body()
            let elapsed = start.duration(to: .now)
            seconds.append(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        }
        return seconds.sorted()
    }

    private func report(_ name: String, _ seconds: [Double], events: Int, frames: Int) {
        let median = seconds[seconds.count / 2]
        let rates = seconds.map { Double(events) / $0 }
        print(String(
            format: "bench: %@: median %.2f M events/s (%.2f M frames/s, %.0f ns/frame), min %.2f, max %.2f M events/s",
            name, Double(events) / median / 1e6, Double(frames) / median / 1e6, median / Double(frames) * 1e9,
            (rates.min() ?? 0) / 1e6, (rates.max() ?? 0) / 1e6))
    }
}

/// Resident set size of this process in MiB (from /proc/self/status), 0 where unavailable.
func residentMegabytes() -> Double {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        let digits = line.split(separator: " ").dropFirst().first.flatMap { Double($0) } ?? 0
        return digits / 1024
    }
    return 0
}
