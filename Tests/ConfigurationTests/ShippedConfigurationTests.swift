import Foundation
import Gestures
import MultitouchCore
import Testing

@testable import Configuration

/// config/multitouchd.toml, found from this file's location so the test works from any directory.
let shippedConfigurationPath: String = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("config/multitouchd.toml").path

func shippedConfigurationText() throws -> String {
    try String(contentsOfFile: shippedConfigurationPath, encoding: .utf8)
}

/// Stored property names of a value, through reflection.
func propertyNames(of value: Any) -> Set<String> {
    Set(Mirror(reflecting: value).children.compactMap(\.label))
}

@Suite struct ShippedConfigurationTests {
    @Test func shippedFileEqualsBuiltInDefaults() throws {
        let configuration = try DaemonConfiguration.load(path: shippedConfigurationPath)
        // A default changed in code must be changed in config/multitouchd.toml too (and the other way).
        #expect(configuration == DaemonConfiguration(), "config/multitouchd.toml differs from the built-in defaults")
    }

    @Test func shippedFilePassesTheCheck() {
        let result = ConfigurationCheck.run(path: shippedConfigurationPath)
        #expect(result.ok)
        #expect(result.report.contains("configuration OK"))
        #expect(result.report.contains("socket: /run/multitouchd/multitouchd.sock, mode 0660, group multitouch"))
    }

    /// Every key the parser knows appears in the shipped file as `key =` (rule keys in the commented
    /// example), so the file documents every option.
    @Test func everyOptionAppearsInShippedFile() throws {
        let text = try shippedConfigurationText()
        let keys =
            ConfigurationKeys.socket + ConfigurationKeys.rule + ConfigurationKeys.output + ConfigurationKeys.gestures
            + ConfigurationKeys.clients + ConfigurationKeys.tuio.filter { $0 != "region" }
            + ConfigurationKeys.tuioRegion
            + ConfigurationKeys.log + ["grab"]
        for key in keys {
            let pattern = try Regex("(^|[ {,#])\(key) = ").anchorsMatchLineEndings()
            #expect(text.contains(pattern), "config/multitouchd.toml does not mention \(key)")
        }
        for section in [
            "[socket]", "[devices]", "[[devices.rule]]", "[gestures]", "[clients]", "[tuio]", "[[tuio.region]]",
            "[log]",
        ] {
            #expect(text.contains(section), "config/multitouchd.toml has no \(section)")
        }
    }

    /// Each configuration property has a TOML key: a property added to a configuration struct without a
    /// key (and a line in the shipped file) fails here.
    @Test func everyGesturePropertyHasAKey() {
        let properties = propertyNames(of: GestureConfiguration())
        let mapped = Set(GestureConfiguration.fields.map(\.property))
        #expect(properties == mapped)
        #expect(Set(GestureConfiguration.fields.map(\.key)).count == GestureConfiguration.fields.count)
    }

    /// The gesture field table is the one list: config/multitouchd.toml sets each key to its default,
    /// docs/CONFIGURATION.md has its row (range, default, meaning word for word) and docs/GESTURES.md
    /// names each property in its table of thresholds and sources.
    @Test func gestureFieldsAreDocumentedFromTheOneTable() throws {
        let root = URL(fileURLWithPath: shippedConfigurationPath).deletingLastPathComponent()
            .deletingLastPathComponent()
        let toml = try shippedConfigurationText()
        let configurationDoc = try String(
            contentsOf: root.appendingPathComponent("docs/CONFIGURATION.md"), encoding: .utf8)
        let gesturesDoc = try String(contentsOf: root.appendingPathComponent("docs/GESTURES.md"), encoding: .utf8)
        for field in GestureConfiguration.fields {
            #expect(
                toml.contains("\n\(field.key) = \(field.defaultLiteral)\n"), "config/multitouchd.toml: \(field.key)")
            let accepted: String
            switch field.value {
            case .number(_, let range): accepted = range.expectation
            case .flag: accepted = "true or false"
            }
            let row = "| `\(field.key)` | \(accepted) | `\(field.defaultLiteral)` | \(field.meaning) |"
            #expect(configurationDoc.contains(row), "docs/CONFIGURATION.md lacks the row \(row)")
            #expect(gesturesDoc.contains("| \(field.property) |"), "docs/GESTURES.md does not list \(field.property)")
        }
    }

    @Test func everyOtherPropertyHasAKey() {
        // Property -> key, for the structs whose keys are spelled in the parser by hand.
        let socket = ["path": "path", "mode": "mode", "group": "group", "requireGroup": "require_group"]
        let devices = ["grab": "grab", "rules": "rule"]
        let rule = [
            "action": "action", "name": "name", "path": "path", "deviceClass": "class", "grab": "grab",
            "output": "output", "sizeMillimeters": "size_mm",
        ]
        let output = ["width": "width", "height": "height", "rotation": "rotation", "calibration": "calibration"]
        let clients = [
            "softQueueLimit": "soft_queue_limit", "hardQueueLimitBytes": "hard_queue_limit_bytes",
            "maximumLineBytes": "max_line_bytes", "maximumClients": "max_clients",
            "maximumClientsPerUser": "max_clients_per_user",
        ]
        let tuio = [
            "targets": "targets", "maximumDatagramBytes": "max_datagram_bytes", "touchpads": "touchpads",
            "regions": "region",
        ]
        let root = [
            "socket": "socket", "devices": "devices", "gestures": "gestures", "clients": "clients", "tuio": "tuio",
            "logLevel": "log", "access": "access",
        ]
        let cases: [(Any, [String: String], [String])] = [
            (SocketConfiguration(), socket, ConfigurationKeys.socket),
            (DevicesConfiguration(), devices, ConfigurationKeys.devices),
            (DeviceRule(), rule, ConfigurationKeys.rule),
            (OutputMapping(width: 1, height: 1), output, ConfigurationKeys.output),
            (ClientsConfiguration(), clients, ConfigurationKeys.clients),
            (TUIOConfiguration(), tuio, ConfigurationKeys.tuio),
            (DaemonConfiguration(), root, ConfigurationKeys.root),
        ]
        for (value, map, keys) in cases {
            #expect(propertyNames(of: value) == Set(map.keys), "\(type(of: value)) gained or lost a property")
            #expect(Set(map.values) == Set(keys), "\(type(of: value)) keys differ")
        }
    }

    /// The commented example rules are valid once uncommented, and mean what their comments say.
    @Test func exampleRulesParseWhenUncommented() throws {
        let text = try shippedConfigurationText()
        let example = try Regex(#"^# (\[\[devices\.rule\]\]|[a-z_]+ = .*)$"#)
        let uncommented = text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            if let match = line.wholeMatch(of: example), let body = match.output[1].substring { return String(body) }
            return String(line)
        }.joined(separator: "\n")
        let configuration = try DaemonConfiguration.parse(text: uncommented, source: "example")
        let rules = configuration.devices.rules
        #expect(rules.count == 2)
        guard rules.count == 2 else { return }
        #expect(rules[0].action == .exclude)
        #expect(rules[0].name == "*Wacom*Pen*")
        #expect(rules[1].action == .include)
        #expect(rules[1].path == "/dev/input/by-path/*-event")
        #expect(rules[1].deviceClass == .touchscreen)
        #expect(rules[1].grab == true)
        #expect(
            rules[1].output == OutputMapping(width: 1920, height: 1080, rotation: 0, calibration: [1, 0, 0, 0, 1, 0]))
        #expect(rules[1].sizeMillimeters == [344, 194])
    }
}
