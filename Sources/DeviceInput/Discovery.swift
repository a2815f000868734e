import CLibudev
import Glibc
import SystemCalls

/// A device node appearing, disappearing or changing (owner/mode) after start.
public enum HotplugEvent: Hashable, Sendable {
    case added(String)
    case removed(String)
    /// Permissions or udev properties changed: a node that could not be opened may be readable now.
    case changed(String)

    public var path: String {
        switch self {
        case .added(let path), .removed(let path), .changed(let path): return path
        }
    }
}

/// Finds evdev nodes at start and reports hotplug afterwards. With udevd running it uses libudev's
/// monitor (events arrive once udev has set permissions and links); without udevd (containers,
/// initramfs, the test guest) udev's monitor stays silent, so it falls back to inotify on /dev/input.
/// Either way `fileDescriptor` is one fd for the server's epoll set and `receive()` drains it.
public final class DeviceDiscovery {
    /// Where hotplug events come from.
    public enum Source: String, Hashable, Sendable {
        case udev, inotify
    }

    public let source: Source
    /// The directory nodes live in (/dev/input; tests use another).
    public let directory: String
    /// Readable when `receive()` has events.
    public var fileDescriptor: Int32 {
        switch backend {
        case .udev(let monitor): return monitor.fileDescriptor
        case .inotify(let watcher): return watcher.fileDescriptor
        }
    }

    private enum Backend {
        case udev(UdevMonitor)
        case inotify(InotifyWatcher)
    }

    private let backend: Backend

    /// `source` nil chooses udev when udevd runs (its control socket exists) and inotify otherwise.
    public init(source: Source? = nil, directory: String = "/dev/input") throws(SystemError) {
        let chosen = source ?? (Udev.isDaemonRunning && directory == "/dev/input" ? .udev : .inotify)
        self.source = chosen
        self.directory = directory
        switch chosen {
        case .udev: backend = .udev(try UdevMonitor())
        case .inotify: backend = .inotify(try InotifyWatcher(directory: directory))
        }
    }

    /// The event nodes present now, in event-number order. Listed from the directory itself, which is
    /// right with or without udev (devtmpfs creates the nodes; udev only adjusts them).
    public func enumerate() -> [String] {
        EventNode.sorted(
            DirectoryListing.names(in: directory).filter(EventNode.isEventNode).map { directory + "/" + $0 })
    }

    /// Drains pending hotplug notifications (never blocks; empty when there are none).
    public func receive() throws(SystemError) -> [HotplugEvent] {
        switch backend {
        case .udev(let monitor): return monitor.receive()
        case .inotify(let watcher): return try watcher.receive()
        }
    }
}

/// Facts udev knows about nodes, when udevd runs.
public enum Udev {
    /// udevd creates /run/udev/control when it starts; without it the udev database is empty and the
    /// monitor never delivers anything.
    public static var isDaemonRunning: Bool { Sys.access("/run/udev/control", F_OK) }

    /// udev's `ID_INPUT*` properties of an event node (e.g. ID_INPUT_TOUCHSCREEN=1); nil where udev has
    /// no data for it (no udevd, or not processed yet: `ID_INPUT` missing).
    public static func inputProperties(of node: String) -> [String: String]? {
        guard let sysname = node.split(separator: "/").last.map(String.init), let udev = udev_new() else { return nil }
        defer { udev_unref(udev) }
        guard let device = udev_device_new_from_subsystem_sysname(udev, "input", sysname) else { return nil }
        defer { udev_device_unref(device) }
        guard udev_device_get_property_value(device, "ID_INPUT") != nil else { return nil }
        var result: [String: String] = [:]
        var entry = udev_device_get_properties_list_entry(device)
        while let current = entry {
            if let name = udev_list_entry_get_name(current).map({ String(cString: $0) }), name.hasPrefix("ID_INPUT") {
                result[name] = udev_list_entry_get_value(current).map { String(cString: $0) } ?? ""
            }
            entry = udev_list_entry_get_next(current)
        }
        return result
    }
}

/// libudev's netlink monitor filtered to the input subsystem's event nodes.
final class UdevMonitor {
    private let udev: OpaquePointer
    private let monitor: OpaquePointer
    let fileDescriptor: Int32

    init() throws(SystemError) {
        guard let udev = udev_new() else { throw SystemError("udev_new", errno: errno, detail: "udev") }
        guard let monitor = udev_monitor_new_from_netlink(udev, "udev") else {
            let code = errno
            udev_unref(udev)
            throw SystemError("udev_monitor_new_from_netlink", errno: code == 0 ? EINVAL : code, detail: "udev")
        }
        var rc = udev_monitor_filter_add_match_subsystem_devtype(monitor, "input", nil)
        if rc >= 0 { rc = udev_monitor_enable_receiving(monitor) }
        guard rc >= 0 else {
            udev_monitor_unref(monitor)
            udev_unref(udev)
            throw SystemError("udev_monitor_enable_receiving", errno: -rc, detail: "udev")
        }
        self.udev = udev
        self.monitor = monitor
        self.fileDescriptor = udev_monitor_get_fd(monitor)
    }

    deinit {
        udev_monitor_unref(monitor)
        udev_unref(udev)
    }

    /// Every queued uevent for an eventN node (the socket is non-blocking: nil means drained).
    func receive() -> [HotplugEvent] {
        var events: [HotplugEvent] = []
        while let device = udev_monitor_receive_device(monitor) {
            defer { udev_device_unref(device) }
            guard let sysname = udev_device_get_sysname(device).map({ String(cString: $0) }),
                EventNode.isEventNode(sysname),
                let action = udev_device_get_action(device).map({ String(cString: $0) })
            else { continue }
            let node = udev_device_get_devnode(device).map { String(cString: $0) } ?? "/dev/input/" + sysname
            switch action {
            case "add": events.append(.added(node))
            case "remove": events.append(.removed(node))
            case "change": events.append(.changed(node))
            default: continue  // bind/unbind/move do not change what the node delivers
            }
        }
        return events
    }
}
