import Configuration
import Testing

/// `--check-config`'s access section and its account checks (issue 29 item 1), with the system's users
/// and groups replaced by a table.
@Suite("check-config: who gets what")
struct AccessCheckTests {
    static let accounts = AccountLookup(
        userName: { uid in [0: "root", 1000: "alice"][uid] },
        groupID: { name in ["multitouch": 990, "kiosk-shell": 1001, "kiosk": 1002][name] })

    static let kiosk = """
        [socket]
        group = "multitouch"
        [access]
        default = ["regions"]
        default_z_band = [0, 99]
        [[access.grant]]
        group = "kiosk-shel"
        rights = ["observe", "regions", "transform"]
        z_band = [0, 1000]
        [[access.grant]]
        uid = 1000
        group = "kiosk"
        rights = ["transform"]
        [[access.grant]]
        uid = 4242
        rights = ["observe"]
        [[access.grant]]
        group = "1234"
        rights = []
        """

    @Test func accessSectionSaysWhoGetsWhat() throws {
        let configuration = try DaemonConfiguration.parse(text: Self.kiosk)
        let summary = ConfigurationCheck.summary(of: configuration, accounts: Self.accounts)
        let lines = summary.split(separator: "\n").map(String.init)
        let access = Array(lines.drop(while: { !$0.hasPrefix("  access:") }).prefix(6))
        #expect(
            access == [
                "  access: root (uid 0) has every right at any z; the first grant that matches decides",
                "    grant[1]: group kiosk-shel (no such group): observe, regions, transform, regions at z 0...1000",
                "    grant[2]: uid 1000 (alice) in group kiosk (gid 1002): transform",
                "    grant[3]: uid 4242 (no such user): observe",
                "    grant[4]: group 1234: no rights (pings, stats and device announcements only)",
                "    everyone else: regions, regions at z 0...99",
            ], "\(summary)")
    }

    @Test func defaultsGrantEverythingAtAnyZ() {
        let summary = ConfigurationCheck.summary(of: DaemonConfiguration(), accounts: Self.accounts)
        let everyone = "    everyone else: observe, regions, transform, cover, regions at any z"
        #expect(summary.contains(everyone), "\(summary)")
    }

    @Test func unknownGroupsAndUsersWarnWithTheirNames() throws {
        let configuration = try DaemonConfiguration.parse(text: Self.kiosk)
        let findings = ConfigurationCheck.accountFindings(configuration, accounts: Self.accounts)
        #expect(
            findings.map(\.keyPath) == ["access.grant[1].group", "access.grant[3].uid"], "\(findings)")
        #expect(findings.allSatisfy { !$0.stopsStart })
        #expect(findings[0].message == "group \"kiosk-shel\" does not exist: the grant matches no one (a typo?)")
        #expect(findings[1].message.contains("no user has uid 4242"))
        let check = ConfigurationCheck.check(configuration, file: nil, accounts: Self.accounts)
        #expect(check.ok)
        #expect(
            check.report.hasSuffix(
                """
                2 warnings:
                  warning: built-in defaults: access.grant[1].group: group "kiosk-shel" does not exist: the grant matches no one (a typo?)
                  warning: built-in defaults: access.grant[3].uid: no user has uid 4242: the grant matches no one until one does
                """), "\(check.report)")
    }

    @Test func missingSocketGroupWarnsOrStopsTheStart() throws {
        var configuration = DaemonConfiguration()
        configuration.socket.group = "multitouc"
        let warned = ConfigurationCheck.accountFindings(configuration, accounts: Self.accounts)
        #expect(warned.map(\.stopsStart) == [false])
        #expect(warned.first?.message.contains("socket group \"multitouc\" does not exist") == true)
        #expect(ConfigurationCheck.check(configuration, file: nil, accounts: Self.accounts).ok)

        configuration.socket.requireGroup = true
        let refused = ConfigurationCheck.check(configuration, file: nil, accounts: Self.accounts)
        #expect(!refused.ok)
        #expect(
            refused.report == """
                built-in defaults: 1 problem found
                built-in defaults: socket.group: socket group "multitouc" does not exist, and socket.require_group is set: the daemon would not start
                """)

        configuration.socket.group = "990"  // a number is a gid
        #expect(ConfigurationCheck.accountFindings(configuration, accounts: Self.accounts).isEmpty)
        configuration.socket.group = ""  // the daemon's own group
        #expect(ConfigurationCheck.accountFindings(configuration, accounts: Self.accounts).isEmpty)
    }

    @Test func withoutLookupsNothingIsChecked() throws {
        let configuration = try DaemonConfiguration.parse(text: Self.kiosk)
        let check = ConfigurationCheck.check(configuration, file: nil, accounts: nil)
        #expect(check.ok && !check.report.contains("warning"))
        #expect(check.report.contains("    grant[1]: group kiosk-shel: observe, regions, transform"), "\(check.report)")
    }
}
