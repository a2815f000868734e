import ArgumentParser
import MultitouchClient
import TouchRouting

/// `multitouchctl regions`: who owns which area of each device, at which z and in which z band
/// (docs/PROTOCOL.md `listRegions`). Root sees every region; anyone else the regions of its own
/// user's connections (run it as the programs' user, or as root to see the whole screen).
struct Regions: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "regions",
        abstract: "List who owns which area of each device (z, band, exclusive).",
        discussion: """
            Connects to multitouchd and asks each device (or --device) for its regions (listRegions): each \
            region's id, owner (a client's id, pid and uid, or the configuration's [[tuio.region]]), z, the \
            owner's z band, mode, whether it is exclusive, and its bounding box in the device's published \
            space, topmost first. The daemon shows root every region (the configuration's too) and any other \
            user the regions of that user's own programs: run it as the programs' user, or as root (sudo) \
            to see the whole screen. --json prints the regionList replies as received. Exit status 0, or 1 when \
            the daemon cannot be reached or refuses.
            """)

    @Option(name: .long, help: "The daemon's socket.")
    var socket: String = MultitouchClient.defaultSocketPath

    @Option(name: .long, help: "Only this device (default: every device the daemon has).")
    var device: Int?

    @Flag(name: .long, help: "Print the regionList replies as received (one JSON line per device).")
    var json = false

    func validate() throws {
        if let device, device < 0 { throw ValidationError("--device must be 0 or more") }
    }

    func run() throws {
        do {
            let client = try MultitouchClient(path: socket)
            defer { client.close() }
            try client.setReceiveTimeout(seconds: 10)
            guard let hello = try Self.next(client), case .hello(let h) = hello.message else {
                printError("multitouchctl regions: the daemon sent no hello")
                throw ExitCode.failure
            }
            let devices = h.devices.filter { device == nil || $0.id == device }
            if let device, devices.isEmpty {
                printError("multitouchctl regions: the daemon has no device \(device)")
                throw ExitCode.failure
            }
            for (index, info) in devices.enumerated() {
                try client.listRegions(device: info.id, id: RequestID(index + 1))
            }
            var replies: [Int: (line: String, list: RegionListMessage)] = [:]
            while replies.count < devices.count, let next = try Self.next(client) {
                if let failure = MonitorChecks.failure(next.message) {
                    printError("multitouchctl regions: the daemon refused: \(failure)")
                    throw ExitCode.failure
                }
                if case .regionList(let list) = next.message { replies[list.device] = (next.line, list) }
            }
            for info in devices {
                guard let reply = replies[info.id] else {
                    printError("multitouchctl regions: the daemon closed the connection before answering")
                    throw ExitCode.failure
                }
                if json {
                    print(reply.line)
                } else {
                    let size =
                        "\(ReadableFormat.fmt(info.width))x\(ReadableFormat.fmt(info.height)) \(info.units.rawValue)"
                    print("device \(info.id) \"\(info.name)\" (\(size)): \(reply.list.regions.count) region(s) shown")
                    for line in RegionsFormat.lines(reply.list) { print("  " + line) }
                }
            }
            if !json && devices.isEmpty { print("no devices") }
        } catch let error as ExitCode {
            throw error
        } catch {
            printError("multitouchctl regions: \(error)")
            throw ExitCode.failure
        }
    }

    private static func next(_ client: MultitouchClient) throws -> (line: String, message: Message)? {
        while let line = try client.nextLine() {
            do throws(MessageDecodingError) {
                return (line, try Message(decoding: line.utf8))
            } catch .unknownType {
                continue
            } catch {
                printError("multitouchctl regions: the daemon sent a line this build cannot read (\(error))")
                throw ExitCode.failure
            }
        }
        return nil
    }
}

/// The readable form of a `regionList`: one line per region, topmost first.
enum RegionsFormat {
    static func lines(_ list: RegionListMessage) -> [String] {
        list.regions.map { r in
            let owner: String
            switch r.owner {
            case .client(let id, let pid, let uid): owner = "client \(id) (pid \(pid), uid \(uid))"
            case .configuration(let text): owner = "configuration: \(text)"
            }
            let band =
                r.band == Int.min...Int.max
                ? "any z" : "band \(r.band.lowerBound)...\(r.band.upperBound)"
            var flags = [r.mode.rawValue]
            if r.exclusive { flags.append("exclusive") }
            if r.hidden { flags.append("hidden") }
            if r.disabled { flags.append("disabled") }
            let b = r.bounds
            let f = { (v: Double) in ReadableFormat.fmt(v) }
            return "\(r.region): \(owner), z \(r.z) (\(band)), \(flags.joined(separator: ", ")), "
                + "x \(f(b.x)) y \(f(b.y)) \(f(b.width))x\(f(b.height))"
        }
    }
}
