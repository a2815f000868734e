import ArgumentParser

struct Monitor: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "monitor", abstract: "Not implemented yet.")
    func run() throws { throw ExitCode.failure }
}
