import Gestures

/// `multitouchd --check-config [FILE]`: validates a configuration file without starting the daemon and
/// says what it found. The daemon executable prints `report` and exits 0 when `ok`, 1 otherwise.
public enum ConfigurationCheck {
    /// Loads and validates `path`.
    /// - Parameter path: the file; nil checks `DaemonConfiguration.defaultPath`.
    /// - Returns: whether the file is valid, and a human-readable report: every problem on its own
    ///   `file:line: key: message` line, or a short summary of the effective configuration.
    public static func run(path: String? = nil) -> (ok: Bool, report: String) {
        let file = path ?? DaemonConfiguration.defaultPath
        do {
            let configuration = try DaemonConfiguration.load(path: file)
            let notes = warnings(of: configuration, loginAccounts: loginAccounts(passwd: readPasswd()))
            return (
                true,
                "\(file): configuration OK\n" + summary(of: configuration)
                    + notes.map { "\nwarning: " + $0 }.joined()
            )
        } catch {
            let count = error.issues.count
            let heading = "\(file): \(count) problem\(count == 1 ? "" : "s") found"
            return (false, heading + "\n" + error.description)
        }
    }

    /// A few lines that show what the daemon will do with a configuration (text, not a stable format).
    public static func summary(of configuration: DaemonConfiguration) -> String {
        let socket = configuration.socket
        let group = socket.group.isEmpty ? "the daemon's group" : "group \(socket.group)"
        var lines = [
            "  socket: \(socket.path), mode \(octal(socket.mode)), \(group)",
            "  devices: grab \(configuration.devices.grab ? "on" : "off") by default, "
                + "\(configuration.devices.rules.count) rule\(configuration.devices.rules.count == 1 ? "" : "s")",
        ]
        for (offset, rule) in configuration.devices.rules.enumerated() {
            lines.append("    rule[\(offset + 1)]: " + describe(rule))
        }
        let clients = configuration.clients
        lines.append(
            "  clients: at most \(clients.maximumClients) (\(clients.maximumClientsPerUser) per user), soft queue \(clients.softQueueLimit) messages, "
                + "hard queue \(clients.hardQueueLimitBytes) bytes, request lines up to \(clients.maximumLineBytes) bytes"
        )
        let tuio = configuration.tuio
        lines.append(
            "  tuio: "
                + (tuio.targets.isEmpty
                    ? "off"
                    : "to " + tuio.targets.map(\.description).joined(separator: ", ")
                        + ", datagrams up to \(tuio.maximumDatagramBytes) bytes, "
                        + (tuio.touchpads ? "touchscreens and touchpads" : "touchscreens only")))
        let gestures = configuration.gestures
        let changed = GestureConfiguration.fields.filter { entry in
            switch entry.value {
            case .number(let keyPath, _): gestures[keyPath: keyPath] != GestureConfiguration.default[keyPath: keyPath]
            case .flag(let keyPath): gestures[keyPath: keyPath] != GestureConfiguration.default[keyPath: keyPath]
            }
        }
        lines.append(
            "  gestures: "
                + (changed.isEmpty ? "built-in defaults" : "changed " + changed.map(\.key).joined(separator: ", ")))
        lines.append("  log level: \(configuration.logLevel.rawValue)")
        return lines.joined(separator: "\n")
    }

    /// What a valid configuration may expose that the socket's mode and group do not guard (issue 28):
    /// a `[tuio]` target on this machine (127.0.0.0/8) on a machine with more than one login account.
    /// UDP has no owner: any local user who binds the port first reads every touch sent there,
    /// including users the socket refuses. Names are not checked (they may resolve anywhere).
    public static func warnings(of configuration: DaemonConfiguration, loginAccounts: [String]) -> [String] {
        guard loginAccounts.count > 1 else { return [] }
        return configuration.tuio.targets.filter(\.isLoopback).map { target in
            "tuio target \(target) is on this machine, which has \(loginAccounts.count) login accounts "
                + "(\(loginAccounts.prefix(4).joined(separator: ", "))\(loginAccounts.count > 4 ? ", ..." : "")): "
                + "any local user who binds UDP port \(target.port) first receives every touch, also users the "
                + "socket refuses (docs/TUIO.md \"Who can read it\")"
        }
    }

    /// The accounts of a passwd file a person can log in as: uid 0 or 1000 and up (Debian's UID_MIN),
    /// with a shell that is not nologin or false.
    public static func loginAccounts(passwd: String) -> [String] {
        passwd.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: ":", omittingEmptySubsequences: false)
            guard fields.count >= 7, let uid = UInt32(fields[2]), uid == 0 || (uid >= 1000 && uid != 65534) else {
                return nil
            }
            let shell = fields[6]
            guard !shell.isEmpty, !shell.hasSuffix("nologin"), !shell.hasSuffix("/false") else { return nil }
            return String(fields[0])
        }
    }

    private static func readPasswd() -> String {
        (try? readTextFile("/etc/passwd").get()) ?? ""
    }

    /// `0o660` -> `"0660"`.
    public static func octal(_ mode: UInt32) -> String {
        let digits = String(mode, radix: 8)
        return String(repeating: "0", count: Swift.max(0, 4 - digits.count)) + digits
    }

    private static func describe(_ rule: DeviceRule) -> String {
        var parts = [rule.action.rawValue]
        if let name = rule.name { parts.append("name \"\(name)\"") }
        if let path = rule.path { parts.append("path \"\(path)\"") }
        if let deviceClass = rule.deviceClass { parts.append("class \(deviceClass.rawValue)") }
        if parts.count == 1 { parts.append("every device") }
        if let grab = rule.grab { parts.append(grab ? "grab" : "no grab") }
        if let output = rule.output {
            parts.append("output \(format(output.width))x\(format(output.height)) rotated \(output.rotation)")
        }
        if let size = rule.sizeMillimeters, size.count == 2 {
            parts.append("size \(format(size[0]))x\(format(size[1])) mm")
        }
        return parts.joined(separator: ", ")
    }
}
