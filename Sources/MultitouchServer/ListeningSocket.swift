import CLinuxSystem
import Configuration
import Glibc
import Logging

/// Why the daemon cannot listen where it was told to.
public struct ListenError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// The listening Unix socket: created at the configured path (replacing a stale socket file, refusing a
/// live one or a non-socket file) or handed over by systemd socket activation (LISTEN_FDS).
///
/// Creating it never goes back through the path once the file exists, so whoever can write to the
/// directory cannot point the path at another file between bind and chmod/chown (issue 11: a symlink
/// swapped in after bind() turned a root 0600 file into 0660 root:multitouch). The group is resolved
/// first; the socket is bound in a private 0700 directory made next to the final path, gets its mode
/// from the socket itself (fchmod before bind: Linux creates the file with the socket inode's mode,
/// net/unix/af_unix.c unix_bind_bsd) and its group there (fchownat without following links), starts
/// listening, and is then renamed into place, so the path only ever names a finished socket. A
/// directory others may write to is refused unless it is sticky and root-owned like /tmp.
public struct ListeningSocket: ~Copyable {
    public let fd: Int32
    /// The path the daemon created and so unlinks at exit; nil for an inherited (socket-activated) fd.
    public let createdPath: String?
    /// Device and inode of the created file: at exit the path is unlinked only while it still names it.
    private let createdFile: (device: UInt64, inode: UInt64)?

    private init(fd: Int32, createdPath: String?, createdFile: (device: UInt64, inode: UInt64)?) {
        self.fd = fd
        self.createdPath = createdPath
        self.createdFile = createdFile
    }

    /// Takes over an fd passed by systemd (sd_listen_fds(3): fds start at 3).
    public static func inherited(fd: Int32) throws(ListenError) -> ListeningSocket {
        guard let type = try? Sys.getsockopt(fd, SOL_SOCKET, SO_TYPE, as: Int32.self, name: "SO_TYPE"),
            type == Int32(SOCK_STREAM.rawValue)
        else {
            throw ListenError("LISTEN_FDS fd \(fd) is not a stream socket")
        }
        do {
            try Sys.setNonBlocking(fd)
            try Sys.setCloseOnExec(fd)
        } catch {
            throw ListenError("LISTEN_FDS fd \(fd): \(error)")
        }
        return ListeningSocket(fd: fd, createdPath: nil, createdFile: nil)
    }

