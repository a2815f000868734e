import Foundation
import MultitouchCore
import MultitouchTestKit
import Testing

/// The shared real recordings (../shared/recordings beside the checkout) through the tracker. Only
/// their `E:` lines are read here, by a minimal parser; the Recordings module owns real parsing. The
/// devices are described by hand from the recordings' headers.
@Suite("Contact tracker on real recordings")
struct RealRecordingTests {
    static let directory: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("shared/recordings")

    static func events(_ name: String) throws -> [InputEvent] {
        let text = try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
        var events: [InputEvent] = []
        for line in text.split(separator: "\n") where line.hasPrefix("E: ") {
            let fields = line.dropFirst(3).split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard fields.count >= 4 else { continue }
            let time = fields[0].split(separator: ".")
            guard time.count == 2, let seconds = Int64(time[0]), let micros = Int64(time[1]),
                let type = UInt16(fields[1], radix: 16), let code = UInt16(fields[2], radix: 16), let value = Int32(fields[3])
            else { continue }
            events.append(InputEvent(time: Timestamp(seconds: seconds, microseconds: micros), type: type, code: code, value: value))
        }
        return events
    }

    static var available: Bool { FileManager.default.fileExists(atPath: directory.path) }

    @Test("N-Trig protocol A: one finger, then two held, then release; ids stay put", .enabled(if: available))
    func nTrig() throws {
        let device = TestDevices.protocolATouchscreen()  // same axes and keys as the N-Trig header
        let frames = TouchFrames.track(
            try Self.events("whot_evemu-devices_N-Trig_MultiTouch.2-fingers-touch-release.events"), device: device,
            cancelAtEnd: false)
        #expect(TouchFrames.problems(in: frames).isEmpty)
        let ids = Set(frames.flatMap { $0.touches.map(\.id) })
        #expect(ids.count == 2, "two fingers, two ids: \(ids.count)")
        #expect(frames.map(\.fingerCount).max() == 2)
        #expect(frames.last?.fingerCount == 0)
    }

    @Test("Cypress semi-mt: 2 then 3 fingers, flagged semi-mt, counted from BTN_TOOL_TRIPLETAP", .enabled(if: available))
    func cypress() throws {
        var device = TestDevices.semiMTClickpad()
        device.axes[AbsCode.mtPositionY] = AxisInfo(minimum: 0, maximum: 900, resolution: 15)
        let frames = TouchFrames.track(try Self.events("whot_evemu-devices_CyPS2_Cypress_Trackpad.three_finger_press.events"), device: device)
        #expect(TouchFrames.problems(in: frames).isEmpty)
        #expect(frames.allSatisfy { $0.isSemiMT })
        #expect(frames.map(\.fingerCount).max() == 3)
        #expect(frames.allSatisfy { $0.activeTouches.count <= 2 })
    }
}
