import CLinuxSystem
import Glibc

/// Files, directories and descriptors: the calls the daemon, the bridge and multitouchctl make on
/// paths, each retried through EINTR and failing with a `SystemError` (EBADF and EFAULT are bugs,
/// `Sys.preconditionAcceptable`).
extension Sys {
    /// openat(2) relative to the directory descriptor `directory`; `name` is the error's detail.
    public static func openat(
        _ directory: Int32, _ name: String, _ flags: Int32, mode: mode_t = 0
    ) throws(SystemError)
        -> Int32
    {
        try retrying("openat", name) { Glibc.openat(directory, name, flags, mode) }
    }

    /// fstat(2) of an open descriptor.
    public static func fstat(_ fd: Int32, _ detail: @autoclosure () -> String = "") throws(SystemError) -> stat {
        var info = Glibc.stat()
        _ = try retrying("fstat", detail()) { Glibc.fstat(fd, &info) }
        return info
    }

    /// stat(2) of `path` (links followed).
    public static func stat(_ path: String) throws(SystemError) -> stat {
        var info = Glibc.stat()
        _ = try retrying("stat", path) { statPath(path, &info) }
        return info
    }

    /// lstat(2) of `path` (a link itself, not what it names).
    public static func lstat(_ path: String) throws(SystemError) -> stat {
        var info = Glibc.stat()
        _ = try retrying("lstat", path) { Glibc.lstat(path, &info) }
        return info
    }

    /// fstatat(2) of `name` in the directory descriptor `directory` (`flags`: AT_SYMLINK_NOFOLLOW...).
    public static func fstatat(_ directory: Int32, _ name: String, flags: Int32) throws(SystemError) -> stat {
        var info = Glibc.stat()
        _ = try retrying("fstatat", name) { Glibc.fstatat(directory, name, &info, flags) }
        return info
    }

    /// access(2): whether this process may reach `path` with `mode` (F_OK, R_OK, W_OK, X_OK). A
    /// refusal or a missing file is the answer, not an error.
    public static func access(_ path: String, _ mode: Int32) -> Bool {
        let result = uninterrupted { Glibc.access(path, mode) }
        if result != 0 { preconditionAcceptable(Glibc.errno, "access") }
        return result == 0
    }

    /// mkdir(2).
    public static func mkdir(_ path: String, mode: mode_t) throws(SystemError) {
        _ = try retrying("mkdir", path) { Glibc.mkdir(path, mode) }
    }

    /// mkdirat(2) of `name` in the directory descriptor `directory`.
    public static func mkdirat(_ directory: Int32, _ name: String, mode: mode_t) throws(SystemError) {
        _ = try retrying("mkdirat", name) { Glibc.mkdirat(directory, name, mode) }
    }

    /// unlink(2).
    public static func unlink(_ path: String) throws(SystemError) {
        _ = try retrying("unlink", path) { Glibc.unlink(path) }
    }

    /// unlinkat(2) of `name` in `directory` (`flags`: 0 for a file, AT_REMOVEDIR for a directory).
    public static func unlinkat(_ directory: Int32, _ name: String, flags: Int32) throws(SystemError) {
        _ = try retrying("unlinkat", name) { Glibc.unlinkat(directory, name, flags) }
    }

    /// rmdir(2).
    public static func rmdir(_ path: String) throws(SystemError) {
        _ = try retrying("rmdir", path) { Glibc.rmdir(path) }
    }

    /// Renames `name` in `from` to `newName` in `to` unless `newName` exists (renameat2 with
    /// RENAME_NOREPLACE); where the filesystem lacks the flag (EINVAL), a plain renameat. Fails with
    /// EEXIST when something is at the new name.
    public static func renameNoReplace(
        _ from: Int32, _ name: String, _ to: Int32, _ newName: String
    ) throws(SystemError) {
        let result = uninterrupted { multitouchd_renameat_noreplace(from, name, to, newName) }
        if result == 0 { return }
        let code = Glibc.errno
        guard code == EINVAL else { throw failure("renameat2", errno: code, detail: newName) }
        _ = try retrying("renameat", newName) { Glibc.renameat(from, name, to, newName) }
    }

