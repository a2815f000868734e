import ArgumentParser
import Configuration
import Glibc
import MultitouchClient
import MultitouchCore
import SystemCalls
import TUIO
import TUIOOutput
import TouchRouting

/// `multitouchctl tuio`: a socket client that sends the daemon's touches on as TUIO 1.1 (docs/TUIO.md),
/// for ad-hoc use, or one region's touches normalized to the region so a program that believes it owns
/// a whole screen gets exactly its part of a shared one.
struct Tuio: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tuio",
        abstract: "Send the daemon's touches as TUIO 1.1 over UDP (Qt, Kivy, TouchDesigner, Unity).",
        discussion: """
            Connects to multitouchd, subscribes to touches and sends each touch frame as /tuio/2Dcur bundles \
            (source, alive, set, fseq) to every --to target; positions are normalized over the device's \
            published space. With --region ID:X,Y,W,H it declares that opaque region (published units, as in \
            declareRegions) on the device and sends only the touches routed to it, normalized to its \
            rectangle: run one per program to share a screen between unmodified TUIO programs; --exclusive \
            makes that region secure input (its touches reach this forwarder only). When the daemon closes \
            the connection (a restart) it connects again, waiting 0.1 s and up to 5 s between attempts, and \
            declares its region again; --once exits instead and prints what it sent to stderr. \
            Targets are UDP HOST:PORT, or PORT for 127.0.0.1:PORT. Exit status 0, or 1 when a target does \
            not resolve, the first connection fails with --once, or the daemon refuses the region.
            """)

    @Option(name: .long, help: "The daemon's socket.")
    var socket: String = MultitouchClient.defaultSocketPath

    @Option(name: .long, help: "UDP target HOST:PORT (or PORT: 127.0.0.1); repeat for several.")
    var to: [String] = []

    @Option(name: .long, help: "Only this device (default: all; with --region: the first).")
    var device: Int?

    @Option(name: .long, help: "Declare the region ID:X,Y,W,H and send only its touches, normalized to it.")
    var region: String?

    @Option(name: .long, help: "The region's z (higher is in front).")
    var z: Int = 0

    @Flag(name: .long, help: "Make the region exclusive: its touches reach no other client, nor the daemon's TUIO.")
    var exclusive = false

    @Flag(name: .long, help: "Exit when the daemon closes the connection instead of connecting again.")
    var once = false

    @Option(name: .long, help: "Largest datagram; frames with more touches are split over several bundles.")
    var maxDatagramBytes: Int = TUIOCursorEncoder.ethernetDatagramBytes

    func validate() throws {
        guard !to.isEmpty else { throw ValidationError("give at least one --to HOST:PORT") }
        for target in to where TUIOTarget(parsing: target) == nil {
            throw ValidationError("--to \(target): expected HOST:PORT or PORT (1...65535)")
        }
        if exclusive && region == nil { throw ValidationError("--exclusive needs --region") }
        if let region, Self.parseRegion(region) == nil {
            throw ValidationError("--region \(region): expected ID:X,Y,W,H with a positive width and height")
        }
        guard (548...65507).contains(maxDatagramBytes) else {
            throw ValidationError("--max-datagram-bytes must be 548...65507")
        }
    }

    /// `ID:X,Y,W,H` -> the region's id and rectangle.
    static func parseRegion(_ text: String) -> (id: String, rect: RegionRect)? {
        guard let colon = text.lastIndex(of: ":") else { return nil }
        let id = String(text[..<colon])
        let numbers = text[text.index(after: colon)...].split(separator: ",").compactMap { Double($0) }
        guard !id.isEmpty, numbers.count == 4 else { return nil }
        let rect = RegionRect(x: numbers[0], y: numbers[1], width: numbers[2], height: numbers[3])
        return rect.isUsable ? (id, rect) : nil
    }

    func run() throws {
        let targets = to.compactMap(TUIOTarget.init(parsing:))
        let broadcaster: TUIOBroadcaster
        do {
            // A command may wait for DNS (the daemon may not): a name that does not resolve fails it.
            for target in targets {
                if case .failure(let error) = UDPDatagramSender.resolve(target) { throw error }
            }
            broadcaster = TUIOBroadcaster(
                sender: try UDPDatagramSender(targets: targets), host: TUIOBroadcaster.localHostName(),
                maximumDatagramBytes: maxDatagramBytes)
        } catch {
            printError("multitouchctl tuio: \(error)")
            throw ExitCode.failure
        }
        var backoff = ReconnectBackoff()
        var connected = false
        // One connection at a time; the broadcaster (its encoders, their fseq) outlives them, so a TUIO
        // program sees one stream across a daemon restart.
        while true {
            let client: MultitouchClient
            do {
                client = try MultitouchClient(path: socket)
                try client.subscribe(streams: [.touches, .devices], devices: device.map { [$0] })
            } catch {
                // The first connection must work with --once; afterwards (and without --once) the
                // daemon may be restarting: try again, less and less often.
                guard !once else {
                    printError("multitouchctl tuio: \(error)")
                    throw ExitCode.failure
                }
                let delay = backoff.next()
                // Said once, then about once a minute while the daemon stays away.
                if backoff.attempts == 1 || backoff.attempts % 16 == 0 {
                    printError(
                        "multitouchctl tuio: \(error); trying again (every \(ReconnectBackoff.text(ReconnectBackoff.longest)) s at most)"
                    )
                }
                ReconnectBackoff.sleep(delay)
                continue
            }
            if connected { printError("multitouchctl tuio: connected again") }
            connected = true
            backoff.reset()
            var forwarder = region.flatMap(Self.parseRegion).map {
                RegionForwarder(id: $0.id, rect: $0.rect, z: z, exclusive: exclusive)
            }
            do {
                while let message = try client.nextMessage() {
                    if case .error(let error) = message {
                        // A refusal (forbidden, a bad region) is the configuration's: retrying cannot help.
                        printError("multitouchctl tuio: the daemon refused: \(error.message)")
                        throw ExitCode.failure
                    }
                    if forwarder == nil {
                        broadcaster.observe(message)
                    } else {
                        try forwarder?.handle(message, client: client, wanted: device, broadcaster: broadcaster)
                    }
                }
            } catch let error as ExitCode {
                throw error
            } catch {
                printError("multitouchctl tuio: \(error)")
            }
            client.close()
            if once { break }
            printError("multitouchctl tuio: the daemon closed the connection; reconnecting")
        }
        let s = broadcaster.sender.statistics
        printError(
            "multitouchctl tuio: \(broadcaster.bundles) bundles, \(s.datagrams) datagrams, \(s.failures) not sent")
    }
}

