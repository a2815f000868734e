import CLibevdev
import Glibc
import MultitouchCore
import SystemCalls
import Testing

@testable import DeviceInput

/// A 10-slot protocol B touchscreen as a touchscreen driver declares it (values like the Atmel maXTouch
/// recording: 0...4095, 16 units/mm).
func touchscreenDescription(name: String = "Test MT Touchscreen") -> DeviceDescription {
    let position = AxisInfo(minimum: 0, maximum: 4095, resolution: 16)
    return DeviceDescription(
        name: name, identity: DeviceIdentity(bustype: 0x18, vendor: 0x03eb, product: 0x214c, version: 1),
        properties: [InputProperty.direct],
        codes: [EventType.syn: [SynCode.report], EventType.key: [KeyCode.btnTouch]],
        axes: [
            AbsCode.x: position, AbsCode.y: position,
            AbsCode.mtSlot: AxisInfo(minimum: 0, maximum: 9),
            AbsCode.mtPositionX: position, AbsCode.mtPositionY: position,
            AbsCode.mtTrackingID: AxisInfo(minimum: 0, maximum: 65535),
            AbsCode.mtPressure: AxisInfo(minimum: 0, maximum: 255),
        ])
}

/// A clickpad: pointer + buttonpad, 2 slots, finger tools.
func touchpadDescription() -> DeviceDescription {
    DeviceDescription(
        name: "Test Clickpad", identity: DeviceIdentity(bustype: 0x11, vendor: 2, product: 7, version: 0x1b1),
        properties: [InputProperty.pointer, InputProperty.buttonpad],
        codes: [
            EventType.syn: [SynCode.report],
            EventType.key: [KeyCode.btnLeft, KeyCode.btnToolFinger, KeyCode.btnTouch, KeyCode.btnToolDoubleTap],
        ],
        axes: [
            AbsCode.x: AxisInfo(minimum: 1266, maximum: 5676, resolution: 48),
            AbsCode.y: AxisInfo(minimum: 1096, maximum: 4758, resolution: 88),
            AbsCode.mtSlot: AxisInfo(minimum: 0, maximum: 1),
            AbsCode.mtPositionX: AxisInfo(minimum: 1266, maximum: 5676, resolution: 48),
            AbsCode.mtPositionY: AxisInfo(minimum: 1096, maximum: 4758, resolution: 88),
            AbsCode.mtTrackingID: AxisInfo(minimum: 0, maximum: 65535),
        ])
}

/// A keyboard: keys only.
func keyboardDescription() -> DeviceDescription {
    DeviceDescription(
        name: "AT Translated Set 2 keyboard",
        identity: DeviceIdentity(bustype: 0x11, vendor: 1, product: 1, version: 0xab41),
        codes: [EventType.syn: [SynCode.report], EventType.key: [1, 2, 3, 30, 31]])
}

