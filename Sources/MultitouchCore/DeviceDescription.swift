/// The range and precision of one absolute axis (`struct input_absinfo` without the current value).
public struct AxisInfo: Hashable, Sendable {
    public var minimum: Int32
    public var maximum: Int32
    public var fuzz: Int32
    public var flat: Int32
    /// Units per millimetre (`ABS_X`/`ABS_Y`/`ABS_MT_POSITION_*`), or 0 when the device does not say.
    public var resolution: Int32

    public init(minimum: Int32, maximum: Int32, fuzz: Int32 = 0, flat: Int32 = 0, resolution: Int32 = 0) {
        self.minimum = minimum
        self.maximum = maximum
        self.fuzz = fuzz
        self.flat = flat
        self.resolution = resolution
    }

    /// `maximum - minimum` as a Double, never negative.
    public var span: Double { Swift.max(0, Double(maximum) - Double(minimum)) }
}

/// The kernel's `struct input_id`.
public struct DeviceIdentity: Hashable, Sendable {
    public var bustype: UInt16
    public var vendor: UInt16
    public var product: UInt16
    public var version: UInt16

    public init(bustype: UInt16, vendor: UInt16, product: UInt16, version: UInt16) {
        self.bustype = bustype
        self.vendor = vendor
        self.product = product
        self.version = version
    }
}

/// The class a device is served as, chosen once when it is added (`DeviceDescription.kind`), as
/// libinput's `evdev_configure_device` picks one dispatch per device and lets it own its chain. Each
/// stage that treats classes differently is configured with it when the device's pipeline is made:
/// the contact tracker (its `ContactSource`, the touches' type, whether tool keys count fingers),
/// the gesture surface (a semi-mt box measures no rotation; clickpad thumbs), the checkers, and the
/// publishing edge (the wire's `semiMT` on `deviceAdded` and `touches`). No frame, routed output or
/// delivery carries it.
public enum DeviceKind: Hashable, Sendable, CaseIterable {
    /// Direct touch: touches on the picture, every contact a finger (`DeviceClass.touchscreen`).
    case touchscreen
    /// Indirect touch whose slots are fingers (`DeviceClass.touchpad`).
    case touchpad
    /// A touchpad whose two slots are the corners of the fingers' bounding box, its finger count
    /// from `BTN_TOOL_*TAP` (`INPUT_PROP_SEMI_MT`; libinput handles such pads in its touchpad
    /// dispatch, evdev-mt-touchpad.c's `semi_mt`).
    case semiMTTouchpad
    /// Not a touch device the daemon serves (`DeviceClass.other`: a pen, a keyboard, a mouse). Its
    /// recordings replay as an indirect device with real slots, as any device that is not a touchscreen.
    case other

    /// The class the wire's `class` field and the configuration's `class` rules name.
    public var deviceClass: DeviceClass {
        switch self {
        case .touchscreen: return .touchscreen
        case .touchpad, .semiMTTouchpad: return .touchpad
        case .other: return .other
        }
    }

    /// The touches' type: direct on a touchscreen, indirect on everything else.
    public var touchType: TouchType { self == .touchscreen ? .direct : .indirect }

    /// The two slots are a bounding box, not two fingers.
    public var isSemiMT: Bool { self == .semiMTTouchpad }
}

/// Everything the pipeline needs to know about one input device, from a recording's header or from a
/// live fd: one type for both, so a replay and the live device are described identically.
public struct DeviceDescription: Hashable, Sendable {
    public var name: String
    public var identity: DeviceIdentity
    /// `INPUT_PROP_*` bits that are set.
    public var properties: Set<UInt16>
    /// Supported codes per event type (`EV_*` -> codes). A type with no codes may still be present.
    public var codes: [UInt16: Set<UInt16>]
    /// Absolute axes and their ranges; every key is also in `codes[EventType.abs]`.
    public var axes: [UInt16: AxisInfo]

    public init(
        name: String, identity: DeviceIdentity, properties: Set<UInt16> = [], codes: [UInt16: Set<UInt16>] = [:],
        axes: [UInt16: AxisInfo] = [:]
    ) {
        self.name = name
        self.identity = identity
        self.properties = properties
        self.codes = codes
        self.axes = axes
        for code in axes.keys { self.codes[EventType.abs, default: []].insert(code) }
        if !axes.isEmpty { self.codes[EventType.abs, default: []] = self.codes[EventType.abs] ?? [] }
    }

    /// True when the device declares `type`/`code`.
    public func has(_ type: UInt16, _ code: UInt16) -> Bool { codes[type]?.contains(code) ?? false }

