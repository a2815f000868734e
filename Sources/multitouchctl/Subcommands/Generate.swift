import ArgumentParser

struct Generate: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "generate", abstract: "Not implemented yet.")
    func run() throws { throw ExitCode.failure }
}
