import Foundation
import MultitouchCore
import Testing

import Recordings

/// Parse speed on a large generated file. Prints the figures; asserts only correctness (no timing
/// thresholds). Run in release for real numbers: `swift test -c release --filter PerformanceTests`.
@Suite struct PerformanceTests {
    static func touchFrames(count: Int) -> [InputEvent] {
        // A realistic two-finger stream: slot, x, y per finger, then SYN_REPORT, 12 ms apart.
        var events: [InputEvent] = []
        events.reserveCapacity(count)
        var frame: Int64 = 0
        while events.count < count {
            let t = Timestamp(microseconds: 1_700_000_000_000_000 + frame * 12_000)
            for slot in 0..<2 where events.count < count - 1 {
                events.append(InputEvent(time: t, type: EventType.abs, code: AbsCode.mtSlot, value: Int32(slot)))
                events.append(InputEvent(time: t, type: EventType.abs, code: AbsCode.mtPositionX, value: Int32(1000 + frame % 3000)))
                events.append(InputEvent(time: t, type: EventType.abs, code: AbsCode.mtPositionY, value: Int32(2000 - frame % 2000)))
            }
            events.append(InputEvent(time: t, type: EventType.syn, code: SynCode.report, value: 0))
            frame += 1
        }
        return Array(events.prefix(count))
    }

    @Test func parsesAMillionEventsLinearly() throws {
        let clock = ContinuousClock()
        var results: [(Int, Double)] = []
        #if DEBUG
            let sizes = [50_000, 200_000]  // debug builds only check the shape; release measures
        #else
            let sizes = [250_000, 1_000_000]
        #endif
        for count in sizes {
            let events = Self.touchFrames(count: count)
            var text = ""
            let writeTime = clock.measure { text = EvemuWriter.write(description: Generated.touchscreen, events: events) }
            let bytes = Array(text.utf8)
            var recording: Recording?
            // Best of three, so a busy machine disturbs the figure less.
            var readTime = Duration.seconds(1_000_000)
            for _ in 0..<3 {
                readTime = min(readTime, try clock.measure { recording = try RecordingReader.parse(bytes: bytes, name: "big.evemu") })
            }
            #expect(recording?.devices.first?.events == events)
            let seconds = Double(readTime.components.seconds) + Double(readTime.components.attoseconds) / 1e18
            let writeSeconds = Double(writeTime.components.seconds) + Double(writeTime.components.attoseconds) / 1e18
            results.append((count, seconds))
            print(
                "perf: \(count) events, \(bytes.count) bytes: parse \(String(format: "%.3f", seconds)) s = "
                    + "\(String(format: "%.1f", Double(bytes.count) / seconds / 1e6)) MB/s, "
                    + "\(String(format: "%.2f", Double(count) / seconds / 1e6)) M events/s; write \(String(format: "%.3f", writeSeconds)) s")
        }
        if results.count == 2 {
            print("perf: time ratio \(results[1].0) / \(results[0].0) events = \(String(format: "%.2f", results[1].1 / results[0].1)) (\(results[1].0 / results[0].0) is linear)")
        }
    }
}
