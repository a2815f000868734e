import MultitouchCore
import TouchVocabulary

/// The accepted range of a numeric option outside `[gestures]` (whose ranges are part of the gesture
/// field table, `GestureConfiguration.Range`).
enum NumberRule: Hashable, Sendable {
    /// > 0 (sizes a zero would make meaningless).
    case positive

    var expectation: String {
        switch self {
        case .positive: "a positive number"
        }
    }

    func accepts(_ value: Double) -> Bool {
        guard value.isFinite else { return false }
        switch self {
        case .positive: return value > 0
        }
    }
}

/// Keys of each table, in the order config/multitouchd.toml documents them.
enum ConfigurationKeys {
    static let root = ["socket", "devices", "gestures", "clients", "tuio", "access", "log"]
    static let access = ["default", "default_z_band", "grant"]
    static let grant = ["uid", "group", "rights", "z_band"]
    static let socket = ["path", "mode", "group", "require_group"]
    static let devices = ["grab", "rule"]
    static let rule = ["action", "name", "path", "class", "grab", "output", "size_mm"]
    static let output = ["width", "height", "rotation", "calibration"]
    static let clients = [
        "soft_queue_limit", "hard_queue_limit_bytes", "max_line_bytes", "max_clients", "max_clients_per_user",
    ]
    static let tuio = ["targets", "max_datagram_bytes", "touchpads", "region"]
    static let tuioRegion = ["id", "target", "rect", "z", "exclusive", "owner", "name", "path", "class"]
    static let log = ["level"]
    /// The gesture keys come from the one table of gesture options (module Gestures).
    static var gestures: [String] { GestureConfiguration.fields.map(\.key) }
}

/// Turns a parsed TOML table into a `DaemonConfiguration`, collecting every problem instead of stopping
/// at the first. Each reader returns nil for a missing or bad value, so the default stays in place.
struct ConfigurationParser {
    let source: String
    let locator: KeyLocator
    private(set) var issues: [ConfigurationIssue] = []

    init(source: String, locator: KeyLocator) {
        self.source = source
        self.locator = locator
    }

    mutating func parse(_ root: TOMLTable) -> DaemonConfiguration {
        var configuration = DaemonConfiguration()
        checkKeys(root, path: "", allowed: ConfigurationKeys.root)
        if let table = table(root, "socket", in: "") { configuration.socket = parseSocket(table) }
        if let table = table(root, "devices", in: "") { configuration.devices = parseDevices(table) }
        if let table = table(root, "gestures", in: "") { configuration.gestures = parseGestures(table) }
        if let table = table(root, "clients", in: "") { configuration.clients = parseClients(table) }
        if let table = table(root, "tuio", in: "") { configuration.tuio = parseTUIO(table) }
        if let table = table(root, "access", in: "") { configuration.access = parseAccess(table) }
        if let table = table(root, "log", in: "") {
            checkKeys(table, path: "log", allowed: ConfigurationKeys.log)
            let names = LogLevel.allCases.map(\.rawValue)
            if let level = choice(table, "level", in: "log", from: names).flatMap(LogLevel.init(rawValue:)) {
                configuration.logLevel = level
            }
        }
        return configuration
    }

    // MARK: sections

    private mutating func parseSocket(_ table: TOMLTable) -> SocketConfiguration {
        let path = "socket"
        var socket = SocketConfiguration()
        checkKeys(table, path: path, allowed: ConfigurationKeys.socket)
        if let value = table["path"] {
            if let text = value.string, text.hasPrefix("/") {
                // sun_path holds 108 bytes including the terminating NUL (unix(7)).
                if text.utf8.count > 107 {
                    report("\(path).path", "is \(text.utf8.count) bytes long; a Unix socket path holds at most 107")
                } else {
                    socket.path = text
                }
            } else {
                report("\(path).path", "expected an absolute path, found \(describe(value))")
            }
        }
        if let value = table["mode"] {
            // Only strings: a TOML integer cannot say whether 660 was meant as octal.
            if let text = value.string, let mode = parseOctalMode(text) {
                if mode <= 0o777 {
                    socket.mode = mode
                } else {
                    report(
                        "\(path).mode", "expected a permission mode from \"0000\" to \"0777\", found \(describe(value))"
                    )
                }
            } else {
                report("\(path).mode", "expected an octal mode as a string such as \"0660\", found \(describe(value))")
            }
        }
        if let value = table["group"] {
            if let text = value.string, text.isEmpty || isValidGroupName(text) {
                socket.group = text
            } else {
                report(
                    "\(path).group",
                    "expected a group name or number (or \"\" for the daemon's own group), found \(describe(value))")
            }
        }
        if let requireGroup = bool(table, "require_group", in: path) { socket.requireGroup = requireGroup }
        return socket
    }

