import FoundationEssentials
import SystemCalls

/// Renders SVG to PNG with `rsvg-convert` (Debian package librsvg2-bin), run as a subprocess: the only
/// part of TouchPlot that does I/O. A subprocess rather than linking librsvg keeps the multitouchctl
/// binary free of glib/cairo/pango (it runs on kiosks where nobody wants them) and the build free of
/// their -dev packages; PNG is an optional output and the SVG needs nothing.
public enum PNGRenderer {
    /// Why a PNG could not be made, with what to do about it.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// The converter this renderer runs.
    public static let tool = "rsvg-convert"

    /// Finds `rsvg-convert` on PATH (or in `searchPath`).
    public static func locate(searchPath: String? = ProcessInfo.processInfo.environment["PATH"]) -> String? {
        let directories = (searchPath ?? "/usr/bin:/bin").split(separator: ":").map(String.init)
        for directory in directories where !directory.isEmpty {
            let candidate = directory + "/" + tool
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// Writes the PNG rendering of `svg` to `path` at the SVG's own size (1 px per user unit).
    ///
    /// Blocks until the converter exits. The SVG goes through a temporary file beside `path`, removed
    /// afterwards whatever happens.
    /// - Throws: `Failure` when the converter is missing, fails, or writes no PNG.
    /// - Parameter searchPath: where to look for the converter (default: PATH).
    public static func write(
        svg: [UInt8], to path: String, searchPath: String? = ProcessInfo.processInfo.environment["PATH"]
    ) throws {
        guard let executable = locate(searchPath: searchPath) else {
            throw Failure(
                description: "\(tool) not found on PATH: PNG output needs it (Debian/Ubuntu: apt-get install "
                    + "librsvg2-bin); write an .svg instead, which needs nothing")
        }
        let output = URL(fileURLWithPath: path)
        let temporary = output.deletingLastPathComponent()
            .appendingPathComponent(".\(output.lastPathComponent).\(ProcessInfo.processInfo.processIdentifier).svg")
        do {
            try Data(svg).write(to: temporary)
        } catch {
            throw Failure(description: "cannot write \(temporary.path): \(error)")
        }
        defer { try? FileManager.default.removeItem(at: temporary) }
        let process = ChildProcess(
            executable: executable, arguments: ["--format", "png", "--output", path, temporary.path])
        process.capturesStandardError = true
        process.discardsStandardOutput = true
        do {
            try process.run()
        } catch {
            throw Failure(description: "cannot run \(executable): \(error.reason)")
        }
        let message = process.readStandardError()
        let termination = process.waitUntilExit()
        guard termination == .exited(0) else {
            let text = String(decoding: message, as: UTF8.self).split(whereSeparator: \.isNewline).joined(
                separator: " ")
            let status: String
            switch termination {
            case .exited(let code): status = "status \(code)"
            case .signalled(let signal): status = "signal \(signal)"
            }
            throw Failure(description: "\(tool) failed (\(status))\(text.isEmpty ? "" : ": " + text)")
        }
        guard let written = FileManager.default.contents(atPath: path),
            Array(written.prefix(signature.count)) == signature
        else {
            throw Failure(description: "\(tool) exited cleanly but \(path) is not a PNG")
        }
    }

    /// The eight bytes every PNG file starts with.
    public static let signature: [UInt8] = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]
}
