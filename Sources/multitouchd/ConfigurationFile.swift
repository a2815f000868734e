import Configuration
import Glibc

/// Where the daemon's configuration comes from. The hook for the configuration module's TOML loader and
/// validator (`DaemonConfiguration.load(path:)`, `ConfigurationCheck.run(path:)`).
enum ConfigurationFile {
    static let defaultPath = "/etc/multitouchd/multitouchd.toml"

    /// The file to read: the given one, else the default path when it exists, else none (built-in
    /// defaults).
    static func effectivePath(_ path: String?) -> String? {
        if let path { return path }
        return access(defaultPath, F_OK) == 0 ? defaultPath : nil
    }

    struct LoadError: Error, CustomStringConvertible {
        var description: String
    }

    static func load(path: String?) throws -> DaemonConfiguration {
        guard let file = effectivePath(path) else { return DaemonConfiguration() }
        throw LoadError(description: "\(file): reading configuration files arrives with the configuration loader")
    }

    static func check(path: String?) -> (ok: Bool, report: String) {
        do {
            _ = try load(path: path)
            return (true, "configuration OK (built-in defaults)")
        } catch {
            return (false, "\(error)")
        }
    }
}

extension DaemonConfiguration {
    static var defaultPathForCLI: String { ConfigurationFile.defaultPath }
}
