import ArgumentParser
import Foundation
import MultitouchTestKit
import Recordings

/// `multitouchctl generate`: writes the project's scripted fixtures as evemu recordings.
struct Generate: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate",
        abstract: "Write the project's scripted test recordings (evemu) into a directory.",
        discussion: "The files in tests/fixtures are this command's output; a test fails when they are stale.")

    @Option(name: .shortAndLong, help: "Directory to write into.")
    var output: String = "tests/fixtures"

    @Flag(name: .long, help: "Only list the fixtures.")
    var list = false

    func run() throws {
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
