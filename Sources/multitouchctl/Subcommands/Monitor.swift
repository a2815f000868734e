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

    @Option(
        name: .long, help: "Exit after this many stream messages, replies not counted (0: run until the daemon closes)."
    )
    var count: Int = 0

    func validate() throws {
        try MonitorChecks.validate(streams: streams, devices: devices, count: count)
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
            let decoded: Result<Message, MessageDecodingError>
            do throws(MessageDecodingError) {
                decoded = .success(try Message(decoding: line.utf8))
            } catch {
                decoded = .failure(error)
            }
            if json {
                output.write(line)
            } else {
                switch decoded {
                case .success(let message): output.write(ReadableFormat.line(for: message))
                case .failure(.unknownType(let type)): output.write("\(type) \(line)")
                case .failure(.invalid(let why)): output.write("? \(line) (\(why))")
                }
            }
            // Live output: a person is watching, so every line goes out at once.
            output.flush()
            if case .success(let message) = decoded, let failure = MonitorChecks.failure(message) {
                printError("multitouchctl monitor: the daemon refused: \(failure)")
                throw ExitCode.failure
            }
            if MonitorChecks.isStreamMessage(decoded) { seen += 1 }
            if count > 0 && seen >= count { break }
        }
        output.flush()
    }
}
