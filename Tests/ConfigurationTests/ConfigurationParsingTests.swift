import Foundation
import Gestures
import MultitouchCore
import Testing

@testable import Configuration

/// Parses `text` expecting failure and returns the issues (empty, and a recorded failure, if it parsed).
func issues(_ text: String, source: String = "test.toml") -> [ConfigurationIssue] {
    do {
        _ = try DaemonConfiguration.parse(text: text, source: source)
        Issue.record("expected configuration errors, but the text parsed:\n\(text)")
        return []
    } catch {
        return error.issues
    }
}

@Suite struct ConfigurationParsingTests {
    @Test func emptyTextGivesDefaults() throws {
        #expect(try DaemonConfiguration.parse(text: "") == DaemonConfiguration())
    }

    @Test func missingKeysKeepDefaults() throws {
        let configuration = try DaemonConfiguration.parse(
            text: """
                [gestures]
                pan_slop_mm = 5
                [clients]
                max_clients = 3
                """)
        var expected = DaemonConfiguration()
        expected.gestures.panSlopMillimeters = 5
        expected.clients.maximumClients = 3
        #expect(configuration == expected)
    }

    /// Each gesture key sets its own property and no other (catches swapped key paths).
    @Test(arguments: GestureConfiguration.fields.map(\.key))
    func gestureKeySetsItsProperty(key: String) throws {
        guard let entry = GestureConfiguration.fields.first(where: { $0.key == key }) else {
            Issue.record("no key \(key)")
            return
        }
        var expected = GestureConfiguration.default
        let literal: String
        switch entry.value {
        case .number(let keyPath, let range):
            // A value inside every range that differs from every default.
            let candidates = [7.25, 0.5, 0.25, 1.5]
            guard let value = candidates.first(where: { range.accepts($0) && $0 != expected[keyPath: keyPath] }) else {
                Issue.record("no test value for \(key)")
                return
            }
            expected[keyPath: keyPath] = value
            literal = String(value)
        case .flag(let keyPath):
            expected[keyPath: keyPath] = !expected[keyPath: keyPath]
            literal = String(expected[keyPath: keyPath])
        }
        let configuration = try DaemonConfiguration.parse(text: "[gestures]\n\(key) = \(literal)\n")
        #expect(configuration.gestures == expected)
    }

    @Test func everyOptionIsRead() throws {
        let configuration = try DaemonConfiguration.parse(
            text: """
                [socket]
                path = "/tmp/x/mt.sock"
                mode = "0600"
                group = ""
                require_group = true
                [devices]
                grab = true
                [[devices.rule]]
                action = "exclude"
                class = "touchpad"
                [[devices.rule]]
                name = "ELAN*"
                path = "/dev/input/event*"
                class = "touchscreen"
                grab = false
                output = { width = 1080, height = 1920.5, rotation = 270, calibration = [0, 1, 0, -1, 0, 1] }
                size_mm = [100, 200.5]
                [clients]
                soft_queue_limit = 10
                hard_queue_limit_bytes = 100000
                max_line_bytes = 1024
                max_clients = 2
                [log]
                level = "debug"
                """)
        #expect(configuration.socket.path == "/tmp/x/mt.sock")
        #expect(configuration.socket.mode == 0o600)
        #expect(configuration.socket.group == "")
        #expect(configuration.socket.requireGroup)
        #expect(configuration.devices.grab)
        #expect(configuration.devices.rules.count == 2)
        var first = DeviceRule()
        first.action = .exclude
        first.deviceClass = .touchpad
        var second = DeviceRule()
        second.name = "ELAN*"
        second.path = "/dev/input/event*"
        second.deviceClass = .touchscreen
        second.grab = false
        second.output = OutputMapping(width: 1080, height: 1920.5, rotation: 270, calibration: [0, 1, 0, -1, 0, 1])
        second.sizeMillimeters = [100, 200.5]
        #expect(configuration.devices.rules == [first, second])
        #expect(configuration.clients.softQueueLimit == 10)
        #expect(configuration.clients.hardQueueLimitBytes == 100000)
        #expect(configuration.clients.maximumLineBytes == 1024)
        #expect(configuration.clients.maximumClients == 2)
        #expect(configuration.logLevel == .debug)
    }

    @Test func modeAcceptsOctalSpellings() throws {
        for (text, mode) in [("0660", UInt32(0o660)), ("660", 0o660), ("0o640", 0o640), ("0777", 0o777), ("0", 0)] {
            let configuration = try DaemonConfiguration.parse(text: "[socket]\nmode = \"\(text)\"\n")
            #expect(configuration.socket.mode == mode)
        }
    }

    @Test func outputRotationAndCalibrationDefault() throws {
        let configuration = try DaemonConfiguration.parse(
            text: "[[devices.rule]]\noutput = { width = 800, height = 480 }\n")
        #expect(configuration.devices.rules.first?.output == OutputMapping(width: 800, height: 480))
    }

