import ArgumentParser

struct Replay: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "replay", abstract: "Not implemented yet.")
    func run() throws { throw ExitCode.failure }
}