    private mutating func parseDevices(_ table: TOMLTable) -> DevicesConfiguration {
        var devices = DevicesConfiguration()
        checkKeys(table, path: "devices", allowed: ConfigurationKeys.devices)
        if let grab = bool(table, "grab", in: "devices") { devices.grab = grab }
        if let value = table["rule"] {
            if let array = value.array {
                for (offset, element) in array.enumerated() {
                    let rulePath = "devices.rule[\(offset + 1)]"
                    if let ruleTable = element.table {
                        devices.rules.append(parseRule(ruleTable, path: rulePath))
                    } else {
                        report(rulePath, "expected a table ([[devices.rule]]), found \(describe(element))")
                    }
                }
            } else {
                report("devices.rule", "expected an array of tables ([[devices.rule]]), found \(describe(value))")
            }
        }
        return devices
    }

    private mutating func parseRule(_ table: TOMLTable, path: String) -> DeviceRule {
        var rule = DeviceRule()
        checkKeys(table, path: path, allowed: ConfigurationKeys.rule)
        if let action = choice(table, "action", in: path, from: ["include", "exclude"]).flatMap(
            DeviceRule.Action.init(rawValue:))
        {
            rule.action = action
        }
        rule.name = glob(table, "name", in: path)
        rule.path = glob(table, "path", in: path)
        rule.deviceClass = choice(table, "class", in: path, from: ["touchscreen", "touchpad"]).flatMap(
            DeviceClass.init(rawValue:))
        rule.grab = bool(table, "grab", in: path)
        if let outputTable = self.table(table, "output", in: path) {
            rule.output = parseOutput(outputTable, path: "\(path).output")
        }
        if let value = table["size_mm"] {
            if let numbers = finiteNumbers(value), numbers.count == 2, numbers.allSatisfy({ $0 > 0 }) {
                rule.sizeMillimeters = numbers
            } else {
                report(
                    "\(path).size_mm", "expected [width, height] in mm, two positive numbers, found \(describe(value))")
            }
        }
        // Options that cannot take effect are mistakes worth naming, not silently ignored.
        if rule.action == .exclude {
            for key in ["grab", "output", "size_mm"] where table.contains(key: key) {
                report("\(path).\(key)", "has no effect in a rule with action = \"exclude\"")
            }
        }
        if rule.deviceClass == .touchpad, table.contains(key: "output") {
            report("\(path).output", "applies to touchscreens only; this rule matches class = \"touchpad\"")
        }
        return rule
    }

    private mutating func parseOutput(_ table: TOMLTable, path: String) -> OutputMapping? {
        checkKeys(table, path: path, allowed: ConfigurationKeys.output)
        let width = number(table, "width", in: path, rule: .positive, required: true)
        let height = number(table, "height", in: path, rule: .positive, required: true)
        var rotation = 0
        if let value = table["rotation"] {
            if let degrees = value.int, [0, 90, 180, 270].contains(degrees) {
                rotation = degrees
            } else {
                report("\(path).rotation", "expected 0, 90, 180 or 270, found \(describe(value))")
            }
        }
        var calibration = OutputMapping.identityCalibration
        if let value = table["calibration"] {
            if let numbers = finiteNumbers(value), numbers.count == 6 {
                calibration = numbers
            } else {
                report(
                    "\(path).calibration",
                    "expected 6 finite numbers (the top two rows of libinput's calibration matrix), found \(describe(value))"
                )
            }
        }
        guard let width, let height else { return nil }
        return OutputMapping(width: width, height: height, rotation: rotation, calibration: calibration)
    }