    @Test func logLevelsAreSwiftLogNames() throws {
        for level in LogLevel.allCases {
            let configuration = try DaemonConfiguration.parse(text: "[log]\nlevel = \"\(level.rawValue)\"\n")
            #expect(configuration.logLevel == level)
        }
    }
}

/// Issue 19: the `[access]` section and how a peer's grant is chosen.
@Suite("Configuration: access policy")
struct AccessPolicyConfigurationTests {
    @Test func grantsAreParsedAndTheFirstMatchingRuleDecides() throws {
        let c = try DaemonConfiguration.parse(
            text: """
                [access]
                default = ["regions"]
                default_z_band = [0, 99]
                [[access.grant]]
                uid = 1000
                rights = ["observe", "regions", "transform"]
                z_band = [0, 1000]
                [[access.grant]]
                group = "kiosk"
                rights = ["observe"]
                """)
        let policy = c.access
        #expect(policy.defaultGrant == AccessGrant(rights: [.regions], zBand: 0...99))
        let groups: (String) -> UInt32? = { $0 == "kiosk" ? 500 : nil }
        #expect(policy.grant(uid: 1000, groups: [500], groupID: groups).zBand == 0...1000)
        #expect(policy.grant(uid: 1001, groups: [7, 500], groupID: groups).rights == [.observe])
        #expect(policy.grant(uid: 1001, groups: [7], groupID: groups) == policy.defaultGrant)
        #expect(policy.grant(uid: 0, groups: [], groupID: groups) == .everything, "root")
        #expect(policy.grant(uid: nil, groups: [], groupID: groups) == policy.defaultGrant)
    }

    @Test func theDefaultKeepsEverythingAllowed() throws {
        let c = try DaemonConfiguration.parse(text: "")
        #expect(c.access.grant(uid: 1234, groups: [], groupID: { _ in nil }) == .everything)
    }

    @Test(arguments: [
        ("[access]\ndefault = [\"peek\"]\n", "unknown right"),
        ("[access]\ndefault_z_band = [5, 1]\n", "two integers in order"),
        ("[[access.grant]]\nrights = []\n", "needs uid, group or both"),
    ])
    func badAccessSettingsAreNamed(text: String, expected: String) {
        do {
            _ = try DaemonConfiguration.parse(text: text)
            Issue.record("accepted \(text)")
        } catch {
            #expect("\(error)".contains(expected), "\(error)")
        }
    }
}

/// Issue 28 item 7: `[tuio]` output to this machine is readable by any local user who binds the port
/// first, also users the socket refuses; `--check-config` says so on a machine with several accounts.
@Suite("check-config: TUIO on a multi-user machine")
struct TUIOWarningTests {
    static let passwd = """
        root:x:0:0:root:/root:/bin/bash
        daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin
        kiosk:x:1000:1000::/home/kiosk:/bin/bash
        guest:x:1001:1001::/home/guest:/bin/sh
        svc:x:1002:1002::/srv:/bin/false
        nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin
        """

    static func configuration(_ targets: [String]) throws -> DaemonConfiguration {
        let list = targets.map { "\"\($0)\"" }.joined(separator: ", ")
        return try DaemonConfiguration.parse(text: "[tuio]\ntargets = [\(list)]\n", source: "t.toml")
    }

    @Test func loginAccountsAreRootAndUsersWithAShell() {
        #expect(ConfigurationCheck.loginAccounts(passwd: Self.passwd) == ["root", "kiosk", "guest"])
    }

    @Test func aLoopbackTargetOnAMultiUserMachineIsWarnedAbout() throws {
        let accounts = ConfigurationCheck.loginAccounts(passwd: Self.passwd)
        let warnings = ConfigurationCheck.warnings(
            of: try Self.configuration(["3333", "127.0.0.2:4444", "192.0.2.7:3333"]), loginAccounts: accounts)
        #expect(warnings.count == 2)
        #expect(warnings.first?.contains("127.0.0.1:3333") == true)
        #expect(warnings.first?.contains("any local user who binds UDP port 3333 first") == true)
        #expect(warnings.last?.contains("127.0.0.2:4444") == true)
        #expect(ConfigurationCheck.warnings(of: try Self.configuration(["3333"]), loginAccounts: ["root"]).isEmpty)
        #expect(ConfigurationCheck.warnings(of: try Self.configuration([]), loginAccounts: accounts).isEmpty)
    }

    /// A `[[tuio.region]]`'s target is UDP too: warned about under its own key.
    @Test func aLoopbackRegionTargetIsWarnedAboutUnderItsKey() throws {
        let accounts = ConfigurationCheck.loginAccounts(passwd: Self.passwd)
        let configuration = try DaemonConfiguration.parse(
            text: "[tuio]\n[[tuio.region]]\nid = \"qt\"\ntarget = \"3334\"\nrect = [0, 0, 10, 10]\n", source: "t.toml")
        let warnings = ConfigurationCheck.keyedWarnings(of: configuration, loginAccounts: accounts)
        #expect(warnings.map(\.keyPath) == ["tuio.region[1].target"])
        #expect(warnings.first?.message.contains("127.0.0.1:3334") == true)
    }
}
