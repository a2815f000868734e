import ArgumentParser
import FoundationEssentials
import Recordings
import TouchPipeline
import TouchPlot

/// `multitouchctl plot`: a picture of a recording's replay (TouchPlot), as SVG or PNG.
struct Plot: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plot",
        abstract: "Draw a recording's touches, gestures and transform as an SVG or PNG picture.",
        discussion: """
            Replays the recording through the pipeline (as `replay` does) and draws one device: its outline \
            in the published space, each touch's trail in its own colour with its id at the landing and a \
            cross at the lift (red when cancelled), the segment mode as the trail's dash (solid pan, dashed \
            pinchRotate, dotted outside a segment) with a ring where a segment begins, taps, double taps and \
            long presses as symbols; below, a timeline of the segments, the cumulative scale, rotation and \
            translation of the published matrix and the finger count. The SVG is deterministic (same input, \
            same bytes). A .png output is rendered from it by rsvg-convert (Debian package librsvg2-bin).
            """)

    @Argument(help: "The recording (evemu .evemu/.events, or libinput record .yml).")
    var file: String

    @OptionGroup var recordingOptions: RecordingOptions

    @Option(
        name: .long, help: "Configuration file whose [gestures] and device rules apply (default: built-in defaults).")
    var config: String?

    @Option(name: .long, help: "Which device of a multi-device recording to draw (1 is the first).")
    var device: Int = 1

    @Option(name: .shortAndLong, help: "The picture to write: FILE.svg or FILE.png.")
    var output: String

    func run() throws {
        let isPNG: Bool
        switch URL(fileURLWithPath: output).pathExtension.lowercased() {
        case "svg": isPNG = false
        case "png": isPNG = true
        default:
            printError("multitouchctl plot: -o \(output): the file name must end in .svg or .png")
            throw ExitCode.validationFailure
        }
        let recording = try recordingOptions.read(file, command: "plot")
        guard recording.devices.indices.contains(device - 1) else {
            printError("multitouchctl plot: --device \(device): \(file) has \(recording.devices.count) device(s)")
            throw ExitCode.validationFailure
        }
        for note in recording.notes { printError("multitouchctl plot: note: \(note)") }
        if recording.devices.count > 1 {
            printError(
                "multitouchctl plot: \(file) has \(recording.devices.count) devices; drawing device \(device) (--device)"
            )
        }
        let settings = try loadSettings(
            configPath: config, path: file, description: recording.devices[device - 1].description)
        let data = PlotData.replay(recording: recording, name: baseName(file), settings: settings, device: device - 1)
        let svg = SVGPlot.render(data)
        let size = SVGPlot.size(of: data)
        do {
            if isPNG {
                try PNGRenderer.write(svg: svg, to: output)
            } else {
                try Data(svg).write(to: URL(fileURLWithPath: output))
            }
        } catch let failure as PNGRenderer.Failure {
            printError("multitouchctl plot: \(failure)")
            throw ExitCode.failure
        } catch {
            printError("multitouchctl plot: cannot write \(output): \(FileErrorText.describe(error))")
            throw ExitCode.failure
        }
        print(
            "plot: wrote \(output) (\(size.width)x\(size.height) px): \(data.frameCount) frames, "
                + "\(data.trails.count) touches, \(data.segments.count) segments, \(data.marks.count) discrete gestures"
        )
    }
}
