import ArgumentParser
import Foundation
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
        let line: String
        do {
            let client = try MultitouchClient(path: socket)
            defer { client.close() }
            try client.setReceiveTimeout(seconds: 10)
            try client.requestStats(id: 1)
            line = try Self.reply(from: client)
        } catch let error as ExitCode {
            throw error
        } catch {
            printError("multitouchctl stats: \(error)")
            throw ExitCode.failure
        }
        if json {
            print(line)
            return
        }
        guard let stats = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
            printError("multitouchctl stats: the reply is not a JSON object: \(line.prefix(200))")
            throw ExitCode.failure
        }
        print(StatsFormat.text(stats), terminator: "")
    }

    /// The stats reply line; the hello and anything else before it are skipped.
    private static func reply(from client: MultitouchClient) throws -> String {
        while let line = try client.nextLine() {
            if let failure = MonitorChecks.failure(line: line) {
                printError("multitouchctl stats: the daemon refused: \(failure)")
                throw ExitCode.failure
            }
            if line.contains("\"type\":\"stats\"") { return line }
        }
        printError("multitouchctl stats: the daemon closed the connection before replying")
        throw ExitCode.failure
    }
}

/// The readable form of a stats reply.
enum StatsFormat {
    static func text(_ stats: [String: Any]) -> String {
        func number(_ value: Any?) -> Double { (value as? NSNumber)?.doubleValue ?? 0 }
        func int(_ value: Any?) -> Int { (value as? NSNumber)?.intValue ?? 0 }
        func fmt(_ value: Double, _ digits: Int = 1) -> String { ReadableFormat.fmt(value, digits) }
        var out = "uptime: \(fmt(number(stats["uptime"]))) s\n"
        let clients = stats["clients"] as? [[String: Any]] ?? []
        out += "clients: \(clients.count)\n"
        for c in clients {
            out += "  #\(int(c["id"])) pid \(int(c["pid"])) uid \(int(c["uid"]))"
            out += " \((c["subscribed"] as? Bool ?? false) ? "subscribed" : "not subscribed")"
            out += ", delivered \(int(c["delivered"])), dropped \(int(c["dropped"]))"
            out += ", queued \(int(c["queued"])) (\(int(c["queuedBytes"])) bytes)\n"
        }
        let devices = stats["devices"] as? [[String: Any]] ?? []
        out += "devices: \(devices.count)\n"
        for d in devices {
            out += "  \(int(d["device"])) \"\(d["name"] as? String ?? "")\": \(int(d["frames"])) frames"
            out += (d["active"] as? Bool ?? false) ? "\n" : " (removed)\n"
        }
        let latency = stats["latency"] as? [String: Any] ?? [:]
        let count = int(latency["count"])
        out += "latency (device read to last client write): \(count) batches"
        out += ", max \(fmt(number(latency["max"]))) µs, deferred \(int(latency["deferred"]))\n"
        if let recent = latency["recent"] as? [String: Any] {
            out += "  recent \(int(recent["samples"])): median \(fmt(number(recent["p50"]))) µs"
            out += ", 99th percentile \(fmt(number(recent["p99"]))) µs\n"
        }
        let buckets = latency["buckets"] as? [[String: Any]] ?? []
        let largest = buckets.map { int($0["count"]) }.max() ?? 0
        for b in buckets {
            let upper = int(b["lt"])
            let n = int(b["count"])
            let range = upper <= 1 ? "< 1 µs" : "\(upper / 2)-\(upper) µs"
            let bar = String(repeating: "#", count: largest > 0 ? max(1, n * 40 / largest) : 0)
            let share = count > 0 ? " \(fmt(Double(n) * 100 / Double(count)))%" : ""
            out += "  \(range.padding(toLength: 16, withPad: " ", startingAt: 0)) \(String(n).padding(toLength: 8, withPad: " ", startingAt: 0))\(bar)\(share)\n"
        }
        return out
    }
}
