import ArgumentParser
import DaemonCommand
import Dispatch

/// `multitouchctl`: replay, check, record and watch multitouch input; talk to the daemon.
struct Multitouchctl: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "multitouchctl",
        abstract: "Replay, check, record and monitor multitouch input for multitouchd.",
        version: "0.1.0",
        subcommands: [
            Replay.self, Check.self, Plot.self, Devices.self, Record.self, Listen.self, Monitor.self, Stats.self,
            Bench.self, BenchRouting.self, Generate.self, Feel.self, Bridge.self, View.self, Tuio.self,
            PredictReport.self, Regions.self,
        ])
}

/// The entry point. Most commands are synchronous and run on the main thread of a single-threaded
/// process, as they were written to (SIGINT/SIGTERM handling, valgrind, which aborts on the async
/// runtime's threads); only `bridge` and `view` (SwiftNIO) start Swift concurrency, from a task,
/// with the main queue serving it.
@main
enum MultitouchctlMain {
    static func main() {
        // One binary for both commands: installed as multitouchctl with multitouchd a link to it (the
        // runtime, Foundation and our modules once, not twice: issue 29 item 9), it is the daemon
        // when called by that name.
        if CommandLine.arguments.first?.split(separator: "/").last == "multitouchd" {
            MultitouchDaemon.main()
            return
        }
        let parsed: any ParsableCommand
        do {
            parsed = try Multitouchctl.parseAsRoot()
        } catch {
            Multitouchctl.exit(withError: error)
        }
        if let asynchronous = parsed as? any AsyncParsableCommand {
            runAsynchronously(asynchronous)
        }
        var command = parsed
        do {
            try command.run()
        } catch {
            Multitouchctl.exit(withError: error)
        }
    }

    private static func runAsynchronously(_ command: any AsyncParsableCommand) -> Never {
        nonisolated(unsafe) var command = command
        Task {
            do {
                try await command.run()
                Multitouchctl.exit()
            } catch {
                Multitouchctl.exit(withError: error)
            }
        }
        dispatchMain()
    }
}
