import CLinuxSystem
import Configuration
import DeviceInput
import Glibc
import Logging
import MultitouchCore

/// The daemon's frame path from the device read to the clients' sockets, for `multitouchctl bench
/// --frame-path` (docs/PERFORMANCE.md, "A hot path that allocates nothing"): one `Daemon`, exactly as
/// `multitouchd` runs it (its event loop, devices, client hub, publisher, queues and writes), serving
/// a device whose readings come from a recording instead of an evdev node, and clients on socket
/// pairs that subscribe through the protocol and read everything they are sent.
///
/// Every frame is one turn of the daemon's loop: the device's pipe becomes readable, `epoll_wait`
/// reports it, the daemon reads the frame, runs the pipeline, publishes, queues and writes to every
/// client; then the clients read. Only libevdev's own read is not in the path. Event times are moved
/// far past the monotonic clock, so the gesture deadline timer never fires during a run: timers fire
/// inside the frames (as in a replay) and a run is the same on every machine. Not thread-safe.
public final class FramePathBench {
    /// What the clients ask for.
    public struct Options: Hashable, Sendable {
        /// Connected clients, each subscribed to touches, gestures and devices.
        public var clients: Int
        /// The horizon every client predicts at (`predictMs`); nil: none.
        public var predictMilliseconds: Int?
        /// Every client declares one region covering the device (the routed streams): the first client
        /// owns it, the others observe it (`"mode":"observer"`), so every client receives every frame.
        public var routed: Bool

        public init(clients: Int = 1, predictMilliseconds: Int? = nil, routed: Bool = false) {
            self.clients = clients
            self.predictMilliseconds = predictMilliseconds
            self.routed = routed
        }
    }

    /// Why a benchmark could not be set up.
    public struct SetupError: Error, CustomStringConvertible {
        public var description: String
    }

    private let daemon: Daemon
    private let device: ScriptedDevice
    private let deviceID: Int
    /// The clients' ends of the socket pairs.
    private var peers: [Int32] = []
    private let receive = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 * 1024, alignment: 16)
    /// Bytes each client has read so far (hello and replies included).
    public private(set) var bytesReceived: [Int]
    /// Newlines each client has read so far: the messages.
    public private(set) var messagesReceived: [Int]

    /// Frames not yet played.
    public var remainingFrames: Int { device.remainingFrames }

    /// Serves `events` (whole frames; a trailing partial frame is left out) as a device described by
    /// `description` to `options.clients` clients, and has each subscribe (and declare its region).
    /// - Throws: `SetupError` when the daemon or a socket cannot be set up, or a client's request is
    ///   not answered as the benchmark expects.
    public init(description: DeviceDescription, events: [InputEvent], options: Options) throws {
        // The daemon blocks SIGTERM, SIGINT and SIGHUP for its signalfd; a benchmark leaves them as
        // they were, so that Ctrl-C still ends it.
        let signals = Sys.signalMask()
        var configuration = DaemonConfiguration()
        configuration.clients.maximumClients = max(configuration.clients.maximumClients, options.clients)
        configuration.clients.maximumClientsPerUser = max(
            configuration.clients.maximumClientsPerUser, options.clients)
        daemon = try Daemon(
            options: DaemonOptions(
                configuration: configuration, reloadConfiguration: nil, replay: nil, noDevices: true,
                daemonVersion: "bench"),
            logger: Logger(label: "bench", factory: { _ in SwiftLogNoOpLogHandler() }))
        Sys.setSignalMask(signals)
        bytesReceived = Array(repeating: 0, count: options.clients)
        messagesReceived = Array(repeating: 0, count: options.clients)

        device = try ScriptedDevice(description: description, events: events)
        let decision = DeviceMatcher(configuration: configuration.devices).decide(
            path: device.path, links: [], description: description)
        guard let id = daemon.devices.live.serve(device, decision: decision, path: device.path) else {
            throw SetupError(description: "the daemon's loop could not watch the scripted device")
        }
        deviceID = id

        let size = daemon.devices.currentDevices().first { $0.id == id }?.mapper.sizeMillimeters
        for client in 0..<options.clients {
            let ends = try Sys.socketPair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue))
            let pair = [ends.0, ends.1]
            try Sys.setNonBlocking(pair[0])
            try Sys.setNonBlocking(pair[1])
            peers.append(pair[1])
            guard daemon.hub.adopt(fd: pair[0], peer: PeerCredentials.of(fd: pair[0])) != nil else {
                throw SetupError(description: "the daemon refused client \(client + 1)")
            }
            var request = #"{"type":"subscribe","streams":["touches","gestures","devices"]"#
            if let horizon = options.predictMilliseconds { request += #","predictMs":\#(horizon)"# }
            request += "}\n"
            if options.routed, let size {
                // The whole device, in its published space (millimetres here).
                let mode = client == 0 ? "" : #","mode":"observer""#
                request +=
                    #"{"type":"declareRegions","device":\#(id),"regions":[{"id":"all","rect":[0,0,\#(size.width),\#(size.height)]\#(mode)}]}"#
                    + "\n"
            }
            try send(request, to: client)
        }
        // The requests are served (and the region declarations answered through the pipeline).
        for _ in 0..<4 {
            try daemon.turn(blocking: false)
            drain()
        }
        for client in 0..<options.clients where messagesReceived[client] < (options.routed ? 3 : 2) {
            throw SetupError(
                description:
                    "client \(client + 1) got \(messagesReceived[client]) lines; expected the hello and its replies")
        }
    }

    deinit {
        for fd in peers { Sys.close(fd) }
        receive.deallocate()
    }

    private func send(_ text: String, to client: Int) throws {
        _ = try Sys.send(peers[client], Array(text.utf8), flags: Int32(MSG_NOSIGNAL))
    }

    /// Plays the next `frames` frames (fewer when the recording ends first): one loop turn each, after
    /// which every client reads what it was sent. Returns the frames played.
    @discardableResult
    public func play(frames: Int) throws -> Int {
        var played = 0
        while played < frames, device.makeReadable() {
            try daemon.turn()
            drain()
            played += 1
        }
        return played
    }

    /// Every client reads what is in its socket.
    private func drain() {
        for (client, fd) in peers.enumerated() {
            while true {
                // Until the socket is empty (EAGAIN); a typed throw allocates nothing.
                let n = (try? Sys.read(fd, into: receive)) ?? 0
                guard n > 0 else { break }
                bytesReceived[client] &+= n
                // Lines counted with memchr: the clients' side costs little next to the daemon's.
                var lines = 0
                var at = 0
                while at < n, let base = receive.baseAddress,
                    let newline = memchr(base + at, 0x0A, n - at)
                {
                    lines &+= 1
                    at = base.distance(to: newline) + 1
                }
                messagesReceived[client] &+= lines
            }
        }
    }
}