@Suite struct DescriptionFromLibevdevTests {
    @Test func describesEveryFieldOfAnInMemoryDevice() throws {
        let evdev = try #require(libevdev_new())
        defer { libevdev_free(evdev) }
        libevdev_set_name(evdev, "Hand Built Panel")
        libevdev_set_id_bustype(evdev, 0x18)
        libevdev_set_id_vendor(evdev, 0x1234)
        libevdev_set_id_product(evdev, 0x5678)
        libevdev_set_id_version(evdev, 3)
        libevdev_enable_property(evdev, UInt32(InputProperty.direct))
        libevdev_enable_event_code(evdev, UInt32(EventType.key), UInt32(KeyCode.btnTouch), nil)
        var slot = input_absinfo(value: 0, minimum: 0, maximum: 4, fuzz: 0, flat: 0, resolution: 0)
        var x = input_absinfo(value: 0, minimum: 0, maximum: 1919, fuzz: 2, flat: 1, resolution: 11)
        var y = input_absinfo(value: 0, minimum: 0, maximum: 1079, fuzz: 2, flat: 1, resolution: 12)
        var tracking = input_absinfo(value: 0, minimum: 0, maximum: 65535, fuzz: 0, flat: 0, resolution: 0)
        libevdev_enable_event_code(evdev, UInt32(EventType.abs), UInt32(AbsCode.mtSlot), &slot)
        libevdev_enable_event_code(evdev, UInt32(EventType.abs), UInt32(AbsCode.mtPositionX), &x)
        libevdev_enable_event_code(evdev, UInt32(EventType.abs), UInt32(AbsCode.mtPositionY), &y)
        libevdev_enable_event_code(evdev, UInt32(EventType.abs), UInt32(AbsCode.mtTrackingID), &tracking)

        let description = DeviceDescription(libevdev: evdev)

        #expect(description.name == "Hand Built Panel")
        #expect(description.identity == DeviceIdentity(bustype: 0x18, vendor: 0x1234, product: 0x5678, version: 3))
        #expect(description.properties == [InputProperty.direct])
        #expect(description.codes[EventType.key] == [KeyCode.btnTouch])
        #expect(
            description.codes[EventType.abs] == [
                AbsCode.mtSlot, AbsCode.mtPositionX, AbsCode.mtPositionY, AbsCode.mtTrackingID,
            ])
        #expect(
            description.axes[AbsCode.mtPositionX]
                == AxisInfo(minimum: 0, maximum: 1919, fuzz: 2, flat: 1, resolution: 11))
        #expect(description.axes[AbsCode.mtPositionY]?.resolution == 12)
        #expect(description.axes[AbsCode.x] == nil)
        #expect(description.multitouchProtocol == .b)
        #expect(description.slotCount == 5)
        #expect(description.deviceClass == .touchscreen)
    }

    @Test(arguments: [touchscreenDescription(), touchpadDescription(), keyboardDescription()])
    func configureThenDescribeGivesTheSameDescription(_ original: DeviceDescription) throws {
        let evdev = try #require(libevdev_new())
        defer { libevdev_free(evdev) }
        EvdevDescription.configure(evdev, from: original)
        let described = DeviceDescription(libevdev: evdev)
        // libevdev reports every SYN_* code of EV_SYN, and so do the recording readers.
        var expected = original
        expected.codes[EventType.syn] = Set(0...EventType.maxCode(for: EventType.syn))
        #expect(described == expected)
    }

    @Test func aDeviceWithNoCodesHasNoAxesAndIsNotATouchDevice() throws {
        let evdev = try #require(libevdev_new())
        defer { libevdev_free(evdev) }
        let description = DeviceDescription(libevdev: evdev)
        #expect(description.name == "")
        #expect(description.axes.isEmpty)
        #expect(description.deviceClass == .other)
    }
}

@Suite struct ErrorPathTests {
    @Test func aMissingNodeIsAClearNoDeviceError() {
        #expect {
            _ = try LiveDevice(path: "/nonexistent/input/event99")
        } throws: { error in
            guard let error = error as? SystemError else { return false }
            return error.call == "open" && error.errno == ENOENT && error.kind == .noDevice
                && error.detail == "/nonexistent/input/event99"
                && error.description.contains("open /nonexistent/input/event99: No such file")
        }
    }

    @Test func aRegularFileIsNotAnEvdevNode() throws {
        let path = try temporaryDirectory() + "/event0"
        let fd = open(path, O_CREAT | O_WRONLY, 0o644)
        try #require(fd >= 0)
        close(fd)
        #expect {
            _ = try LiveDevice(path: path)
        } throws: { error in
            guard let error = error as? SystemError else { return false }
            // EVIOCGBIT on a regular file: ENOTTY (inappropriate ioctl), not a crash.
            return error.call == "libevdev_new_from_fd" && error.errno == ENOTTY && error.kind == .other
        }
    }

    @Test func errnoKindsAreClassified() {
        #expect(SystemError("open", errno: EACCES, detail: "/x").kind == .permissionDenied)
        #expect(SystemError("open", errno: EPERM, detail: "/x").kind == .permissionDenied)
        #expect(SystemError("read", errno: ENODEV, detail: "/x").kind == .noDevice)
        #expect(SystemError("libevdev_grab", errno: EBUSY, detail: "/x").kind == .busy)
        #expect(SystemError("read", errno: EIO, detail: "/x").kind == .other)
        #expect(SystemError("open", errno: EACCES, detail: "/x").description == "open /x: Permission denied (errno 13)")
    }
}

/// A fresh directory under /tmp for one test.
func temporaryDirectory() throws -> String {
    var template = Array("/tmp/multitouchd-devtest.XXXXXX".utf8CString)
    let made = template.withUnsafeMutableBufferPointer { buffer -> Bool in
        guard let base = buffer.baseAddress else { return false }
        return mkdtemp(base) != nil
    }
    try #require(made)
    return String(decoding: template.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

@Suite struct DeviceOpeningTests {
    @Test func aMissingNodeFailsWithTheOpenError() {
        switch DeviceOpening.open(path: "/nonexistent/event3", matcher: DeviceMatcher()) {
        case .failed(let error):
            #expect(error.call == "open")
            #expect(error.kind == .noDevice)
        case .served, .skipped:
            Issue.record("a missing node was not a failure")
        }
    }
}