    /// Binds and listens at `configuration.path` with its mode and group.
    public static func bind(_ configuration: SocketConfiguration, logger: Logger) throws(ListenError) -> ListeningSocket
    {
        let path = configuration.path
        guard !path.isEmpty, path.utf8.count < MemoryLayout.size(ofValue: sockaddr_un().sun_path) else {
            throw ListenError("socket path \"\(path)\" is empty or longer than 107 bytes")
        }
        // Before anything exists: a group lookup can be slow (NSS), and an unknown required group stops
        // start-up without leaving files behind.
        let group = try resolveGroup(configuration, logger: logger)
        let (parentPath, name) = split(path)
        try makeParentDirectory(parentPath)
        let directory = try SocketDirectory(path: parentPath)
        defer { directory.close() }
        try removeStaleSocket(name, in: directory, path: path, logger: logger)

        let fd: Int32
        do {
            fd = try Sys.socket(
                AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue),
                0, path)
        } catch {
            throw ListenError("\(error)")
        }
        do {
            let created = try createInPlace(
                fd: fd, name: name, in: directory, path: path, mode: configuration.mode, group: group)
            return ListeningSocket(fd: fd, createdPath: path, createdFile: created)
        } catch {
            Sys.close(fd)
            throw error
        }
    }

    /// Closes the socket and removes the file the daemon created, if the path still names it.
    public consuming func close() {
        Sys.close(fd)
        guard let createdPath, let createdFile, let info = try? Sys.lstat(createdPath) else { return }
        if UInt64(info.st_dev) == createdFile.device, UInt64(info.st_ino) == createdFile.inode {
            // Gone already (someone removed it) is fine: the daemon is leaving either way.
            try? Sys.unlink(createdPath)
        }
    }

    /// The address of `path`, relative to a directory descriptor through /proc/self/fd (short
    /// whatever the directory's own path: the length was checked by `bind`).
    static func unixAddress(_ path: String) throws(ListenError) -> Sys.UnixAddress {
        guard let address = Sys.unixAddress(path) else { throw ListenError("socket address \(path) is too long") }
        return address
    }

    /// Binds `fd` in a private directory inside `directory`, sets mode and group there, listens, and
    /// renames the socket to `name`. Returns the new file's device and inode.
    private static func createInPlace(
        fd: Int32, name: String, in directory: SocketDirectory, path: String, mode: UInt32, group: gid_t?
    ) throws(ListenError) -> (device: UInt64, inode: UInt64) {
        // The file bind() creates takes the socket inode's mode less the umask (unix_bind_bsd), so set
        // both: the mode is right from the first instant, with no chmod through a path.
        do {
            try Sys.fchmod(fd, mode: mode_t(mode), "socket for \(path)")
        } catch {
            throw ListenError("\(error)")
        }
        let scratch = try PrivateDirectory(in: directory, for: path)
        defer { scratch.remove() }
        let address = try unixAddress("/proc/self/fd/\(scratch.fd)/\(PrivateDirectory.socketName)")
        let oldMask = umask(mode_t(~mode & 0o777))
        let bound = Result { () throws(SystemError) in try Sys.bind(fd, to: address, path) }
        umask(oldMask)
        if case .failure(let error) = bound {
            let hint = error.errno == ENOENT ? " (binding needs /proc/self/fd)" : ""
            throw ListenError("\(error)\(hint)")
        }
        // From here every call names the file relative to the private directory, which only this
        // process can write to, and none follows a link.
        let info: stat
        do {
            info = try Sys.fstatat(scratch.fd, PrivateDirectory.socketName, flags: AT_SYMLINK_NOFOLLOW)
        } catch {
            throw ListenError("\(SystemError("fstatat", errno: error.errno, detail: "new socket for \(path)"))")
        }
        guard info.st_mode & S_IFMT == S_IFSOCK else {
            throw ListenError("the new socket for \(path) is not a socket")
        }
        do {
            if UInt32(info.st_mode & 0o7777) != mode {
                try Sys.fchmodat(scratch.fd, PrivateDirectory.socketName, mode: mode_t(mode))
            }
        } catch {
            throw ListenError("\(SystemError("fchmodat", errno: error.errno, detail: "new socket for \(path)"))")
        }
        do {
            if let group {
                try Sys.fchownat(
                    scratch.fd, PrivateDirectory.socketName, owner: uid_t.max, group: group, flags: AT_SYMLINK_NOFOLLOW)
            }
        } catch {
            throw ListenError(
                "\(SystemError("fchownat", errno: error.errno, detail: "\(path) to group \(group ?? 0)"))")
        }
        do {
            try Sys.listen(fd, backlog: 64, path)
        } catch {
            throw ListenError("\(error)")
        }
        // Never replace what appeared at the path since the stale-socket check (RENAME_NOREPLACE, a
        // plain rename only where the filesystem lacks it).
        do {
            try Sys.renameNoReplace(scratch.fd, PrivateDirectory.socketName, directory.fd, name)
        } catch  where error.errno == EEXIST {
            throw ListenError("\(path) appeared while the daemon was starting; refusing to replace it")
        } catch {
            throw ListenError("\(SystemError("rename", errno: error.errno, detail: "new socket to \(path)"))")
        }
        return (UInt64(info.st_dev), UInt64(info.st_ino))
    }

    /// "/run/x/y.sock" -> ("/run/x", "y.sock"); a bare name lives in the working directory.
    private static func split(_ path: String) -> (directory: String, name: String) {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return (".", path) }
        let name = String(path[path.utf8.index(after: slash)...])
        return (slash == path.utf8.startIndex ? "/" : String(path[..<slash]), name)
    }

    private static func makeParentDirectory(_ parent: String) throws(ListenError) {
        if let info = try? Sys.stat(parent) {
            guard info.st_mode & S_IFMT == S_IFDIR else { throw ListenError("\(parent) is not a directory") }
            return
        }
        do {
            try Sys.mkdir(parent, mode: 0o755)
        } catch  where error.errno == EEXIST {
            // Made by someone else in between: SocketDirectory checks what it is.
        } catch {
            throw ListenError("cannot create the socket directory: \(error)")
        }
    }

    /// A socket file nobody listens on (connect refused) is removed; a live socket or any other kind of
    /// file is refused, so the daemon never steals another daemon's socket or deletes a user's file.
    /// The probe never blocks: a Unix stream connect is decided at once when non-blocking (queued,
    /// refused, or EAGAIN for a listener whose backlog is full), whereas a blocking one waited for
    /// room in the backlog of a stopped daemon, for ever.
    private static func removeStaleSocket(
        _ name: String, in directory: SocketDirectory, path: String, logger: Logger
    ) throws(ListenError) {
        let info: stat
        do {
            info = try Sys.fstatat(directory.fd, name, flags: AT_SYMLINK_NOFOLLOW)
        } catch  where error.errno == ENOENT {
            return
        } catch {
            throw ListenError("\(SystemError("lstat", errno: error.errno, detail: path))")
        }
        guard info.st_mode & S_IFMT == S_IFSOCK else {
            throw ListenError(
                "\(path) exists and is not a socket; refusing to replace it (remove it or choose another socket path)")
        }
        let probe: Int32
        do {
            probe = try Sys.socket(
                AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0,
                "probe of \(path)")
        } catch {
            throw ListenError("\(error)")
        }
        defer { Sys.close(probe) }
        let address = try unixAddress("/proc/self/fd/\(directory.fd)/\(name)")
        let connected = Result { () throws(SystemError) in try Sys.connect(probe, to: address, path) }
        guard case .failure(let failure) = connected else {
            throw ListenError("another daemon is listening on \(path); refusing to start a second one")
        }
        let code = failure.errno
        if code == EAGAIN {
            throw ListenError(
                "a process is listening on \(path) but not accepting (its backlog is full: a stopped or hung daemon?); refusing to start a second one"
            )
        }
        guard code == ECONNREFUSED else {
            throw ListenError(
                "cannot tell whether \(path) is in use: \(SystemError("connect", errno: code, detail: path))")
        }
        logger.notice("socket: replacing stale socket file", metadata: ["socket.path": "\(path)"])
        do {
            try Sys.unlinkat(directory.fd, name, flags: 0)
        } catch {
            throw ListenError("\(SystemError("unlink", errno: error.errno, detail: path))")
        }
    }

    /// The configured group's id, nil to keep the daemon's own group. A name is looked up first, then a
    /// number is taken as a gid (the configuration allows both).
    private static func resolveGroup(_ configuration: SocketConfiguration, logger: Logger) throws(ListenError) -> gid_t?
    {
        let name = configuration.group
        guard !name.isEmpty else { return nil }
        if let gid = (try? Sys.groupID(named: name)) ?? nil { return gid }
        if let number = UInt32(name) { return gid_t(number) }
        if configuration.requireGroup {
            throw ListenError("socket group \"\(name)\" does not exist (socket.require_group is set)")
        }
        logger.warning(
            "socket: group does not exist; the socket keeps the daemon's group",
            metadata: ["socket.group": "\(name)", "socket.path": "\(configuration.path)"])
        return nil
    }
}

