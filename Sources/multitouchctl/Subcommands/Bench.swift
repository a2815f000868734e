import ArgumentParser

struct Bench: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "bench", abstract: "Not implemented yet.")
    func run() throws { throw ExitCode.failure }
}
