import Foundation
import MultitouchCore
import Recordings
import Testing

/// `libinput record` YAML version 1, written inline in the shape libinput 1.22 writes.
@Suite struct LibinputRecordTests {
    static let twoDevices = """
        # libinput record
        version: 1
        ndevices: 2
        libinput:
          version: "1.22.1"
          git: "unknown"
        system:
          os: "debian:12"
          kernel: "6.1.0-56-amd64"
        devices:
        - node: /dev/input/event0
          evdev:
            # Name: Probe MT Touchscreen
            name: "Probe MT Touchscreen"
            id: [3, 57005, 48879, 1]
            codes:
              0: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15] # EV_SYN
              1: [330] # EV_KEY
              3: [0, 1, 47, 53, 54, 57] # EV_ABS
            absinfo:
              0: [0, 4095, 0, 0, 16]
              1: [0, 4095, 0, 0, 16]
              47: [0, 9, 0, 0, 0]
              53: [0, 4095, 0, 0, 16]
              54: [0, 4095, 0, 0, 16]
              57: [0, 65535, 0, 0, 0]
            properties: [1]
          udev:
            properties:
            - ID_INPUT=1
          quirks:
          events:
          # Current time is 13:00:11
          - evdev:
            - [  0,      0,   3,  57,       1] # EV_ABS / ABS_MT_TRACKING_ID        1
            - [  0,      0,   1, 330,       1] # EV_KEY / BTN_TOUCH                 1
            - [  0,      0,   0,   0,       0] # ------------ SYN_REPORT (0) ---------- +0ms
          - libinput:
            - "  +0.000s	TOUCH_DOWN"
          - evdev:
            - [  0,  13210,   3,  57,      -1] # EV_ABS / ABS_MT_TRACKING_ID       -1
            - [  0,  13210,   1, 330,       0]
            - [  0,  13210,   0,   0,       0]
        - node: /dev/input/event1
          evdev:
            name: "Second ünïcode pad"
            id: [17, 2, 7, 433]
            codes:
              0: [0, 1, 2, 3]
              "3": [0, 1]
              4: []
            absinfo:
              0: [1472, 5472, 8, 0, 42]
              1: [1408, 4448, 8, 0, 42]
            properties: [0, 2]
            somethingNew: 5
          events:
          - evdev:
            - [1, 999999, 3, 0, 2000]
            - [1, 999999, 0, 0, 0]

        """

    @Test func readsSeveralDevices() throws {
        let recording = try RecordingReader.parse(text: Self.twoDevices, name: "two.yml")
        #expect(recording.format == .libinputRecord)
        #expect(recording.notes.isEmpty)
        try #require(recording.devices.count == 2)
        let a = recording.devices[0]
        #expect(a.description.name == "Probe MT Touchscreen")
        #expect(a.description.identity == DeviceIdentity(bustype: 3, vendor: 0xdead, product: 0xbeef, version: 1))
        #expect(a.description.properties == [InputProperty.direct])
        #expect(a.description.codes[EventType.syn] == Set(0...15))
        #expect(a.description.codes[EventType.abs] == [0, 1, 47, 53, 54, 57])
        #expect(a.description.axes[AbsCode.mtPositionX] == AxisInfo(minimum: 0, maximum: 4095, resolution: 16))
        #expect(a.events.count == 6)
        #expect(a.events[3] == InputEvent(time: Timestamp(microseconds: 13_210), type: 3, code: 57, value: -1))
        let b = recording.devices[1]
        #expect(b.description.name == "Second ünïcode pad")
        #expect(b.description.codes[EventType.abs] == [0, 1])
        #expect(b.description.codes[EventType.msc] == [])
        #expect(b.description.properties == [InputProperty.pointer, InputProperty.buttonpad])
        #expect(b.events.map(\.time.microseconds) == [1_999_999, 1_999_999])
    }

    /// The same device through evemu and through libinput record gives the same description.
    @Test func sameDeviceSameDescriptionInBothFormats() throws {
        let yaml = try RecordingReader.parse(text: Self.twoDevices, name: "two.yml").devices[0]
        let evemu = EvemuWriter.write(description: yaml.description, events: yaml.events)
        let back = try RecordingReader.parse(text: evemu, name: "back.evemu").devices[0]
        #expect(back == yaml)
    }

    struct Case: CustomTestStringConvertible, Sendable {
        var text: String
        var line: Int
        var message: String
        var testDescription: String { message }
    }

    static func device(_ evdevExtra: String = "", events: String = "") -> String {
        """
        version: 1
        devices:
        - evdev:
            name: "d"
            id: [1, 2, 3, 4]
            codes:
              3: [0]
            absinfo:
              0: [0, 100, 0, 0, 0]
        \(evdevExtra)
          events:
          - evdev:
            - [0, 0, 3, 0, 1]
        \(events)
        """
    }

