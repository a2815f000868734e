import Foundation
import MultitouchCore
import Testing

@testable import Recordings

/// The one test that reads the real recordings in ../shared/recordings (beside the checkout), when they
/// exist. Names and event counts were checked by hand (`grep -c '^E:'`, the N: lines).
@Suite struct SharedRecordingsTests {
    static let directory: String = {
        // #filePath is <repo>/Tests/RecordingsTests/SharedRecordingsTests.swift; the recordings sit at
        // <repo>/../shared/recordings.
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.deletingLastPathComponent().appendingPathComponent("shared/recordings").path
    }()

    @Test func everySharedRecordingParses() throws {
        try #require(FileManager.default.fileExists(atPath: Self.directory), "no ../shared/recordings beside the checkout")
        let jobs = try RecordingSet.scan(directory: Self.directory)
        var summary: [String: (String, Int)] = [:]
        for job in jobs {
            guard case .ready = job.status else { continue }
            let recording = try RecordingReader.read(path: job.path, descriptionPath: job.descriptionPath)
            let file = (job.path as NSString).lastPathComponent
            summary[file] = (recording.devices[0].description.name, recording.devices[0].events.count)
            print("shared:", file, "|", job.descriptionPath.map { ($0 as NSString).lastPathComponent } ?? "-", "|",
                  recording.devices[0].description.name, "|", recording.devices[0].events.count, "|", recording.notes)
        }
        for job in jobs { print("job:", (job.path as NSString).lastPathComponent, job.status) }
    }
}
