import Glibc

/// Users and groups through NSS (/etc/passwd and /etc/group, or whatever nsswitch.conf names). The
/// lookups may block on a network name service: call them at start-up or when a policy is set, never
/// per frame or per connection.
extension Sys {
    /// The id of the group named `name`; nil when no group has that name.
    public static func groupID(named name: String) throws(SystemError) -> gid_t? {
        var entry = group()
        var result: UnsafeMutablePointer<group>? = nil
        try withGrowingBuffer("getgrnam_r", name) { getgrnam_r(name, &entry, $0, $1, &result) }
        return result == nil ? nil : entry.gr_gid
    }

    /// The name of the user `uid`; nil when no user has that id.
    public static func userName(_ uid: uid_t) throws(SystemError) -> String? {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>? = nil
        var name: String?
        try withGrowingBuffer("getpwuid_r", "uid \(uid)") { buffer, size in
            let status = getpwuid_r(uid, &entry, buffer, size, &result)
            // Copied while the buffer the entry points into is alive.
            if status == 0, result != nil, let pointer = entry.pw_name { name = String(cString: pointer) }
            return status
        }
        return name
    }

    /// Runs a reentrant NSS lookup (`*_r`: 0 or an error number) with a buffer that grows while the
    /// entry does not fit (ERANGE), up to 16 MiB.
    private static func withGrowingBuffer(
        _ call: String, _ detail: String, _ body: (UnsafeMutablePointer<CChar>, Int) -> Int32
    ) throws(SystemError) {
        var size = 16 * 1024
        while true {
            var buffer = [CChar](repeating: 0, count: size)
            let status = buffer.withUnsafeMutableBufferPointer { body($0.baseAddress!, $0.count) }
            if status == ERANGE && size < 1 << 24 {
                size *= 4
                continue
            }
            try returningErrno(call, detail) { status }
            return
        }
    }
}
