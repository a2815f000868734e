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
public struct ListeningSocket: ~Copyable {
    public let fd: Int32
    /// The path the daemon created and so unlinks at exit; nil for an inherited (socket-activated) fd.
    public let createdPath: String?

    private init(fd: Int32, createdPath: String?) {
        self.fd = fd
        self.createdPath = createdPath
    }

    /// Takes over an fd passed by systemd (sd_listen_fds(3): fds start at 3).
    public static func inherited(fd: Int32) throws(ListenError) -> ListeningSocket {
        var type: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &length) == 0, type == Int32(SOCK_STREAM.rawValue) else {
            throw ListenError("LISTEN_FDS fd \(fd) is not a stream socket")
        }
        do { try Sys.setNonBlocking(fd) } catch { throw ListenError("LISTEN_FDS fd \(fd): \(error)") }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        return ListeningSocket(fd: fd, createdPath: nil)
    }

    /// Binds and listens at `configuration.path` with its mode and group.
    public static func bind(_ configuration: SocketConfiguration, logger: Logger) throws(ListenError) -> ListeningSocket {
        let path = configuration.path
        guard !path.isEmpty, path.utf8.count < MemoryLayout.size(ofValue: sockaddr_un().sun_path) else {
            throw ListenError("socket path \"\(path)\" is empty or longer than 107 bytes")
        }
        try makeParentDirectory(of: path)
        try removeStaleSocket(at: path, logger: logger)

        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw ListenError("\(SystemError("socket(AF_UNIX)"))") }
        var address = unixAddress(path)
        // The socket file gets its permission bits at bind time from the umask: narrow it first so the
        // socket is never reachable with wider permissions than configured, then chmod exactly.
        let oldMask = umask(mode_t(~configuration.mode & 0o777))
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        let bindErrno = errno
        umask(oldMask)
        guard bound == 0 else {
            Sys.close(fd)
            throw ListenError("\(SystemError("bind", errno: bindErrno, detail: path))")
        }
        if chmod(path, mode_t(configuration.mode)) != 0 {
            let error = SystemError("chmod", detail: path)
            Sys.close(fd)
            unlink(path)
            throw ListenError("\(error)")
        }
        do {
            try applyGroup(configuration, logger: logger)
        } catch {
            Sys.close(fd)
            unlink(path)
            throw error
        }
        guard listen(fd, 64) == 0 else {
            let error = SystemError("listen", detail: path)
            Sys.close(fd)
            unlink(path)
            throw ListenError("\(error)")
        }
        return ListeningSocket(fd: fd, createdPath: path)
    }

    /// Closes the socket and removes the file the daemon created.
    public consuming func close() {
        Sys.close(fd)
        if let createdPath { unlink(createdPath) }
    }

    static func unixAddress(_ path: String) -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            let bytes = Array(path.utf8.prefix(raw.count - 1))
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return address
    }

    private static func makeParentDirectory(of path: String) throws(ListenError) {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")), slash != path.utf8.startIndex else { return }
        let parent = String(path[..<slash])
        var info = stat()
        if stat(parent, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFDIR else { throw ListenError("\(parent) is not a directory") }
            return
        }
        if mkdir(parent, 0o755) != 0 && errno != EEXIST {
            throw ListenError("cannot create the socket directory: \(SystemError("mkdir", detail: parent))")
        }
    }

    /// A socket file nobody listens on (connect refused) is removed; a live socket or any other kind of
    /// file is refused, so the daemon never steals another daemon's socket or deletes a user's file.
    private static func removeStaleSocket(at path: String, logger: Logger) throws(ListenError) {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            if errno == ENOENT { return }
            throw ListenError("\(SystemError("lstat", detail: path))")
        }
        guard info.st_mode & S_IFMT == S_IFSOCK else {
            throw ListenError("\(path) exists and is not a socket; refusing to replace it (remove it or choose another socket path)")
        }
        let probe = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard probe >= 0 else { throw ListenError("\(SystemError("socket(AF_UNIX)"))") }
        defer { Sys.close(probe) }
        var address = unixAddress(path)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(probe, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        if connected == 0 {
            throw ListenError("another daemon is listening on \(path); refusing to start a second one")
        }
        let code = errno
        guard code == ECONNREFUSED else {
            throw ListenError("cannot tell whether \(path) is in use: \(SystemError("connect", errno: code, detail: path))")
        }
        logger.notice("socket: replacing stale socket file", metadata: ["socket.path": "\(path)"])
        if unlink(path) != 0 { throw ListenError("\(SystemError("unlink", detail: path))") }
    }

    private static func applyGroup(_ configuration: SocketConfiguration, logger: Logger) throws(ListenError) {
        let name = configuration.group
        guard !name.isEmpty else { return }
        var group = group()
        var result: UnsafeMutablePointer<group>? = nil
        var buffer = [CChar](repeating: 0, count: 16 * 1024)
        let status = getgrnam_r(name, &group, &buffer, buffer.count, &result)
        guard status == 0, result != nil else {
            if configuration.requireGroup {
                throw ListenError("socket group \"\(name)\" does not exist (socket.require_group is set)")
            }
            logger.warning(
                "socket: group does not exist; the socket keeps the daemon's group",
                metadata: ["socket.group": "\(name)", "socket.path": "\(configuration.path)"])
            return
        }
        if chown(configuration.path, uid_t.max, group.gr_gid) != 0 {
            throw ListenError("\(SystemError("chown", detail: "\(configuration.path) to group \(name)"))")
        }
    }
}

/// The peer of a connected Unix socket (SO_PEERCRED).
public struct PeerCredentials: Hashable, Sendable, CustomStringConvertible {
    public var pid: Int32
    public var uid: UInt32
    public var gid: UInt32

    public static func of(fd: Int32) -> PeerCredentials? {
        var credentials = multitouchd_ucred()
        var length = socklen_t(MemoryLayout<multitouchd_ucred>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0 else { return nil }
        return PeerCredentials(pid: credentials.pid, uid: credentials.uid, gid: credentials.gid)
    }

    public var description: String { "pid \(pid) uid \(uid) gid \(gid)" }
}