    public func hasProperty(_ property: UInt16) -> Bool { properties.contains(property) }

    /// The multitouch protocol, from the axes the device declares.
    public var multitouchProtocol: MultitouchProtocol {
        if axes[AbsCode.mtSlot] != nil { return .b }
        if axes[AbsCode.mtPositionX] != nil && axes[AbsCode.mtPositionY] != nil { return .a }
        return .singleTouch
    }

    /// True for `INPUT_PROP_SEMI_MT`, the kernel's property: what the device says of itself. The stages
    /// read `kind` (`DeviceKind.semiMTTouchpad`), chosen once from it.
    public var isSemiMT: Bool { hasProperty(InputProperty.semiMT) }

    /// Number of protocol B slots (1 for single-touch devices; for protocol A the number of contacts the
    /// matcher will track at once).
    public var slotCount: Int {
        switch multitouchProtocol {
        case .b:
            guard let slot = axes[AbsCode.mtSlot] else { return 1 }
            return Swift.max(1, Int(slot.maximum) - Int(slot.minimum) + 1)
        case .a: return DeviceDescription.protocolAContactLimit
        case .singleTouch: return 1
        }
    }

    /// Contacts tracked at most for a protocol A device (the kernel's own MT limit for in-kernel
    /// conversions is far above what real panels report; mtdev uses 32 slots too).
    public static let protocolAContactLimit = 32

    /// The X and Y axes positions come from: the MT axes when present, else `ABS_X`/`ABS_Y`.
    public var positionAxes: (x: AxisInfo, y: AxisInfo)? {
        if let x = axes[AbsCode.mtPositionX], let y = axes[AbsCode.mtPositionY] { return (x, y) }
        if let x = axes[AbsCode.x], let y = axes[AbsCode.y] { return (x, y) }
        return nil
    }

    /// The device class and the reason it was chosen (shown by `multitouchctl devices`).
    public var classification: (deviceClass: DeviceClass, reason: String) {
        guard positionAxes != nil else { return (.other, "no absolute position axes") }
        let touchTools = has(EventType.key, KeyCode.btnTouch) || multitouchProtocol != .singleTouch
        let pen = has(EventType.key, KeyCode.btnToolPen) || has(EventType.key, KeyCode.btnStylus)
        // A pen is not a finger, on a screen too: hid-multitouch gives a panel's stylus its own node
        // (INPUT_PROP_DIRECT, BTN_TOOL_PEN, BTN_STYLUS, no multitouch axes), which udev's input_id
        // calls a tablet before it looks at INPUT_PROP_DIRECT. Its touches would drive gestures with
        // a hovering, pressure-driven tool, so it is left out (issue 31; docs/DEVICES.md, "Pens").
        if pen && multitouchProtocol == .singleTouch {
            return (.other, "pen (BTN_TOOL_PEN/BTN_STYLUS, no multitouch axes; udev: ID_INPUT_TABLET): not a finger")
        }
        if hasProperty(InputProperty.direct) { return (.touchscreen, "INPUT_PROP_DIRECT") }
        if hasProperty(InputProperty.pointer) || hasProperty(InputProperty.buttonpad)
            || hasProperty(InputProperty.semiMT) || hasProperty(InputProperty.topButtonpad)
        {
            return (.touchpad, "INPUT_PROP_POINTER/BUTTONPAD/SEMI_MT")
        }
        // No input properties: the heuristics of udev's input_id builtin. A finger tool without a
        // pen means a touchpad; touch without a finger tool means a touchscreen.
        guard touchTools else { return (.other, "no BTN_TOUCH and no multitouch axes") }
        if has(EventType.key, KeyCode.btnToolFinger) && !pen {
            return (.touchpad, "no input properties; BTN_TOOL_FINGER without a pen: touchpad (udev input_id rule)")
        }
        return (.touchscreen, "no input properties; touch without BTN_TOOL_FINGER: touchscreen (udev input_id rule)")
    }

    public var deviceClass: DeviceClass { classification.deviceClass }

    /// The class the device is served as: its `deviceClass`, a touchpad split by
    /// `INPUT_PROP_SEMI_MT`. The kernel sets that property on touchpads only; on a device classed
    /// otherwise it describes no box, and is not taken as one.
    public var kind: DeviceKind {
        switch deviceClass {
        case .touchscreen: return .touchscreen
        case .touchpad: return isSemiMT ? .semiMTTouchpad : .touchpad
        case .other: return .other
        }
    }
}
