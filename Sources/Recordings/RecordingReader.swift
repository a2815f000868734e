import FoundationEssentials
import MultitouchCore

/// Reads any recording format the project knows, choosing by content: evemu text (with its own
/// description, or events-only plus a separate description) or `libinput record` YAML (version 1).
/// Every malformed input ends in a `RecordingError` naming the file, the line and what was expected.
public enum RecordingReader {
    /// What a text holds, judged from its first significant line (see `detect`).
    public enum Kind: String, Hashable, Sendable {
        /// evemu text whose first significant line is N:/I:/P:/B:/A: (a description, maybe with events).
        case evemuDescribed
        /// evemu text that starts with E: lines: it needs a separate description.
        case evemuEventsOnly
        /// `libinput record` YAML.
        case libinputRecord
    }

    /// Reads `path`; `descriptionPath` supplies the device for an events-only evemu file.
    public static func read(path: String, descriptionPath: String? = nil) throws(RecordingError) -> Recording {
        let bytes = try readFile(path)
        let description = try descriptionPath.map { (p: String) throws(RecordingError) in try readFile(p) }
        return try parse(bytes: bytes, name: path, descriptionBytes: description, descriptionName: descriptionPath)
    }

    /// Parses recording text; `name` is used in errors.
    public static func parse(
        text: String, name: String, descriptionText: String? = nil, descriptionName: String? = nil
    )
        throws(RecordingError) -> Recording
    {
        try parse(
            bytes: Array(text.utf8), name: name, descriptionBytes: descriptionText.map { Array($0.utf8) },
            descriptionName: descriptionName)
    }

    /// Parses recording bytes (UTF-8 is checked here); `name` is used in errors.
    public static func parse(
        bytes: [UInt8], name: String, descriptionBytes: [UInt8]? = nil, descriptionName: String? = nil
    )
        throws(RecordingError) -> Recording
    {
        try checkUTF8(bytes, name: name)
        let kind = try detect(bytes, name: name)
        switch kind {
        case .libinputRecord:
            if descriptionBytes != nil {
                throw RecordingError(
                    file: name, line: 0,
                    message: "a libinput record file describes its own devices; do not pass a description (--desc)")
            }
            return try LibinputRecordParser.parse(text: String(decoding: bytes, as: UTF8.self), file: name)
        case .evemuDescribed, .evemuEventsOnly:
            let content = try bytes.withUnsafeBufferPointer { (b) throws(RecordingError) in
                try EvemuParser.parse(b, file: name)
            }
            return try combine(
                content, name: name, descriptionBytes: descriptionBytes, descriptionName: descriptionName)
        }
    }

    private static func combine(
        _ content: EvemuContent, name: String, descriptionBytes: [UInt8]?, descriptionName: String?
    ) throws(RecordingError) -> Recording {
        var notes: [String] = []
        let description: DeviceDescription
        if let own = content.description {
            if descriptionBytes != nil {
                throw RecordingError(
                    file: name, line: content.descriptionLine,
                    message: "this file has its own device description; do not pass another one (--desc)")
            }
            description = own
        } else {
            guard let descriptionBytes else {
                throw RecordingError(
                    file: name, line: content.firstEventLine,
                    message:
                        "events-only file needs a description: pass --desc (a .desc file with N:, I:, B:, A: lines)")
            }
            let descName = descriptionName ?? "\(name) (description)"
            try checkUTF8(descriptionBytes, name: descName)
            let desc = try descriptionBytes.withUnsafeBufferPointer { (b) throws(RecordingError) in
                try EvemuParser.parse(b, file: descName)
            }
            if desc.firstEventLine != 0 {
                throw RecordingError(
                    file: descName, line: desc.firstEventLine,
                    message: "a description file must not contain events (E: lines); pass it as the recording instead")
            }
            guard let parsed = desc.description else {
                throw RecordingError(
                    file: descName, line: 0,
                    message: "description file has no device description (expected N:, I:, B:, A: lines)")
            }
            description = parsed
        }
        if content.events.isEmpty {
            notes.append("\(name): the recording holds no events")
        } else if let last = content.events.last, !last.isSynReport {
            var tail = 0
            for event in content.events.reversed() {
                if event.isSynReport { break }
                tail += 1
            }
            notes.append("\(name): the last \(tail) event(s) are not closed by a SYN_REPORT (an unfinished frame)")
        }
        return Recording(
            format: .evemu, devices: [RecordedDevice(description: description, events: content.events)], notes: notes)
    }

