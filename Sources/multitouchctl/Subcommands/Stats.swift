import ArgumentParser
import FoundationEssentials
import MultitouchClient

/// `multitouchctl stats`: asks the daemon for its stats (clients, devices, the latency histogram) and
/// prints them readably, or the raw reply with --json.
struct Stats: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Show the daemon's clients, devices and latency histogram.",
        discussion: """
            Sends one stats request (docs/PROTOCOL.md "stats") and prints the reply: uptime, each client with \
            its queue and what it was delivered and missed, each device's frames, and the device-read to \
            client-write latency as a histogram with the recent median and 99th percentile.
            """)

    @Option(name: .long, help: "The daemon's socket.")
    var socket: String = MultitouchClient.defaultSocketPath

    @Flag(name: .long, help: "Print the stats reply as received (one JSON line).")
    var json = false

    func run() throws {
        let reply: (line: String, stats: StatsMessage)
        do {
            let client = try MultitouchClient(path: socket)
            defer { client.close() }
            try client.setReceiveTimeout(seconds: 10)
            try client.requestStats(id: 1)
            reply = try Self.reply(from: client)
        } catch let error as ExitCode {
            throw error
        } catch {
            printError("multitouchctl stats: \(error)")
            throw ExitCode.failure
        }
        if json {
            print(reply.line)
            return
        }
        print(StatsFormat.text(reply.stats), terminator: "")
    }

    /// The stats reply, as received and decoded; the hello and anything else before it are skipped.
    private static func reply(from client: MultitouchClient) throws -> (line: String, stats: StatsMessage) {
        while let line = try client.nextLine() {
            let message: Message
            do throws(MessageDecodingError) {
                message = try Message(decoding: line.utf8)
            } catch {
                printError(
                    "multitouchctl stats: the daemon sent a line this build cannot read (\(error)): \(line.prefix(200))"
                )
                throw ExitCode.failure
            }
            if let failure = MonitorChecks.failure(message) {
                printError("multitouchctl stats: the daemon refused: \(failure)")
                throw ExitCode.failure
            }
            if case .stats(let stats) = message { return (line, stats) }
        }
        printError("multitouchctl stats: the daemon closed the connection before replying")
        throw ExitCode.failure
    }
}

/// The readable form of a stats reply.
enum StatsFormat {
    static func text(_ stats: StatsMessage) -> String {
        func fmt(_ value: Double, _ digits: Int = 1) -> String { ReadableFormat.fmt(value, digits) }
        var out = "uptime: \(fmt(stats.uptime)) s\n"
        out += "clients: \(stats.clients.count)\n"
        for c in stats.clients {
            out += "  #\(c.id) pid \(c.pid) uid \(c.uid)"
            out += " \(c.subscribed ? "subscribed" : "not subscribed")"
            if let delivered = c.delivered, let dropped = c.dropped, let queued = c.queued,
                let bytes = c.queuedBytes
            {
                out += ", delivered \(delivered), dropped \(dropped), queued \(queued) (\(bytes) bytes)"
            }
            if let rights = c.rights { out += ", rights [\(rights.joined(separator: ", "))]" }
            if let band = c.band, band.count == 2 { out += ", z band \(band[0])...\(band[1])" }
            out += "\n"
        }
        out += "devices: \(stats.devices.count)\n"
        for d in stats.devices {
            out += "  \(d.device) \"\(d.name)\": \(d.frames) frames"
            for p in d.predictions {
                out +=
                    "; predicted \(p.horizonMilliseconds) ms ahead: \(p.count) scored, mean \(fmt(p.meanMillimeters, 3)) mm"
                out += ", max \(fmt(p.maximumMillimeters, 3)) mm"
            }
            out += d.active ? "\n" : " (removed)\n"
        }
        let latency = stats.latency
        out += "latency (device read to last client write): \(latency.count) batches"
        out += ", max \(fmt(latency.maximum)) µs, deferred \(latency.deferred)\n"
        if let recent = latency.recent {
            out += "  recent \(recent.samples): median \(fmt(recent.p50)) µs"
            out += ", 99th percentile \(fmt(recent.p99)) µs\n"
        }
        let largest = latency.buckets.map(\.count).max() ?? 0
        for b in latency.buckets {
            let upper = b.lessThan
            let n = b.count
            let range = upper <= 1 ? "< 1 µs" : "\(upper / 2)-\(upper) µs"
            let bar = String(repeating: "#", count: largest > 0 ? Int(max(1, n * 40 / largest)) : 0)
            let share = latency.count > 0 ? " \(fmt(Double(n) * 100 / Double(latency.count)))%" : ""
            out +=
                "  \(range.padding(toLength: 16, withPad: " ", startingAt: 0)) \(String(n).padding(toLength: 8, withPad: " ", startingAt: 0))\(bar)\(share)\n"
        }
        return out
    }
}
