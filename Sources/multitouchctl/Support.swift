import ArgumentParser
import Configuration
import DeviceInput
import MultitouchCore
import Publishing
import SystemCalls
import TouchPipeline
import TouchVocabulary
import WireProtocol

#if canImport(Glibc)
import Glibc
#endif

/// Buffered writes to stdout: replays print many lines, and a write per line would dominate.
struct StandardOutput {
    private var buffer: [UInt8] = []

    init() { buffer.reserveCapacity(1 << 16) }

    mutating func write(_ line: String) {
        buffer.append(contentsOf: line.utf8)
        buffer.append(UInt8(ascii: "\n"))
        if buffer.count >= 1 << 16 { flush() }
    }

    /// Appends bytes that already end their line (a published message).
    mutating func write(bytes: [UInt8]) {
        buffer.append(contentsOf: bytes)
        if buffer.count >= 1 << 16 { flush() }
    }

    mutating func flush() {
        // A failure means stdout closed (e.g. piped into head): nothing left to say.
        try? Sys.writeAll(1, buffer)
        buffer.removeAll(keepingCapacity: true)
    }
}

/// Prints pipeline output as multitouchd publishes it: with `json` the very bytes the daemon queues for
/// a subscribed whole-device client (`Publisher`: each message encoded once), in the form for a client
/// predicting at `horizon` ms (nil: none); else the readable line of each message.
struct PublishedOutput {
    let json: Bool
    let horizon: Int?
    private var publisher = Publisher()
    private var batch = Publisher.Batch()

    init(json: Bool, horizon: Int? = nil) {
        self.json = json
        self.horizon = horizon
    }

    mutating func print(_ outputs: [PipelineOutput], to output: inout StandardOutput) {
        publisher.publish(outputs, into: &batch)
        for i in batch.encoded.indices where batch.items[i].address == nil {
            if json {
                output.write(bytes: batch.message(i, horizon: horizon).bytes)
            } else if let message = batch.items[i].message(horizon: horizon) {
                output.write(ReadableFormat.line(for: message))
            }
        }
    }
}

func printError(_ text: String) {
    let bytes = Array((text + "\n").utf8)
    bytes.withUnsafeBytes { raw in _ = try? Sys.write(2, raw, "stderr") }
}

func baseName(_ path: String) -> String {
    path.split(separator: "/").last.map(String.init) ?? path
}

/// Pipeline settings from a configuration file (its [gestures], and the output mapping and size of the
/// device rule that matches `description` at `path`), or the built-in defaults.
func loadSettings(
    configPath: String?, path: String = "", description: DeviceDescription? = nil
) throws -> PipelineSettings {
    guard let configPath else { return PipelineSettings() }
    let configuration: DaemonConfiguration
    do {
        configuration = try DaemonConfiguration.load(path: configPath)
    } catch {
        printError("multitouchctl: \(error)")
        throw ExitCode.failure
    }
    guard let description else { return PipelineSettings(gestures: configuration.gestures) }
    let decision = DeviceMatcher(configuration: configuration.devices).decide(path: path, description: description)
    return PipelineSettings(
        gestures: configuration.gestures, output: decision.output, sizeMillimeters: decision.sizeMillimeters)
}

