import Glibc
import SystemCalls

/// One `struct inotify_event` from an inotify fd.
public struct InotifyRecord: Hashable, Sendable {
    public var watch: Int32
    public var mask: UInt32
    public var cookie: UInt32
    /// The entry name inside the watched directory ("" for events on the directory itself).
    public var name: String

    public init(watch: Int32, mask: UInt32, cookie: UInt32 = 0, name: String) {
        self.watch = watch
        self.mask = mask
        self.cookie = cookie
        self.name = name
    }
}

/// Decodes the byte stream `read(2)` returns from an inotify fd: a sequence of fixed 16-byte headers
/// (wd, mask, cookie, len) each followed by `len` bytes of NUL-padded name (inotify(7)).
public enum InotifyParser {
    static let headerSize = 16

    /// The records in `bytes`. A truncated trailing record is an error, never silently dropped: the
    /// kernel only returns whole records, so a short one means the caller's buffer handling is wrong.
    public static func parse(_ bytes: [UInt8]) throws(InotifyParseError) -> [InotifyRecord] {
        var records: [InotifyRecord] = []
        var offset = 0
        while offset < bytes.count {
            guard bytes.count - offset >= headerSize else {
                throw InotifyParseError(offset: offset, message: "truncated header (\(bytes.count - offset) bytes)")
            }
            let watch = Int32(bitPattern: word(bytes, offset))
            let mask = word(bytes, offset + 4)
            let cookie = word(bytes, offset + 8)
            let length = Int(word(bytes, offset + 12))
            let nameStart = offset + headerSize
            guard length <= bytes.count - nameStart else {
                throw InotifyParseError(offset: offset, message: "name of \(length) bytes runs past the buffer")
            }
            let nameBytes = bytes[nameStart..<(nameStart + length)].prefix(while: { $0 != 0 })
            let name = String(decoding: nameBytes, as: UTF8.self)
            records.append(InotifyRecord(watch: watch, mask: mask, cookie: cookie, name: name))
            offset = nameStart + length
        }
        return records
    }

    /// Native-endian (inotify is a local interface) 32-bit word at `offset`.
    private static func word(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        var value: UInt32 = 0
        withUnsafeMutableBytes(of: &value) { raw in
            for i in 0..<4 { raw[i] = bytes[offset + i] }
        }
        return value
    }

    /// Encodes records the way the kernel does (names NUL-padded to a multiple of 4); used by tests.
    public static func encode(_ records: [InotifyRecord]) -> [UInt8] {
        var out: [UInt8] = []
        for record in records {
            var name = Array(record.name.utf8)
            if !name.isEmpty {
                name.append(0)
                while name.count % 4 != 0 { name.append(0) }
            }
            for value in [UInt32(bitPattern: record.watch), record.mask, record.cookie, UInt32(name.count)] {
                withUnsafeBytes(of: value) { out.append(contentsOf: $0) }
            }
            out.append(contentsOf: name)
        }
        return out
    }
}

/// A malformed inotify buffer.
public struct InotifyParseError: Error, Hashable, Sendable, CustomStringConvertible {
    public var offset: Int
    public var message: String
    public var description: String { "inotify buffer at byte \(offset): \(message)" }
}

/// The fallback hotplug source where udev does not run: inotify on /dev/input (devtmpfs creates and
/// removes the nodes itself). Watches the parent for the directory when it does not exist yet (no
/// input device has appeared since boot).
final class InotifyWatcher {
    let fileDescriptor: Int32
    let directory: String
    private var directoryWatch: Int32 = -1
    private var parentWatch: Int32 = -1

    static let directoryMask = UInt32(IN_CREATE | IN_ATTRIB | IN_DELETE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE_SELF)

    init(directory: String) throws(SystemError) {
        self.directory = directory
        fileDescriptor = try Sys.inotifyInit(flags: Int32(IN_NONBLOCK | IN_CLOEXEC), directory)
        // Every stored property is set, so a throw from here on runs deinit, which closes the fd
        // (closing it here as well would close a number another thread may already reuse).
        try watchDirectoryOrParent()
    }

