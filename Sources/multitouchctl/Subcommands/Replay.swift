import ArgumentParser
import Gestures
import MultitouchCore
import Recordings
import TouchPipeline
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
            it (docs/PROTOCOL.md).
            """)

    @Argument(help: "The recording (evemu .evemu/.events, or libinput record .yml).")
    var file: String

    @Option(name: .long, help: "Device description (.desc) for an events-only evemu file.")
    var desc: String?

    @Flag(name: .long, help: "Print one JSON message per line (the wire protocol).")
    var json = false

    @Option(
        name: .long, help: "Configuration file whose [gestures] and device rules apply (default: built-in defaults).")
    var config: String?

    func run() throws {
        if file.hasSuffix(".desc") && desc == nil {
            printError(
                "multitouchctl replay: \(file) only describes a device (no events); replay its events file with --desc \(file)"
            )
            throw ExitCode.failure
        }
        let recording: Recording
        do {
            recording = try RecordingReader.read(path: file, descriptionPath: desc)
        } catch {
            printError("multitouchctl replay: \(error)")
            throw ExitCode.failure
        }
        let settings = try loadSettings(
            configPath: config, path: file, description: recording.devices.first?.description)
        var output = StandardOutput()
        TouchPipeline.Replay.run(recording: recording, source: baseName(file), settings: settings) { batch in
            for message in batch {
                if json {
                    output.write(message.jsonLine())
                } else {
                    output.write(ReadableFormat.line(for: message))
                }
            }
        }
        output.flush()
    }
}
