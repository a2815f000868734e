import ArgumentParser
import FoundationEssentials
import Gestures
import MultitouchCore
import Prediction
import Recordings
import TouchPipeline

/// `multitouchctl predict-report`: how far the daemon's touch predictor is from where the fingers
/// went, beside the reference predictors, per recording and per device class (docs/PREDICTION.md).
struct PredictReport: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "predict-report",
        abstract: "Score the touch predictor against recordings, beside reference predictors.",
        discussion: """
            Replays each recording (directories: every recording in them and their subdirectories) through \
            the pipeline and, at every sample of every touch, predicts its position H ms later with the \
            daemon's predictor and with the references (none: no prediction; last-two: linear extrapolation \
            of the last two samples; least-squares: a line over the last 50 ms; kalman: a constant-acceleration \
            Kalman filter with Chromium's constants). The truth is the touch's own later position, \
            interpolated. Prints Markdown tables in millimetres: mean/p95 error per recording and horizon, \
            then per device class, the wrong-direction rate, the error in the 50 ms after a stop and how far \
            a prediction went past where the finger came to rest, and whether the targets of issue 20 are met.
            """)

    @Argument(help: "Recordings or directories of recordings.")
    var paths: [String]

    @Option(name: .long, help: "Horizons in milliseconds, comma separated.")
    var horizons = "8,16,33"

    @Option(name: .long, help: "Configuration file whose [gestures] and device rules apply.")
    var config: String?

    @Flag(name: .long, help: "Read only the recordings directly in each directory, not its subdirectories.")
    var topLevel = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Predictor parameters for tuning: jerk,noise,stationary,acceleration,maximum,jump,step.",
            visibility: .hidden))
    var parameters: String?

    func run() throws {
        let hs = horizons.split(separator: ",").compactMap { Int(String($0).trimmingWhitespace()) }
        guard !hs.isEmpty, hs.allSatisfy({ $0 > 0 && $0 <= 200 }) else {
            printError("multitouchctl predict-report: --horizons takes milliseconds 1...200, e.g. 8,16,33")
            throw ExitCode.validationFailure
        }
        var override: PredictorParameters?
        if let parameters {
            let v = parameters.split(separator: ",").compactMap { Double($0) }
            guard v.count == 7 else {
                printError("multitouchctl predict-report: --parameters takes seven numbers")
                throw ExitCode.validationFailure
            }
            override = PredictorParameters(
                jerkDensity: v[0], measurementNoise: v[1], stationarySpeed: v[2], accelerationWeight: v[3],
                maximumDisplacement: v[4], jumpSpeed: v[5], stepSpeedFactor: v[6])
        }
        let kinds: [PredictorKind] = [.none, .lastTwo, .leastSquares, .kalman, .daemon]
        var jobs: [RecordingJob] = []
        for path in paths {
            var isDirectory = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                printError("multitouchctl predict-report: \(path): no such file or directory")
                throw ExitCode.failure
            }
            if isDirectory {
                jobs += try Self.scan(path, recursive: !topLevel)
            } else {
                jobs.append(RecordingJob(path: path, status: .ready))
            }
        }
        var output = StandardOutput()
        var perClass: [DeviceClass: PredictionEvaluation] = [:]
        var rows: [String] = []
        for job in jobs {
            guard case .ready = job.status else { continue }
            let recording: Recording
            do {
                recording = try RecordingReader.read(path: job.path, descriptionPath: job.descriptionPath)
            } catch {
                printError("multitouchctl predict-report: \(error)")
                continue
            }
            let settings = try loadSettings(
                configPath: config, path: job.path, description: recording.devices.first?.description)
            var collectors = [TrackCollector](repeating: TrackCollector(), count: recording.devices.count)
            TouchPipeline.Replay.run(recording: recording, settings: settings) { batch in
                // Devices are numbered from 1 in the recording's order.
                for case .frame(let f) in batch where collectors.indices.contains(f.device - 1) {
                    collectors[f.device - 1].observe(frame: f.frame)
                }
            }
            for (device, collector) in zip(recording.devices, collectors) {
                let deviceClass = device.description.deviceClass
                let tuned = override ?? .tuned(for: deviceClass == .touchscreen ? .direct : .indirect)
                var evaluation = PredictionEvaluation(kinds: kinds, horizons: hs, parameters: tuned)
                for track in collector.finished where track.count > 1 { evaluation.add(track: track) }
                guard evaluation.score(.none, horizon: hs[0])?.count ?? 0 > 0 else { continue }
                perClass[deviceClass, default: PredictionEvaluation(kinds: kinds, horizons: hs, parameters: tuned)]
                    .merge(evaluation)
                for h in hs { rows.append(Self.row(baseName(job.path), deviceClass.rawValue, h, evaluation, kinds)) }
            }
        }
        let header =
            "| recording | class | H ms | n | " + kinds.map { "\($0.rawValue) mean / p95" }.joined(separator: " | ")
            + " | daemon / none | wrong direction (daemon, kalman) | stops | after-stop mean (daemon / kalman) "
            + "| overshoot max (daemon / last-two / kalman) |"
        let rule = "|" + String(repeating: "---|", count: 10 + kinds.count)
        output.write("Per recording (mm):")
        output.write("")
        output.write(header)
        output.write(rule)
        for row in rows { output.write(row) }
        output.write("")
        output.write("Per device class (mm):")
        output.write("")
        output.write(header)
        output.write(rule)
        let classes = perClass.keys.sorted { $0.rawValue > $1.rawValue }
        for deviceClass in classes {
            guard let evaluation = perClass[deviceClass] else { continue }
            for h in hs { output.write(Self.row("all", deviceClass.rawValue, h, evaluation, kinds)) }
        }
        output.write("")
        output.write("Targets (issue 20), per class at 16 and 33 ms:")
        output.write("")
        for deviceClass in classes {
            guard let evaluation = perClass[deviceClass] else { continue }
            for line in Self.targets(evaluation, deviceClass) { output.write("- " + line) }
        }
        output.flush()
    }

    /// Every recording job in `directory` and its subdirectories, sorted by path.
    static func scan(_ directory: String, recursive: Bool) throws -> [RecordingJob] {
        var jobs: [RecordingJob]
        do {
            jobs = try RecordingSet.scan(directory: directory)
        } catch {
            printError("multitouchctl predict-report: \(error)")
            throw ExitCode.failure
        }
        guard recursive else { return jobs }
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        for entry in entries.sorted() {
            let path = directory.hasSuffix("/") ? directory + entry : directory + "/" + entry
            var isDirectory = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory {
                jobs += try scan(path, recursive: true)
            }
        }
        return jobs
    }

    static func row(
        _ name: String, _ deviceClass: String, _ h: Int, _ e: PredictionEvaluation, _ kinds: [PredictorKind]
    ) -> String {
        let scores = kinds.map { e.score($0, horizon: h) }
        let cells = scores.map { s in s.map { "\(f($0.mean)) / \(f($0.p95))" } ?? "-" }
        let none = e.score(.none, horizon: h)
        let daemon = e.score(.daemon, horizon: h)
        let kalman = e.score(.kalman, horizon: h)
        let ratio = (none?.mean ?? 0) > 0 ? f((daemon?.mean ?? 0) / (none?.mean ?? 1)) : "-"
        let wrong = "\(percent(daemon?.wrongDirectionRate ?? 0)), \(percent(kalman?.wrongDirectionRate ?? 0))"
        let two = e.score(.lastTwo, horizon: h)
        let stop =
            "\(daemon?.stopCount ?? 0) | \(f(daemon?.stopMean ?? 0)) / \(f(kalman?.stopMean ?? 0)) | "
            + "\(f(daemon?.stopOvershoot ?? 0)) / \(f(two?.stopOvershoot ?? 0)) / \(f(kalman?.stopOvershoot ?? 0))"
        return "| \(name) | \(deviceClass) | \(h) | \(none?.count ?? 0) | " + cells.joined(separator: " | ")
            + " | \(ratio) | \(wrong) | \(stop) |"
    }

    /// The issue's targets at 16 and 33 ms: mean and p95 no worse than the best reference, and at most
    /// 0.4x no prediction's mean at 16 ms.
    static func targets(_ e: PredictionEvaluation, _ deviceClass: DeviceClass) -> [String] {
        var lines: [String] = []
        for h in [16, 33] {
            guard let daemon = e.score(.daemon, horizon: h) else { continue }
            let references = [PredictorKind.none, .lastTwo, .leastSquares, .kalman].compactMap {
                e.score($0, horizon: h)
            }
            let bestMean = references.map(\.mean).min() ?? 0
            let bestP95 = references.map(\.p95).min() ?? 0
            let meanMet = daemon.mean <= bestMean
            let p95Met = daemon.p95 <= bestP95
            var line =
                "\(deviceClass.rawValue) \(h) ms: mean \(f(daemon.mean)) vs best reference \(f(bestMean)) "
                + "(\(meanMet ? "met" : "NOT met")), p95 \(f(daemon.p95)) vs \(f(bestP95)) (\(p95Met ? "met" : "NOT met"))"
            if h == 16, let none = e.score(.none, horizon: h), none.mean > 0 {
                let ratio = daemon.mean / none.mean
                line += ", \(f(ratio))x no prediction (\(ratio <= 0.4 ? "met" : "NOT met"): <= 0.4x)"
            }
            lines.append(line)
        }
        return lines
    }

    static func f(_ v: Double) -> String { String(format: "%.3f", v) }
    static func percent(_ v: Double) -> String { String(format: "%.1f%%", v * 100) }
}

/// Collects every touch's path (time, millimetres) from the pipeline's frames, one sample per instant.
struct TrackCollector {
    private var open: [UInt64: [TrackSample]] = [:]
    private(set) var finished: [[TrackSample]] = []

    mutating func observe(frame: TouchFrame) {
        for touch in frame.touches {
            let sample = TrackSample(time: touch.timestamp.microseconds, millimeters: touch.millimeters)
            var track = open[touch.id] ?? []
            if let last = track.last, last.time >= sample.time {
                track[track.count - 1].millimeters = sample.millimeters
            } else {
                track.append(sample)
            }
            if touch.phase.isTerminal {
                finished.append(track)
                open[touch.id] = nil
            } else {
                open[touch.id] = track
            }
        }
    }
}
