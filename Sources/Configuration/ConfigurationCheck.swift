import TouchVocabulary

/// The accounts a configuration names, as the system knows them: a user's name by uid and a group's id
/// by name (or number). `--check-config` looks up every uid and group of `[access]` and the socket's
/// group through it. The daemon passes its NSS lookups (getpwuid_r, getgrnam_r); tests pass a table.
/// Lookups may block (NSS): call it where blocking is fine, never from the event loop.
public struct AccountLookup: Sendable {
    /// The name of the user with this uid; nil when no such user exists.
    public var userName: @Sendable (UInt32) -> String?
    /// The id of the group with this name; nil when no such group exists. A number that names no
    /// group is not one here: the caller decides what a bare number means.
    public var groupID: @Sendable (String) -> UInt32?

    public init(userName: @escaping @Sendable (UInt32) -> String?, groupID: @escaping @Sendable (String) -> UInt32?) {
        self.userName = userName
        self.groupID = groupID
    }
}

/// `multitouchd --check-config [FILE]`: validates a configuration file without starting the daemon and
/// says what it found. The daemon executable prints `report` and exits 0 when `ok`, 78 (EX_CONFIG, as
/// a start with that file would) otherwise.
public enum ConfigurationCheck {
    /// Loads and validates `path`.
    /// - Parameters:
    ///   - path: the file; nil checks `DaemonConfiguration.defaultPath`.
    ///   - accounts: looks up the users and groups the file names; nil skips those checks.
    /// - Returns: whether the daemon would start with the file, and a human-readable report: every
    ///   problem on its own `file:line: key: message` line, or a short summary of the effective
    ///   configuration (with who gets what under `[access]`) followed by its warnings.
    public static func run(path: String? = nil, accounts: AccountLookup? = nil) -> (ok: Bool, report: String) {
        let file = path ?? DaemonConfiguration.defaultPath
        do {
            let configuration = try DaemonConfiguration.load(path: file)
            return check(configuration, file: file, accounts: accounts)
        } catch {
            return failure(error.issues, file: file)
        }
    }

    /// The check of an already loaded configuration (`run` after loading; also the built-in defaults
    /// when there is no file).
    /// - Parameters:
    ///   - configuration: what was loaded.
    ///   - file: the file it came from, for the report's lines; nil for the built-in defaults.
    ///   - accounts: looks up the users and groups it names; nil skips those checks.
    public static func check(
        _ configuration: DaemonConfiguration, file: String?, accounts: AccountLookup?
    ) -> (ok: Bool, report: String) {
        let locator = file.flatMap { try? readTextFile($0).get() }.map { KeyLocator(text: $0) }
        func issue(_ keyPath: String, _ message: String) -> ConfigurationIssue {
            ConfigurationIssue(
                source: file ?? "built-in defaults", line: locator?.line(for: keyPath), keyPath: keyPath,
                message: message)
        }
        var errors: [ConfigurationIssue] = []
        var warnings: [ConfigurationIssue] = []
        if let accounts {
            for finding in accountFindings(configuration, accounts: accounts) {
                if finding.stopsStart {
                    errors.append(issue(finding.keyPath, finding.message))
                } else {
                    warnings.append(issue(finding.keyPath, finding.message))
                }
            }
        }
        // UDP output on this machine is readable by any local user who binds the port first.
        for note in Self.keyedWarnings(of: configuration, loginAccounts: loginAccounts(passwd: readPasswd())) {
            warnings.append(issue(note.keyPath, note.message))
        }
        guard errors.isEmpty else { return failure(errors, file: file ?? "built-in defaults") }
        var lines = file.map { ["\($0): configuration OK"] } ?? []
        lines.append(summary(of: configuration, accounts: accounts))
        if !warnings.isEmpty {
            lines.append("\(warnings.count) warning\(warnings.count == 1 ? "" : "s"):")
            lines += warnings.map { "  warning: \($0)" }
        }
        return (true, lines.joined(separator: "\n"))
    }

    /// One thing the system's accounts say about a configuration: a group or user it names that does
    /// not exist.
    public struct AccountFinding: Hashable, Sendable {
        /// The key that names it, e.g. `access.grant[2].group`.
        public var keyPath: String
        public var message: String
        /// True when the daemon refuses to start over it (a required socket group); else a warning.
        public var stopsStart: Bool
    }

    /// The users and groups `configuration` names that `accounts` does not know: the socket's group
    /// (an error with `socket.require_group`, else a warning) and each `[[access.grant]]`'s uid and
    /// group (warnings: such a grant matches no one). A group given as a number is taken as a gid.
    public static func accountFindings(
        _ configuration: DaemonConfiguration, accounts: AccountLookup
    ) -> [AccountFinding] {
        var findings: [AccountFinding] = []
        let socket = configuration.socket
        if !socket.group.isEmpty && accounts.groupID(socket.group) == nil && UInt32(socket.group) == nil {
            findings.append(
                socket.requireGroup
                    ? AccountFinding(
                        keyPath: "socket.group",
                        message:
                            "socket group \"\(socket.group)\" does not exist, and socket.require_group is set: the daemon would not start",
                        stopsStart: true)
                    : AccountFinding(
                        keyPath: "socket.group",
                        message:
                            "socket group \"\(socket.group)\" does not exist: the socket would keep the daemon's group",
                        stopsStart: false))
        }
        for (offset, rule) in configuration.access.rules.enumerated() {
            let path = "access.grant[\(offset + 1)]"
            if let uid = rule.uid, uid != 0, accounts.userName(uid) == nil {
                findings.append(
                    AccountFinding(
                        keyPath: "\(path).uid",
                        message: "no user has uid \(uid): the grant matches no one until one does",
                        stopsStart: false))
            }
            if let group = rule.group, accounts.groupID(group) == nil, UInt32(group) == nil {
                findings.append(
                    AccountFinding(
                        keyPath: "\(path).group",
                        message: "group \"\(group)\" does not exist: the grant matches no one (a typo?)",
                        stopsStart: false))
            }
        }
        return findings
    }