    /// `[gestures]`: every key of `GestureConfiguration.fields`, checked against the field's range.
    private mutating func parseGestures(_ table: TOMLTable) -> GestureConfiguration {
        var gestures = GestureConfiguration.default
        let path = "gestures"
        checkKeys(table, path: path, allowed: ConfigurationKeys.gestures)
        var valid: Set<String> = []
        for field in GestureConfiguration.fields {
            switch field.value {
            case .number(let keyPath, let range):
                guard let value = table[field.key] else { continue }
                if let number = numericValue(value), range.accepts(number) {
                    gestures[keyPath: keyPath] = number
                    valid.insert(field.key)
                } else {
                    report(join(path, field.key), "expected \(range.expectation), found \(describe(value))")
                }
            case .flag(let keyPath):
                if let value = bool(table, field.key, in: path) { gestures[keyPath: keyPath] = value }
            }
        }
        // Only compare values that are themselves valid, so one bad value gives one message.
        let minimumValid = valid.contains("min_scale") || !table.contains(key: "min_scale")
        let maximumValid = valid.contains("max_scale") || !table.contains(key: "max_scale")
        if minimumValid, maximumValid, gestures.minimumScale >= gestures.maximumScale {
            report(
                table.contains(key: "min_scale") ? "gestures.min_scale" : "gestures.max_scale",
                "min_scale (\(format(gestures.minimumScale))) must be less than max_scale (\(format(gestures.maximumScale)))"
            )
        }
        return gestures
    }

    private mutating func parseClients(_ table: TOMLTable) -> ClientsConfiguration {
        var clients = ClientsConfiguration()
        checkKeys(table, path: "clients", allowed: ConfigurationKeys.clients)
        if let value = integer(table, "soft_queue_limit", in: "clients", minimum: 1) { clients.softQueueLimit = value }
        // A hard limit below one maximum-size message would disconnect every client at once; 4 KiB is
        // far below any real setting and still above a single frame message.
        if let value = integer(table, "hard_queue_limit_bytes", in: "clients", minimum: 4096) {
            clients.hardQueueLimitBytes = value
        }
        if let value = integer(table, "max_line_bytes", in: "clients", minimum: 256) {
            clients.maximumLineBytes = value
        }
        if let value = integer(table, "max_clients", in: "clients", minimum: 1) { clients.maximumClients = value }
        if let value = integer(table, "max_clients_per_user", in: "clients", minimum: 1) {
            clients.maximumClientsPerUser = value
        }
        return clients
    }

    private mutating func parseTUIO(_ table: TOMLTable) -> TUIOConfiguration {
        var tuio = TUIOConfiguration()
        checkKeys(table, path: "tuio", allowed: ConfigurationKeys.tuio)
        if let value = table["targets"] {
            if let array = value.array {
                for (offset, element) in array.enumerated() {
                    if let text = element.string, let target = TUIOTarget(parsing: text) {
                        tuio.targets.append(target)
                    } else {
                        report(
                            "tuio.targets[\(offset + 1)]",
                            "expected \"HOST:PORT\" or \"PORT\" (127.0.0.1), found \(describe(element))")
                    }
                }
            } else {
                report("tuio.targets", "expected an array of \"HOST:PORT\" strings, found \(describe(value))")
            }
        }
        // 576 is the smallest datagram every IPv4 host must accept (RFC 791) less the headers; 65507
        // the largest a UDP/IPv4 datagram can carry.
        if let value = integer(table, "max_datagram_bytes", in: "tuio", minimum: 548) {
            if value <= 65507 {
                tuio.maximumDatagramBytes = value
            } else {
                report("tuio.max_datagram_bytes", "expected at most 65507 (the UDP/IPv4 limit), found \(value)")
            }
        }
        if let touchpads = bool(table, "touchpads", in: "tuio") { tuio.touchpads = touchpads }
        if let value = table["region"] {
            if let array = value.array {
                for (offset, element) in array.enumerated() {
                    let path = "tuio.region[\(offset + 1)]"
                    guard let regionTable = element.table else {
                        report(path, "expected a table ([[tuio.region]]), found \(describe(element))")
                        continue
                    }
                    if let region = parseTUIORegion(regionTable, path: path) {
                        if tuio.regions.contains(where: { $0.id == region.id }) {
                            report("\(path).id", "\"\(region.id)\" is the id of an earlier [[tuio.region]] too")
                        } else {
                            tuio.regions.append(region)
                        }
                    }
                }
            } else {
                report("tuio.region", "expected an array of tables ([[tuio.region]]), found \(describe(value))")
            }
        }
        return tuio
    }

