import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// One file of a scanned directory and what `multitouchctl check` should do with it.
public struct RecordingJob: Hashable, Sendable {
    /// What the scan decided for the file.
    public enum Status: Hashable, Sendable {
        /// Replay it: `path` (with `descriptionPath` when it is events-only).
        case ready
        /// A recording that cannot be replayed as it stands (e.g. events-only without a `.desc`); `check`
        /// reports it as a failure.
        case problem(String)
        /// Not a recording to replay (a README, a description, a subdirectory ...), with the reason.
        case skipped(String)
    }

    /// The file (directory + "/" + name).
    public var path: String
    /// The description paired with an events-only file.
    public var descriptionPath: String?
    public var status: Status

    public init(path: String, descriptionPath: String? = nil, status: Status) {
        self.path = path
        self.descriptionPath = descriptionPath
        self.status = status
    }
}

/// Finds the recordings of a directory and pairs events-only evemu files with their descriptions.
///
/// Files are recognised by content (`RecordingReader.detect`), not by extension. An events-only file
/// pairs with the description-only file beside it whose name without its extension is the LONGEST
/// prefix of the events file's name, as whot/evemu-devices names them:
/// `Wacom_Bamboo_16FG_4x5_Finger_double-center-circle.events` pairs with `Wacom_Bamboo_16FG_4x5_Finger.desc`.
public enum RecordingSet {
    /// Extensions of recording files: such a file that is not a readable recording is a problem, not
    /// skipped, so a corrupt recording can never go unnoticed.
    public static let recordingExtensions: Set<String> = ["events", "evemu", "yml", "yaml", "desc", "rec"]

