import CLibevdev
import MultitouchCore

/// Builds the `DeviceDescription` of a libevdev device, the same type a recording's header produces, so a
/// live device and its recording are described identically.
enum EvdevDescription {
    /// Reads name, ids, properties, every supported code per type and every absolute axis (with
    /// resolution) from `evdev`.
    static func describe(_ evdev: OpaquePointer) -> DeviceDescription {
        let name = libevdev_get_name(evdev).map { String(cString: $0) } ?? ""
        let identity = DeviceIdentity(
            bustype: UInt16(truncatingIfNeeded: libevdev_get_id_bustype(evdev)),
            vendor: UInt16(truncatingIfNeeded: libevdev_get_id_vendor(evdev)),
            product: UInt16(truncatingIfNeeded: libevdev_get_id_product(evdev)),
            version: UInt16(truncatingIfNeeded: libevdev_get_id_version(evdev)))
        var properties = Set<UInt16>()
        for property in 0...UInt32(InputProperty.max) where libevdev_has_property(evdev, property) != 0 {
            properties.insert(UInt16(property))
        }
        var codes: [UInt16: Set<UInt16>] = [:]
        var axes: [UInt16: AxisInfo] = [:]
        for type in 0...UInt32(EventType.max) where libevdev_has_event_type(evdev, type) != 0 {
            var set = Set<UInt16>()
            // libevdev knows each type's *_MAX; a negative answer means the type carries no codes.
            let maxCode = libevdev_event_type_get_max(type)
            if maxCode >= 0 {
                for code in 0...UInt32(maxCode) where libevdev_has_event_code(evdev, type, code) != 0 {
                    set.insert(UInt16(code))
                    if type == UInt32(EventType.abs), let info = libevdev_get_abs_info(evdev, code) {
                        axes[UInt16(code)] = AxisInfo(
                            minimum: info.pointee.minimum, maximum: info.pointee.maximum, fuzz: info.pointee.fuzz,
                            flat: info.pointee.flat, resolution: info.pointee.resolution)
                    }
                }
            }
            // Like the recording readers: a type is listed when it has codes; EV_SYN always is (every
            // device has it, and libevdev reports every SYN_* code of it).
            if !set.isEmpty || type == UInt32(EventType.syn) { codes[UInt16(type)] = set }
        }
        return DeviceDescription(name: name, identity: identity, properties: properties, codes: codes, axes: axes)
    }

    /// Configures a fresh `libevdev_new()` device to match `description` (used to create uinput devices
    /// in tests and to check that describe() inverts it).
    static func configure(_ evdev: OpaquePointer, from description: DeviceDescription) {
        libevdev_set_name(evdev, description.name)
        libevdev_set_id_bustype(evdev, Int32(description.identity.bustype))
        libevdev_set_id_vendor(evdev, Int32(description.identity.vendor))
        libevdev_set_id_product(evdev, Int32(description.identity.product))
        libevdev_set_id_version(evdev, Int32(description.identity.version))
        for property in description.properties.sorted() { libevdev_enable_property(evdev, UInt32(property)) }
        for type in description.codes.keys.sorted() {
            libevdev_enable_event_type(evdev, UInt32(type))
            if type == EventType.syn { continue }  // libevdev reports every SYN_* code once the type is on
            for code in (description.codes[type] ?? []).sorted() {
                if type == EventType.abs {
                    let axis = description.axes[code] ?? AxisInfo(minimum: 0, maximum: 0)
                    var info = input_absinfo(
                        value: axis.minimum, minimum: axis.minimum, maximum: axis.maximum, fuzz: axis.fuzz,
                        flat: axis.flat, resolution: axis.resolution)
                    libevdev_enable_event_code(evdev, UInt32(type), UInt32(code), &info)
                } else {
                    libevdev_enable_event_code(evdev, UInt32(type), UInt32(code), nil)
                }
            }
        }
    }
}

extension DeviceDescription {
    /// Describes a device created in memory (`libevdev_new()`) or opened from an fd.
    public init(libevdev evdev: OpaquePointer) { self = EvdevDescription.describe(evdev) }
}
