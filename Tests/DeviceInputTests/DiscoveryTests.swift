import Glibc
import SystemCalls
import Testing

@testable import DeviceInput

@Suite struct InotifyParsingTests {
    @Test func roundTripsRecordsWithPaddedNames() throws {
        let records = [
            InotifyRecord(watch: 1, mask: UInt32(IN_CREATE), name: "event12"),
            InotifyRecord(watch: 1, mask: UInt32(IN_ATTRIB), name: "event12"),
            InotifyRecord(watch: 2, mask: UInt32(IN_DELETE_SELF), name: ""),
            InotifyRecord(watch: 1, mask: UInt32(IN_MOVED_TO), cookie: 77, name: "by-id"),
        ]
        let bytes = InotifyParser.encode(records)
        // 16-byte headers; "event12" + NUL padded to 8, "" takes no bytes, "by-id" + NUL padded to 8.
        #expect(bytes.count == 16 * 4 + 8 + 8 + 8)
        #expect(try InotifyParser.parse(bytes) == records)
    }

    @Test func aTruncatedRecordIsAnError() throws {
        let bytes = InotifyParser.encode([InotifyRecord(watch: 1, mask: UInt32(IN_CREATE), name: "event3")])
        #expect(throws: InotifyParseError.self) { try InotifyParser.parse(Array(bytes.dropLast(3))) }
        #expect(throws: InotifyParseError.self) { try InotifyParser.parse(Array(bytes.prefix(10))) }
    }

    @Test func onlyEventNodesBecomeHotplugEvents() {
        let directory = "/dev/input"
        func events(_ mask: Int32, _ name: String) -> [HotplugEvent] {
            InotifyWatcher.events(for: InotifyRecord(watch: 1, mask: UInt32(mask), name: name), directory: directory)
        }
        #expect(events(IN_CREATE, "event5") == [.added("/dev/input/event5")])
        #expect(events(IN_MOVED_TO, "event5") == [.added("/dev/input/event5")])
        #expect(events(IN_DELETE, "event5") == [.removed("/dev/input/event5")])
        #expect(events(IN_ATTRIB, "event5") == [.changed("/dev/input/event5")])
        #expect(events(IN_CREATE, "mouse0").isEmpty)
        #expect(events(IN_CREATE, "js0").isEmpty)
        #expect(events(IN_CREATE | IN_ISDIR, "by-path").isEmpty)
        #expect(events(IN_CREATE, "event").isEmpty)
        #expect(events(IN_CREATE, "event1a").isEmpty)
    }

    @Test func eventNodesSortByNumber() {
        #expect(
            EventNode.sorted(["/dev/input/event10", "/dev/input/event2", "/dev/input/mice", "/dev/input/event0"])
                == ["/dev/input/event0", "/dev/input/event2", "/dev/input/event10", "/dev/input/mice"])
        #expect(EventNode.number("/dev/input/event17") == 17)
        #expect(EventNode.number("/dev/input/mouse1") == nil)
    }
}

/// The inotify fallback on a real directory (files stand in for device nodes: inotify does not care).
@Suite struct InotifyWatcherTests {
    func touch(_ path: String) throws {
        let fd = open(path, O_CREAT | O_WRONLY, 0o600)
        try #require(fd >= 0)
        close(fd)
    }

    @Test func reportsCreateAttribAndDeleteOfEventNodes() throws {
        let directory = try temporaryDirectory()
        try touch(directory + "/event1")
        let discovery = try DeviceDiscovery(source: .inotify, directory: directory)
        #expect(discovery.source == .inotify)
        #expect(discovery.enumerate() == [directory + "/event1"])
        #expect(try discovery.receive().isEmpty)

        try touch(directory + "/event7")
        try touch(directory + "/mouse0")
        #expect(try discovery.receive() == [.added(directory + "/event7")])
        #expect(chmod(directory + "/event7", 0o660) == 0)
        #expect(try discovery.receive() == [.changed(directory + "/event7")])
        #expect(unlink(directory + "/event7") == 0)
        #expect(try discovery.receive() == [.removed(directory + "/event7")])
        #expect(discovery.enumerate() == [directory + "/event1"])
    }

    @Test func waitsForTheDirectoryToAppear() throws {
        let parent = try temporaryDirectory()
        let directory = parent + "/input"
        let discovery = try DeviceDiscovery(source: .inotify, directory: directory)
        #expect(discovery.enumerate().isEmpty)
        #expect(mkdir(directory, 0o755) == 0)
        try touch(directory + "/event0")
        // The directory's creation is seen on the parent; the node may come with the listing or with
        // the new watch, but exactly once.
        let first = try discovery.receive()
        #expect(first == [.added(directory + "/event0")])
        try touch(directory + "/event1")
        #expect(try discovery.receive() == [.added(directory + "/event1")])
    }

    @Test func aMissingParentIsAClearError() {
        #expect {
            _ = try DeviceDiscovery(source: .inotify, directory: "/nonexistent-root/dev/input")
        } throws: { error in
            guard let error = error as? SystemError else { return false }
            return error.call == "inotify_add_watch" && error.detail == "/nonexistent-root/dev" && error.errno == ENOENT
        }
    }
}
