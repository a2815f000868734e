import CLibevdev
import Glibc
import MultitouchCore
import SystemCalls

/// An opened evdev node (`/dev/input/eventN`) read through libevdev. Owns the fd and the libevdev
/// context; both are released on deinit. Not thread-safe: one reader (the daemon's event loop, or a
/// command-line tool) uses it.
public final class LiveDevice {
    /// The node this device was opened from.
    public let path: String
    /// The fd to watch for input (epoll/poll): readable means `read()` has something.
    public let fileDescriptor: Int32
    /// The device as libevdev describes it at open time.
    public let description: DeviceDescription
    /// True while this reader holds EVIOCGRAB (no other reader, and not the desktop, sees events).
    public private(set) var isGrabbed = false
    /// True once `read()` reported the device removed.
    public private(set) var isRemoved = false
    /// Number of SYN_DROPPED overflows seen so far.
    public private(set) var droppedCount = 0

    private let evdev: OpaquePointer

    /// Opens `path` read-only and non-blocking, reads its description, and switches its event
    /// timestamps to CLOCK_MONOTONIC (the clock the daemon's timers use).
    public init(path: String, grab: Bool = false) throws(SystemError) {
        let fd = try Sys.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        var created: OpaquePointer?
        let rc = libevdev_new_from_fd(fd, &created)
        guard rc == 0, let evdev = created else {
            Sys.close(fd)
            throw SystemError("libevdev_new_from_fd", errno: rc < 0 ? -rc : EINVAL, detail: path)
        }
        let clock = libevdev_set_clock_id(evdev, CLOCK_MONOTONIC)
        guard clock == 0 else {
            libevdev_free(evdev)
            Sys.close(fd)
            throw SystemError("libevdev_set_clock_id", errno: clock < 0 ? -clock : EINVAL, detail: path)
        }
        self.path = path
        self.fileDescriptor = fd
        self.evdev = evdev
        self.description = DeviceDescription(libevdev: evdev)
        if grab { try self.grab() }
    }

    deinit {
        if isGrabbed && !isRemoved { _ = libevdev_grab(evdev, LIBEVDEV_UNGRAB) }
        libevdev_free(evdev)
        Sys.close(fileDescriptor)
    }

    /// Takes the device exclusively (EVIOCGRAB): other readers, the desktop included, stop seeing its
    /// events. Fails with EBUSY when someone else holds it.
    public func grab() throws(SystemError) {
        _ = try Sys.retryingNegativeErrno("libevdev_grab", path) { libevdev_grab(evdev, LIBEVDEV_GRAB) }
        isGrabbed = true
    }

    /// Releases a grab taken by `grab()`.
    public func ungrab() throws(SystemError) {
        _ = try Sys.retryingNegativeErrno("libevdev_grab(UNGRAB)", path) { libevdev_grab(evdev, LIBEVDEV_UNGRAB) }
        isGrabbed = false
    }

    /// Reads everything the kernel has queued (until EAGAIN) and returns it in order. An empty result
    /// means nothing was pending. `.removed` is the last element when the device went away.
    public func read() throws(SystemError) -> [DeviceReading] {
        var out: [DeviceReading] = []
        try read(into: &out)
        return out
    }

    /// Appends everything the kernel has queued to `out` (no allocation when `out` has capacity).
    public func read(into out: inout [DeviceReading]) throws(SystemError) {
        guard !isRemoved else { return }
        var ev = input_event()
        while true {
            let rc = Sys.uninterrupted { libevdev_next_event(evdev, LIBEVDEV_READ_FLAG_NORMAL.rawValue, &ev) }
            if rc == LIBEVDEV_READ_STATUS_SUCCESS.rawValue {
                out.append(.event(Self.inputEvent(ev)))
            } else if rc == LIBEVDEV_READ_STATUS_SYNC.rawValue {
                // `ev` is the SYN_DROPPED itself; libevdev has queued the state difference.
                droppedCount += 1
                try drainSync(droppedAt: Self.timestamp(ev), into: &out)
                if isRemoved { return }
            } else if rc == -EAGAIN {
                return
            } else if rc == -ENODEV {
                isRemoved = true
                out.append(.removed)
                return
            } else {
                throw SystemError("libevdev_next_event", errno: -rc, detail: path)
            }
        }
    }

    /// Reads the sync queue (LIBEVDEV_READ_FLAG_SYNC) to its end and appends it as one resync frame
    /// (or `.removed` when the device vanished meanwhile).
    private func drainSync(droppedAt: Timestamp, into out: inout [DeviceReading]) throws(SystemError) {
        var events: [InputEvent] = []
        var end = droppedAt
        var ev = input_event()
        while true {
            let rc = Sys.uninterrupted { libevdev_next_event(evdev, LIBEVDEV_READ_FLAG_SYNC.rawValue, &ev) }
            if rc == LIBEVDEV_READ_STATUS_SYNC.rawValue {
                let event = Self.inputEvent(ev)
                // libevdev ends the difference with SYN_REPORT; one resync is one frame.
                if event.isSynReport {
                    end = Swift.max(end, event.time)
                } else {
                    events.append(event)
                }
            } else if rc == -EAGAIN {
                break  // sync queue empty: normal reading resumes
            } else if rc == -ENODEV {
                isRemoved = true
                out.append(.removed)
                return
            } else if rc == LIBEVDEV_READ_STATUS_SUCCESS.rawValue {
                // libevdev does not hand out normal events in sync mode; should a version do so, keep
                // the event rather than lose it.
                out.append(.resync(EventFrame(events: events, time: end, isResync: true), droppedAt: droppedAt))
                out.append(.event(Self.inputEvent(ev)))
                return
            } else {
                throw SystemError("libevdev_next_event(SYNC)", errno: -rc, detail: path)
            }
        }
        out.append(.resync(EventFrame(events: events, time: end, isResync: true), droppedAt: droppedAt))
    }

    static func timestamp(_ ev: input_event) -> Timestamp {
        var copy = ev
        return Timestamp(
            seconds: Int64(multitouchd_event_sec(&copy)), microseconds: Int64(multitouchd_event_usec(&copy)))
    }

    static func inputEvent(_ ev: input_event) -> InputEvent {
        InputEvent(time: timestamp(ev), type: ev.type, code: ev.code, value: ev.value)
    }
}
