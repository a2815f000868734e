import ArgumentParser

struct Record: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "record", abstract: "Not implemented yet.")
    func run() throws { throw ExitCode.failure }
}
