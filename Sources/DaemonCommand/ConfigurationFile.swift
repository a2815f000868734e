import Configuration
import Glibc
import SystemCalls

/// Which configuration file the daemon reads, and reading it (through the Configuration module).
enum ConfigurationFile {
    /// The file to read: the given one, else the default path when it exists, else none (built-in
    /// defaults).
    static func effectivePath(_ path: String?) -> String? {
        if let path { return path }
        return Sys.access(DaemonConfiguration.defaultPath, F_OK) ? DaemonConfiguration.defaultPath : nil
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
    /// A lookup that fails (the name service is down) counts as not found: the check says so.
    static let systemAccounts = AccountLookup(
        userName: { uid in (try? Sys.userName(uid)) ?? nil },
        groupID: { name in (try? Sys.groupID(named: name)) ?? nil })
}

extension DaemonConfiguration {
    static var defaultPathForCLI: String { DaemonConfiguration.defaultPath }
}