/// A device whose readings are a recording's frames, one frame per read, behind a pipe that the
/// benchmark makes readable before each frame (as the kernel makes an evdev node readable).
final class ScriptedDevice: DeviceReader {
    let path = "bench"
    /// The pipe's read end (what the loop watches) and its write end.
    let fileDescriptor: Int32
    private let writeEnd: Int32
    let description: DeviceDescription
    private let readings: [DeviceReading]
    /// Where each frame's readings end (exclusive), in order.
    private let frameEnds: [Int]
    private var nextFrame = 0
    private var position = 0

    /// - Throws: `FramePathBench.SetupError` when the recording has no whole frame or no pipe can be
    ///   made.
    init(description: DeviceDescription, events: [InputEvent]) throws {
        self.description = description
        // Far past the monotonic clock (a day and more): the deadline timer the daemon arms from event
        // times never fires during a run.
        let now = Int64(Sys.monotonicNanoseconds() / 1000)
        let shift = (events.first.map { now - $0.time.microseconds } ?? 0) + 86_400_000_000
        var readings: [DeviceReading] = []
        var ends: [Int] = []
        readings.reserveCapacity(events.count)
        for var event in events {
            event.time = Timestamp(microseconds: event.time.microseconds + shift)
            readings.append(.event(event))
            if event.isSynReport { ends.append(readings.count) }
        }
        guard let last = ends.last else {
            throw FramePathBench.SetupError(description: "the recording has no whole frame")
        }
        readings.removeSubrange(last...)
        self.readings = readings
        frameEnds = ends
        let pipeEnds = try Sys.pipe(nonBlocking: false, closeOnExec: true)
        fileDescriptor = pipeEnds.read
        writeEnd = pipeEnds.write
        try Sys.setNonBlocking(fileDescriptor)
    }

    deinit {
        Sys.close(fileDescriptor)
        Sys.close(writeEnd)
    }

    var remainingFrames: Int { frameEnds.count - nextFrame }

    /// Makes the next frame readable; false when the recording is over.
    func makeReadable() -> Bool {
        guard nextFrame < frameEnds.count else { return false }
        let byte: UInt8 = 1
        withUnsafeBytes(of: byte) { raw in _ = try? Sys.write(writeEnd, raw) }
        return true
    }

    func read(into out: inout [DeviceReading]) throws(SystemError) {
        var byte: UInt8 = 0
        let n = withUnsafeMutableBytes(of: &byte) { raw in (try? Sys.read(fileDescriptor, into: raw)) ?? 0 }
        guard n == 1, nextFrame < frameEnds.count else { return }
        let end = frameEnds[nextFrame]
        out.append(contentsOf: readings[position..<end])
        position = end
        nextFrame += 1
    }
}
