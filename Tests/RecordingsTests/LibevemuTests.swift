import Foundation
import MultitouchCore
import Recordings
import Testing

/// evemu's own parser, loaded at run time from libevemu.so.3 (Debian's evemu-tools depends on it), so
/// the writer is checked against the real thing without a build dependency.
final class Libevemu: @unchecked Sendable {
    typealias NewFn = @convention(c) (UnsafePointer<CChar>?) -> OpaquePointer?
    typealias DeleteFn = @convention(c) (OpaquePointer?) -> Void
    typealias FileFn = @convention(c) (OpaquePointer?, UnsafeMutablePointer<FILE>?) -> Int32
    typealias ReadEventFn = @convention(c) (UnsafeMutablePointer<FILE>?, UnsafeMutableRawPointer?) -> Int32

    let new: NewFn
    let delete: DeleteFn
    let read: FileFn
    let write: FileFn
    let readEvent: ReadEventFn

    static let shared: Libevemu? = Libevemu()

    private init?() {
        guard let handle = dlopen("libevemu.so.3", RTLD_NOW),
            let new = dlsym(handle, "evemu_new"), let delete = dlsym(handle, "evemu_delete"),
            let read = dlsym(handle, "evemu_read"), let write = dlsym(handle, "evemu_write"),
            let readEvent = dlsym(handle, "evemu_read_event")
        else { return nil }
        self.new = unsafeBitCast(new, to: NewFn.self)
        self.delete = unsafeBitCast(delete, to: DeleteFn.self)
        self.read = unsafeBitCast(read, to: FileFn.self)
        self.write = unsafeBitCast(write, to: FileFn.self)
        self.readEvent = unsafeBitCast(readEvent, to: ReadEventFn.self)
    }

    /// Reads a description with evemu_read and writes it back with evemu_write.
    func rewriteDescription(_ text: String, scratch: String) throws -> String {
        try Data(text.utf8).write(to: URL(fileURLWithPath: scratch + ".in"))
        guard let input = fopen(scratch + ".in", "r"), let output = fopen(scratch + ".out", "w") else {
            throw CocoaError(.fileNoSuchFile)
        }
        let device = new(nil)
        defer { delete(device) }
        let readResult = read(device, input)
        fclose(input)
        #expect(readResult > 0, "evemu_read failed: \(readResult)")
        let writeResult = write(device, output)
        fclose(output)
        #expect(writeResult == 0)
        return try String(contentsOfFile: scratch + ".out", encoding: .utf8)
    }

    /// Reads every event with evemu_read_event.
    func readEvents(_ text: String, scratch: String) throws -> [InputEvent] {
        try Data(text.utf8).write(to: URL(fileURLWithPath: scratch + ".ev"))
        guard let input = fopen(scratch + ".ev", "r") else { throw CocoaError(.fileNoSuchFile) }
        defer { fclose(input) }
        var events: [InputEvent] = []
        var raw = input_event()
        while readEvent(input, &raw) > 0 {
            events.append(
                InputEvent(
                    time: Timestamp(seconds: Int64(raw.time.tv_sec), microseconds: Int64(raw.time.tv_usec)),
                    type: raw.type, code: raw.code, value: raw.value))
        }
        return events
    }
}

/// `struct input_event` as the kernel lays it out on 64-bit Linux (struct timeval, then type, code, value).
struct input_event {
    var time = timeval()
    var type: UInt16 = 0
    var code: UInt16 = 0
    var value: Int32 = 0
}

