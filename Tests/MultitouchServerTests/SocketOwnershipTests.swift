import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The socket the daemon creates gets its mode and group without the daemon going back through the
/// path, so nobody who can write to the directory can point that path at another file in between.
@Suite("multitouchd socket file ownership", .serialized)
struct SocketOwnershipTests {
    /// A group to give the socket that is not the target file's: chown to it is what the attack aims at.
    static var otherGroup: (name: String, gid: gid_t)? {
        for name in ["daemon", "nogroup", "users", "bin"] {
            if let entry = getgrnam(name), entry.pointee.gr_gid != getegid() { return (name, entry.pointee.gr_gid) }
        }
        return nil
    }

    /// The attack of issue 11: whenever the socket file appears, an attacker renames a symlink to a
    /// private file over it, hoping the daemon's chmod and chown then follow the link. Before the fix a
    /// root-owned 0600 file became 0660 with the socket's group in most starts.
    @Test func symlinkSwappedInAfterBindNeverReachesTheTarget() throws {
        let dir = TemporaryDirectory()
        let target = dir.write("secret", "root only\n")
        let group = Self.otherGroup
        let config = dir.write(
            "mtd.toml", "[socket]\nmode = \"0666\"\ngroup = \"\(group?.name ?? "")\"\n")
        let swapper = try SymlinkSwapper(directory: dir.path, name: "mtd.sock", target: target)
        defer { swapper.stop() }
        var original = stat()
        #expect(stat(target, &original) == 0)
        var changed: [String] = []
        var readyStarts = 0
        let starts = 40
        for start in 0..<starts {
            chmod(target, 0o600)
            chown(target, uid_t.max, original.st_gid)
            unlink(dir.file("mtd.sock"))
            let daemon = try DaemonProcess(directory: dir, arguments: ["--config", config], waitForSocket: false)
            // Ready, or refused: either way the daemon is past creating its socket.
            var waited = 0
            while !daemon.log.contains("daemon: ready") && !daemon.log.contains("cannot listen")
                && daemon.process.isRunning
                && waited < hangBackstopSeconds * 100
            {
                usleep(10_000)
                waited += 1
            }
            daemon.signal(SIGTERM)
            _ = daemon.waitForExit()
            // A symlink swapped in between the unlink and bind is refused (a correct outcome too).
            let ready = daemon.log.contains("daemon: ready")
            #expect(ready || daemon.log.contains("exists and is not a socket"), "start \(start): \(daemon.log)")
            if ready { readyStarts += 1 }
            var now = stat()
            #expect(stat(target, &now) == 0)
            if now.st_mode & 0o7777 != 0o600 || now.st_gid != original.st_gid {
                changed.append("start \(start): mode \(String(now.st_mode & 0o7777, radix: 8)) gid \(now.st_gid)")
            }
        }
        #expect(readyStarts > 0, "the daemon never got its socket: the test proves nothing")
        #expect(swapper.swaps > 0, "the attacker never got to swap: the test proves nothing")
        #expect(changed.isEmpty, "the target changed in \(changed.count) of \(starts) starts: \(changed.prefix(5))")
        #expect((try? String(contentsOfFile: target, encoding: .utf8)) == "root only\n")
    }

    /// Starts the daemon on `dir/sub/mtd.sock` after giving `dir/sub` a mode (and owner), and returns
    /// whether it became ready, with its log.
    func start(
        inDirectoryWithMode mode: mode_t, owner: uid_t? = nil, config: String = "[socket]\ngroup = \"\"\n"
    )
        throws -> (ready: Bool, log: String, directory: TemporaryDirectory)
    {
        let dir = TemporaryDirectory()
        let sub = dir.file("sub")
        #expect(mkdir(sub, 0o700) == 0)
        #expect(chmod(sub, mode) == 0)
        if let owner { #expect(chown(sub, owner, gid_t.max) == 0) }
        let configPath = dir.write("mtd.toml", config)
        let daemon = try DaemonProcess(
            directory: dir, socketName: "sub/mtd.sock", arguments: ["--config", configPath], waitForSocket: false)
        var waited = 0
        while !daemon.log.contains("daemon: ready") && daemon.process.isRunning && waited < hangBackstopSeconds * 100 {
            usleep(10_000)
            waited += 1
        }
        let ready = daemon.log.contains("daemon: ready")
        daemon.signal(SIGTERM)
        _ = daemon.waitForExit()
        return (ready, daemon.log, dir)
    }

    @Test func directoryWritableByOthersWithoutStickyBitIsRefused() throws {
        let (ready, log, dir) = try start(inDirectoryWithMode: 0o777)
        #expect(!ready)
        #expect(
            log.contains("socket directory \(dir.file("sub")) is writable by others (mode 0777) without the sticky bit")
        )
        #expect(log.contains("another user could replace the socket with a link"))
        #expect((try? FileManager.default.contentsOfDirectory(atPath: dir.file("sub"))) == [])
        let group = try start(inDirectoryWithMode: 0o770)
        #expect(!group.ready)
        #expect(group.log.contains("is writable by others (mode 0770) without the sticky bit"))
    }

