import ArgumentParser
import Foundation
import MultitouchTestKit
import Recordings

/// `multitouchctl generate`: writes the project's scripted fixtures as evemu recordings.
struct Generate: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate",
        abstract: "Write the project's scripted test recordings (evemu) into a directory.",
        discussion: """
            The files in tests/fixtures are this command's output; a test fails when they are stale. With \
            --random-frames it writes one seeded random recording instead (fingers landing, wandering and \
            lifting, up to --fingers at once, on the 10-slot test touchscreen), for benchmarks and plots.
            """)

    @Option(name: .shortAndLong, help: "Directory to write into.")
    var output: String = "tests/fixtures"

    @Flag(name: .long, help: "Only list the fixtures.")
    var list = false

    @Option(name: .long, help: "Write one random recording of this many frames instead of the fixtures.")
    var randomFrames: Int?

    @Option(name: .long, help: "Most fingers down at once in the random recording (1...10).")
    var fingers: Int = 10

    @Option(name: .long, help: "Seed of the random recording (the same seed gives the same file).")
    var seed: UInt64 = 1

    func run() throws {
        if let frames = randomFrames {
            guard frames > 0, (1...10).contains(fingers) else {
                printError("multitouchctl generate: --random-frames must be positive and --fingers 1...10")
                throw ExitCode.validationFailure
            }
            try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
            let device = TestDevices.touchscreen()
            let events = RandomTouchScript.events(device: device, seed: seed, frames: frames, maximumFingers: fingers)
            let path = output + "/random-\(fingers)-fingers-\(frames)-frames-seed-\(seed).evemu"
            try EvemuWriter.write(description: device, events: events).write(toFile: path, atomically: true, encoding: .utf8)
            print("wrote \(path) (\(events.count) events)")
            return
        }
        if !list { try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true) }
        for fixture in Fixtures.all {
            let path = output + "/" + fixture.name + ".evemu"
            if list {
                print("\(fixture.name).evemu: \(fixture.summary) (\(fixture.events.count) events)")
                continue
            }
            let text = EvemuWriter.write(description: fixture.device, events: fixture.events)
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            print("wrote \(path) (\(fixture.events.count) events): \(fixture.summary)")
        }
    }
}