@Suite struct LibevemuTests {
    /// evemu_read + evemu_write reproduce every N:/I:/P:/B:/A: line we write, byte for byte, and
    /// evemu_read_event reads our E: lines to the same events.
    @Test(.enabled(if: Libevemu.shared != nil, "libevemu.so.3 (evemu-tools) is not installed"))
    func evemuReadsOurOutputIdentically() throws {
        let evemu = try #require(Libevemu.shared)
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("libevemu-\(UUID().uuidString)").path
        defer {
            for suffix in [".in", ".out", ".ev"] { try? FileManager.default.removeItem(atPath: scratch + suffix) }
        }
        var rng = SplitMix64(seed: 0xe7e3)
        var devices = [Generated.touchscreen]
        for _ in 0..<60 { devices.append(Generated.device(&rng, kernelValid: true)) }
        for device in devices {
            // evemu keeps names as the kernel does: no leading/trailing blanks, at most 80 bytes, no tabs.
            var description = device
            description.name = "Generated device \(description.identity.product)"
            let events = Generated.events(&rng, frames: 10)
            let ours = EvemuWriter.write(description: description, events: events)
            let lines = ours.split(separator: "\n")
            let descriptionPart = lines.filter { !$0.hasPrefix("E:") }.joined(separator: "\n") + "\n"
            let eventPart = lines.filter { $0.hasPrefix("E:") }.joined(separator: "\n") + "\n"
            let theirs = try evemu.rewriteDescription(descriptionPart, scratch: scratch)
            let ourLines = descriptionPart.split(separator: "\n").filter { !$0.hasPrefix("#") }
            let theirLines = theirs.split(separator: "\n").filter { !$0.hasPrefix("#") }
            #expect(ourLines == theirLines)
            #expect(try evemu.readEvents(eventPart, scratch: scratch) == events)
        }
    }

    /// Our reading of a description equals our reading of what libevemu makes of it (evemu_read then
    /// evemu_write), and our events equal evemu_read_event's, for the inline variants and, when present,
    /// every real recording in ../shared/recordings.
    @Test(.enabled(if: Libevemu.shared != nil, "libevemu.so.3 (evemu-tools) is not installed"))
    func ourReadingMatchesLibevemu() throws {
        let evemu = try #require(Libevemu.shared)
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("libevemu-\(UUID().uuidString)").path
        defer {
            for suffix in [".in", ".out", ".ev"] { try? FileManager.default.removeItem(atPath: scratch + suffix) }
        }
        // (name, description text, events text)
        var inputs: [(String, String, String)] = []
        func split(_ text: String) -> (String, String) {
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            let isEvent = { (line: Substring) in line.drop(while: { $0 == " " || $0 == "\t" }).hasPrefix("E:") }
            return (
                lines.filter { !isEvent($0) }.joined(separator: "\n"), lines.filter(isEvent).joined(separator: "\n") + "\n"
            )
        }
        let v13 = split(EvemuReaderTests.version13)
        inputs.append(("version13", v13.0, v13.1))
        inputs.append(("n-trig", EvemuReaderTests.description, ""))
        let shared = SharedRecordingsTests.directory
        if FileManager.default.fileExists(atPath: shared) {
            for job in try RecordingSet.scan(directory: shared) where job.status == .ready {
                let text = try String(contentsOfFile: job.path, encoding: .utf8)
                if let desc = job.descriptionPath {
                    inputs.append((job.path, try String(contentsOfFile: desc, encoding: .utf8), text))
                } else {
                    let parts = split(text)
                    inputs.append((job.path, parts.0, parts.1))
                }
            }
        }
        for (name, descriptionText, eventsText) in inputs {
            let ours = try RecordingReader.parse(text: descriptionText, name: name).devices[0].description
            let rewritten = try evemu.rewriteDescription(descriptionText, scratch: scratch)
            let theirs = try RecordingReader.parse(text: rewritten, name: name + " (libevemu)").devices[0].description
            #expect(ours == theirs, "\(name)")
            if !eventsText.isEmpty {
                let ourEvents = try RecordingReader.parse(
                    text: eventsText, name: name, descriptionText: descriptionText).devices[0].events
                #expect(try evemu.readEvents(eventsText, scratch: scratch) == ourEvents, "\(name)")
            }
        }
        #expect(inputs.count == (FileManager.default.fileExists(atPath: shared) ? 2 + 9 : 2))
    }
}
