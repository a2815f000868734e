import ArgumentParser
import FoundationEssentials
import MultitouchCore
import Publishing
import Recordings
import TouchPipeline
import TouchRouting
import TouchVocabulary
import WireProtocol

/// `multitouchctl replay`: runs a recording through the pipeline and prints every frame's touches and
/// gestures.
struct Replay: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Replay an evemu or libinput-record recording through the touch and gesture pipeline.",
        discussion: """
            Prints each frame's touches and the gestures they make. The readable form is for people and may \
            change; with --json every line is one message exactly as a socket client of multitouchd receives \
            it (docs/PROTOCOL.md). With --regions LAYOUT (a JSON array with one array of region objects per \
            client, as in declareRegions) it prints instead what each of those clients receives from \
            multitouchd --replay once it has declared its regions: with --json one {"client":N,"message":{...}} \
            per line, the message exactly as that client receives it.
            """)

    @Argument(help: "The recording (evemu .evemu/.events, or libinput record .yml).")
    var file: String

    @OptionGroup var recordingOptions: RecordingOptions

    @Flag(name: .long, help: "Print one JSON message per line (the wire protocol).")
    var json = false

    @Option(
        name: .long, help: "Configuration file whose [gestures] and device rules apply (default: built-in defaults).")
    var config: String?

    @Option(name: .long, help: "Region layout (JSON): print what each client declaring these regions receives.")
    var regions: String?

    @Option(
        name: .customLong("predict-ms"),
        help: "Add predicted touches and matrices this many ms (0-50) after each message's time (docs/PREDICTION.md).")
    var predictMilliseconds: Int?

    @Option(
        name: .customLong("frame-period-us"),
        help: """
            Print what a client with this display frame period (µs) receives: one resampled touches message per \
            frame, at frame time - 5 ms, with each touch's raw samples as coalesced (docs/PREDICTION.md).
            """)
    var framePeriodMicroseconds: Int64?

    @Option(
        name: .customLong("frame-phase-us"),
        help: "With --frame-period-us: the frames are at phase + k * period µs in the recording's time (default 0).")
    var framePhaseMicroseconds: Int64 = 0

    func run() throws {
        let recording = try recordingOptions.read(file, command: "replay")
        var settings = try loadSettings(
            configPath: config, path: file, description: recording.devices.first?.description)
        if let predictMilliseconds {
            guard (0...50).contains(predictMilliseconds) else {
                printError("multitouchctl replay: --predict-ms takes 0...50 milliseconds")
                throw ExitCode.validationFailure
            }
            guard regions == nil else {
                printError("multitouchctl replay: --predict-ms does not apply to --regions")
                throw ExitCode.validationFailure
            }
            settings.predictionMilliseconds = predictMilliseconds
        }
        var output = StandardOutput()
        if let framePeriodMicroseconds {
            guard (1_000...1_000_000).contains(framePeriodMicroseconds), regions == nil else {
                printError(
                    "multitouchctl replay: --frame-period-us takes 1000...1000000 µs and does not apply to --regions")
                throw ExitCode.validationFailure
            }
            let clock = FrameClock(
                periodMicroseconds: framePeriodMicroseconds, phaseMicroseconds: framePhaseMicroseconds)
            FrameAligner.replay(recording: recording, source: baseName(file), settings: settings, clock: clock) {
                batch in
                for message in batch { output.write(json ? message.jsonLine() : ReadableFormat.line(for: message)) }
            }
            output.flush()
            return
        }
        if let regions {
            let layout = try loadRegionLayout(regions, command: "replay")
            let result = RoutedReplay.run(
                recording: recording, source: baseName(file), layout: layout, settings: settings)
            for routed in result.messages {
                if json {
                    output.write("{\"client\":\(routed.client.rawValue),\"message\":\(routed.message.jsonLine())}")
                } else {
                    output.write("[client \(routed.client.rawValue)] " + ReadableFormat.line(for: routed.message))
                }
            }
            output.flush()
            for violation in result.violations { printError("multitouchctl replay: routing: \(violation)") }
            if !result.violations.isEmpty { throw ExitCode.failure }
            return
        }
        var published = PublishedOutput(json: json, horizon: predictMilliseconds)
        TouchPipeline.Replay.run(recording: recording, source: baseName(file), settings: settings) { batch in
            published.print(batch, to: &output)
        }
        output.flush()
    }
}

/// Reads a region layout file for `--regions` (see `RegionLayout`), or exits with the reason.
func loadRegionLayout(_ path: String, command: String) throws -> [[Region]] {
    guard let data = FileManager.default.contents(atPath: path) else {
        printError("multitouchctl \(command): cannot read \(path)")
        throw ExitCode.failure
    }
    do {
        return try RegionLayout.decode(Array(data))
    } catch {
        printError("multitouchctl \(command): \(path): \(error)")
        throw ExitCode.failure
    }
}
