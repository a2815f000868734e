import MultitouchCore
import Testing

import Recordings

/// The evemu variants found in real files, each written inline.
@Suite struct EvemuReaderTests {
    /// evemu 1.3 as evemu-record 2.x writes it: header comments, 6-field A: lines, tab comments after E:.
    static let version13 = """
        # EVEMU 1.3
        # Kernel: 4.14.0
        # Input device name: "Atmel maXTouch Touchscreen"
        N: Atmel maXTouch Touchscreen
        I: 0018 0000 0000 0000
        P: 02 00 00 00 00 00 00 00
        B: 00 0b 00 00 00 00 00 00 00
        B: 01 00 00 00 00 00 00 00 00
        B: 01 00 00 00 00 00 00 00 00
        B: 01 00 00 00 00 00 00 00 00
        B: 01 00 00 00 00 00 00 00 00
        B: 01 00 00 00 00 00 00 00 00
        B: 01 00 04 00 00 00 00 00 00
        B: 01 00 00 00 00 00 00 00 00
        B: 01 00 00 00 00 00 00 00 00
        B: 01 00 00 00 00 00 00 00 00
        B: 01 00 00 00 00 00 00 00 00
        B: 01 00 00 00 00 00 00 00 00
        B: 01 00 00 00 00 00 00 00 00
        B: 02 00 00 00 00 00 00 00 00
        B: 03 03 00 00 00 00 80 e0 0a
        B: 04 00 00 00 00 00 00 00 00
        B: 15 00 00 00 00 00 00 00 00
        B: 15 00 00 00 00 00 00 00 00
        A: 00 0 799 0 0 0
        A: 01 0 479 0 0 0
        A: 2f 0 9 0 0 0
        A: 35 0 799 0 0 12
        A: 36 0 479 0 0 12
        A: 37 0 2 0 0 0
        A: 39 0 65535 0 0 0
        A: 3b 0 1 0 0 0
        ################################
        #      Waiting for events      #
        ################################
        E: 0.000001 0003 002f 0000\t# EV_ABS / ABS_MT_SLOT          0
        E: 0.000001 0003 0039 0021\t# EV_ABS / ABS_MT_TRACKING_ID   21
        E: 0.000001 0001 014a 0001\t# EV_KEY / BTN_TOUCH            1
        E: 0.000001 0000 0000 0000\t# ------------ SYN_REPORT (0) ---------- +0ms
        E: 0.027000 0003 0039 -001\t# EV_ABS / ABS_MT_TRACKING_ID   -1
        E: 0.027000 0000 0000 0000\t# ------------ SYN_REPORT (0) ---------- +27ms

        """

    @Test func readsEvemu13WithComments() throws {
        let recording = try RecordingReader.parse(text: Self.version13, name: "atmel.events")
        #expect(recording.format == .evemu)
        #expect(recording.notes.isEmpty)
        try #require(recording.devices.count == 1)
        let d = recording.devices[0].description
        #expect(d.name == "Atmel maXTouch Touchscreen")
        #expect(d.identity == DeviceIdentity(bustype: 0x18, vendor: 0, product: 0, version: 0))
        #expect(d.properties == [InputProperty.direct])
        #expect(d.codes[EventType.key] == [KeyCode.btnTouch])
        #expect(d.codes[EventType.abs] == [0x00, 0x01, 0x2f, 0x35, 0x36, 0x37, 0x39, 0x3b])
        #expect(d.codes[EventType.syn] == Set(0...0x0f))
        #expect(d.codes[EventType.rel] == nil)  // a B: line of zeros: no type
        #expect(d.axes[AbsCode.mtPositionX] == AxisInfo(minimum: 0, maximum: 799, resolution: 12))
        #expect(d.axes[AbsCode.mtSlot] == AxisInfo(minimum: 0, maximum: 9))
        let events = recording.devices[0].events
        #expect(events.count == 6)
        #expect(events[1] == InputEvent(time: Timestamp(microseconds: 1), type: 3, code: 0x39, value: 21))
        #expect(events[4].value == -1)
        #expect(events[4].time == Timestamp(microseconds: 27_000))
    }