    static let cases: [Case] = [
        Case(text: "version: 2\ndevices: []\n", line: 1, message: "unknown libinput record version 2"),
        Case(text: "ndevices: 1\ndevices: []\n", line: 1, message: "no 'version' key"),
        Case(text: "version: one\n", line: 1, message: "version: expected an integer, found 'one'"),
        Case(text: "version: 1\n", line: 1, message: "no 'devices' key"),
        Case(text: "version: 1\ndevices: []\n", line: 2, message: "'devices' must be a non-empty list"),
        Case(
            text: "version: 1\ndevices:\n- evdev:\n    name: \"x\"\n    id: [1, 2\n", line: 6, message: "invalid YAML"),
        Case(text: "version: 1\ndevices: [\n", line: 3, message: "invalid YAML"),
        Case(text: "version: 1\ndevices:\n- foo: 1\n", line: 3, message: "devices[0]: expected an 'evdev' mapping"),
        Case(
            text: "version: 1\ndevices:\n- evdev:\n    id: [1, 2, 3, 4]\n", line: 4,
            message: "expected 'name: <string>'"),
        Case(
            text: "version: 1\ndevices:\n- evdev:\n    name: x\n    id: [1, 2, 3]\n", line: 5, message: "with 4 numbers"
        ),
        Case(
            text: "version: 1\ndevices:\n- evdev:\n    name: x\n    id: [1, 2, 3, 65536]\n", line: 5,
            message: "65536 out of range 0...65535"),
        Case(
            text: "version: 1\ndevices:\n- evdev:\n    name: x\n    id: [1, 2, 3, 4]\n", line: 4,
            message: "expected a 'codes' mapping"),
        Case(
            text: device(events: "    - [0, 0, 3, 0]"), line: 14,
            message: "devices[0].events[0].evdev[1]: expected [sec, usec, type, code, value]"),
        Case(
            text: device(events: "    - [0, 0, 3, 0, 2147483648]"), line: 14,
            message: "evdev[1] value: 2147483648 out of range"),
        Case(text: device(events: "    - [0, 1000000, 3, 0, 1]"), line: 14, message: "usec: 1000000 out of range"),
        Case(text: device(events: "    - [0, 0, 32, 0, 1]"), line: 14, message: "type: 32 out of range"),
        Case(text: device(events: "  - evdev:\n    - [-1, 0, 3, 0, 1]"), line: 15, message: "sec: -1 out of range"),
        Case(
            text: device(events: "  - evdev: 5"), line: 14, message: "expected a list of [sec, usec, type, code, value]"
        ),
        Case(text: device(events: "  - 5"), line: 14, message: "devices[0].events[1]: expected a mapping"),
        Case(text: device("    properties: 3"), line: 10, message: "properties: expected a list of numbers"),
        Case(text: device("    properties: [x]"), line: 10, message: "properties: expected an integer, found 'x'"),
        Case(text: device("    properties: [[1]]"), line: 10, message: "properties: expected an integer, found a list"),
        Case(
            text: device(events: "  - evdev:\n    - [0, 0, 3, 0, 1]\n  - evdev:\n    - [0, 0, 3, 0, 1]"), line: 0,
            message: "never"),
    ]

    @Test(arguments: cases)
    func errors(_ c: Case) {
        if c.message == "never" {  // equal times in later frames are fine
            #expect(throws: Never.self) { try RecordingReader.parse(text: c.text, name: "bad.yml") }
            return
        }
        #expect {
            try RecordingReader.parse(text: c.text, name: "bad.yml")
        } throws: { error in
            guard let e = error as? RecordingError else { return false }
            #expect(e.file == "bad.yml")
            #expect(e.line == c.line, "\(e)")
            #expect(e.message.contains(c.message), "\(e)")
            return true
        }
    }

    @Test func decreasingTimeIsAnError() {
        let text = Self.device(events: "  - evdev:\n    - [0, 5, 3, 0, 1]\n  - evdev:\n    - [0, 4, 3, 0, 1]")
        #expect {
            try RecordingReader.parse(text: text, name: "t.yml")
        } throws: { error in
            let e = error as? RecordingError
            return e?.line == 17 && e?.message.contains("devices[0].events[2].evdev[0]: time goes backwards") == true
        }
    }

    @Test func descriptionWithLibinputRecordIsAnError() {
        #expect(throws: RecordingError.self) {
            try RecordingReader.parse(text: Self.twoDevices, name: "a.yml", descriptionText: "N: x\nI: 0 0 0 0\n")
        }
    }

    /// An alias, even a harmless one, is refused with its line: libinput record never writes one, and
    /// refusing them all is what keeps alias bombs out (next test).
    @Test func aliasesAreRefusedWithTheirLine() {
        let text = Self.device(events: "  - &frame\n    evdev:\n    - [0, 1, 3, 0, 2]\n  - *frame")
        #expect {
            try RecordingReader.parse(text: text, name: "alias.yml")
        } throws: { error in
            let e = error as? RecordingError
            return e?.file == "alias.yml" && e?.line == 14
                && e?.message
                    == "YAML anchors and aliases are not supported (libinput record never writes them); found '&frame'"
        }
    }

    /// The 9.7 KB and 14.4 KB alias bombs of issue 11 (each ran past a minute of CPU before, the second
    /// past 240 MB) are refused at their first anchor, before Yams composes anything.
    @Test(arguments: [("rejected-alias-bomb-keys.yml", 8, "&l0"), ("rejected-alias-bomb-events.yml", 9, "&d")])
    func aliasBombsAreRefusedBeforeComposing(name: String, line: Int, token: String) throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("checks/fuzz/libinput-record/regressions/\(name)").path
        #expect {
            try RecordingReader.read(path: path)
        } throws: { error in
            let e = error as? RecordingError
            return e?.line == line && e?.message.hasSuffix("found '\(token)'") == true
        }
    }

    /// `&` and `*` inside strings and comments are text, not anchors.
    @Test func ampersandsAndStarsInTextAreFine() throws {
        let text = Self.device(events: "  # *not an alias* & not an anchor").replacingOccurrences(
            of: "name: \"d\"", with: "name: \"Touch & Go *Pro*\"")
        let recording = try RecordingReader.parse(text: text, name: "text.yml")
        #expect(recording.devices.first?.description.name == "Touch & Go *Pro*")
    }
}