/// The directory that holds the socket, opened once and checked: every later step works relative to
/// this fd, so the directory checked is the directory used.
private struct SocketDirectory {
    let fd: Int32
    let path: String

    init(path: String) throws(ListenError) {
        let fd: Int32
        let info: stat
        do {
            fd = try Sys.open(path, multitouchd_O_PATH | O_DIRECTORY | O_CLOEXEC)
        } catch {
            throw ListenError("\(SystemError("open", errno: error.errno, detail: "socket directory \(path)"))")
        }
        do {
            info = try Sys.fstat(fd, path)
        } catch {
            Sys.close(fd)
            throw ListenError("\(error)")
        }
        if let problem = SocketDirectory.problem(mode: UInt32(info.st_mode), owner: info.st_uid, daemonUser: geteuid())
        {
            Sys.close(fd)
            throw ListenError(
                "socket directory \(path) \(problem); another user could replace the socket with a link to another file. Use a directory only root or the daemon's user can write to (such as /run/multitouchd), or a sticky root-owned one such as /tmp"
            )
        }
        self.fd = fd
        self.path = path
    }

    /// Why a directory with this mode and owner is unsafe for the socket, nil when it is safe: its
    /// owner must be root or the daemon's user, and it may be writable by group or others only when it
    /// is sticky and root-owned (then nobody else can rename or remove the daemon's entries).
    static func problem(mode: UInt32, owner: uid_t, daemonUser: uid_t) -> String? {
        guard owner == 0 || owner == daemonUser else { return "belongs to uid \(owner)" }
        let writableByOthers = mode & 0o022 != 0
        let sticky = mode & 0o1000 != 0  // S_ISVTX
        guard !writableByOthers || (sticky && owner == 0) else {
            let octal = String(mode & 0o7777, radix: 8)
            return "is writable by others (mode \(String(repeating: "0", count: max(0, 4 - octal.count)) + octal))"
                + (sticky ? " and not root-owned" : " without the sticky bit")
        }
        return nil
    }

