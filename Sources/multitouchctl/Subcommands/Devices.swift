import ArgumentParser
import Configuration
import DeviceInput
import Glibc
import MultitouchCore
import SystemCalls
import WireProtocol

/// What `devices` knows about one node: its description and the daemon's decision, or why it could
/// not be opened.
struct DeviceReport {
    var path: String
    var links: [String]
    var udev: [String: String]?
    var description: DeviceDescription?
    var decision: DeviceDecision?
    var error: SystemError?

    init(path: String, matcher: DeviceMatcher) {
        self.path = path
        links = DeviceLinks.links(to: path)
        udev = Udev.inputProperties(of: path)
        do {
            let live = try LiveDevice(path: path)
            description = live.description
            decision = matcher.decide(path: path, links: links, description: live.description)
        } catch {
            self.error = error
        }
    }

    var readable: String {
        guard let description, let decision else {
            var text =
                "\(path): cannot open: \(error.map { "\($0.reason) (\($0.call), errno \($0.errno))" } ?? "unknown")"
            if error?.kind == .permissionDenied { text += " (run as root or add the user to the 'input' group)" }
            return text
        }
        let mapper = CoordinateMapper(description: description, output: decision.output, configuredSize: configuredSize)
        let size = mapper.sizeMillimeters
        var lines = ["\(path): \"\(description.name)\""]
        lines.append("    class \(decision.deviceClass.rawValue) (\(decision.classReason))")
        let resolution =
            description.positionAxes.map { "resolution \($0.x.resolution)x\($0.y.resolution) units/mm, " } ?? ""
        lines.append(
            "    protocol \(description.multitouchProtocol.rawValue), \(description.slotCount) slot(s)\(description.kind.isSemiMT ? ", semi-mt" : ""), \(resolution)\(format(size.width))x\(format(size.height)) mm (\(mapper.scaleSource))"
        )
        let action: String
        switch decision.action {
        case .serve(let grab): action = grab ? "serve, grabbed" : "serve, passthrough"
        case .skip: action = "skip"
        }
        lines.append("    \(action): \(decision.reason)")
        if let udev {
            lines.append("    udev: " + udev.keys.sorted().map { "\($0)=\(udev[$0] ?? "")" }.joined(separator: " "))
        }
        if !links.isEmpty { lines.append("    links: " + links.joined(separator: " ")) }
        return lines.joined(separator: "\n")
    }

    var configuredSize: (Double, Double)? {
        guard let size = decision?.sizeMillimeters, size.count == 2 else { return nil }
        return (size[0], size[1])
    }

    var json: String {
        var w = JSONWriter()
        w.beginObject()
        w.key("path")
        w.string(path)
        if let description, let decision {
            let mapper = CoordinateMapper(
                description: description, output: decision.output, configuredSize: configuredSize)
            w.key("name")
            w.string(description.name)
            w.key("vendor")
            w.int(description.identity.vendor)
            w.key("product")
            w.int(description.identity.product)
            w.key("bustype")
            w.int(description.identity.bustype)
            w.key("class")
            w.string(decision.deviceClass.rawValue)
            w.key("classReason")
            w.string(decision.classReason)
            w.key("protocol")
            w.string(description.multitouchProtocol.rawValue)
            w.key("slots")
            w.int(description.slotCount)
            w.key("semiMT")
            w.bool(description.kind.isSemiMT)
            if let axes = description.positionAxes {
                w.key("resolution")
                w.beginArray()
                w.int(axes.x.resolution)
                w.int(axes.y.resolution)
                w.endArray()
            }
            w.key("sizeMillimeters")
            w.point(mapper.sizeMillimeters.width, mapper.sizeMillimeters.height)
            w.key("sizeSource")
            w.string(mapper.scaleSource)
            w.key("serve")
            w.bool(decision.serves)
            w.key("grab")
            w.bool(decision.grabs)
            w.key("rule")
            if let rule = decision.ruleIndex { w.int(rule + 1) } else { w.null() }
            w.key("reason")
            w.string(decision.reason)
        }
        if let error {
            w.key("error")
            w.beginObject()
            w.key("call")
            w.string(error.call)
            w.key("errno")
            w.int(error.errno)
            w.key("message")
            w.string(error.reason)
            w.key("permissionDenied")
            w.bool(error.kind == .permissionDenied)
            w.endObject()
        }
        if let udev {
            w.key("udev")
            w.beginObject()
            for key in udev.keys.sorted() {
                w.key(string: key)
                w.string(udev[key] ?? "")
            }
            w.endObject()
        }
        if !links.isEmpty {
            w.key("links")
            w.beginArray()
            for link in links { w.string(link) }
            w.endArray()
        }
        w.endObject()
        return String(decoding: w.bytes, as: UTF8.self)
    }

