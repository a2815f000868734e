import Foundation
import MultitouchCore
import Recordings
import Testing

@Suite struct RecordingSetTests {
    /// A fresh directory under the system temporary directory.
    static func makeDirectory(_ files: [String: String]) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("recset-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        for (name, text) in files {
            try Data(text.utf8).write(to: URL(fileURLWithPath: dir + "/" + name))
        }
        return dir
    }

    static let full = EvemuWriter.write(description: Generated.touchscreen, events: Generated.touchscreenEvents())
    static let descriptionText =
        full.split(separator: "\n").filter { !$0.hasPrefix("E:") }.joined(separator: "\n") + "\n"
    static let eventsText = full.split(separator: "\n").filter { $0.hasPrefix("E:") }.joined(separator: "\n") + "\n"

    /// Sub-folders are scanned too (names with spaces), each pairing within its own folder, and the
    /// sub-folders themselves are not listed.
    @Test func scanTreeDescendsIntoSubFolders() throws {
        let dir = try Self.makeDirectory(["top.evemu": Self.full])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for (folder, files) in [
            "tablets": [
                "Wacom ISDv4 E6 Finger.desc": Self.descriptionText,
                "Wacom ISDv4 E6 Finger.double-center-circle.events": Self.eventsText,
            ],
            "tablets/deeper": ["Lonely pad.events": Self.eventsText],
        ] {
            try FileManager.default.createDirectory(atPath: dir + "/" + folder, withIntermediateDirectories: true)
            for (name, text) in files {
                try Data(text.utf8).write(to: URL(fileURLWithPath: dir + "/" + folder + "/" + name))
            }
        }
        let jobs = try RecordingSet.scanTree(directory: dir)
        let names = jobs.map { String($0.path.dropFirst(dir.count + 1)) }
        #expect(
            names == [
                "tablets/Wacom ISDv4 E6 Finger.desc", "tablets/Wacom ISDv4 E6 Finger.double-center-circle.events",
                "tablets/deeper/Lonely pad.events", "top.evemu",
            ])
        let circle = jobs.first { $0.path.hasSuffix("circle.events") }
        #expect(circle?.status == .ready)
        #expect(circle?.descriptionPath == dir + "/tablets/Wacom ISDv4 E6 Finger.desc")
        guard case .problem = jobs.first(where: { $0.path.hasSuffix("Lonely pad.events") })?.status else {
            Issue.record("a lonely events file in a sub-folder pairs with nothing above it")
            return
        }
    }

    @Test func pairsWithTheLongestPrefixAndSkipsTheRest() throws {
        let dir = try Self.makeDirectory([
            "Wacom_Bamboo.desc": Self.descriptionText,
            "Wacom_Bamboo_16FG_4x5_Finger.desc": Self.descriptionText,
            "Wacom_Bamboo_16FG_4x5_Finger_double-center-circle.events": Self.eventsText,
            "Wacom_Bamboo_pen.events": Self.eventsText,
            "N-Trig.desc": Self.descriptionText,
            "N-Trig.2-fingers.events": Self.eventsText,
            "Lonely.events": Self.eventsText,
            "Unused.desc": Self.descriptionText,
            "self.evemu": Self.full,
            "recorded.yml": LibinputRecordTests.twoDevices,
            "renamed.txt": Self.full,  // recognised by content
            "README.md": "# Recordings\n\nResult: it works.\n",
            "broken.events": "E: 1.0 zz\n",
            "binary.evemu": "\u{0}\u{1}",
            ".hidden": Self.full,
        ])
        try FileManager.default.createDirectory(atPath: dir + "/sub", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let jobs = try RecordingSet.scan(directory: dir)
        let byName = Dictionary(uniqueKeysWithValues: jobs.map { (($0.path as NSString).lastPathComponent, $0) })
        #expect(jobs.map(\.path) == jobs.map(\.path).sorted())
        #expect(jobs.count == 16)
        func desc(_ name: String) -> String? {
            byName[name]?.descriptionPath.map { ($0 as NSString).lastPathComponent }
        }
        #expect(byName["Wacom_Bamboo_16FG_4x5_Finger_double-center-circle.events"]?.status == .ready)
        #expect(desc("Wacom_Bamboo_16FG_4x5_Finger_double-center-circle.events") == "Wacom_Bamboo_16FG_4x5_Finger.desc")
        #expect(desc("Wacom_Bamboo_pen.events") == "Wacom_Bamboo.desc")
        #expect(desc("N-Trig.2-fingers.events") == "N-Trig.desc")
        #expect(byName["self.evemu"]?.status == .ready)
        #expect(byName["self.evemu"]?.descriptionPath == nil)
        #expect(byName["recorded.yml"]?.status == .ready)
        #expect(byName["renamed.txt"]?.status == .ready)
        guard case .problem(let lonely) = byName["Lonely.events"]?.status else {
            Issue.record("Lonely.events should be a problem")
            return
        }
        #expect(lonely.contains("events-only file has no .desc"))
        guard case .problem = byName["broken.events"]?.status, case .problem = byName["binary.evemu"]?.status else {
            Issue.record("a recording-named file that is no recording is a problem, not skipped")
            return
        }
        #expect(
            byName["README.md"]?.status
                == .skipped(
                    "not a recording: expected evemu lines (N:, I:, P:, B:, A:, E:) or libinput record YAML ('version: 1'), found 'Result: it works.'"
                ))
        #expect(
            byName["Unused.desc"]?.status
                == .skipped("device description without events, not used by any events-only file"))
        #expect(byName["N-Trig.desc"]?.status == .skipped("device description, used by 1 events file(s)"))
        #expect(byName["sub"]?.status == .skipped("directory (check does not descend)"))
        #expect(byName[".hidden"]?.status == .skipped("hidden file"))

        // Every ready job reads.
        for job in jobs where job.status == .ready {
            let recording = try RecordingReader.read(path: job.path, descriptionPath: job.descriptionPath)
            #expect(!recording.devices.isEmpty)
        }
        // Deterministic.
        #expect(try RecordingSet.scan(directory: dir + "/") == jobs)
    }

    @Test func missingDirectoryIsAnError() {
        #expect(throws: RecordingError.self) { try RecordingSet.scan(directory: "/nonexistent-dir-for-test") }
    }

    @Test func pairingRule() {
        let descs = ["a.desc", "ab.desc", "abc_d.desc", "x.desc"]
        #expect(RecordingSet.pairedDescription(for: "abc_d_e.events", among: descs) == "abc_d.desc")
        #expect(RecordingSet.pairedDescription(for: "abz.events", among: descs) == "ab.desc")
        #expect(RecordingSet.pairedDescription(for: "a.events", among: descs) == "a.desc")
        #expect(RecordingSet.pairedDescription(for: "q.events", among: descs) == nil)
    }
}