    func close() { Sys.close(fd) }
}

/// A 0700 directory next to the socket's final path where the socket is created and finished; removed
/// once the socket has been renamed out of it (or on failure, with whatever is in it).
private struct PrivateDirectory {
    static let socketName = "socket"
    let fd: Int32
    let name: String
    let parent: SocketDirectory

    init(in parent: SocketDirectory, for path: String) throws(ListenError) {
        var attempt = 0
        while true {
            let candidate = ".multitouchd-\(String(UInt64.random(in: 0...UInt64.max), radix: 36))"
            do {
                try Sys.mkdirat(parent.fd, candidate, mode: 0o700)
                name = candidate
                break
            } catch  where error.errno == EEXIST && attempt < 15 {
                attempt += 1
            } catch {
                throw ListenError(
                    "\(SystemError("mkdir", errno: error.errno, detail: "private directory next to \(path)"))")
            }
        }
        do {
            fd = try Sys.openat(parent.fd, name, multitouchd_O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        } catch {
            try? Sys.unlinkat(parent.fd, name, flags: AT_REMOVEDIR)
            throw ListenError("\(SystemError("open", errno: error.errno, detail: "private directory next to \(path)"))")
        }
        self.parent = parent
    }

    /// Best effort: the socket was renamed out already on success (ENOENT), and a leftover
    /// directory costs nothing but a name.
    func remove() {
        try? Sys.unlinkat(fd, PrivateDirectory.socketName, flags: 0)
        Sys.close(fd)
        try? Sys.unlinkat(parent.fd, name, flags: AT_REMOVEDIR)
    }
}

/// The peer of a connected Unix socket (SO_PEERCRED).
public struct PeerCredentials: Hashable, Sendable, CustomStringConvertible {
    public var pid: Int32
    public var uid: UInt32
    public var gid: UInt32

    public static func of(fd: Int32) -> PeerCredentials? {
        guard let peer = try? Sys.peerCredentials(fd) else { return nil }
        return PeerCredentials(pid: peer.pid, uid: peer.uid, gid: peer.gid)
    }

    public var description: String { "pid \(pid) uid \(uid) gid \(gid)" }
}
