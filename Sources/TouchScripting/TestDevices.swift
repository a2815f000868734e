import MultitouchCore

/// Device descriptions for tests and generated fixtures, each modelled on a real device class (the
/// recordings in ../shared/recordings show the real ones).
public enum TestDevices {
    /// Protocol B touchscreen (`INPUT_PROP_DIRECT`): `slots` slots, 0...`maximum` on both axes at
    /// `resolution` units/mm (4095 / 16 = 256 mm square by default), pressure, touch major/minor,
    /// orientation (-90...90, a quarter turn each way), tool type, `MSC_TIMESTAMP`.
    public static func touchscreen(slots: Int = 10, maximum: Int32 = 4095, resolution: Int32 = 16) -> DeviceDescription
    {
        let position = AxisInfo(minimum: 0, maximum: maximum, resolution: resolution)
        return DeviceDescription(
            name: "multitouchd test touchscreen",
            identity: DeviceIdentity(bustype: 0x18, vendor: 0x1, product: 0x1, version: 1),
            properties: [InputProperty.direct],
            codes: [
                EventType.syn: [SynCode.report, SynCode.dropped],
                EventType.key: [KeyCode.btnTouch],
                EventType.msc: [MscCode.timestamp],
            ],
            axes: [
                AbsCode.x: position, AbsCode.y: position,
                AbsCode.mtSlot: AxisInfo(minimum: 0, maximum: Int32(max(1, slots) - 1)),
                AbsCode.mtPositionX: position, AbsCode.mtPositionY: position,
                AbsCode.mtTrackingID: AxisInfo(minimum: 0, maximum: 65535),
                AbsCode.mtPressure: AxisInfo(minimum: 0, maximum: 255),
                AbsCode.mtTouchMajor: AxisInfo(minimum: 0, maximum: maximum, resolution: resolution),
                AbsCode.mtTouchMinor: AxisInfo(minimum: 0, maximum: maximum, resolution: resolution),
                AbsCode.mtOrientation: AxisInfo(minimum: -90, maximum: 90),
                AbsCode.mtToolType: AxisInfo(minimum: 0, maximum: MTToolType.palm),
            ])
    }

    /// Clickpad (`INPUT_PROP_POINTER` + `BUTTONPAD`), protocol B with `slots` slots (2 for an old
    /// Synaptics, 5 for a modern pad), `BTN_TOOL_FINGER`...`QUINTTAP`, 0...3200 x 0...2000 at 32
    /// units/mm (100 x 62.5 mm).
    public static func touchpad(slots: Int = 5) -> DeviceDescription {
        let x = AxisInfo(minimum: 0, maximum: 3200, resolution: 32)
        let y = AxisInfo(minimum: 0, maximum: 2000, resolution: 32)
        return DeviceDescription(
            name: "multitouchd test touchpad",
            identity: DeviceIdentity(bustype: 0x18, vendor: 0x2, product: 0x2, version: 1),
            properties: [InputProperty.pointer, InputProperty.buttonpad],
            codes: [
                EventType.syn: [SynCode.report, SynCode.dropped],
                EventType.key: [
                    KeyCode.btnLeft, KeyCode.btnTouch, KeyCode.btnToolFinger, KeyCode.btnToolDoubleTap,
                    KeyCode.btnToolTripleTap, KeyCode.btnToolQuadTap, KeyCode.btnToolQuintTap,
                ],
            ],
            axes: [
                AbsCode.x: x, AbsCode.y: y, AbsCode.pressure: AxisInfo(minimum: 0, maximum: 255),
                AbsCode.mtSlot: AxisInfo(minimum: 0, maximum: Int32(max(1, slots) - 1)),
                AbsCode.mtPositionX: x, AbsCode.mtPositionY: y,
                AbsCode.mtTrackingID: AxisInfo(minimum: 0, maximum: 65535),
                AbsCode.mtPressure: AxisInfo(minimum: 0, maximum: 255),
            ])
    }