    /// fchmod(2).
    public static func fchmod(_ fd: Int32, mode: mode_t, _ detail: @autoclosure () -> String = "") throws(SystemError) {
        _ = try retrying("fchmod", detail()) { Glibc.fchmod(fd, mode) }
    }

    /// fchmodat(2) of `name` in `directory`.
    public static func fchmodat(_ directory: Int32, _ name: String, mode: mode_t) throws(SystemError) {
        _ = try retrying("fchmodat", name) { Glibc.fchmodat(directory, name, mode, 0) }
    }

    /// fchownat(2) of `name` in `directory` (`flags`: AT_SYMLINK_NOFOLLOW); `uid_t.max` or
    /// `gid_t.max` keeps the owner or the group.
    public static func fchownat(
        _ directory: Int32, _ name: String, owner: uid_t, group: gid_t, flags: Int32
    )
        throws(SystemError)
    {
        _ = try retrying("fchownat", name) { Glibc.fchownat(directory, name, owner, group, flags) }
    }

    /// realpath(3): `path` with every link and `.`/`..` resolved.
    public static func realpath(_ path: String) throws(SystemError) -> String {
        guard let resolved = Glibc.realpath(path, nil) else {
            throw failure("realpath", errno: Glibc.errno, detail: path)
        }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// readlink(2): where the link at `path` points.
    public static func readlink(_ path: String) throws(SystemError) -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = try retrying("readlink", path) { Glibc.readlink(path, &buffer, buffer.count - 1) }
        return String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// mkdtemp(3): a new directory, mode 0700, named `prefix` followed by six random characters.
    public static func makeTemporaryDirectory(prefix: String) throws(SystemError) -> String {
        var template = Array((prefix + "XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress.flatMap { Glibc.mkdtemp($0) }.map { String(cString: $0) }
        }
        guard let made else { throw failure("mkdtemp", errno: Glibc.errno, detail: prefix + "XXXXXX") }
        return made
    }

    /// gethostname(2): this machine's name.
    public static func hostName() throws(SystemError) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        _ = try retrying("gethostname") { Glibc.gethostname(&buffer, buffer.count - 1) }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The entry names of `directory` (opendir/readdir), without `.` and `..`, in the order the
    /// directory gives them.
    public static func directoryEntries(_ directory: String) throws(SystemError) -> [String] {
        guard let dir = Glibc.opendir(directory) else {
            throw failure("opendir", errno: Glibc.errno, detail: directory)
        }
        defer { Glibc.closedir(dir) }
        var names: [String] = []
        while let entry = Glibc.readdir(dir) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: Int(NAME_MAX) + 1) { String(cString: $0) }
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// pipe(2) with both ends non-blocking and close-on-exec when asked.
    public static func pipe(nonBlocking: Bool, closeOnExec: Bool) throws(SystemError) -> (read: Int32, write: Int32) {
        var ends: [Int32] = [-1, -1]
        _ = try retrying("pipe") { Glibc.pipe(&ends) }
        do {
            for end in ends {
                if nonBlocking { try setNonBlocking(end) }
                if closeOnExec { try setCloseOnExec(end) }
            }
        } catch {
            close(ends[0])
            close(ends[1])
            throw error
        }
        return (ends[0], ends[1])
    }

    /// The soft limit on open descriptors (RLIMIT_NOFILE); nil when unlimited.
    public static func descriptorLimit() throws(SystemError) -> Int? {
        var limit = rlimit()
        _ = try retrying("getrlimit(RLIMIT_NOFILE)") { getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) }
        return limit.rlim_cur == rlim_t.max ? nil : Int(clamping: limit.rlim_cur)
    }
}

/// stat(2) by path: outside `Sys`, where the name means the C function and not `Sys.stat` (and
/// `Glibc.stat(...)` means the struct).
private func statPath(_ path: String, _ info: inout stat) -> Int32 { stat(path, &info) }