    private static func failure(_ issues: [ConfigurationIssue], file: String) -> (ok: Bool, report: String) {
        let heading = "\(file): \(issues.count) problem\(issues.count == 1 ? "" : "s") found"
        return (false, heading + "\n" + ConfigurationError(issues: issues).description)
    }

    /// A few lines that show what the daemon will do with a configuration (text, not a stable format).
    /// - Parameters:
    ///   - configuration: the configuration to describe.
    ///   - accounts: names the users and resolves the groups of the access section; nil shows them as
    ///     the file gives them.
    public static func summary(of configuration: DaemonConfiguration, accounts: AccountLookup? = nil) -> String {
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
                    ? (tuio.regions.isEmpty
                        ? "off" : "no whole-device targets; \(tuio.regions.count) region target(s):")
                    : "to " + tuio.targets.map(\.description).joined(separator: ", ")
                        + ", datagrams up to \(tuio.maximumDatagramBytes) bytes, "
                        + (tuio.touchpads ? "touchscreens and touchpads" : "touchscreens only")))
        for (offset, region) in tuio.regions.enumerated() {
            let r = region.rect.map(format).joined(separator: ", ")
            lines.append(
                "    region[\(offset + 1)]: \(region.id) [\(r)] z \(region.z)\(region.exclusive ? ", exclusive" : "")"
                    + " to \(region.target), held for \(region.owner), on " + describeMatch(region.match))
        }
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
        lines += access(configuration.access, accounts: accounts)
        lines.append("  log level: \(configuration.logLevel.rawValue)")
        return lines.joined(separator: "\n")
    }

    /// What a valid configuration may expose that the socket's mode and group do not guard (issue 28):
    /// a `[tuio]` target on this machine (127.0.0.0/8) on a machine with more than one login account.
    /// UDP has no owner: any local user who binds the port first reads every touch sent there,
    /// including users the socket refuses. Names are not checked (they may resolve anywhere).
    public static func warnings(of configuration: DaemonConfiguration, loginAccounts: [String]) -> [String] {
        keyedWarnings(of: configuration, loginAccounts: loginAccounts).map(\.message)
    }

    /// `warnings(of:loginAccounts:)` with the key each is about (`tuio.targets`, `tuio.region[N].target`).
    static func keyedWarnings(
        of configuration: DaemonConfiguration, loginAccounts: [String]
    ) -> [(keyPath: String, message: String)] {
        guard loginAccounts.count > 1 else { return [] }
        let targets =
            configuration.tuio.targets.map { ("tuio.targets", $0) }
            + configuration.tuio.regions.enumerated().map {
                ("tuio.region[\($0.offset + 1)].target", $0.element.target)
            }
        return targets.filter(\.1.isLoopback).map { keyPath, target in
            (
                keyPath,
                "tuio target \(target) is on this machine, which has \(loginAccounts.count) login accounts "
                    + "(\(loginAccounts.prefix(4).joined(separator: ", "))\(loginAccounts.count > 4 ? ", ..." : "")): "
                    + "any local user who binds UDP port \(target.port) first receives every touch, also users the "
                    + "socket refuses (docs/TUIO.md \"Who can read it\")"
            )
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

    /// Who gets what: each grant's users and groups with their rights and z band, then everyone else.
    private static func access(_ policy: AccessPolicy, accounts: AccountLookup?) -> [String] {
        var lines = ["  access: root (uid 0) has every right at any z; the first grant that matches decides"]
        for (offset, rule) in policy.rules.enumerated() {
            var who: [String] = []
            if let uid = rule.uid {
                let name = uid == 0 ? "root" : accounts?.userName(uid)
                who.append("uid \(uid)" + (name.map { " (\($0))" } ?? (accounts == nil ? "" : " (no such user)")))
            }
            if let group = rule.group {
                var text = "group \(group)"
                if let accounts {
                    if let gid = accounts.groupID(group) {
                        text += " (gid \(gid))"
                    } else if UInt32(group) == nil {
                        text += " (no such group)"
                    }
                }
                who.append(text)
            }
            lines.append("    grant[\(offset + 1)]: \(who.joined(separator: " in ")): \(describe(rule.grant))")
        }
        lines.append("    everyone else: \(describe(policy.defaultGrant))")
        return lines
    }

    /// `observe, regions, z 0...99`, or `no rights` (pings, stats and device announcements only).
    private static func describe(_ grant: AccessGrant) -> String {
        let rights = AccessRight.allCases.filter(grant.has).map(\.rawValue)
        var text =
            rights.isEmpty ? "no rights (pings, stats and device announcements only)" : rights.joined(separator: ", ")
        if grant.has(.regions) {
            text +=
                grant.zBand == Int.min...Int.max
                ? ", regions at any z" : ", regions at z \(grant.zBand.lowerBound)...\(grant.zBand.upperBound)"
        }
        return text
    }

    /// `0o660` -> `"0660"`.
    public static func octal(_ mode: UInt32) -> String {
        let digits = String(mode, radix: 8)
        return String(repeating: "0", count: Swift.max(0, 4 - digits.count)) + digits
    }

    /// A `[[tuio.region]]`'s device match: `touchscreens named "..."`.
    private static func describeMatch(_ match: DeviceRule) -> String {
        var parts = [match.deviceClass.map { "\($0.rawValue)s" } ?? "devices"]
        if let name = match.name { parts.append("named \"\(name)\"") }
        if let path = match.path { parts.append("at \"\(path)\"") }
        return parts.joined(separator: " ")
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
