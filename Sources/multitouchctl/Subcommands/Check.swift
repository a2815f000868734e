import ArgumentParser

struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "check", abstract: "Not implemented yet.")
    func run() throws { throw ExitCode.failure }
}