    /// One `[[tuio.region]]`; nil (with every problem reported) when it cannot be served.
    private mutating func parseTUIORegion(_ table: TOMLTable, path: String) -> TUIORegionTarget? {
        checkKeys(table, path: path, allowed: ConfigurationKeys.tuioRegion)
        var id: String?
        if let value = table["id"] {
            if let text = value.string, !text.isEmpty, text.utf8.count <= 128 {
                id = text
            } else {
                report("\(path).id", "expected a region id (a string of 1...128 bytes), found \(describe(value))")
            }
        } else {
            report("\(path).id", "is required (the region's id)")
        }
        var target: TUIOTarget?
        if let value = table["target"] {
            if let text = value.string, let parsed = TUIOTarget(parsing: text) {
                target = parsed
            } else {
                report("\(path).target", "expected \"HOST:PORT\" or \"PORT\" (127.0.0.1), found \(describe(value))")
            }
        } else {
            report("\(path).target", "is required (where the region's touches go)")
        }
        var rect: [Double]?
        if let value = table["rect"] {
            if let numbers = finiteNumbers(value), numbers.count == 4, numbers[2] > 0, numbers[3] > 0 {
                rect = numbers
            } else {
                report(
                    "\(path).rect",
                    "expected [x, y, width, height] (published units) with a positive width and height, found \(describe(value))"
                )
            }
        } else {
            report("\(path).rect", "is required ([x, y, width, height] in the device's published units)")
        }
        var z = 0
        if let value = table["z"] {
            if let number = value.int, abs(number) <= 1_000_000_000 {
                z = number
            } else {
                report("\(path).z", "expected an integer, found \(describe(value))")
            }
        }
        let exclusive = bool(table, "exclusive", in: path) ?? false
        var owner: String?
        if let value = table["owner"] {
            if let text = value.string, !text.isEmpty {
                owner = text
            } else {
                report("\(path).owner", "expected a non-empty name (who the area is for), found \(describe(value))")
            }
        }
        var match = DeviceRule()
        match.name = glob(table, "name", in: path)
        match.path = glob(table, "path", in: path)
        match.deviceClass =
            choice(table, "class", in: path, from: ["touchscreen", "touchpad"]).flatMap(DeviceClass.init(rawValue:))
            ?? (table.contains(key: "class") ? nil : .touchscreen)
        guard let id, let target, let rect else { return nil }
        return TUIORegionTarget(
            id: id, target: target, rect: rect, z: z, exclusive: exclusive, owner: owner, match: match)
    }

    private mutating func parseAccess(_ table: TOMLTable) -> AccessPolicy {
        var policy = AccessPolicy()
        checkKeys(table, path: "access", allowed: ConfigurationKeys.access)
        if let rights = rights(table, "default", in: "access") { policy.defaultGrant.rights = rights }
        if let band = zBand(table, "default_z_band", in: "access") { policy.defaultGrant.zBand = band }
        guard let value = table["grant"] else { return policy }
        guard let array = value.array else {
            report("access.grant", "expected an array of tables ([[access.grant]]), found \(describe(value))")
            return policy
        }
        for (offset, element) in array.enumerated() {
            let path = "access.grant[\(offset + 1)]"
            guard let rule = element.table else {
                report(path, "expected a table ([[access.grant]]), found \(describe(element))")
                continue
            }
            checkKeys(rule, path: path, allowed: ConfigurationKeys.grant)
            var parsed = AccessRule(grant: AccessGrant(rights: [], zBand: policy.defaultGrant.zBand))
            if let uid = integer(rule, "uid", in: path, minimum: 0) {
                if let id = UInt32(exactly: uid) { parsed.uid = id } else { report("\(path).uid", "uid out of range") }
            }
            if let group = rule["group"] {
                if let name = group.string, isValidGroupName(name) || UInt32(name) != nil {
                    parsed.group = name
                } else {
                    report("\(path).group", "expected a group name or number as a string, found \(describe(group))")
                }
            }
            if !rule.contains(key: "uid") && !rule.contains(key: "group") {
                report(path, "a grant needs uid, group or both (it would match no one)")
            }
            if let rights = rights(rule, "rights", in: path) { parsed.grant.rights = rights }
            if let band = zBand(rule, "z_band", in: path) { parsed.grant.zBand = band }
            policy.rules.append(parsed)
        }
        return policy
    }

