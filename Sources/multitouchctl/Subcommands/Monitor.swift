import ArgumentParser
import MultitouchClient

/// `multitouchctl monitor`: connects to the daemon and prints touches and gestures live, one line per
/// message (readable, unstable), or the raw protocol lines with --json.
struct Monitor: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "monitor",
        abstract: "Show the daemon's touches and gestures live.",
        discussion: """
            Connects to multitouchd, subscribes and prints one line per message. The readable form may change; \
            --json prints the protocol lines exactly as received (docs/PROTOCOL.md).
            """)

    @Option(name: .long, help: "The daemon's socket.")
    var socket: String = MultitouchClient.defaultSocketPath

    @Flag(name: .long, help: "Print the raw JSON lines.")
    var json = false

    @Option(name: .long, parsing: .upToNextOption, help: "Streams: touches, gestures, devices (default: all).")
    var streams: [String] = []

    @Option(name: .long, parsing: .upToNextOption, help: "Only these device ids (default: all).")
    var devices: [Int] = []

    @Option(name: .long, help: "Exit after this many stream messages, replies not counted (0: run until the daemon closes).")
    var count: Int = 0

    func validate() throws {
        try MonitorChecks.validate(streams: streams, count: count)
    }

    func run() throws {
        let client: MultitouchClient
        do {
            client = try MultitouchClient(path: socket)
            try client.subscribe(streams: streams.isEmpty ? nil : streams, devices: devices.isEmpty ? nil : devices)
        } catch {
            printError("multitouchctl monitor: \(error)")
            throw ExitCode.failure
        }
        var output = StandardOutput()
        var seen = 0
        while let line = try client.nextLine() {
            let event = try? ServerEvent.decode(line: line)
            if json {
                output.write(line)
            } else {
                output.write(event.map(MonitorFormat.line(for:)) ?? "? \(line)")
            }
            // Live output: a person is watching, so every line goes out at once.
            output.flush()
            if let failure = MonitorChecks.failure(line: line) {
                printError("multitouchctl monitor: the daemon refused: \(failure)")
                throw ExitCode.failure
            }
            if MonitorChecks.isStreamMessage(line) { seen += 1 }
            if count > 0 && seen >= count { break }
        }
        output.flush()
    }
}

/// The readable monitor lines.
enum MonitorFormat {
    static func line(for event: ServerEvent) -> String {
        func f(_ v: Double, _ digits: Int = 1) -> String { ReadableFormat.fmt(v, digits) }
        func p(_ v: [Double]) -> String { v.count == 2 ? "(\(f(v[0])), \(f(v[1])))" : "\(v)" }
        switch event {
        case .hello(let version, let daemon, let devices):
            let list = devices.map { "\($0.id) \"\($0.name)\"" }.joined(separator: ", ")
            return "connected to \(daemon), protocol \(version), \(devices.count) device(s)\(list.isEmpty ? "" : ": " + list)"
        case .deviceAdded(let d):
            return "device \(d.id) added: \"\(d.name)\" \(d.class), protocol \(d.protocol), \(d.slots) slot(s), units \(d.units)"
        case .deviceRemoved(let device, _, let reason):
            return "device \(device) removed (\(reason))"
        case .touches(let frame):
            let touches = frame.touches.map { "#\($0.id) \($0.phase) (\(f($0.x)), \(f($0.y)))" }.joined(separator: "  ")
            return "\(time(frame.time)) dev \(frame.device) touches fingers=\(frame.fingers): \(touches)"
        case .session(let s):
            return "\(time(s.time)) dev \(s.device) session \(s.session) \(s.phase)"
        case .gesture(let g):
            let degrees = g.rotation * 180 / Double.pi
            return "\(time(g.time)) dev \(g.device) \(g.mode) \(g.phase) fingers=\(g.fingers) centroid=\(p(g.centroid)) translation=\(p(g.translation)) scale=\(f(g.scale, 3)) rotation=\(f(degrees))°" + CumulativeText.of(matrix: g.matrix)
        case .tap(let t):
            return "\(time(t.time)) dev \(t.device) tap count=\(t.tapCount ?? 1) fingers=\(t.fingers ?? 1) at \(p(t.location))"
        case .doubleTap(let t):
            return "\(time(t.time)) dev \(t.device) doubleTap at \(p(t.location))"
        case .longPress(let t):
            return "\(time(t.time)) dev \(t.device) longPress \(t.phase ?? "?") at \(p(t.location))"
        case .dropped(let d):
            return "\(d.time.map(time) ?? "-") dev \(d.device.map(String.init) ?? "-") DROPPED \(d.count) \(d.unit): \(d.reason)"
        case .error(let e):
            return "error \(e.code)\(e.fatal ? " (fatal)" : ""): \(e.message)"
        case .pong(let id): return "pong \(id ?? "")"
        case .stats(let json): return "stats \(json)"
        case .subscribed(let json): return "subscribed \(json)"
        case .transform(let device, let matrix): return "dev \(device) transform set to \(matrix)"
        case .other(let type, let json): return "\(type) \(json)"
        }
    }

    private static func time(_ t: Double) -> String {
        let micros = Int64((t * 1_000_000).rounded())
        let fraction = String(micros % 1_000_000)
        return "\(micros / 1_000_000)." + String(repeating: "0", count: 6 - fraction.count) + fraction
    }
}
