import Foundation
import MultitouchCore
import Recordings

/// Seed inputs for each harness, built from what the repository already has (checks/fixtures, config/,
/// and ../shared/recordings when it is there) plus each harness's committed `checks/fuzz/<name>/seeds/`.
enum Seeds {
    @Sendable static func evemu(_ root: String) -> [(name: String, bytes: [UInt8])] {
        var seeds = committed(root, "evemu")
        for recording in recordings(root) where recording.kind != .libinputRecord {
            seeds.append((recording.name, recording.bytes))
        }
        return seeds
    }

    /// The repository has no libinput record files of its own, so besides the committed seeds every
    /// evemu recording is rewritten the way `libinput record` writes it (its first 150 events, which
    /// keeps the slowest harness fast).
    @Sendable static func libinputRecord(_ root: String) -> [(name: String, bytes: [UInt8])] {
        var seeds = committed(root, "libinput-record")
        for recording in recordings(root) {
            let (events, description) = Harnesses.splitAtNUL(recording.bytes)
            guard
                let parsed = try? RecordingReader.parse(
                    bytes: events, name: recording.name, descriptionBytes: description)
            else { continue }
            seeds.append((recording.name + ".yml", Array(libinputRecordText(parsed, source: recording.name).utf8)))
        }
        return seeds
    }

    @Sendable static func configuration(_ root: String) -> [(name: String, bytes: [UInt8])] {
        var seeds = committed(root, "configuration")
        for name in files(in: root + "/config") where name.hasSuffix(".toml") {
            guard let bytes = read(root + "/config/" + name) else { continue }
            seeds.append((name, bytes))
            // The shipped file documents examples in comments; live they reach the rule and output code.
            let live = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
                .map { line in isCommentedExample(line) ? line.dropFirst(2) : line }
                .joined(separator: "\n")
            seeds.append(("uncommented-" + name, Array(live.utf8)))
        }
        return seeds
    }

    /// The committed seeds (docs/PROTOCOL.md's request lines and refusals), the golden request files
    /// each as one stream of lines, and every request line of docs/PROTOCOL.md's examples.
    @Sendable static func request(_ root: String) -> [(name: String, bytes: [UInt8])] {
        var seeds = committed(root, "request")
        let golden = root + "/checks/protocol/golden/requests"
        for name in files(in: golden) where name.hasSuffix(".jsonl") {
            guard let bytes = read(golden + "/" + name) else { continue }
            seeds.append(("golden-" + name, bytes))
        }
        if let protocolText = read(root + "/docs/PROTOCOL.md") {
            let requests = String(decoding: protocolText, as: UTF8.self).split(separator: "\n")
                .filter { $0.hasPrefix("> {") }.map { $0.dropFirst(2) + "\n" }
            for (index, line) in requests.enumerated() { seeds.append(("protocol-md-\(index)", Array(line.utf8))) }
        }
        return seeds
    }

    /// A harness whose inputs are not files of a format (choices for a generator): its committed seeds.
    static func committedOnly(_ harness: String) -> @Sendable (_ root: String) -> [(name: String, bytes: [UInt8])] {
        { root in committed(root, harness) }
    }

    /// `# [[devices.rule]]` or `# key = value`: an example line of the shipped file (the same rule as
    /// ShippedConfigurationTests' `exampleRulesParseWhenUncommented`).
    static func isCommentedExample(_ line: Substring) -> Bool {
        guard line.hasPrefix("# ") else { return false }
        let body = line.dropFirst(2)
        if body == "[[devices.rule]]" { return true }
        guard let space = body.firstIndex(of: " "), space > body.startIndex,
            body[..<space].allSatisfy({ $0 == "_" || ("a"..."z").contains($0) })
        else { return false }
        return body[space...].hasPrefix(" = ")
    }