    deinit { Sys.close(fileDescriptor) }

    private func watchDirectoryOrParent() throws(SystemError) {
        do {
            directoryWatch = try Sys.inotifyAddWatch(fileDescriptor, directory, mask: Self.directoryMask)
            return
        } catch  where error.errno == ENOENT {
            // No input device since boot: watch the parent for the directory to appear.
        }
        let parent = Self.parent(of: directory)
        parentWatch = try Sys.inotifyAddWatch(fileDescriptor, parent, mask: UInt32(IN_CREATE | IN_MOVED_TO))
    }

    static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let parent = String(path[..<slash])
        return parent.isEmpty ? "/" : parent
    }

    /// Drains the fd and turns records into hotplug events for event nodes.
    func receive() throws(SystemError) -> [HotplugEvent] {
        var events: [HotplugEvent] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count: Int
            do {
                count = try Sys.read(fileDescriptor, into: &buffer, "inotify \(directory)")
            } catch  where error.wouldBlock {
                break
            }
            if count == 0 { break }
            let records: [InotifyRecord]
            do {
                records = try InotifyParser.parse(Array(buffer[0..<count]))
            } catch {
                throw SystemError("read", errno: EIO, detail: "inotify \(directory): \(error.message)")
            }
            events += try handle(records)
        }
        return events
    }

    func handle(_ records: [InotifyRecord]) throws(SystemError) -> [HotplugEvent] {
        var events: [HotplugEvent] = []
        let base = directory.split(separator: "/").last.map(String.init) ?? directory
        for record in records {
            if record.watch == parentWatch && record.name == base && record.mask & UInt32(IN_ISDIR) != 0 {
                // /dev/input appeared: watch it, and report the nodes created before the watch existed.
                Sys.inotifyRemoveWatch(fileDescriptor, parentWatch)
                parentWatch = -1
                try watchDirectoryOrParent()
                for name in DirectoryListing.names(in: directory) where EventNode.isEventNode(name) {
                    events.append(.added(directory + "/" + name))
                }
                continue
            }
            guard record.watch == directoryWatch else { continue }
            if record.mask & UInt32(IN_DELETE_SELF | IN_IGNORED) != 0 {
                // The directory itself went away: wait for it to come back.
                directoryWatch = -1
                try watchDirectoryOrParent()
                continue
            }
            events += Self.events(for: record, directory: directory)
        }
        return events
    }

    /// The hotplug event one directory record means (none for names that are not event nodes).
    static func events(for record: InotifyRecord, directory: String) -> [HotplugEvent] {
        guard EventNode.isEventNode(record.name) else { return [] }
        let path = directory + "/" + record.name
        if record.mask & UInt32(IN_CREATE | IN_MOVED_TO) != 0 { return [.added(path)] }
        if record.mask & UInt32(IN_DELETE | IN_MOVED_FROM) != 0 { return [.removed(path)] }
        // udev (or an admin) changed owner or mode: a node we could not open may be readable now.
        if record.mask & UInt32(IN_ATTRIB) != 0 { return [.changed(path)] }
        return []
    }
}

/// Names of evdev nodes: `event` followed by digits.
public enum EventNode {
    public static func isEventNode(_ name: String) -> Bool {
        guard name.hasPrefix("event") else { return false }
        let digits = name.dropFirst(5)
        return !digits.isEmpty && digits.allSatisfy { $0.isASCII && $0.isNumber }
    }

    /// The N of /dev/input/eventN, for numeric ordering (event2 before event10).
    public static func number(_ path: String) -> Int? {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard isEventNode(name) else { return nil }
        return Int(name.dropFirst(5))
    }

    /// Sorts node paths by event number, other paths last by name.
    public static func sorted(_ paths: [String]) -> [String] {
        paths.sorted { a, b in
            switch (number(a), number(b)) {
            case (let x?, let y?): return x < y
            case (.some, .none): return true
            case (.none, .some): return false
            case (.none, .none): return a < b
            }
        }
    }
}
