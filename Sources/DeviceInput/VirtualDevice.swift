import CLibevdev
import Glibc
import MultitouchCore
import SystemCalls

/// A kernel input device created through /dev/uinput from a `DeviceDescription` (libevdev's uinput
/// helper). Tests and the guest checks use it to drive the real evdev path; destroying it (deinit or
/// `destroy()`) removes the device, which readers see as ENODEV.
public final class VirtualDevice {
    private var uinput: OpaquePointer?
    private let template: OpaquePointer
    /// The /dev/input/eventN node the kernel made (nil if the kernel/udev has not named it).
    public let devnode: String?

    /// True when /dev/uinput exists and can be opened for writing (false on hosts without uinput).
    public static var isAvailable: Bool { Sys.access("/dev/uinput", W_OK) }

    public init(description: DeviceDescription) throws(SystemError) {
        guard let evdev = libevdev_new() else {
            throw SystemError("libevdev_new", errno: ENOMEM, detail: "/dev/uinput")
        }
        EvdevDescription.configure(evdev, from: description)
        var created: OpaquePointer?
        let rc = libevdev_uinput_create_from_device(evdev, Int32(LIBEVDEV_UINPUT_OPEN_MANAGED.rawValue), &created)
        guard rc == 0, let uinput = created else {
            libevdev_free(evdev)
            throw SystemError("libevdev_uinput_create_from_device", errno: -rc, detail: "/dev/uinput")
        }
        self.template = evdev
        self.uinput = uinput
        self.devnode = libevdev_uinput_get_devnode(uinput).map { String(cString: $0) }
    }

    deinit {
        destroy()
        libevdev_free(template)
    }

    /// Removes the device from the kernel now.
    public func destroy() {
        if let uinput { libevdev_uinput_destroy(uinput) }
        uinput = nil
    }

    /// Writes one event (the kernel stamps its own time).
    public func write(type: UInt16, code: UInt16, value: Int32) throws(SystemError) {
        guard let uinput else {
            throw SystemError("libevdev_uinput_write_event", errno: ENODEV, detail: devnode ?? "uinput")
        }
        _ = try Sys.retryingNegativeErrno("libevdev_uinput_write_event", devnode ?? "uinput") {
            libevdev_uinput_write_event(uinput, UInt32(type), UInt32(code), value)
        }
    }

    /// Writes a frame's events followed by SYN_REPORT.
    public func write(frame events: [(UInt16, UInt16, Int32)]) throws(SystemError) {
        for (type, code, value) in events { try write(type: type, code: code, value: value) }
        try write(type: EventType.syn, code: SynCode.report, value: 0)
    }
}
