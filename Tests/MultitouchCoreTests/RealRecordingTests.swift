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
                let type = UInt16(fields[1], radix: 16), let code = UInt16(fields[2], radix: 16),
                let value = Int32(fields[3])
            else { continue }
            events.append(
                InputEvent(
                    time: Timestamp(seconds: seconds, microseconds: micros), type: type, code: code, value: value))
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

    @Test(
        "Cypress semi-mt: 2 then 3 fingers, flagged semi-mt, counted from BTN_TOOL_TRIPLETAP", .enabled(if: available))
    func cypress() throws {
        var device = TestDevices.semiMTClickpad()
        device.axes[AbsCode.mtPositionY] = AxisInfo(minimum: 0, maximum: 900, resolution: 15)
        let frames = TouchFrames.track(
            try Self.events("whot_evemu-devices_CyPS2_Cypress_Trackpad.three_finger_press.events"), device: device)
        #expect(TouchFrames.problems(in: frames).isEmpty)
        #expect(device.kind == .semiMTTouchpad)
        #expect(frames.map(\.fingerCount).max() == 3)
        #expect(frames.allSatisfy { $0.activeTouches.count <= 2 })
    }

    @Test(
        "protocol B recordings give well-formed touches (a generic 16-slot description)", .enabled(if: available),
        arguments: [
            // (file, most fingers at once, touches in all), as the recordings' README describes them.
            ("aosp-mirror_platform_frameworks_base_google_pixel_tablet_touchscreen.evemu", 1, 1),
            ("whot_evemu-devices_Atmel_maXTouch_Touchscreen.4-finger-drag-down.events", 4, 4),
            ("whot_evemu-devices_EP0430M09.2-finger-scroll-down.events", 2, 2),
            ("whot_evemu-devices_dell_canvas_touch.evemu", 5, 12),
            ("whot_evemu-devices_Wacom_ISDv4_E6_Finger.double-center-circle.events", 2, 2),
            ("whot_evemu-devices_SynPS2_Synaptics_TouchPad.two-finger-vert-scroll.events", 2, 2),
            ("whot_evemu-devices_Wacom_Bamboo_16FG_4x5_Finger_double-center-circle.events", 2, 2),
        ])
    func protocolB(name: String, mostFingers: Int, touches: Int) throws {
        let device = TestDevices.touchscreen(slots: 16, maximum: 65535, resolution: 10)
        let events = try Self.events(name)
        let frames = TouchFrames.track(events, device: device)
        #expect(!frames.isEmpty)
        #expect(TouchFrames.problems(in: frames).isEmpty)
        #expect(frames.map { $0.activeTouches.count }.max() == mostFingers)
        #expect(Set(frames.flatMap { $0.touches.map(\.id) }).count == touches)
    }
}