/// How long `multitouchctl tuio` waits before it tries the daemon's socket again: 0.1 s, doubling up to
/// 5 s, back to 0.1 s once connected. A daemon restarting under systemd is back within about a second,
/// and a forwarder left waiting for a stopped daemon wakes once every 5 s.
struct ReconnectBackoff {
    static let shortest = 0.1
    static let longest = 5.0
    private(set) var attempts = 0

    /// The delay before the next attempt.
    mutating func next() -> Double {
        attempts += 1
        var delay = Self.shortest
        for _ in 1..<min(attempts, 16) { delay *= 2 }
        return min(delay, Self.longest)
    }

    mutating func reset() { attempts = 0 }

    static func text(_ seconds: Double) -> String { ReadableFormat.fmt(seconds) }

    static func sleep(_ seconds: Double) { Sys.sleep(nanoseconds: UInt64(max(0, seconds) * 1_000_000_000)) }
}

/// `tuio --region`: declares the region on the first (or the chosen) device when it appears and sends the
/// touches routed to it, normalized to its rectangle, from one encoder per device.
struct RegionForwarder {
    let id: String
    let rect: RegionRect
    let z: Int
    /// Secure input: the region's touches reach this forwarder only (docs/SECURITY.md).
    let exclusive: Bool
    private var device: Int?

    init(id: String, rect: RegionRect, z: Int, exclusive: Bool = false) {
        self.id = id
        self.rect = rect
        self.z = z
        self.exclusive = exclusive
    }

    var area: TUIOArea { TUIOArea(origin: Point(x: rect.x, y: rect.y), width: rect.width, height: rect.height) }

    mutating func handle(
        _ message: Message, client: MultitouchClient, wanted: Int?, broadcaster: TUIOBroadcaster
    ) throws {
        switch message {
        case .hello(let hello):
            if let first = hello.devices.first(where: { wanted == nil || $0.id == wanted }) {
                try declare(on: first.id, client: client)
            }
        case .deviceAdded(let info) where device == nil && (wanted == nil || info.id == wanted):
            try declare(on: info.id, client: client)
        case .deviceRemoved(let removed) where removed.device == device:
            // A `--loop` replay or a replugged screen comes back as a new device: declare again there.
            device = nil
        case .touches(let touches) where touches.routing?.region == id && touches.device == device:
            broadcaster.send(
                TUIOFrame(message: touches, area: area), device: touches.device,
                source: "multitouchd:\(touches.device)/\(id)@\(broadcaster.host)")
        default:
            break
        }
    }

    private mutating func declare(on device: Int, client: MultitouchClient) throws {
        self.device = device
        let region = Region(
            id: id, shape: .rectangle(rect), z: z, mode: .opaque,
            options: RegionOptions(exclusive: exclusive, gestures: false))
        try client.declareRegions(device: device, [region])
        printError("multitouchctl tuio: region \(id)\(exclusive ? " (exclusive)" : "") declared on device \(device)")
    }
}