    @Test func stickyRootOwnedDirectoryLikeTmpIsAccepted() throws {
        let (ready, log, _) = try start(inDirectoryWithMode: 0o1777)
        #expect(ready == (geteuid() == 0), "\(log)")
        #expect(geteuid() == 0 || log.contains("without") || log.contains("not root-owned"))
    }

    @Test(.enabled(if: geteuid() == 0, "needs root to give the directory to another user"))
    func directoryOfAnotherUserIsRefused() throws {
        let (ready, log, dir) = try start(inDirectoryWithMode: 0o755, owner: 65534)
        #expect(!ready)
        #expect(log.contains("socket directory \(dir.file("sub")) belongs to uid 65534"))
    }

    /// The socket has the configured mode and group, and the private directory it was made in is gone.
    @Test(.enabled(if: geteuid() == 0, "needs root to give the socket another group"))
    func socketHasTheConfiguredModeAndGroupAndNothingIsLeftBehind() throws {
        guard let group = Self.otherGroup else { return }
        for spelling in [group.name, String(group.gid)] {
            let dir = TemporaryDirectory()
            let config = dir.write("mtd.toml", "[socket]\nmode = \"0640\"\ngroup = \"\(spelling)\"\n")
            let daemon = try DaemonProcess(directory: dir, arguments: ["--config", config])
            var info = stat()
            #expect(lstat(daemon.socketPath, &info) == 0)
            #expect(info.st_mode & S_IFMT == S_IFSOCK)
            #expect(info.st_mode & 0o7777 == 0o640)
            #expect(info.st_gid == group.gid)
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
            #expect(!entries.contains { $0.hasPrefix(".multitouchd-") }, "\(entries)")
            let (client, hello) = try connectClient(daemon)
            #expect(messageType(hello) == "hello")
            client.close()
            daemon.signal(SIGTERM)
            #expect(daemon.waitForExit() == 0)
            #expect(lstat(daemon.socketPath, &info) != 0)
        }
    }

    /// A required group that does not exist stops start-up before any file is made.
    @Test func missingRequiredGroupCreatesNothing() throws {
        let (ready, log, dir) = try start(
            inDirectoryWithMode: 0o700, config: "[socket]\ngroup = \"no-such-group-xyz\"\nrequire_group = true\n")
        #expect(!ready)
        #expect(log.contains("socket group \"no-such-group-xyz\" does not exist"))
        #expect((try? FileManager.default.contentsOfDirectory(atPath: dir.file("sub"))) == [])
    }
}

/// Renames a symlink to `target` over `directory/name` each time that name is created or moved in
/// (inotify), until stopped.
final class SymlinkSwapper: @unchecked Sendable {
    private let inotify: Int32
    private let lock = NSLock()
    private var stopping = false
    private var swapCount = 0
    private let finished = DispatchSemaphore(value: 0)

    var swaps: Int {
        lock.lock()
        defer { lock.unlock() }
        return swapCount
    }

    init(directory: String, name: String, target: String) throws {
        inotify = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard inotify >= 0, inotify_add_watch(inotify, directory, UInt32(IN_CREATE | IN_MOVED_TO)) >= 0 else {
            throw HarnessError(description: "inotify: \(String(cString: strerror(errno)))")
        }
        let link = directory + "/.swap"
        let victim = directory + "/" + name
        let thread = Thread { [self] in
            var buffer = [UInt8](repeating: 0, count: 4096)
            while !isStopping {
                var poller = pollfd(fd: inotify, events: Int16(POLLIN), revents: 0)
                guard poll(&poller, 1, 20) > 0 else { continue }
                let count = buffer.withUnsafeMutableBytes { read(inotify, $0.baseAddress, $0.count) }
                guard count > 0 else { continue }
                var offset = 0
                while offset + 16 <= count {
                    let length = Int(buffer[offset + 12]) | Int(buffer[offset + 13]) << 8
                    let nameBytes = buffer[(offset + 16)..<min(count, offset + 16 + length)].prefix { $0 != 0 }
                    offset += 16 + length
                    guard String(decoding: nameBytes, as: UTF8.self) == name else { continue }
                    // Our own rename reports the name too: leave a link that is already ours.
                    var info = stat()
                    if lstat(victim, &info) == 0, info.st_mode & S_IFMT == S_IFLNK { continue }
                    unlink(link)
                    if symlink(target, link) == 0, rename(link, victim) == 0 {
                        lock.lock()
                        swapCount += 1
                        lock.unlock()
                    }
                }
            }
            finished.signal()
        }
        thread.start()
    }

    private var isStopping: Bool {
        lock.lock()
        defer { lock.unlock() }
        return stopping
    }

    func stop() {
        lock.lock()
        stopping = true
        lock.unlock()
        finished.wait()
        close(inotify)
    }
}