    /// Decides the format from the first line that is neither blank nor a `#` comment.
    public static func detect(_ bytes: [UInt8], name: String) throws(RecordingError) -> Kind {
        var line = 0
        var start = 0
        let n = bytes.count
        var firstLineIsLibinputComment = false
        while start < n {
            line += 1
            var end = start
            while end < n && bytes[end] != 0x0a { end += 1 }
            var p = start
            while p < end && (bytes[p] == 0x20 || bytes[p] == 0x09 || bytes[p] == 0x0d) { p += 1 }
            if p < end {
                let c = bytes[p]
                if c == UInt8(ascii: "#") {
                    if line == 1 && bytes[p..<end].starts(with: Array("# libinput record".utf8)) {
                        firstLineIsLibinputComment = true
                    }
                } else {
                    if p + 1 < end && bytes[p + 1] == UInt8(ascii: ":") {
                        switch c {
                        case UInt8(ascii: "E"): return .evemuEventsOnly
                        case UInt8(ascii: "N"), UInt8(ascii: "I"), UInt8(ascii: "P"), UInt8(ascii: "B"),
                            UInt8(ascii: "A"),
                            UInt8(ascii: "L"), UInt8(ascii: "S"):
                            return .evemuDescribed
                        default: break
                        }
                    }
                    if firstLineIsLibinputComment || looksLikeYAMLKey(bytes[p..<end]) { return .libinputRecord }
                    let text = String(decoding: bytes[p..<end], as: UTF8.self)
                    throw RecordingError(
                        file: name, line: line,
                        message:
                            "not a recording: expected evemu lines (N:, I:, P:, B:, A:, E:) or libinput record YAML ('version: 1'), found '\(EvemuParser.excerpt(text))'"
                    )
                }
            }
            start = end + 1
        }
        throw RecordingError(
            file: name, line: 0,
            message: n == 0
                ? "empty file: expected an evemu or libinput record recording"
                : "no content: the file holds only blank lines and comments")
    }

    /// The top-level keys libinput record writes (tools/libinput-record.c), and `---` (a YAML document
    /// start). Only these start a libinput record file, so that prose with a "Word:" line (a README) is not
    /// taken for YAML.
    static let libinputTopLevelKeys = ["version:", "ndevices:", "libinput:", "system:", "devices:"]

    private static func looksLikeYAMLKey(_ s: ArraySlice<UInt8>) -> Bool {
        if s.starts(with: Array("---".utf8)) { return true }
        return libinputTopLevelKeys.contains { s.starts(with: Array($0.utf8)) }
    }

    /// Rejects invalid UTF-8, naming the first bad line.
    static func checkUTF8(_ bytes: [UInt8], name: String) throws(RecordingError) {
        if isASCII(bytes) || String(validating: bytes, as: UTF8.self) != nil { return }
        var line = 1
        var start = 0
        let n = bytes.count
        while start <= n {
            var end = start
            while end < n && bytes[end] != 0x0a { end += 1 }
            if String(validating: bytes[start..<end], as: UTF8.self) == nil {
                throw RecordingError(
                    file: name, line: line, message: "invalid UTF-8 (binary data?): a recording must be UTF-8 text")
            }
            line += 1
            start = end + 1
        }
        throw RecordingError(
            file: name, line: 0, message: "invalid UTF-8 (binary data?): a recording must be UTF-8 text")
    }

    /// True when every byte is below 0x80, checked eight bytes at a time: real recordings are ASCII but
    /// for the name, and this is several times faster than building a String to validate.
    static func isASCII(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { raw in
            var i = 0
            let n = raw.count
            var acc: UInt64 = 0
            while i + 8 <= n {
                acc |= raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                i += 8
            }
            while i < n {
                acc |= UInt64(raw[i])
                i += 1
            }
            return acc & 0x8080_8080_8080_8080 == 0
        }
    }

    static func readFile(_ path: String) throws(RecordingError) -> [UInt8] {
        var isDirectory = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw RecordingError(file: path, line: 0, message: "no such file")
        }
        guard !isDirectory else {
            throw RecordingError(file: path, line: 0, message: "is a directory, not a recording")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw RecordingError(file: path, line: 0, message: "cannot read the file (permissions?)")
        }
        return [UInt8](data)
    }
}
