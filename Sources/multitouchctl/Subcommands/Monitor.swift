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

    @Option(name: .long, help: "Exit after this many messages (0: run until the daemon closes).")
    var count: Int = 0

    func validate() throws {
        let known = MessageStream.allCases.map(\.rawValue).joined(separator: ", ")
        for name in streams where MessageStream(rawValue: name) == nil {
            throw ValidationError("unknown stream \(name); use \(known)")
        }
        if devices.contains(where: { $0 < 0 }) { throw ValidationError("device ids are 0 or more") }
        if count < 0 { throw ValidationError("--count must be 0 or more") }
    }

    func run() throws {
        let client: MultitouchClient
        do {
            client = try MultitouchClient(path: socket)
            try client.subscribe(
                streams: streams.isEmpty ? nil : Set(streams.compactMap(MessageStream.init(rawValue:))),
                devices: devices.isEmpty ? nil : devices)
        } catch {
            printError("multitouchctl monitor: \(error)")
            throw ExitCode.failure
        }
        var output = StandardOutput()
        var seen = 0
        while let line = try client.nextLine() {
            if json {
                output.write(line)
            } else {
                do throws(MessageDecodingError) {
                    output.write(ReadableFormat.line(for: try Message(decoding: line.utf8)))
                } catch {
                    switch error {
                    case .unknownType(let type): output.write("\(type) \(line)")
                    case .invalid(let why): output.write("? \(line) (\(why))")
                    }
                }
            }
            // Live output: a person is watching, so every line goes out at once.
            output.flush()
            seen += 1
            if count > 0 && seen >= count { break }
        }
        output.flush()
    }
}
