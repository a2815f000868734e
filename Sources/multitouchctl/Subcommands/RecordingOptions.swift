import ArgumentParser
import Recordings

/// `--desc` and reading a recording named on the command line: declared once for every command that
/// takes a recording (replay, plot, check, bench, view) and included with `@OptionGroup`.
struct RecordingOptions: ParsableArguments {
    @Option(name: .long, help: "Device description (.desc) for an events-only evemu file.")
    var desc: String?

    /// Why `path`, named on the command line, cannot be read as a recording: a `.desc` alone describes
    /// a device and holds no events. Nil when it can be read.
    func problem(with path: String) -> String? {
        guard path.hasSuffix(".desc") && desc == nil else { return nil }
        return "\(path) only describes a device (no events); name its events file and pass this one as --desc \(path)"
    }

    /// The recording at `path` (evemu, events-only with `--desc`, or libinput record), or the reason
    /// it cannot be read, printed as `multitouchctl COMMAND: ...`.
    /// - Throws: `ExitCode.failure` after printing the reason.
    func read(_ path: String, command: String) throws -> Recording {
        if let problem = problem(with: path) {
            printError("multitouchctl \(command): \(problem)")
            throw ExitCode.failure
        }
        do {
            return try RecordingReader.read(path: path, descriptionPath: desc)
        } catch {
            printError("multitouchctl \(command): \(error)")
            throw ExitCode.failure
        }
    }
}
