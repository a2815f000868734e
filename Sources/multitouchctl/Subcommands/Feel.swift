import ArgumentParser
import FoundationEssentials
import GestureFeel

/// `multitouchctl feel`: the gesture feel report (issue 10's targets, measured).
struct Feel: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "feel",
        abstract: "Measure how the gesture engine follows the fingers (the gesture feel report).",
        discussion: """
            Runs scripted finger scenarios (millimetre paths at 60-240 Hz on test devices, virtual time) and, \
            when given, the recordings of a directory and its sub-folders through the same pipeline as the \
            daemon (their worst lift-frame change and pin error, and the rows for the recordings docs/FEEL.md \
            names), and prints one row per measured number: target | what | value | goal | ok. The targets are those of \
            issue 10 and docs/GESTURES.md ("Feel report"). Exits 1 when a number misses its goal.
            """)

    @Option(
        name: .long, help: "Directory of recordings (with its sub-folders) to measure too (e.g. ../shared/recordings).")
    var recordings: String?

    @Option(name: .long, help: "Configuration file whose [gestures] are the base of every scenario.")
    var config: String?

    func run() throws {
        let settings = try loadSettings(configPath: config)
        if let recordings, !FileManager.default.fileExists(atPath: recordings) {
            printError("multitouchctl feel: \(recordings): no such directory")
            throw ExitCode.failure
        }
        let rows = FeelReport.measure(configuration: settings.gestures, recordings: recordings)
        var output = StandardOutput()
        output.write("target | what | value | goal | ok")
        for row in rows { output.write(row.description) }
        let missed = rows.filter { $0.met == false }.count
        output.write("feel: \(rows.count) numbers, \(missed) miss their goal")
        output.flush()
        if missed > 0 { throw ExitCode.failure }
    }
}
