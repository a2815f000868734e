import ArgumentParser

/// `multitouchctl`: replay, check, record and watch multitouch input; talk to the daemon.
@main
struct Multitouchctl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "multitouchctl",
        abstract: "Replay, check, record and monitor multitouch input for multitouchd.",
        version: "0.1.0",
        subcommands: [
            Replay.self, Check.self, Plot.self, Devices.self, Record.self, Listen.self, Monitor.self, Stats.self,
            Bench.self, BenchRouting.self, Generate.self, Feel.self, Bridge.self, View.self,
        ])
}