    /// Protocol A touchscreen without input properties, like the N-Trig panel: anonymous contacts
    /// separated by `SYN_MT_REPORT`, `BTN_TOUCH` + `BTN_TOOL_DOUBLETAP`, no resolution, orientation
    /// 0...1 (the kernel's "Y or X aligned" range).
    public static func protocolATouchscreen() -> DeviceDescription {
        let x = AxisInfo(minimum: 0, maximum: 9600)
        let y = AxisInfo(minimum: 0, maximum: 7200)
        return DeviceDescription(
            name: "multitouchd test protocol A",
            identity: DeviceIdentity(bustype: 0x03, vendor: 0x1b96, product: 0x1, version: 0),
            codes: [
                EventType.syn: [SynCode.report, SynCode.mtReport],
                EventType.key: [KeyCode.btnTouch, KeyCode.btnToolDoubleTap],
            ],
            axes: [
                AbsCode.x: x, AbsCode.y: y,
                AbsCode.mtPositionX: x, AbsCode.mtPositionY: y,
                AbsCode.mtTouchMajor: AxisInfo(minimum: 0, maximum: 9600),
                AbsCode.mtTouchMinor: AxisInfo(minimum: 0, maximum: 7200),
                AbsCode.mtOrientation: AxisInfo(minimum: 0, maximum: 1),
            ])
    }

    /// Semi-mt clickpad (`INPUT_PROP_BUTTONPAD` + `SEMI_MT`), like the Cypress and old Synaptics pads:
    /// two slots that carry a bounding box, the finger count only through `BTN_TOOL_*`.
    public static func semiMTClickpad() -> DeviceDescription {
        let x = AxisInfo(minimum: 0, maximum: 1600, resolution: 16)
        let y = AxisInfo(minimum: 0, maximum: 900, resolution: 15)
        return DeviceDescription(
            name: "multitouchd test semi-mt",
            identity: DeviceIdentity(bustype: 0x11, vendor: 0x2, product: 0x11, version: 1),
            properties: [InputProperty.buttonpad, InputProperty.semiMT],
            codes: [
                EventType.syn: [SynCode.report, SynCode.dropped],
                EventType.key: [
                    KeyCode.btnLeft, KeyCode.btnTouch, KeyCode.btnToolFinger, KeyCode.btnToolDoubleTap,
                    KeyCode.btnToolTripleTap, KeyCode.btnToolQuadTap, KeyCode.btnToolQuintTap,
                ],
            ],
            axes: [
                AbsCode.x: x, AbsCode.y: y, AbsCode.pressure: AxisInfo(minimum: 0, maximum: 255),
                AbsCode.mtSlot: AxisInfo(minimum: 0, maximum: 1),
                AbsCode.mtPositionX: x, AbsCode.mtPositionY: y,
                AbsCode.mtTrackingID: AxisInfo(minimum: 0, maximum: 65535),
                AbsCode.mtPressure: AxisInfo(minimum: 0, maximum: 255),
            ])
    }

    /// Protocol B touchscreen that reports resolution 0 (common on cheap panels): the mapper falls back
    /// to a configured or nominal size. 0...32767 on both axes, 5 slots.
    public static func touchscreenWithoutResolution() -> DeviceDescription {
        touchscreen(slots: 5, maximum: 32767, resolution: 0)
    }

    /// Single-touch resistive touchscreen: `ABS_X`/`ABS_Y` 0...1023 at 4 units/mm, `ABS_PRESSURE`,
    /// `BTN_TOUCH`, no multitouch axes.
    public static func singleTouch() -> DeviceDescription {
        let position = AxisInfo(minimum: 0, maximum: 1023, resolution: 4)
        return DeviceDescription(
            name: "multitouchd test single touch",
            identity: DeviceIdentity(bustype: 0x19, vendor: 0x3, product: 0x3, version: 1),
            properties: [InputProperty.direct],
            codes: [EventType.syn: [SynCode.report], EventType.key: [KeyCode.btnTouch]],
            axes: [AbsCode.x: position, AbsCode.y: position, AbsCode.pressure: AxisInfo(minimum: 0, maximum: 255)])
    }

    /// Every factory with its default arguments, named, for tests that run on each device.
    public static var all: [(name: String, description: DeviceDescription)] {
        [
            ("touchscreen", touchscreen()), ("touchpad", touchpad()), ("touchpad-2-slots", touchpad(slots: 2)),
            ("protocol-a", protocolATouchscreen()), ("semi-mt", semiMTClickpad()),
            ("no-resolution", touchscreenWithoutResolution()), ("single-touch", singleTouch()),
        ]
    }
}