/// The human-readable form of messages (`replay`, `listen` without --json, `monitor`). Unstable by design.
enum ReadableFormat {
    static func line(for message: Message) -> String {
        switch message {
        case .hello(let hello):
            let list = hello.devices.map { "\($0.id) \"\($0.name)\"" }.joined(separator: ", ")
            return "hello \(hello.daemon), protocol \(hello.protocolVersion), \(hello.devices.count) device(s)"
                + (list.isEmpty ? "" : ": " + list)
        case .deviceAdded(let info):
            return
                "device \(info.id) added: \"\(info.name)\" \(info.deviceClass.rawValue), protocol \(info.multitouchProtocol.rawValue), \(info.slots) slot(s)\(info.isSemiMT ? ", semi-mt" : ""), \(fmt(info.widthMillimeters))x\(fmt(info.heightMillimeters)) mm (\(info.sizeSource)), units \(info.units.rawValue)"
        case .deviceRemoved(let m):
            return "\(m.time.map { $0.description } ?? "-") device \(m.device) removed (\(m.reason))"
        case .touches(let m):
            let touches = m.touches.map { t in
                "#\(t.id) \(t.phase.rawValue) (\(fmt(t.location.x)), \(fmt(t.location.y)))\(t.tapCount > 1 ? " taps=\(t.tapCount)" : "")"
            }.joined(separator: "  ")
            let routed = m.routing.map { r in
                " region=\(r.region)/\(r.role.rawValue)" + (r.reason.map { " (\($0.rawValue))" } ?? "")
            }
            return
                "\(m.time) dev \(m.device)\(routed ?? "") touches fingers=\(m.fingers)\(m.isSemiMT ? " semi-mt" : ""): \(touches)"
        case .gesture(let m):
            return "\(m.event.time) dev \(m.device) " + (m.region.map { "region=\($0) " } ?? "") + gestureText(m.event)
        case .dropped(let m):
            return
                "\(m.time.map { $0.description } ?? "-") dev \(m.device.map(String.init) ?? "-") DROPPED \(m.count) \(m.unit.rawValue): \(m.reason)"
        case .error(let e):
            return "error \(e.code)\(e.fatal ? " (fatal)" : ""): \(e.message)\(e.id.map { " (request \($0))" } ?? "")"
        case .pong(let m):
            return "pong\(m.id.map { " \($0)" } ?? "")"
        case .subscribed(let m):
            let devices: String
            switch m.devices {
            case .all: devices = "all"
            case .ids(let ids): devices = ids.sorted().map(String.init).joined(separator: ",")
            }
            let streams = m.streams.sorted { $0.rawValue < $1.rawValue }.map(\.rawValue).joined(separator: ",")
            // Said on the subscription's own line: a user without `observe` would otherwise see nothing
            // follow and not know why.
            return "subscribed to \(streams) of devices \(devices)\(m.withheld.map { "; withheld: \($0)" } ?? "")"
        case .unsubscribed:
            return "unsubscribed"
        case .stats:
            return "stats \(message.jsonLine())"
        case .transform(let m):
            let t = m.matrix
            return "dev \(m.device) transform set to [\(t.a), \(t.b), \(t.c), \(t.d), \(t.tx), \(t.ty)]"
        case .regions(let m):
            return "dev \(m.device) regions [\(m.regions.joined(separator: ", "))]"
        case .recognized(let m):
            return "dev \(m.device) region \(m.region) recognized"
        case .regionList(let m):
            return "dev \(m.device) " + RegionsFormat.lines(m).joined(separator: "; ")
        }
    }

    static func gestureText(_ event: GestureEvent) -> String {
        switch event {
        case .sessionBegan(let session, _): return "session \(session) began"
        case .sessionEnded(let session, _, let cancelled):
            return "session \(session) \(cancelled ? "cancelled" : "ended")"
        case .update(let u):
            let degrees = u.rotation * 180 / Double.pi
            return
                "\(u.mode.rawValue) \(u.phase.rawValue) fingers=\(u.fingers) centroid=(\(fmt(u.centroid.x)), \(fmt(u.centroid.y))) translation=(\(fmt(u.translation.x)), \(fmt(u.translation.y))) scale=\(fmt(u.scale, 3)) rotation=\(fmt(degrees))°"
                + CumulativeText.of(matrix: [u.matrix.a, u.matrix.b, u.matrix.c, u.matrix.d, u.matrix.tx, u.matrix.ty])
        case .tap(_, _, let location, let tapCount, let fingers):
            return "tap count=\(tapCount) fingers=\(fingers) at (\(fmt(location.x)), \(fmt(location.y)))"
        case .doubleTap(_, _, let location, _):
            return "doubleTap at (\(fmt(location.x)), \(fmt(location.y)))"
        case .longPress(_, _, let phase, let location, let fingers):
            return "longPress \(phase.rawValue) fingers=\(fingers) at (\(fmt(location.x)), \(fmt(location.y)))"
        }
    }

    static func fmt(_ value: Double, _ digits: Int = 1) -> String {
        guard value.isFinite else { return "nan" }
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let rounded = (value * scale).rounded() / scale
        return String(rounded)
    }
}

// What Foundation's String gave the subcommands, without Foundation (its ICU data was 34 MB of each
// binary; FoundationEssentials has none of these, issue 29 item 9).
extension String {
    /// printf-style formatting through C's vsnprintf: numbers only (%d, %.3f, %%), no %@.
    init(format: String, _ arguments: any CVarArg...) {
        var size = 256
        while true {
            var buffer = [CChar](repeating: 0, count: size)
            let needed = withVaList(arguments) { vsnprintf(&buffer, size, format, $0) }
            if needed < 0 {
                self = format
                return
            }
            if Int(needed) < size {
                self = String(decoding: buffer.prefix(Int(needed)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
                return
            }
            size = Int(needed) + 1
        }
    }

    /// The string cut or padded (with `pad`) to `length` characters, like NSString's padding(toLength:).
    func padding(toLength length: Int, withPad pad: String, startingAt start: Int) -> String {
        if count >= length { return String(prefix(length)) }
        let filler = Array(pad.isEmpty ? " " : pad)
        return self + String((0..<(length - count)).map { filler[($0 + start) % filler.count] })
    }

    /// The string without leading and trailing spaces, tabs and newlines.
    func trimmingWhitespace() -> String {
        String(drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}
