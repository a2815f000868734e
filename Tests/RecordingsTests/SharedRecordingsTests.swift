import Foundation
import MultitouchCore
import Recordings
import Testing

/// The one test that reads the real recordings in ../shared/recordings (beside the checkout), when they
/// exist. Names were read from the N: lines and event counts with `grep -c '^ *E:'`, by hand.
@Suite struct SharedRecordingsTests {
    static let directory: String = {
        // #filePath is <repo>/Tests/RecordingsTests/SharedRecordingsTests.swift; the recordings sit at
        // <repo>/../shared/recordings.
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.deletingLastPathComponent().appendingPathComponent("shared/recordings").path
    }()

    /// file -> (paired description or nil, device name, event count)
    static let expected: [String: (String?, String, Int)] = [
        "aosp-mirror_platform_frameworks_base_google_pixel_tablet_touchscreen.evemu": (
            nil, "NVTCapacitiveTouchScreen", 116
        ),
        "whot_evemu-devices_Atmel_maXTouch_Touchscreen.4-finger-drag-down.events": (
            nil, "Atmel maXTouch Touchscreen", 309
        ),
        "whot_evemu-devices_CyPS2_Cypress_Trackpad.three_finger_press.events": (nil, "CyPS/2 Cypress Trackpad", 342),
        "whot_evemu-devices_EP0430M09.2-finger-scroll-down.events": (nil, "EP0430M09", 695),
        "whot_evemu-devices_N-Trig_MultiTouch.2-fingers-touch-release.events":
            ("whot_evemu-devices_N-Trig_MultiTouch.desc", "N-Trig MultiTouch", 2203),
        "whot_evemu-devices_SynPS2_Synaptics_TouchPad.two-finger-vert-scroll.events":
            ("whot_evemu-devices_SynPS2_Synaptics_TouchPad.desc", "SynPS/2 Synaptics TouchPad", 582),
        "whot_evemu-devices_Wacom_Bamboo_16FG_4x5_Finger_double-center-circle.events":
            ("whot_evemu-devices_Wacom_Bamboo_16FG_4x5_Finger.desc", "Wacom Bamboo 16FG 4x5 Finger", 3344),
        "whot_evemu-devices_Wacom_ISDv4_E6_Finger.double-center-circle.events":
            ("whot_evemu-devices_Wacom_ISDv4_E6_Finger.desc", "Wacom ISDv4 E6 Finger", 1137),
        "whot_evemu-devices_dell_canvas_touch.evemu": (nil, "Advanced Silicon S.A. CoolTouch® System", 5363),
    ]

    @Test(
        .enabled(
            if: FileManager.default.fileExists(atPath: directory), "needs ../shared/recordings beside the checkout"))
    func everySharedRecordingParses() throws {
        let jobs = try RecordingSet.scan(directory: Self.directory)
        var seen = Set<String>()
        for job in jobs {
            let file = (job.path as NSString).lastPathComponent
            guard case .ready = job.status else {
                // Only the README, the four .desc files and subdirectories (evemu-devices/) are not replayed.
                var isDirectory: ObjCBool = false
                _ = FileManager.default.fileExists(atPath: job.path, isDirectory: &isDirectory)
                #expect(
                    file == "README.md" || file.hasSuffix(".desc") || isDirectory.boolValue, "\(file): \(job.status)")
                continue
            }
            let expected = try #require(Self.expected[file], "unexpected recording \(file)")
            #expect(job.descriptionPath.map { ($0 as NSString).lastPathComponent } == expected.0)
            let recording = try RecordingReader.read(path: job.path, descriptionPath: job.descriptionPath)
            #expect(recording.notes.isEmpty)
            #expect(recording.devices.count == 1)
            #expect(recording.devices.first?.description.name == expected.1)
            #expect(recording.devices.first?.events.count == expected.2)
            // Each one survives our writer unchanged.
            if let device = recording.devices.first {
                let back = try RecordingReader.parse(
                    text: EvemuWriter.write(description: device.description, events: device.events), name: file)
                #expect(back.devices == [device])
            }
            seen.insert(file)
        }
        #expect(seen == Set(Self.expected.keys))
    }
}