    /// A list of rights ("observe", "regions", "transform").
    private mutating func rights(_ table: TOMLTable, _ key: String, in path: String) -> Set<AccessRight>? {
        guard let value = table[key] else { return nil }
        let names = AccessRight.allCases.map(\.rawValue).joined(separator: ", ")
        guard let items = value.array else {
            report(join(path, key), "expected an array of rights (\(names)), found \(describe(value))")
            return nil
        }
        var rights: Set<AccessRight> = []
        for item in items {
            guard let name = item.string, let right = AccessRight(rawValue: name) else {
                report(join(path, key), "unknown right \(describe(item)); rights are \(names)")
                return nil
            }
            rights.insert(right)
        }
        return rights
    }

    /// A z band `[lowest, highest]`.
    private mutating func zBand(_ table: TOMLTable, _ key: String, in path: String) -> ClosedRange<Int>? {
        guard let value = table[key] else { return nil }
        if let items = value.array, items.count == 2, case .integer(let lo) = items[0],
            case .integer(let hi) = items[1],
            lo <= hi
        {
            return Int(lo)...Int(hi)
        }
        report(join(path, key), "expected [lowest, highest], two integers in order, found \(describe(value))")
        return nil
    }

    // MARK: readers (nil for a missing or bad value; a bad value is reported)

    private mutating func table(_ parent: TOMLTable, _ key: String, in path: String) -> TOMLTable? {
        guard let value = parent[key] else { return nil }
        if let table = value.table { return table }
        report(join(path, key), "expected a table, found \(describe(value))")
        return nil
    }

    private mutating func bool(_ table: TOMLTable, _ key: String, in path: String) -> Bool? {
        guard let value = table[key] else { return nil }
        if let flag = value.bool { return flag }
        report(join(path, key), "expected true or false, found \(describe(value))")
        return nil
    }

    private mutating func number(
        _ table: TOMLTable, _ key: String, in path: String, rule: NumberRule, required: Bool = false
    ) -> Double? {
        guard let value = table[key] else {
            if required { report(join(path, key), "is required") }
            return nil
        }
        if let number = numericValue(value), rule.accepts(number) { return number }
        report(join(path, key), "expected \(rule.expectation), found \(describe(value))")
        return nil
    }

    private mutating func integer(_ table: TOMLTable, _ key: String, in path: String, minimum: Int) -> Int? {
        guard let value = table[key] else { return nil }
        if let number = value.int, number >= minimum { return number }
        report(join(path, key), "expected an integer of at least \(minimum), found \(describe(value))")
        return nil
    }

    private mutating func choice(_ table: TOMLTable, _ key: String, in path: String, from names: [String]) -> String? {
        guard let value = table[key] else { return nil }
        if let text = value.string, names.contains(text) { return text }
        let list: String
        switch names.count {
        case 2: list = "\(names[0]) or \(names[1])"
        default: list = "one of " + names.joined(separator: ", ")
        }
        report(join(path, key), "expected \(list), found \(describe(value))")
        return nil
    }

    private mutating func glob(_ table: TOMLTable, _ key: String, in path: String) -> String? {
        guard let value = table[key] else { return nil }
        if let text = value.string, !text.isEmpty { return text }
        report(join(path, key), "expected a non-empty glob pattern, found \(describe(value))")
        return nil
    }