    /// evemu 1.0/1.1: 5-field A: lines, E: lines indented, no comments after events.
    @Test(arguments: ["", "# EVEMU 1.0\n", "# EVEMU 1.1\n", "# EVEMU 1.2\n"])
    func readsOldVersions(header: String) throws {
        let text = header + """
            N: Old Pad
            I: 0011 0002 0007 01b1
            P: 05 00 00 00 00 00 00 00
            B: 00 0b 00 00 00 00 00 00 00
            B: 03 03 00 00 11 00 80 60 06
            A: 00 1472 5472 8 0
            A: 01 1408 4448 8 0
            A: 18 0 255 0 0
            A: 1c 0 15 0 0
            A: 2f 0 1 0 0
            A: 35 1472 5472 8 0
            A: 36 1408 4448 8 0
            A: 39 0 65535 0 0
            A: 3a 0 255 0 0
                E: 1358916661.266155 0003 002f 0
              E: 1358916661.266155 0003 0039 774
            E: 1358916661.266155 0000 0000 0

            """
        let recording = try RecordingReader.parse(text: text, name: "old.evemu")
        let device = try #require(recording.devices.first)
        #expect(device.description.properties == [InputProperty.pointer, InputProperty.buttonpad])
        #expect(device.description.axes[AbsCode.x] == AxisInfo(minimum: 1472, maximum: 5472, fuzz: 8, flat: 0, resolution: 0))
        #expect(device.description.axes.count == 9)
        #expect(device.events.map(\.value) == [0, 774, 0])
        #expect(device.events[0].time == Timestamp(seconds: 1_358_916_661, microseconds: 266_155))
    }

    static let description = """
        N: N-Trig MultiTouch
        I: 0003 1b96 0001 0000
        P: 00 00 00 00 00 00 00 00
        B: 00 1b 00 00 00 00 00 00 00
        B: 01 00 00 00 00 00 00 00 00
        B: 01 00 00 00 00 00 00 00 00
        B: 01 00 00 00 00 00 00 00 00
        B: 01 00 00 00 00 00 00 00 00
        B: 01 00 00 00 00 00 00 00 00
        B: 01 00 24 00 00 00 00 00 00
        B: 03 03 00 00 00 00 01 73 00
        B: 04 10 00 00 00 00 00 00 00
        A: 00 0 9600 0 0
        A: 01 0 7200 0 0
        A: 28 0 255 0 0
        A: 30 0 9600 0 0
        A: 31 0 7200 0 0
        A: 34 0 1 0 0
        A: 35 0 9600 0 0
        A: 36 0 7200 0 0

        """

