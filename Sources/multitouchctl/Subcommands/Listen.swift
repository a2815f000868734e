import ArgumentParser

struct Listen: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "listen", abstract: "Not implemented yet.")
    func run() throws { throw ExitCode.failure }
}