    private func format(_ value: Double) -> String {
        let rounded = (value * 10).rounded() / 10
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }
}

/// `multitouchctl devices`: every evdev node with what the daemon would do with it and why.
struct Devices: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List input devices and whether multitouchd would serve them, and why.",
        discussion: """
            Lists every /dev/input/event* node: name, class and why, multitouch protocol, slots, resolution \
            and size in mm, the match rule that decided, and grab. A node that cannot be opened is listed \
            with the error (usually permissions), not skipped. With --watch it then reports nodes added and \
            removed (through udev when udevd runs, else inotify on /dev/input) until --timeout or SIGINT.
            """)

    @Flag(name: .long, help: "One JSON object per device (and per hotplug event with --watch).")
    var json = false

    @Flag(name: .long, help: "After the list, report devices added and removed.")
    var watch = false

    @Option(name: .long, help: "With --watch: stop after this many seconds.")
    var timeout: Double?

    @Option(
        name: .long,
        help:
            "Configuration file whose [devices] rules decide (default: \(DaemonConfiguration.defaultPath) when it exists, else the built-in defaults)."
    )
    var config: String?

    @Option(name: .long, help: ArgumentHelp("Directory of the nodes (default /dev/input).", visibility: .hidden))
    var directory = "/dev/input"

    func run() throws {
        var devices = DevicesConfiguration()
        let configPath =
            config ?? (Sys.access(DaemonConfiguration.defaultPath, F_OK) ? DaemonConfiguration.defaultPath : nil)
        if let configPath {
            do {
                devices = try DaemonConfiguration.load(path: configPath).devices
            } catch {
                printError("multitouchctl devices: \(error)")
                throw ExitCode.failure
            }
        }
        let matcher = DeviceMatcher(configuration: devices)
        let signals = TerminationSignals()
        var out = StandardOutput()
        let discovery: DeviceDiscovery?
        do {
            discovery = watch ? try DeviceDiscovery(directory: directory) : nil
        } catch {
            printError("multitouchctl devices: \(error)")
            throw ExitCode.failure
        }
        let nodes =
            discovery?.enumerate()
            ?? EventNode.sorted(listEventNodes(directory))
        if nodes.isEmpty && !json { out.write("no input devices in \(directory)") }
        for node in nodes {
            let report = DeviceReport(path: node, matcher: matcher)
            out.write(json ? report.json : report.readable)
        }
        out.flush()
        guard let discovery else { return }
        if !json { out.write("watching \(directory) through \(discovery.source.rawValue)...") }
        out.flush()
        let stopAt = timeout.map { monotonicNow().adding(milliseconds: $0 * 1000) }
        while true {
            let ready = waitReadable(
                [discovery.fileDescriptor, signals.fileDescriptor],
                timeoutMilliseconds: pollTimeout(until: stopAt, now: monotonicNow()))
            if ready[1] { return }
            if !ready[0] {
                if let stopAt, monotonicNow() >= stopAt { return }
                continue
            }
            let events: [HotplugEvent]
            do {
                events = try discovery.receive()
            } catch {
                printError("multitouchctl devices: \(error)")
                throw ExitCode.failure
            }
            for event in events {
                switch event {
                case .added(let path), .changed(let path):
                    let kind = if case .added = event { "added" } else { "changed" }
                    let report = DeviceReport(path: path, matcher: matcher)
                    if json {
                        out.write("{\"event\":\"\(kind)\",\"device\":\(report.json)}")
                    } else {
                        out.write("\(kind): " + report.readable)
                    }
                case .removed(let path):
                    var w = JSONWriter()
                    w.string(path)
                    out.write(
                        json
                            ? "{\"event\":\"removed\",\"path\":\(String(decoding: w.bytes, as: UTF8.self))}"
                            : "removed: \(path)")
                }
            }
            out.flush()
        }
    }
}

/// Paths of eventN nodes in `directory`.
func listEventNodes(_ directory: String) -> [String] {
    let names = (try? Sys.directoryEntries(directory)) ?? []
    return names.filter(EventNode.isEventNode).map { directory + "/" + $0 }
}
