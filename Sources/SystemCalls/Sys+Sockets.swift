import CLinuxSystem
import Glibc

/// Sockets beyond sending and accepting (Sys.swift): creating, binding, connecting, options and
/// name resolution, each retried through EINTR and failing with a `SystemError`.
extension Sys {
    /// socket(2); `type` may carry SOCK_NONBLOCK and SOCK_CLOEXEC. `detail` names the socket's use.
    public static func socket(
        _ domain: Int32, _ type: Int32, _ protocolNumber: Int32 = 0, _ detail: @autoclosure () -> String = ""
    ) throws(SystemError) -> Int32 {
        try retrying("socket", detail()) { Glibc.socket(domain, type, protocolNumber) }
    }

    /// socketpair(2): two connected sockets of `domain` and `type` (which may carry SOCK_NONBLOCK and
    /// SOCK_CLOEXEC).
    public static func socketPair(_ domain: Int32, _ type: Int32) throws(SystemError) -> (Int32, Int32) {
        var pair: [Int32] = [-1, -1]
        _ = try retrying("socketpair") { Glibc.socketpair(domain, type, 0, &pair) }
        return (pair[0], pair[1])
    }

    /// A Unix socket address for `path`; nil when the path does not fit `sun_path` with its NUL. With
    /// `abstractNamespace`, a leading "@" names the abstract namespace (a leading NUL, and the length
    /// counts no terminator), as `NOTIFY_SOCKET` may.
    public static func unixAddress(_ path: String, abstractNamespace: Bool = false) -> UnixAddress? {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(path.utf8)
        let abstract = abstractNamespace && bytes.first == UInt8(ascii: "@")
        if abstract { bytes[0] = 0 }
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return nil }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let offset = MemoryLayout<sockaddr_un>.offset(of: \.sun_path) ?? 2
        return UnixAddress(address: address, length: socklen_t(offset + bytes.count + (abstract ? 0 : 1)))
    }

    /// A `sockaddr_un` and the length to pass with it.
    public struct UnixAddress {
        public var address: sockaddr_un
        public var length: socklen_t

        /// Calls `body` with the address as the generic `sockaddr` the socket calls take.
        public func withSocketAddress<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
            withUnsafePointer(to: address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
            }
        }
    }

    /// bind(2) of `fd` to a Unix address.
    public static func bind(
        _ fd: Int32, to address: UnixAddress, _ detail: @autoclosure () -> String = ""
    )
        throws(SystemError)
    {
        _ = try retrying("bind", detail()) { address.withSocketAddress { Glibc.bind(fd, $0, $1) } }
    }

    /// listen(2).
    public static func listen(_ fd: Int32, backlog: Int32, _ detail: @autoclosure () -> String = "") throws(SystemError)
    {
        _ = try retrying("listen", detail()) { Glibc.listen(fd, backlog) }
    }

    /// connect(2) to a Unix address. A connect interrupted by a signal goes on in the background
    /// (connect(2): EINTR), so it is not restarted: a second call would report EALREADY. A stream
    /// socket's Unix connect is decided at once, so the interrupted case is thrown like any failure.
    public static func connect(
        _ fd: Int32, to address: UnixAddress, _ detail: @autoclosure () -> String = ""
    )
        throws(SystemError)
    {
        let result = address.withSocketAddress { Glibc.connect(fd, $0, $1) }
        if result != 0 { throw failure("connect", errno: Glibc.errno, detail: detail()) }
    }

    /// shutdown(2) (SHUT_RD, SHUT_WR, SHUT_RDWR).
    public static func shutdown(_ fd: Int32, _ how: Int32) throws(SystemError) {
        _ = try retrying("shutdown") { Glibc.shutdown(fd, how) }
    }

    /// getsockopt(2) of a fixed-size option value; `name` is the option's name for the error.
    public static func getsockopt<Value>(
        _ fd: Int32, _ level: Int32, _ option: Int32, as _: Value.Type, name: String
    ) throws(SystemError) -> Value {
        let size = MemoryLayout<Value>.size
        var length = socklen_t(size)
        let storage = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: MemoryLayout<Value>.alignment)
        defer { storage.deallocate() }
        storage.initializeMemory(as: UInt8.self, repeating: 0, count: size)
        _ = try retrying("getsockopt", name) { Glibc.getsockopt(fd, level, option, storage, &length) }
        return storage.load(as: Value.self)
    }

    /// getsockopt(2) of an option that fills a variable-length array (SO_PEERGROUPS): the elements
    /// the kernel wrote, at most `capacity`.
    public static func getsockopt<Element>(
        _ fd: Int32, _ level: Int32, _ option: Int32, arrayOf _: Element.Type, capacity: Int, name: String
    ) throws(SystemError) -> [Element] where Element: FixedWidthInteger {
        var values = [Element](repeating: 0, count: capacity)
        var length = socklen_t(capacity * MemoryLayout<Element>.size)
        _ = try retrying("getsockopt", name) {
            values.withUnsafeMutableBytes { Glibc.getsockopt(fd, level, option, $0.baseAddress, &length) }
        }
        return Array(values.prefix(Int(length) / MemoryLayout<Element>.size))
    }

    /// setsockopt(2) of a fixed-size option value; `name` is the option's name for the error.
    public static func setsockopt<Value: BitwiseCopyable>(
        _ fd: Int32, _ level: Int32, _ option: Int32, _ value: Value, name: String
    )
        throws(SystemError)
    {
        var value = value
        _ = try retrying("setsockopt", name) {
            Glibc.setsockopt(fd, level, option, &value, socklen_t(MemoryLayout<Value>.size))
        }
    }

    /// The peer of a connected Unix socket (SO_PEERCRED): pid, uid and gid.
    public static func peerCredentials(_ fd: Int32) throws(SystemError) -> (pid: Int32, uid: UInt32, gid: UInt32) {
        let credentials = try getsockopt(fd, SOL_SOCKET, SO_PEERCRED, as: multitouchd_ucred.self, name: "SO_PEERCRED")
        return (credentials.pid, credentials.uid, credentials.gid)
    }

    /// The first IPv4 address of `host` (getaddrinfo, SOCK_DGRAM) with `port`. Blocks as long as the
    /// name service does; getaddrinfo's own error text when it fails (it reports EAI_* codes, not errno).
    public static func resolveIPv4(host: String, port: UInt16) -> Result<sockaddr_in, ResolveError> {
        var hints = addrinfo()
        hints.ai_family = AF_INET
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &result)
        defer { if let result { freeaddrinfo(result) } }
        guard status == 0, let info = result, let address = info.pointee.ai_addr,
            info.pointee.ai_addrlen >= socklen_t(MemoryLayout<sockaddr_in>.size)
        else {
            return .failure(
                ResolveError(reason: status == 0 ? "no IPv4 address" : String(cString: gai_strerror(status))))
        }
        return .success(address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee })
    }

    /// Why a name did not resolve (getaddrinfo's `gai_strerror` text).
    public struct ResolveError: Error, Hashable, Sendable {
        public var reason: String
    }

    /// One sendto(2) of a datagram to an IPv4 address.
    public static func sendto(
        _ fd: Int32, _ bytes: UnsafeRawBufferPointer, flags: Int32, address: sockaddr_in,
        _ detail: @autoclosure () -> String = ""
    ) throws(SystemError) -> Int {
        try withUnsafePointer(to: address) { (pointer) throws(SystemError) -> Int in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                (socketAddress) throws(SystemError) -> Int in
                try sendto(
                    fd, bytes, flags: flags, address: socketAddress, length: socklen_t(MemoryLayout<sockaddr_in>.size),
                    detail())
            }
        }
    }
}
