import Configuration
import Glibc

/// Where the daemon's configuration comes from. The hook for the configuration module's TOML loader and
/// validator (`DaemonConfiguration.load(path:)`, `ConfigurationCheck.run(path:)`).
enum ConfigurationFile {
    static let defaultPath = DaemonConfiguration.defaultPath

    /// The file to read: the given one, else the default path when it exists, else none (built-in
    /// defaults).
    static func effectivePath(_ path: String?) -> String? {
        if let path { return path }
        return access(defaultPath, F_OK) == 0 ? defaultPath : nil
    }

    /// The configuration: the file's (validated, every problem listed in the error), or the built-in
    /// defaults when no file is given and the default path does not exist.
    static func load(path: String?) throws -> DaemonConfiguration {
        guard let file = effectivePath(path) else { return DaemonConfiguration() }
        return try DaemonConfiguration.load(path: file)
    }

    /// `--check-config`: the configuration module's validator.
    static func check(path: String?) -> (ok: Bool, report: String) {
        ConfigurationCheck.run(path: path)
    }
}

extension DaemonConfiguration {
    static var defaultPathForCLI: String { ConfigurationFile.defaultPath }
}
