import Glibc

/// A failed system or library call: which call, on what, and the errno it returned (the NIO
/// `IOError(errnoCode:reason:)` pattern, STYLE.md §5). The one errno error type of the project:
/// device nodes, sockets, files and systemd notifications all throw it.
public struct SystemError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The call that failed, e.g. `open`, `epoll_wait`, `libevdev_next_event`.
    public var call: String
    /// The positive errno value.
    public var errno: Int32
    /// What the call was about (a path, a socket, a device node); empty when nothing useful.
    public var detail: String

    /// `errno` defaults to the thread's current errno: build the error right after the failed call.
    public init(_ call: String, errno: Int32 = Glibc.errno, detail: String = "") {
        self.call = call
        self.errno = errno
        self.detail = detail
    }

    /// What an error means for the caller.
    public enum Kind: Hashable, Sendable {
        /// EACCES/EPERM: the file exists but this user may not open it (not in the `input` group?).
        case permissionDenied
        /// ENOENT/ENODEV/ENXIO: the file or the device behind it is gone.
        case noDevice
        /// EBUSY, e.g. from a grab: another process holds the device exclusively.
        case busy
        case other
    }

    public var kind: Kind {
        switch errno {
        case EACCES, EPERM: return .permissionDenied
        case ENOENT, ENODEV, ENXIO: return .noDevice
        case EBUSY: return .busy
        default: return .other
        }
    }

    /// EAGAIN/EWOULDBLOCK on a non-blocking descriptor: nothing to do now, try after the next wake-up.
    public var wouldBlock: Bool { errno == EAGAIN || errno == EWOULDBLOCK }

    /// `strerror` text for the errno.
    public var reason: String { String(cString: strerror(errno)) }

    /// `open /dev/input/event3: Permission denied (errno 13)`.
    public var description: String {
        detail.isEmpty ? "\(call): \(reason) (errno \(errno))" : "\(call) \(detail): \(reason) (errno \(errno))"
    }
}
