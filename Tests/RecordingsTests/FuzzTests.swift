import MultitouchCore
import Testing

import Recordings

/// Random mutations of valid files: each one either parses or throws a RecordingError (typed throws
/// make anything else impossible short of a crash, which would end the test run).
@Suite struct FuzzTests {
    static func mutate(_ input: [UInt8], _ rng: inout SplitMix64) -> [UInt8] {
        var bytes = input
        let interesting: [UInt8] = Array(" \t\n\r#:.-+0123456789abcdefxENIPBA[]{},\"'&*!|>%@`".utf8) + [0x00, 0xff, 0xc3, 0x80]
        for _ in 0..<Int.random(in: 1...4, using: &rng) {
            guard !bytes.isEmpty else {
                bytes = [interesting.randomElement(using: &rng) ?? 0]
                continue
            }
            let i = Int.random(in: 0..<bytes.count, using: &rng)
            switch Int.random(in: 0..<8, using: &rng) {
            case 0: bytes.remove(at: i)
            case 1: bytes.insert(interesting.randomElement(using: &rng) ?? 0, at: i)
            case 2: bytes[i] = interesting.randomElement(using: &rng) ?? 0
            case 3: bytes[i] = UInt8.random(in: 0...255, using: &rng)
            case 4: bytes.removeSubrange(i...)  // truncate
            case 5:  // duplicate a chunk (a line, or part of one)
                let end = min(bytes.count, i + Int.random(in: 1...40, using: &rng))
                bytes.insert(contentsOf: bytes[i..<end], at: Int.random(in: 0...bytes.count, using: &rng))
            case 6:  // remove a chunk
                bytes.removeSubrange(i..<min(bytes.count, i + Int.random(in: 1...40, using: &rng)))
            default:  // replace a digit with many digits
                bytes.insert(contentsOf: Array(repeating: UInt8(ascii: "9"), count: Int.random(in: 1...25, using: &rng)), at: i)
            }
        }
        return bytes
    }

    func run(_ valid: [UInt8], seed: UInt64, iterations: Int, description: [UInt8]? = nil) -> (parsed: Int, rejected: Int) {
        var rng = SplitMix64(seed: seed)
        var parsed = 0
        var rejected = 0
        for _ in 0..<iterations {
            let mutated = Self.mutate(valid, &rng)
            do {
                let recording = try RecordingReader.parse(bytes: mutated, name: "fuzz", descriptionBytes: description, descriptionName: "fuzz.desc")
                #expect(!recording.devices.isEmpty)
                parsed += 1
            } catch {
                #expect(!error.file.isEmpty)
                #expect(!error.message.isEmpty)
                #expect(error.line >= 0)
                rejected += 1
            }
        }
        return (parsed, rejected)
    }

    @Test func fuzzEvemu() {
        var rng = SplitMix64(seed: 1)
        let valid = Array(EvemuWriter.write(description: Generated.device(&rng), events: Generated.events(&rng, frames: 20)).utf8)
        let result = run(valid, seed: 2, iterations: 3000)
        #expect(result.parsed > 0)
        #expect(result.rejected > 0)
    }

    @Test func fuzzEventsOnlyWithDescription() {
        let full = EvemuWriter.write(description: Generated.touchscreen, events: Generated.touchscreenEvents())
        let lines = full.split(separator: "\n", omittingEmptySubsequences: false)
        let description = Array(lines.filter { !$0.hasPrefix("E:") }.joined(separator: "\n").utf8)
        let events = Array(lines.filter { $0.hasPrefix("E:") }.joined(separator: "\n").utf8)
        let result = run(events, seed: 3, iterations: 2000, description: description)
        #expect(result.parsed > 0)
        #expect(result.rejected > 0)
    }

    @Test func fuzzLibinputRecord() {
        let result = run(Array(LibinputRecordTests.twoDevices.utf8), seed: 4, iterations: 1500)
        #expect(result.parsed > 0)
        #expect(result.rejected > 0)
    }
}
