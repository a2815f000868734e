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
            --json prints the protocol lines exactly as received (docs/PROTOCOL.md). It ends when the daemon \
            closes the connection, after --count stream messages, or when the devices it shows are gone and \
            none is left (a replay that played through, an unplugged screen; --follow keeps it running for \
            the next one). Exit status: 0 for each of these ends, 1 when the daemon cannot be reached or \
            refuses a request.
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

    @Flag(
        name: .long,
        help: "Keep running when the last device is gone (a --loop replay's next pass, a screen plugged in again).")
    var follow = false

    func validate() throws {
        try MonitorChecks.validate(streams: streams, devices: devices, count: count)
    }

    func run() throws {
        let client: MultitouchClient
        let wanted =
            streams.isEmpty ? Set(MessageStream.allCases) : Set(streams.compactMap(MessageStream.init(rawValue:)))
        // The devices stream always: how else would it know its devices are gone. Its messages are
        // shown only when asked for.
        let showsDevices = wanted.contains(.devices)
        do {
            client = try MultitouchClient(path: socket)
            try client.subscribe(
                streams: streams.isEmpty ? nil : wanted.union([.devices]), devices: devices.isEmpty ? nil : devices)
        } catch {
            printError("multitouchctl monitor: \(error)")
            throw ExitCode.failure
        }
        var output = StandardOutput()
        var seen = 0
        var present = DevicePresence(filter: devices.isEmpty ? nil : Set(devices))
        while let line = try client.nextLine() {
            let decoded: Result<Message, MessageDecodingError>
            do throws(MessageDecodingError) {
                decoded = .success(try Message(decoding: line.utf8))
            } catch {
                decoded = .failure(error)
            }
            let allGone = (try? decoded.get()).map { present.note($0) } ?? false
            if !showsDevices, case .success(let message) = decoded, message.streams == .devices {
                if allGone && !follow { break }
                continue
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
            if allGone && !follow { break }
        }
        output.flush()
    }
}

/// Which of the devices a monitor shows are present: the hello's, then `deviceAdded` and
/// `deviceRemoved`. `note` says when a removal left none.
struct DevicePresence {
    /// `--devices` (nil: every device).
    let filter: Set<Int>?
    private(set) var present: Set<Int> = []

    init(filter: Set<Int>?) { self.filter = filter }

    /// Takes one message; true when it removed the last device shown.
    mutating func note(_ message: Message) -> Bool {
        switch message {
        case .hello(let hello):
            present = Set(hello.devices.map(\.id).filter { filter?.contains($0) ?? true })
        case .deviceAdded(let info) where filter?.contains(info.id) ?? true:
            present.insert(info.id)
        case .deviceRemoved(let removed) where present.contains(removed.device):
            present.remove(removed.device)
            return present.isEmpty
        default:
            break
        }
        return false
    }
}