    /// Every entry of `directory` (not recursive), sorted by name, each with its status.
    /// - Throws: `RecordingError` when the directory cannot be listed.
    public static func scan(directory: String) throws(RecordingError) -> [RecordingJob] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory)
        } catch {
            throw RecordingError(
                file: directory, line: 0, message: "cannot list the directory: \(systemMessage(error))")
        }
        let base = directory.hasSuffix("/") ? String(directory.dropLast()) : directory
        func full(_ name: String) -> String { base + "/" + name }

        enum Role {
            case describedRecording, eventsOnly, descriptionOnly, libinput
            case problem(String), skipped(String)
        }
        var roles: [(name: String, role: Role)] = []
        for name in names.sorted(by: { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }) {
            let path = full(name)
            if name.hasPrefix(".") {
                roles.append((name, .skipped("hidden file")))
                continue
            }
            var isDirectory = false
            _ = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
            if isDirectory {
                roles.append((name, .skipped("directory (check does not descend)")))
                continue
            }
            let isRecordingName = recordingExtensions.contains(fileExtension(name).lowercased())
            let bytes: [UInt8]
            do {
                bytes = try RecordingReader.readFile(path)
            } catch {
                roles.append((name, .problem(error.message)))
                continue
            }
            let kind: RecordingReader.Kind
            do {
                try RecordingReader.checkUTF8(bytes, name: path)
                kind = try RecordingReader.detect(bytes, name: path)
            } catch {
                roles.append((name, isRecordingName ? .problem(error.description) : .skipped(error.message)))
                continue
            }
            switch kind {
            case .libinputRecord: roles.append((name, .libinput))
            case .evemuEventsOnly: roles.append((name, .eventsOnly))
            case .evemuDescribed:
                roles.append((name, hasEventLine(bytes) ? .describedRecording : .descriptionOnly))
            }
        }

        let descriptions = roles.compactMap { entry -> String? in
            if case .descriptionOnly = entry.role { return entry.name }
            return nil
        }
        var pairs: [String: String] = [:]
        var uses: [String: Int] = [:]
        for (name, role) in roles {
            if case .eventsOnly = role, let desc = pairedDescription(for: name, among: descriptions) {
                pairs[name] = desc
                uses[desc, default: 0] += 1
            }
        }
        var jobs: [RecordingJob] = []
        for (name, role) in roles {
            let path = full(name)
            switch role {
            case .describedRecording, .libinput:
                jobs.append(RecordingJob(path: path, status: .ready))
            case .eventsOnly:
                if let desc = pairs[name] {
                    jobs.append(RecordingJob(path: path, descriptionPath: full(desc), status: .ready))
                } else {
                    jobs.append(
                        RecordingJob(
                            path: path,
                            status: .problem(
                                "events-only file has no .desc: no description file in the directory has a name (without extension) that is a prefix of this file's name"
                            )))
                }
            case .descriptionOnly:
                let count = uses[name] ?? 0
                jobs.append(
                    RecordingJob(
                        path: path,
                        status: .skipped(
                            count > 0
                                ? "device description, used by \(count) events file(s)"
                                : "device description without events, not used by any events-only file")))
            case .problem(let message):
                jobs.append(RecordingJob(path: path, status: .problem(message)))
            case .skipped(let reason):
                jobs.append(RecordingJob(path: path, status: .skipped(reason)))
            }
        }
        return jobs
    }

    /// Every file of `directory` and of its sub-folders (evemu-devices keeps touchscreens/, touchpads/
    /// and tablets/ apart), each folder scanned as `scan` does (descriptions pair within their folder),
    /// sorted by path; the sub-folders themselves are not listed.
    /// - Throws: `RecordingError` when `directory` cannot be listed (an unreadable sub-folder is a
    ///   `.problem` job).
    public static func scanTree(directory: String) throws(RecordingError) -> [RecordingJob] {
        var found: [RecordingJob] = []
        var folders = [(path: directory, top: true)]
        while let folder = folders.popLast() {
            let jobs: [RecordingJob]
            do {
                jobs = try scan(directory: folder.path)
            } catch {
                if folder.top { throw error }
                found.append(RecordingJob(path: folder.path, status: .problem(error.message)))
                continue
            }
            for job in jobs {
                var isDirectory = false
                let name = job.path.split(separator: "/").last.map(String.init) ?? ""
                if !name.hasPrefix("."), FileManager.default.fileExists(atPath: job.path, isDirectory: &isDirectory),
                    isDirectory
                {
                    folders.append((job.path, false))
                } else {
                    found.append(job)
                }
            }
        }
        return found.sorted { Array($0.path.utf8).lexicographicallyPrecedes(Array($1.path.utf8)) }
    }

    /// The description whose stem (name without extension) is the longest prefix of `eventsName`;
    /// among equally long stems the first by name.
    public static func pairedDescription(for eventsName: String, among descriptions: [String]) -> String? {
        var best: (name: String, stemLength: Int)?
        for desc in descriptions.sorted() {
            let stem = Array(stemOf(desc).utf8)
            guard !stem.isEmpty, Array(eventsName.utf8).starts(with: stem), desc != eventsName else { continue }
            if stem.count > (best?.stemLength ?? 0) { best = (desc, stem.count) }
        }
        return best?.name
    }

    static func stemOf(_ name: String) -> String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return name }
        return String(name[..<dot])
    }

    static func fileExtension(_ name: String) -> String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return String(name[name.index(after: dot)...])
    }

    private static func hasEventLine(_ bytes: [UInt8]) -> Bool {
        var atLineStart = true
        var i = 0
        let n = bytes.count
        while i < n {
            let c = bytes[i]
            if c == 0x0a {
                atLineStart = true
            } else if atLineStart && (c == 0x20 || c == 0x09) {
                // leading blanks keep us at the line start
            } else {
                if atLineStart && c == UInt8(ascii: "E") && i + 1 < n && bytes[i + 1] == UInt8(ascii: ":") {
                    return true
                }
                atLineStart = false
            }
            i += 1
        }
        return false
    }
}

/// The system's words for a file error FileManager reports (strerror of the errno under it, e.g. "No
/// such file or directory"); FoundationEssentials has no localizedDescription.
func systemMessage(_ error: any Error) -> String {
    if let cocoa = error as? CocoaError, let posix = cocoa.userInfo["NSUnderlyingError"] as? POSIXError {
        return String(cString: strerror(posix.code.rawValue))
    }
    if let posix = error as? POSIXError { return String(cString: strerror(posix.code.rawValue)) }
    return "\(error)"
}
