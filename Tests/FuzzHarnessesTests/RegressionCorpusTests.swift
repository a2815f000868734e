import Foundation
import Testing

@testable import FuzzHarnesses

/// Replays every committed fuzz input through its harness: the regressions (inputs that once crashed,
/// hung or blew up a harness) and the committed seeds. A crash fails the whole test run, which is the
/// point; each input must also come back as the outcome its file name promises, when it promises one.
@Suite struct RegressionCorpusTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    static func inputs(_ harness: String, _ kind: String) -> [String] {
        let directory = "\(root)/checks/fuzz/\(harness)/\(kind)"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().map { directory + "/" + $0 }
    }

    /// Every directory under checks/fuzz belongs to a harness, so no regression corpus is silently dropped.
    @Test func everyCorpusDirectoryHasAHarness() throws {
        let directories = try FileManager.default.contentsOfDirectory(atPath: Self.root + "/checks/fuzz")
        for directory in directories where !directory.hasPrefix(".") {
            #expect(FuzzHarness.named(directory) != nil, "checks/fuzz/\(directory) has no harness in FuzzHarness.all")
        }
    }

    @Test(arguments: FuzzHarness.all.map(\.name))
    func regressionsAndSeedsRunToTheEnd(harness name: String) throws {
        let harness = try #require(FuzzHarness.named(name))
        var count = 0
        for path in Self.inputs(name, "regressions") + Self.inputs(name, "seeds") {
            let bytes = try #require(FileManager.default.contents(atPath: path).map { [UInt8]($0) })
            let outcome = harness.run(bytes)
            // `rejected-*` files must be refused (a bomb must never be accepted), `accepted-*` read.
            let file = URL(fileURLWithPath: path).lastPathComponent
            if file.hasPrefix("rejected-") { #expect(outcome == .rejected, "\(path)") }
            if file.hasPrefix("accepted-") { #expect(outcome == .accepted, "\(path)") }
            count += 1
        }
        // Every harness has a regression corpus or seeds of its own; an empty one means a wrong path.
        #expect(count > 0, "no committed inputs for \(name)")
    }

    /// The generated seeds reach the harness's happy path: a corpus that only exercises error paths
    /// would make the fuzzer's minutes worth little.
    @Test(arguments: FuzzHarness.all.map(\.name))
    func seedsAreMostlyAccepted(harness name: String) throws {
        let harness = try #require(FuzzHarness.named(name))
        let seeds = harness.seeds(Self.root)
        let accepted = seeds.filter { harness.run($0.bytes) == .accepted }.count
        #expect(seeds.count >= 2)
        #expect(accepted * 2 >= seeds.count, "\(accepted) of \(seeds.count) seeds accepted")
    }
}
