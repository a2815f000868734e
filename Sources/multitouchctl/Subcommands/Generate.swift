import ArgumentParser
import FoundationEssentials
import Recordings
import SystemCalls
import TouchScripting

#if canImport(Glibc)
import Glibc
#endif

/// `multitouchctl generate`: writes the project's scripted fixtures as evemu recordings.
struct Generate: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate",
        abstract: "Write the project's scripted test recordings (evemu) into a directory.",
        discussion: """
            The files in checks/fixtures are this command's output (`multitouchctl generate -o checks/fixtures` \
            in a checkout); a test fails when they are stale. The directory is created when missing; files of \
            the same names in it are replaced. With --random-frames it writes one seeded random recording \
            instead (fingers landing, wandering and lifting, up to --fingers at once, on the 10-slot test \
            touchscreen), for benchmarks and plots.
            """)

    @Option(name: .shortAndLong, help: "Directory to write into (required unless --list).")
    var output: String?

    @Flag(name: .long, help: "Only list the fixtures.")
    var list = false

    @Option(name: .long, help: "Write one random recording of this many frames instead of the fixtures.")
    var randomFrames: Int?

    @Option(name: .long, help: "Most fingers down at once in the random recording (1...10).")
    var fingers: Int = 10

    @Option(name: .long, help: "Seed of the random recording (the same seed gives the same file).")
    var seed: UInt64 = 1

    func validate() throws {
        if output == nil && !list {
            throw ValidationError("say where to write: -o DIR (checks/fixtures in a checkout)")
        }
    }

    func run() throws {
        if list {
            for fixture in Fixtures.all {
                print("\(fixture.name).evemu: \(fixture.summary) (\(fixture.events.count) events)")
            }
            return
        }
        guard let output else { return }
        var isDirectory = false
        if FileManager.default.fileExists(atPath: output, isDirectory: &isDirectory) {
            guard isDirectory else {
                printError("multitouchctl generate: \(output) exists and is not a directory")
                throw ExitCode.failure
            }
        } else {
            do {
                try Sys.mkdir(output, mode: 0o755)
            } catch  where error.errno == EEXIST {
                // Made in between: used as it is.
            } catch {
                printError("multitouchctl generate: cannot create directory \(output): \(error.reason)")
                throw ExitCode.failure
            }
        }
        if let frames = randomFrames {
            guard frames > 0, (1...10).contains(fingers) else {
                printError("multitouchctl generate: --random-frames must be positive and --fingers 1...10")
                throw ExitCode.validationFailure
            }
            let device = TestDevices.touchscreen()
            let events = RandomTouchScript.events(device: device, seed: seed, frames: frames, maximumFingers: fingers)
            let path = output + "/random-\(fingers)-fingers-\(frames)-frames-seed-\(seed).evemu"
            try write(EvemuWriter.write(description: device, events: events), to: path)
            print("wrote \(path) (\(events.count) events)")
            return
        }
        for fixture in Fixtures.all {
            let path = output + "/" + fixture.name + ".evemu"
            try write(EvemuWriter.write(description: fixture.device, events: fixture.events), to: path)
            print("wrote \(path) (\(fixture.events.count) events): \(fixture.summary)")
        }
    }

    private func write(_ text: String, to path: String) throws {
        do {
            try text.write(toFile: path, atomically: true, encoding: .utf8)
        } catch {
            printError("multitouchctl generate: cannot write \(path): \(FileErrorText.describe(error))")
            throw ExitCode.failure
        }
    }
}

/// FoundationEssentials' file errors as one short phrase ("Permission denied") instead of a CocoaError dump.
enum FileErrorText {
    static func describe(_ error: any Error) -> String {
        if let posix = error as? POSIXError { return String(cString: strerror(posix.code.rawValue)) }
        guard let cocoa = error as? CocoaError else { return "\(error)" }
        if let posix = cocoa.userInfo["NSUnderlyingError"] as? POSIXError {
            return String(cString: strerror(posix.code.rawValue))
        }
        switch cocoa.code {
        case .fileWriteNoPermission, .fileReadNoPermission: return "Permission denied"
        case .fileNoSuchFile, .fileReadNoSuchFile: return "No such file or directory"
        case .fileWriteOutOfSpace: return "No space left on device"
        case .fileWriteVolumeReadOnly: return "Read-only file system"
        default: return "\(error)"
        }
    }
}
