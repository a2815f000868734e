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

    static func check(path: String?) -> (ok: Bool, report: String) {
        guard effectivePath(path) != nil else {
            return (true, "no configuration file at \(DaemonConfiguration.defaultPath): built-in defaults\n"
                + ConfigurationCheck.summary(of: DaemonConfiguration()))
        }
        return ConfigurationCheck.run(path: effectivePath(path))
    }
}

extension DaemonConfiguration {
    static var defaultPathForCLI: String { DaemonConfiguration.defaultPath }
}
