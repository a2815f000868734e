import MultitouchCore
import Testing

import Recordings

@Suite struct EvemuWriterTests {
    /// The exact text evemu 2.x writes for this device (compare a real evemu-record header).
    @Test func writesEvemuExactly() {
        let events = [
            InputEvent(time: Timestamp(microseconds: 1_000_000), type: 3, code: 0x39, value: 5),
            InputEvent(time: Timestamp(microseconds: 1_000_000), type: 3, code: 0x39, value: -1),
            InputEvent(time: Timestamp(microseconds: 1_012_345), type: 3, code: 0x35, value: -12345),
            InputEvent(time: Timestamp(seconds: 1_382_570_977, microseconds: 35_628), type: 0, code: 0, value: 0),
        ]
        let text = EvemuWriter.write(description: Generated.touchscreen, events: events)
        let expected = """
            # EVEMU 1.3
            # Input device name: "Test Touchscreen"
            N: Test Touchscreen
            I: 0018 1234 abcd 0001
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
            B: 03 03 00 00 00 00 80 60 02
            B: 04 00 00 00 00 00 00 00 00
            B: 05 00 00 00 00 00 00 00 00
            B: 11 00 00 00 00 00 00 00 00
            B: 12 00 00 00 00 00 00 00 00
            B: 14 00 00 00 00 00 00 00 00
            B: 15 00 00 00 00 00 00 00 00
            B: 15 00 00 00 00 00 00 00 00
            A: 00 0 4095 0 0 16
            A: 01 0 2047 0 0 16
            A: 2f 0 1 0 0 0
            A: 35 0 4095 0 0 16
            A: 36 0 2047 0 0 16
            A: 39 0 65535 0 0 0
            E: 1.000000 0003 0039 0005
            E: 1.000000 0003 0039 -001
            E: 1.012345 0003 0035 -12345
            E: 1382570977.035628 0000 0000 0000

            """
        #expect(text == expected)
    }

    /// Many random devices and event streams read back identically.
    @Test func roundTripsGeneratedDevices() throws {
        var rng = SplitMix64(seed: 0x5eed)
        for _ in 0..<300 {
            let description = Generated.device(&rng)
            let events = Generated.events(&rng, frames: Int.random(in: 1...40, using: &rng))
            let text = EvemuWriter.write(description: description, events: events)
            let recording = try RecordingReader.parse(text: text, name: "generated.evemu")
            #expect(recording == Recording(format: .evemu, devices: [RecordedDevice(description: description, events: events)]))
        }
    }

    /// What the format cannot carry is normalized the documented way.
    @Test func normalizations() throws {
        var d = Generated.touchscreen
        d.name = "two\nlines"
        d.codes[EventType.syn] = [SynCode.report]
        d.codes[EventType.msc] = []  // a type without codes is not recorded
        d.codes[EventType.abs, default: []].insert(AbsCode.pressure)  // no axis given
        let text = EvemuWriter.write(description: d, events: [])
        let back = try RecordingReader.parse(text: text, name: "n.evemu").devices[0].description
        #expect(back.name == "two lines")
        #expect(back.codes[EventType.syn] == Set(0...15))
        #expect(back.codes[EventType.msc] == nil)
        d.codes[EventType.syn] = nil  // a device without EV_SYN gets it
        let noSyn = try RecordingReader.parse(text: EvemuWriter.write(description: d, events: []), name: "s.evemu")
        #expect(noSyn.devices[0].description.codes[EventType.syn] == Set(0...15))
        #expect(back.axes[AbsCode.pressure] == AxisInfo(minimum: 0, maximum: 1))
    }

    @Test func negativeTimeIsRejectedOnReadBack() {
        let text = EvemuWriter.write(
            description: Generated.touchscreen,
            events: [InputEvent(time: Timestamp(microseconds: -1), type: 0, code: 0, value: 0)])
        #expect(text.contains("E: -0.000001 0000 0000 0000"))
        #expect(throws: RecordingError.self) { try RecordingReader.parse(text: text, name: "neg.evemu") }
    }
}