    /// Every recording the repository can replay, events-only files joined to their description by a
    /// NUL byte (the evemu harness's input format).
    private static func recordings(_ root: String) -> [(name: String, kind: RecordingReader.Kind, bytes: [UInt8])] {
        var found: [(name: String, kind: RecordingReader.Kind, bytes: [UInt8])] = []
        for directory in ["checks/fixtures", "../shared/recordings"] {
            guard let jobs = try? RecordingSet.scan(directory: root + "/" + directory) else { continue }
            for job in jobs {
                guard case .ready = job.status, var bytes = read(job.path),
                    let kind = try? RecordingReader.detect(bytes, name: job.path)
                else { continue }
                if let descriptionPath = job.descriptionPath, let description = read(descriptionPath) {
                    bytes += [0] + description
                }
                found.append((URL(fileURLWithPath: job.path).lastPathComponent, kind, bytes))
            }
        }
        return found
    }

    private static func committed(_ root: String, _ harness: String) -> [(name: String, bytes: [UInt8])] {
        let directory = "\(root)/checks/fuzz/\(harness)/seeds"
        return files(in: directory).compactMap { name in read(directory + "/" + name).map { (name, $0) } }
    }

    private static func files(in directory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { !$0.hasPrefix(".") }.sorted()
    }

    private static func read(_ path: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path).map { [UInt8]($0) }
    }

    /// A recording in the layout of libinput's tools/libinput-record.c (version 1): the description
    /// under `evdev`, one `- evdev:` list per frame, event comments and a `libinput:` entry as libinput
    /// writes them, so the seeds carry the shapes real files have.
    static func libinputRecordText(_ recording: Recording, source: String, maximumEvents: Int = 150) -> String {
        var lines = [
            "# libinput record (seed written from \(source))", "version: 1", "ndevices: \(recording.devices.count)",
            "libinput:", "  version: \"1.22.1\"", "  git: \"unknown\"", "system:", "  os: \"debian:12\"",
            "  kernel: \"6.1.0-56-amd64\"", "  dmi: \"dmi:bvnSeed:\"", "devices:",
        ]
        for (index, device) in recording.devices.enumerated() {
            let description = device.description
            let identity = description.identity
            let name = description.name.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(
                of: "\"", with: "\\\"")
            lines += [
                "- node: /dev/input/event\(index)", "  evdev:", "    # Name: \(description.name)",
                "    # ID: bus 0x\(String(identity.bustype, radix: 16)) vendor 0x\(String(identity.vendor, radix: 16))",
                "    name: \"\(name)\"",
                "    id: [\(identity.bustype), \(identity.vendor), \(identity.product), \(identity.version)]",
                "    codes:",
            ]
            for type in description.codes.keys.sorted() {
                let codes = (description.codes[type] ?? []).sorted().map(String.init).joined(separator: ", ")
                lines.append("      \(type): [\(codes)] # type \(type)")
            }
            lines.append("    absinfo:")
            for code in description.axes.keys.sorted() {
                guard let axis = description.axes[code] else { continue }
                lines.append(
                    "      \(code): [\(axis.minimum), \(axis.maximum), \(axis.fuzz), \(axis.flat), \(axis.resolution)]")
            }
            lines += [
                "    properties: [\(description.properties.sorted().map(String.init).joined(separator: ", "))]",
                "  hid: [5, 13, 9, 4]", "  udev:", "    properties:", "    - ID_INPUT=1",
                "    - ID_INPUT_TOUCHSCREEN=1",
                "  quirks:", "  events:",
            ]
            var frameOpen = false
            for event in device.events.prefix(maximumEvents) {
                if !frameOpen {
                    lines.append("  - evdev:")
                    frameOpen = true
                }
                let time = event.time.microseconds
                let row =
                    "[\(pad(time / 1_000_000, 3)), \(pad(time % 1_000_000, 6)), \(pad(Int64(event.type), 3)), \(pad(Int64(event.code), 3)), \(pad(Int64(event.value), 7))]"
                lines.append("    - \(row) # type \(event.type) code \(event.code)")
                if event.type == 0 && event.code == 0 {
                    lines += ["  - libinput:", "    - \"  +0.000s\tTOUCH_FRAME\""]
                    frameOpen = false
                }
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let text = String(value)
        return String(repeating: " ", count: max(0, width - text.count)) + text
    }
}