    private mutating func checkKeys(_ table: TOMLTable, path: String, allowed: [String]) {
        for key in table.keys where !allowed.contains(key) {
            var message = "unknown key"
            if let suggestion = closestKey(to: key, in: allowed) { message += " (did you mean \(suggestion)?)" }
            message += "; known keys here: " + allowed.joined(separator: ", ")
            report(join(path, key), message)
        }
    }

    private mutating func report(_ keyPath: String, _ message: String) {
        issues.append(
            ConfigurationIssue(source: source, line: locator.line(for: keyPath), keyPath: keyPath, message: message))
    }

    private func join(_ path: String, _ key: String) -> String {
        path.isEmpty ? key : "\(path).\(key)"
    }
}

// MARK: value helpers

/// A TOML integer or float as a Double (TOML writes `2` and `2.0` differently; both mean 2 mm).
func numericValue(_ value: TOMLValue) -> Double? {
    if let number = value.double { return number }
    if let number = value.int { return Double(number) }
    return nil
}

/// An array whose every element is a finite number, else nil.
func finiteNumbers(_ value: TOMLValue) -> [Double]? {
    guard let array = value.array else { return nil }
    var numbers: [Double] = []
    for element in array {
        guard let number = numericValue(element), number.isFinite else { return nil }
        numbers.append(number)
    }
    return numbers
}

/// A value as a message shows it: strings quoted, numbers as written, containers by kind.
func describe(_ value: TOMLValue) -> String {
    switch value.type {
    case .string: return "\"\(value.string ?? "")\""
    case .int: return value.int.map(String.init) ?? "an integer"
    case .double: return value.double.map(format) ?? "a number"
    case .bool: return value.bool.map { $0 ? "true" : "false" } ?? "a boolean"
    case .array:
        guard let array = value.array else { return "an array" }
        // Short arrays are shown in full: "[1, 0, 0]" says more than "an array".
        if array.count <= 8, array.allSatisfy({ $0.type != .array && $0.type != .table }) {
            return "[" + array.map { describe($0) }.joined(separator: ", ") + "]"
        }
        return "an array of \(array.count) elements"
    case .table: return "a table"
    case .date, .time, .dateTime: return "a date or time"
    }
}

/// Numbers without a spurious ".0" (2 rather than 2.0), and TOML's spelling of non-finite values.
func format(_ number: Double) -> String {
    if number.isNaN { return "nan" }
    if number.isInfinite { return number < 0 ? "-inf" : "inf" }
    if number == number.rounded(), abs(number) < 1e15 { return String(Int64(number)) }
    return String(number)
}

/// "0660", "660" or "0o660" -> 0o660; nil when not octal digits.
func parseOctalMode(_ text: String) -> UInt32? {
    var digits = Substring(text)
    if digits.hasPrefix("0o") { digits = digits.dropFirst(2) }
    guard !digits.isEmpty, digits.count <= 6, digits.allSatisfy({ ("0"..."7").contains($0) }) else { return nil }
    return UInt32(digits, radix: 8)
}

/// A POSIX-portable group name (letters, digits, `_`, `.`, `-`, not starting with `-`) or a numeric gid.
func isValidGroupName(_ text: String) -> Bool {
    guard let first = text.unicodeScalars.first, first != "-", text.utf8.count <= 32 else { return false }
    return text.unicodeScalars.allSatisfy { scalar in
        (scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar))) || scalar == "_"
            || scalar == "." || scalar == "-"
    }
}

/// The allowed key closest to a misspelt one (edit distance at most 3), for "did you mean" hints.
func closestKey(to key: String, in allowed: [String]) -> String? {
    let best = allowed.map { ($0, editDistance(key, $0)) }.min { $0.1 < $1.1 }
    guard let best, best.1 <= Swift.min(3, Swift.max(1, key.count / 2)) else { return nil }
    return best.0
}

/// Levenshtein distance.
func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a.utf8)
    let b = Array(b.utf8)
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var previous = Array(0...b.count)
    var current = previous
    for i in 1...a.count {
        current[0] = i
        for j in 1...b.count {
            let cost = a[i - 1] == b[j - 1] ? 0 : 1
            current[j] = Swift.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
        }
        swap(&previous, &current)
    }
    return previous[b.count]
}
