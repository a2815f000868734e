import ArgumentParser
import FoundationEssentials
import MultitouchCore
import Publishing
import Recordings
import TouchPipeline
import TouchScripting
import WireProtocol

/// `multitouchctl bench`: the project's benchmark of the pure pipeline (DESIGN.md budget: over 5
/// million evdev events per second on one core, release build; memory flat over a million-frame
/// replay). One row per recording; scripts/bench.sh adds instruction and allocation counts under
/// valgrind and the daemon's figures.
struct Bench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure the pure pipeline's throughput and memory on recordings (use a release build).",
        discussion: """
            For each recording (files, directories of recordings, and with --generated or no argument the \
            generated fingers-1/2/5/10 and churn recordings), repeats its events (shifted in time) until at \
            least --events events (a longer recording is cut to about --events), then times --runs replays of: the pipeline alone (frames, tracking, \
            gestures, typed messages) and the pipeline plus JSON encoding of every message. Prints the \
            median, min and max events per second and the resident memory. Under valgrind, \
            --only with --toggle-collect='*benchmarkBody*' counts only the measured loop. With \
            --predict-ms or --frame-period-us it also times prediction or a frame-aligned client's resampling \
            and prints the extra time per touch per frame (median against median). \
            With --frame-path it measures the daemon's whole frame path instead (device read to socket \
            write: event loop, pipeline, publishing, client queues, writes to --clients socket clients), \
            per frame after two warm-up passes, and counts heap allocations when \
            checks/bench/malloc-count.so is preloaded (--fail-on-allocation: exit 1 on any). \
            Timing belongs here, never in unit tests.
            """)

    /// Which measurements to run (`--only`).
    enum Part: String, ExpressibleByArgument, CaseIterable {
        case both, pipeline, json
    }

    @Argument(help: "Recordings or directories of recordings (default: the generated ones).")
    var paths: [String] = []

    @Flag(name: .long, help: "Also bench the generated recordings (fingers-1, -2, -5, -10, churn).")
    var generated = false

    @OptionGroup var recordingOptions: RecordingOptions

    @Option(name: .long, help: "Events per run (at least).")
    var events: Int = 2_000_000

    @Option(name: .long, help: "Timed runs per measurement.")
    var runs: Int = 5

    @Option(name: .long, help: "Run only one part: both, pipeline or json.")
    var only: Part = .both

    @Option(name: .long, help: "Write the generated recordings as evemu files into this directory and exit.")
    var save: String?

    @Option(
        name: .customLong("predict-ms"),
        help:
            "Also time the pipeline with predicted touches this many ms ahead, and print the cost per live touch per frame."
    )
    var predictMilliseconds: Int?

    @Option(
        name: .customLong("frame-period-us"),
        help:
            "Also time the pipeline with a frame-aligned client's FrameAligner at this display frame period (µs), and print its cost per touch per frame."
    )
    var framePeriodMicroseconds: Int64?

    @Flag(
        name: .customLong("frame-path"),
        help:
            "Measure the daemon's frame path (device read to socket write) per frame instead of the pipeline."
    )
    var framePath = false

    @Option(name: .long, help: "With --frame-path: comma-separated client counts.")
    var clients: String = "1,8"

    @Option(name: .long, help: "With --frame-path: frames measured (whole passes over the recording, at least one).")
    var frames: Int = 2000

    @Flag(name: .long, help: "With --frame-path: also measure every client routed (a region each).")
    var routed = false

    @Flag(
        name: .customLong("fail-on-allocation"),
        help:
            "With --frame-path: exit 1 when a measured frame allocates (needs LD_PRELOAD of checks/bench/malloc-count.so)."
    )
    var failOnAllocation = false

    func run() throws {
        if let save {
            try FileManager.default.createDirectory(atPath: save, withIntermediateDirectories: true)
            for recording in BenchmarkRecordings.all {
                let path = save + "/" + recording.name + ".evemu"
                let text = EvemuWriter.write(description: recording.device, events: recording.events)
                try text.write(toFile: path, atomically: true, encoding: .utf8)
                print("wrote \(path) (\(recording.events.count) events)")
            }
            return
        }
        var inputs: [(name: String, device: DeviceDescription, events: [InputEvent])] = []
        if generated || paths.isEmpty {
            inputs += BenchmarkRecordings.all.map { ($0.name, $0.device, $0.events) }
        }
        var failed = false
        for (path, description) in try jobs() {
            do {
                let recording = try RecordingReader.read(path: path, descriptionPath: description)
                guard let device = recording.devices.first else { throw BenchError("no device") }
                inputs.append((baseName(path), device.description, device.events))
            } catch {
                printError("multitouchctl bench: \(path): \(error)")
                failed = true
            }
        }
        if framePath {
            print("bench: frame path, \(runs) runs; per frame after two warm-up passes")
            for input in inputs {
                if !benchFramePath(name: input.name, device: input.device, events: input.events) { failed = true }
            }
            if failed { throw ExitCode.failure }
            return
        }
        print("bench: \(runs) runs of at least \(events) events each; events/s median (min-max)")
        for input in inputs {
            guard let stream = Self.repeated(input.events, atLeast: events) else {
                printError("multitouchctl bench: \(input.name) has no whole frame")
                failed = true
                continue
            }
            benchOne(name: input.name, device: input.device, stream: stream)
        }
        if failed { throw ExitCode.failure }
    }

    private func jobs() throws -> [(String, String?)] {
        var jobs: [(String, String?)] = []
        for path in paths {
            var isDirectory = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                printError("multitouchctl bench: \(path): no such file or directory")
                throw ExitCode.failure
            }
            guard isDirectory else {
                if let problem = recordingOptions.problem(with: path) {
                    printError("multitouchctl bench: \(problem)")
                    throw ExitCode.failure
                }
                jobs.append((path, recordingOptions.desc))
                continue
            }
            for job in try RecordingSet.scan(directory: path) {
                switch job.status {
                case .ready: jobs.append((job.path, job.descriptionPath))
                case .problem(let why): printError("multitouchctl bench: \(job.path): \(why)")
                case .skipped: break
                }
            }
        }
        return jobs
    }

    private func benchOne(name: String, device: DeviceDescription, stream: [InputEvent]) {
        let frames = stream.lazy.filter(\.isSynReport).count
        var line = "bench: \(name): \(stream.count) events, \(frames) frames"
        var result = Self.Counts()
        if only != .json {
            let seconds = measure { result = Self.benchmarkBody(stream, device, json: false) }
            line += "; pipeline " + Self.rates(seconds, events: stream.count, frames: frames)
            if let predictMilliseconds {
                var settings = PipelineSettings()
                settings.predictionMilliseconds = predictMilliseconds
                let predicted = measure {
                    result = Self.benchmarkBody(stream, device, json: false, settings: settings)
                }
                let touches = Self.liveTouches(stream, device)
                let extra = (predicted[predicted.count / 2] - seconds[seconds.count / 2]) / Double(max(1, touches))
                line += "; +prediction " + Self.rates(predicted, events: stream.count, frames: frames)
                line += String(format: " (%.3f us per live touch per frame, %d touch-frames)", extra * 1e6, touches)
            }
            if let framePeriodMicroseconds {
                let clock = FrameClock(periodMicroseconds: framePeriodMicroseconds)
                var touchFrames = 0
                let aligned = measure { touchFrames = Self.alignedBody(stream, device, clock: clock) }
                let extra = (aligned[aligned.count / 2] - seconds[seconds.count / 2]) / Double(max(1, touchFrames))
                line += "; +frame-aligned " + Self.rates(aligned, events: stream.count, frames: frames)
                line += String(
                    format: " (%.3f us per touch per display frame, %d touch-frames)", extra * 1e6, touchFrames)
            }
        }
        if only != .pipeline {
            let seconds = measure { result = Self.benchmarkBody(stream, device, json: true) }
            line += "; +json " + Self.rates(seconds, events: stream.count, frames: frames)
            line += "; \(result.bytes / max(1, frames)) JSON bytes/frame"
        }
        line += "; \(result.messages) messages; RSS " + String(format: "%.1f MiB", residentMegabytes())
        print(line)
    }

    /// Counts a run returns so the optimizer keeps its work.
    struct Counts {
        var messages = 0
        var bytes = 0
    }

    /// The measured loop: the pipeline over `stream`, with or without JSON. Not inlined, so that
    /// `valgrind --tool=callgrind --toggle-collect='*benchmarkBody*'` counts exactly this.
    @inline(never)
    static func benchmarkBody(
        _ stream: [InputEvent], _ device: DeviceDescription, json: Bool, settings: PipelineSettings = .init()
    ) -> Counts {
        var pipeline = DevicePipeline(deviceID: 1, description: device, settings: settings)
        var out: [PipelineOutput] = []
        out.reserveCapacity(64)
        var counts = Counts()
        var writer = JSONWriter(capacity: 1 << 20)
        var edge = PipelineMessages()
        // The device's class for the edge, as a replay announces it (nothing is written for it).
        if json { edge.forEachItem(.deviceAdded(pipeline.device)) { _ in } }
        for event in stream {
            pipeline.push(event, into: &out)
            if !json { counts.messages += out.count }  // typed outputs: the pipeline alone makes no message
            if json {
                // The publishing edge: each output's items written as JSON lines, as the daemon's
                // publisher writes them (`PublishedItem.write`: straight from the typed output).
                for output in out { counts.messages += edge.write(output, to: &writer) }
                if writer.count > 1 << 20 {
                    // Hand the batch on and reuse the storage, as a socket's staging buffer is reused
                    // (a fresh 1 MiB writer per batch cost about 200 instructions per event here).
                    counts.bytes += writer.count
                    writer.removeAll()
                }
            }
            out.removeAll(keepingCapacity: true)
        }
        counts.bytes += writer.count
        return counts
    }

    /// The pipeline over `stream` feeding one frame-aligned client's `FrameAligner`, frames at
    /// `clock` as `FrameAligner.replay` runs them; returns the touches delivered (touch-frames).
    @inline(never)
    static func alignedBody(_ stream: [InputEvent], _ device: DeviceDescription, clock: FrameClock) -> Int {
        var pipeline = DevicePipeline(deviceID: 1, description: device)
        var aligner = FrameAligner()
        var out: [Message] = []
        var frameOut: [Message] = []
        out.reserveCapacity(64)
        frameOut.reserveCapacity(64)
        var nextFrame: Int64?
        var touchFrames = 0
        func frame(at time: Int64) {
            aligner.frame(at: Timestamp(microseconds: time), into: &frameOut)
            for case .touches(let m) in frameOut { touchFrames += m.touches.count }
            frameOut.removeAll(keepingCapacity: true)
        }
        for event in stream {
            pipeline.push(event, into: &out)
            for message in out {
                if case .touches(let m) = message {
                    var next = nextFrame ?? clock.frame(atOrAfter: m.time.microseconds)
                    while next < m.time.microseconds {
                        frame(at: next)
                        next &+= clock.periodMicroseconds
                    }
                    nextFrame = next
                }
                aligner.push(message)
            }
            out.removeAll(keepingCapacity: true)
        }
        if var next = nextFrame {
            while !aligner.isIdle {
                frame(at: next)
                next &+= clock.periodMicroseconds
            }
        }
        return touchFrames
    }

    /// Live touches summed over the `touches` messages of a run (what prediction works on), untimed.
    static func liveTouches(_ stream: [InputEvent], _ device: DeviceDescription) -> Int {
        var pipeline = DevicePipeline(deviceID: 1, description: device)
        var out: [Message] = []
        var count = 0
        for event in stream {
            pipeline.push(event, into: &out)
            for case .touches(let m) in out { count += m.touches.filter { !$0.phase.isTerminal }.count }
            out.removeAll(keepingCapacity: true)
        }
        return count
    }

    /// Whole frames of `events`, repeated with a one-second gap (each copy a fresh gesture) until at
    /// least `count` events, or only the whole frames within the first `count` events of a longer
    /// recording; nil when there is no whole frame.
    static func repeated(_ events: [InputEvent], atLeast count: Int) -> [InputEvent]? {
        var base = events
        if base.count > count, let cut = base[..<count].lastIndex(where: \.isSynReport) {
            base.removeSubrange((cut + 1)...)
            return base
        }
        guard let lastSyn = base.lastIndex(where: \.isSynReport), let first = base.first else { return nil }
        base.removeSubrange((lastSyn + 1)...)
        let period = base[lastSyn].time.microseconds - first.time.microseconds + 1_000_000
        var stream: [InputEvent] = []
        stream.reserveCapacity(count + base.count)
        var copy: Int64 = 0
        while stream.count < count {
            for var e in base {
                e.time = Timestamp(microseconds: e.time.microseconds + copy * period)
                stream.append(e)
            }
            copy += 1
        }
        return stream
    }

    private func measure(_ body: () -> Void) -> [Double] {
        var seconds: [Double] = []
        for _ in 0..<max(1, runs) {
            let start = ContinuousClock.now
            body()
            let elapsed = start.duration(to: .now)
            seconds.append(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        }
        return seconds.sorted()
    }

    private static func rates(_ seconds: [Double], events: Int, frames: Int) -> String {
        let median = seconds[seconds.count / 2]
        let rates = seconds.map { Double(events) / $0 / 1e6 }
        return String(
            format: "%.2f M events/s (%.2f-%.2f), %.0f ns/frame", Double(events) / median / 1e6,
            rates.min() ?? 0, rates.max() ?? 0, median / Double(frames) * 1e9)
    }
}

private struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
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
