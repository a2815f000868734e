import Glibc

/// A failed system or library call on a device node: which call, on which path, and the errno it gave.
/// Callers branch on `kind` (a permission problem is shown per device by `multitouchctl devices`, a
/// vanished node is a removal, anything else is a real error).
public struct DeviceInputError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The call that failed, e.g. `open`, `libevdev_new_from_fd`, `libevdev_next_event`.
    public var call: String
    /// The device node or directory the call was about.
    public var path: String
    /// The positive errno value.
    public var errno: Int32

    public init(call: String, path: String, errno: Int32) {
        self.call = call
        self.path = path
        self.errno = errno
    }

    /// What an error means for the caller.
    public enum Kind: Hashable, Sendable {
        /// EACCES/EPERM: the node exists but this user may not open it (not in the `input` group?).
        case permissionDenied
        /// ENOENT/ENODEV/ENXIO: the node or the device behind it is gone.
        case noDevice
        /// EBUSY from a grab: another process holds the device exclusively.
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

    /// `strerror` text for the errno.
    public var reason: String { String(cString: strerror(errno)) }

    public var description: String { "\(path): \(call) failed: \(reason) (errno \(errno))" }
}

/// Runs `body` again while it fails with EINTR (a signal arrived mid-call); returns its last result.
/// `body` returns -1 and sets errno like a system call, or a negative errno like libevdev.
@inline(__always)
func retryingEINTR(_ body: () -> Int32) -> Int32 {
    while true {
        let rc = body()
        if rc == -1 && errno == EINTR { continue }
        if rc == -EINTR { continue }
        return rc
    }
}
