import Configuration
import Glibc
import MultitouchCore
import SystemCalls

/// Whether the daemon serves a device, and why: the rule that decided (if any), the device class, and a
/// sentence `multitouchctl devices` prints.
public struct DeviceDecision: Hashable, Sendable {
    /// Serve or skip.
    public enum Action: Hashable, Sendable {
        /// Serve the device; `grab` takes it exclusively (EVIOCGRAB).
        case serve(grab: Bool)
        case skip
    }

    public var action: Action
    /// Index into `DevicesConfiguration.rules` of the rule that decided; nil for the default.
    public var ruleIndex: Int?
    /// The device class from its capabilities.
    public var deviceClass: DeviceClass
    /// Why the class is what it is (from `DeviceDescription.classification`).
    public var classReason: String
    /// Why the action is what it is.
    public var reason: String
    /// Per-device settings the deciding rule carries (nil: none).
    public var output: OutputMapping?
    public var sizeMillimeters: [Double]?

    public var serves: Bool {
        switch action {
        case .serve: return true
        case .skip: return false
        }
    }

    public var grabs: Bool {
        switch action {
        case .serve(let grab): return grab
        case .skip: return false
        }
    }
}

/// Applies the configured device rules: the first rule whose every given matcher matches decides; with
/// no matching rule, touchscreens and touchpads are served and everything else is skipped.
public struct DeviceMatcher: Sendable {
    public var configuration: DevicesConfiguration

    public init(configuration: DevicesConfiguration = DevicesConfiguration()) {
        self.configuration = configuration
    }

    /// Decides for the device at `path` (plus any `links` to it, e.g. /dev/input/by-id names).
    public func decide(path: String, links: [String] = [], description: DeviceDescription) -> DeviceDecision {
        let (deviceClass, classReason) = description.classification
        for (index, rule) in configuration.rules.enumerated() {
            guard
                let why = Self.matches(rule, path: path, links: links, name: description.name, deviceClass: deviceClass)
            else { continue }
            let label = "rule \(index + 1) (\(rule.action.rawValue) \(why))"
            switch rule.action {
            case .exclude:
                return DeviceDecision(
                    action: .skip, ruleIndex: index, deviceClass: deviceClass, classReason: classReason,
                    reason: "excluded by \(label)")
            case .include:
                // A rule cannot make a keyboard a touch device: without position axes nothing could
                // be tracked, so say so instead of serving silence.
                guard deviceClass != .other else {
                    return DeviceDecision(
                        action: .skip, ruleIndex: index, deviceClass: deviceClass, classReason: classReason,
                        reason: "\(label) includes it, but it is not a touch device (\(classReason))")
                }
                let grab = rule.grab ?? configuration.grab
                return DeviceDecision(
                    action: .serve(grab: grab), ruleIndex: index, deviceClass: deviceClass, classReason: classReason,
                    reason: "included by \(label)", output: rule.output, sizeMillimeters: rule.sizeMillimeters)
            }
        }
        switch deviceClass {
        case .touchscreen, .touchpad:
            return DeviceDecision(
                action: .serve(grab: configuration.grab), ruleIndex: nil, deviceClass: deviceClass,
                classReason: classReason, reason: "default: \(deviceClass.rawValue)s are served")
        case .other:
            return DeviceDecision(
                action: .skip, ruleIndex: nil, deviceClass: deviceClass, classReason: classReason,
                reason: "default: not a touchscreen or touchpad (\(classReason))")
        }
    }

    /// Nil when `rule` does not match; otherwise a short text naming the matchers that matched. A rule
    /// with no matcher at all matches every device. (Also `[[tuio.region]]`'s device match.)
    public static func matches(
        _ rule: DeviceRule, path: String, links: [String], name: String, deviceClass: DeviceClass
    ) -> String? {
        var parts: [String] = []
        if let pattern = rule.name {
            guard Glob.matches(pattern, name) else { return nil }
            parts.append("name \"\(pattern)\"")
        }
        if let pattern = rule.path {
            guard let hit = ([path] + links).first(where: { Glob.matches(pattern, $0) }) else { return nil }
            parts.append(hit == path ? "path \"\(pattern)\"" : "path \"\(pattern)\" via \(hit)")
        }
        if let wanted = rule.deviceClass {
            guard wanted == deviceClass else { return nil }
            parts.append("class \(wanted.rawValue)")
        }
        return parts.isEmpty ? "matches every device" : parts.joined(separator: ", ")
    }
}

/// Shell-style globs through fnmatch(3): `*`, `?`, `[...]`. Without FNM_PATHNAME, so `*` also spans `/`
/// (a path rule `*by-id*Touch*` matches any by-id link).
public enum Glob {
    public static func matches(_ pattern: String, _ text: String) -> Bool {
        fnmatch(pattern, text, 0) == 0
    }
}

/// The persistent names udev makes for a node (/dev/input/by-id, /dev/input/by-path): path rules may
/// use them. Empty where udev does not run.
public enum DeviceLinks {
    public static func links(
        to node: String, directories: [String] = ["/dev/input/by-id", "/dev/input/by-path"]
    )
        -> [String]
    {
        guard let target = realPath(node) else { return [] }
        var result: [String] = []
        for directory in directories {
            for entry in DirectoryListing.names(in: directory) {
                let link = directory + "/" + entry
                if realPath(link) == target { result.append(link) }
            }
        }
        return result.sorted()
    }

    static func realPath(_ path: String) -> String? { try? Sys.realpath(path) }
}

/// Directory entry names (without . and ..), sorted; empty when the directory cannot be read.
enum DirectoryListing {
    static func names(in directory: String) -> [String] {
        ((try? Sys.directoryEntries(directory)) ?? []).sorted()
    }
}
