import ArgumentParser

struct Devices: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "devices", abstract: "Not implemented yet.")
    func run() throws { throw ExitCode.failure }
}