    /// An events-only file (unpadded values, no comments) with a description that has no # EVEMU line.
    @Test func readsEventsOnlyWithSeparateDescription() throws {
        let events = """
            E: 1357751031.716015 0003 0000 1588
            E: 1357751031.716015 0003 0035 1588
            E: 1357751031.716015 0000 0002 0
            E: 1357751031.716015 0000 0000 0
            E: 1357751034.709837 0001 014a 0
            E: 1357751034.709837 0000 0000 0
            """
        let recording = try RecordingReader.parse(
            text: events, name: "ntrig.events", descriptionText: Self.description, descriptionName: "ntrig.desc")
        let device = try #require(recording.devices.first)
        #expect(device.description.name == "N-Trig MultiTouch")
        #expect(device.description.identity == DeviceIdentity(bustype: 3, vendor: 0x1b96, product: 1, version: 0))
        #expect(device.description.properties.isEmpty)
        // B: 01 continues over six lines: byte 41 (line 6, byte 2) = 0x24 -> 0x14a BTN_TOUCH, 0x14d DOUBLETAP.
        #expect(device.description.codes[EventType.key] == [KeyCode.btnTouch, KeyCode.btnToolDoubleTap])
        #expect(device.description.codes[EventType.msc] == [4])
        #expect(device.description.codes[EventType.abs] == [0x00, 0x01, 0x28, 0x30, 0x31, 0x34, 0x35, 0x36])
        #expect(device.description.multitouchProtocol == .a)
        #expect(device.events.count == 6)
        #expect(device.events[2] == InputEvent(
            time: Timestamp(seconds: 1_357_751_031, microseconds: 716_015), type: EventType.syn, code: SynCode.mtReport, value: 0))
    }

    @Test func eventsOnlyWithoutDescriptionIsAnError() {
        #expect {
            try RecordingReader.parse(text: "\n# recorded\nE: 0.000001 0000 0000 0\n", name: "x.events")
        } throws: { error in
            let e = error as? RecordingError
            return e?.file == "x.events" && e?.line == 3
                && e?.message.contains("events-only file needs a description: pass --desc") == true
        }
    }

    @Test func ownDescriptionPlusDescIsAnError() {
        #expect {
            try RecordingReader.parse(
                text: Self.version13, name: "a.events", descriptionText: Self.description, descriptionName: "a.desc")
        } throws: { ($0 as? RecordingError)?.message.contains("has its own device description") == true }
    }

    @Test func descriptionWithEventsIsAnError() {
        #expect {
            try RecordingReader.parse(
                text: "E: 0.000001 0000 0000 0\n", name: "a.events", descriptionText: Self.version13, descriptionName: "a.desc")
        } throws: { error in
            let e = error as? RecordingError
            return e?.file == "a.desc" && e?.line == 36 && e?.message.contains("must not contain events") == true
        }
    }

    /// The pixel tablet declares ABS 0x3e nowhere in B: but has an A: line for it: it joins the codes.
    /// Several P: lines continue the property bitmask.
    @Test func undeclaredAxisAndSeveralPropertyLines() throws {
        let text = """
            # EVEMU 1.2
            N: NVTCapacitiveTouchScreen
            I: 001c 0603 7806 0100
            P: 02 00 00 00 00 00 00 00
            P: 00 01 00 00 00 00 00 00
            B: 00 0b 00 00 00 00 00 00 00
            B: 03 00 00 00 00 00 80 f3 06
            A: 2f 0 9 0 0 0
            A: 35 0 1599 0 0 11
            A: 36 0 2559 0 0 11
            A: 39 0 65535 0 0 0
            A: 3a 0 256 0 0 0
            A: 3e 0 8 0 0 0
            E: 0.000001 0001 014a 0001
            E: 0.000001 0000 0000 0000
            """
        let d = try #require(try RecordingReader.parse(text: text, name: "pixel.evemu").devices.first).description
        #expect(d.codes[EventType.abs]?.contains(0x3e) == true)
        #expect(d.axes[0x3e] == AxisInfo(minimum: 0, maximum: 8))
        #expect(d.properties == [InputProperty.direct, 72])
        // Declared in B: (0x30, 0x31, 0x34, 0x37) without an A: line: evemu 2.x's placeholder 0...1.
        #expect(d.axes[0x30] == AxisInfo(minimum: 0, maximum: 1))
        // No B: 01 line gives EV_KEY codes (B: 00 0b says nothing about types): no EV_KEY; the BTN_TOUCH
        // events do not invent a code.
        #expect(d.codes[EventType.key] == nil)
        #expect(d.codes[EventType.syn] == Set(0...0x0f))
    }

    @Test func nonASCIINameBlankLinesAndCRLF() throws {
        let text = "# EVEMU 1.3\r\n\r\nN: Advanced Silicon S.A. CoolTouch® System\r\nI: 0003 2575 0204 0111\r\n"
            + "B: 00 0b 00 00 00 00 00 00 00\r\nA: 00 0 32767 0 0 55\r\n\r\nE: 5.000000 0003 0000 1\r\n"
            + "E: 5.000000 0000 0000 0\r\n"
        let device = try #require(try RecordingReader.parse(text: text, name: "dell.evemu").devices.first)
        #expect(device.description.name == "Advanced Silicon S.A. CoolTouch® System")
        #expect(Array(device.description.name.utf8).contains(0xc2))
        #expect(device.events.count == 2)
    }

    @Test func decreasingTimeNamesTheLine() {
        let text = "N: x\nI: 0 0 0 0\nE: 2.000000 0000 0000 0\nE: 1.999999 0000 0000 0\n"
        #expect {
            try RecordingReader.parse(text: text, name: "back.evemu")
        } throws: { error in
            let e = error as? RecordingError
            return e?.line == 4 && e?.message.contains("time goes backwards: 1.999999 after 2.000000 on line 3") == true
        }
    }

    /// evemu 2.x writes initial LED and switch states after the A: lines.
    @Test func ledAndSwitchStateLines() throws {
        let text = "N: kbd\nI: 0011 0001 0001 ab41\nB: 11 07 00 00 00 00 00 00 00\nL: 00 1\nL: 01 0\nS: 00 1\nE: 1.000000 0000 0000 0\n"
        let device = try #require(try RecordingReader.parse(text: text, name: "kbd.evemu").devices.first)
        #expect(device.description.codes[EventType.led] == [0, 1, 2])
        #expect(device.events.count == 1)
    }

    @Test func equalTimesAreFine() throws {
        let text = "N: x\nI: 0 0 0 0\nE: 2.000000 0000 0000 0\nE: 2.000000 0000 0000 0\n"
        #expect(try RecordingReader.parse(text: text, name: "eq").devices[0].events.count == 2)
    }

    @Test func unfinishedLastFrameIsNoted() throws {
        let text = "N: x\nI: 0 0 0 0\nE: 1.000000 0003 0000 5\nE: 1.000000 0000 0000 0\nE: 1.000001 0003 0000 6\n"
        let recording = try RecordingReader.parse(text: text, name: "cut.evemu")
        #expect(recording.devices[0].events.count == 3)
        #expect(recording.notes == ["cut.evemu: the last 1 event(s) are not closed by a SYN_REPORT (an unfinished frame)"])
    }

    @Test func descriptionOnlyFileHasNoEventsAndSaysSo() throws {
        let recording = try RecordingReader.parse(text: Self.description, name: "n.desc")
        #expect(recording.devices[0].events.isEmpty)
        #expect(recording.notes == ["n.desc: the recording holds no events"])
    }
}
