import Configuration
import Glibc

/// Which configuration file the daemon reads, and reading it (through the Configuration module).
enum ConfigurationFile {
    /// The file to read: the given one, else the default path when it exists, else none (built-in
    /// defaults).
    static func effectivePath(_ path: String?) -> String? {
        if let path { return path }
        return access(DaemonConfiguration.defaultPath, F_OK) == 0 ? DaemonConfiguration.defaultPath : nil
    }

    /// The configuration from `path` (or the default file), or the built-in defaults when there is none.
    /// - Throws: `ConfigurationError` naming every bad key and what is wrong with it.
    static func load(path: String?) throws -> DaemonConfiguration {
        guard let file = effectivePath(path) else { return DaemonConfiguration() }
        return try DaemonConfiguration.load(path: file)
    }

    /// `--check-config`: the file (or the built-in defaults) checked, with the users and groups it names
    /// looked up on this system.
    static func check(path: String?) -> (ok: Bool, report: String) {
        guard let file = effectivePath(path) else {
            let result = ConfigurationCheck.check(DaemonConfiguration(), file: nil, accounts: systemAccounts)
            return (
                result.ok,
                "no configuration file at \(DaemonConfiguration.defaultPath): built-in defaults\n" + result.report
            )
        }
        return ConfigurationCheck.run(path: file, accounts: systemAccounts)
    }

    /// The system's users and groups (NSS: /etc/passwd and /etc/group, or whatever nsswitch.conf names).
    static let systemAccounts = AccountLookup(
        userName: { uid in
            var entry = passwd()
            var result: UnsafeMutablePointer<passwd>? = nil
            var buffer = [CChar](repeating: 0, count: 16 * 1024)
            var status = getpwuid_r(uid, &entry, &buffer, buffer.count, &result)
            while status == ERANGE && buffer.count < 1 << 24 {
                buffer = [CChar](repeating: 0, count: buffer.count * 4)
                status = getpwuid_r(uid, &entry, &buffer, buffer.count, &result)
            }
            guard status == 0, result != nil, let name = entry.pw_name else { return nil }
            return String(cString: name)
        },
        groupID: { name in
            var entry = group()
            var result: UnsafeMutablePointer<group>? = nil
            var buffer = [CChar](repeating: 0, count: 16 * 1024)
            var status = getgrnam_r(name, &entry, &buffer, buffer.count, &result)
            while status == ERANGE && buffer.count < 1 << 24 {
                buffer = [CChar](repeating: 0, count: buffer.count * 4)
                status = getgrnam_r(name, &entry, &buffer, buffer.count, &result)
            }
            guard status == 0, result != nil else { return nil }
            return entry.gr_gid
        })
}

extension DaemonConfiguration {
    static var defaultPathForCLI: String { DaemonConfiguration.defaultPath }
}
