import Foundation
import Testing

@testable import Configuration

@Suite struct ConfigurationErrorTests {
    @Test func wrongTypeNamesKeyValueFileAndLine() {
        let found = issues("[gestures]\npan_slop_mm = \"abc\"\n", source: "my.toml")
        #expect(
            found.map(\.description) == [
                #"my.toml:2: gestures.pan_slop_mm: expected a non-negative number, found "abc""#
            ])
        #expect(found.first?.line == 2)
        #expect(found.first?.keyPath == "gestures.pan_slop_mm")
    }

    @Test(arguments: [
        ("pan_slop_mm = -1", "gestures.pan_slop_mm: expected a non-negative number, found -1"),
        ("tap_max_movement_mm = -0.5", "gestures.tap_max_movement_mm: expected a non-negative number, found -0.5"),
        (
            "rotation_threshold_deg = nan",
            "gestures.rotation_threshold_deg: expected an angle from 0 to 180 degrees, found nan"
        ),
        ("long_press_movement_mm = inf", "gestures.long_press_movement_mm: expected a non-negative number, found inf"),
        (
            "scale_threshold_percent = 101",
            "gestures.scale_threshold_percent: expected a percentage from 0 to 100, found 101"
        ),
        (
            "momentum_deceleration_rate = 1",
            "gestures.momentum_deceleration_rate: expected a number between 0 and 1 (exclusive), found 1"
        ),
        ("animation_frame_rate_hz = 0", "gestures.animation_frame_rate_hz: expected a rate from 1 to 1000 Hz, found 0"),
        ("thumb_pressure = 2", "gestures.thumb_pressure: expected a number from 0 to 1, found 2"),
        ("rotation = 1", "gestures.rotation: expected true or false, found 1"),
        (
            "velocity_window_ms = 0",
            "gestures.velocity_window_ms: expected a positive duration of at most 86400000 ms (one day), found 0"
        ),
        (
            "tap_max_duration_ms = true",
            "gestures.tap_max_duration_ms: expected a positive duration of at most 86400000 ms (one day), found true"
        ),
        (
            "double_tap_interval_ms = 1e9",
            "gestures.double_tap_interval_ms: expected a duration from 0 to 86400000 ms (one day), found 1000000000"
        ),
        (
            "finger_churn_debounce_ms = -1",
            "gestures.finger_churn_debounce_ms: expected a duration from 0 to 86400000 ms (one day), found -1"
        ),
        (
            "single_tap_waits_for_double_tap = 1",
            "gestures.single_tap_waits_for_double_tap: expected true or false, found 1"
        ),
        (
            "min_scale = 0",
            "gestures.min_scale: expected a number > 0 and at most 1 (the identity transform must be in range), found 0"
        ),
    ])
    func badGestureValues(line: String, expected: String) {
        let found = issues("[gestures]\n\(line)\n")
        #expect(found.map(\.description) == ["test.toml:2: " + expected])
    }

    @Test func minimumScaleMustBeBelowMaximum() {
        let found = issues("[gestures]\nmin_scale = 1\nmax_scale = 1\n")
        #expect(
            found.map(\.description) == [
                "test.toml:2: gestures.min_scale: min_scale (1) must be less than max_scale (1)"
            ])
        let above = issues("[gestures]\nmin_scale = 2\nmax_scale = 3\n")
        #expect(above.map(\.keyPath) == ["gestures.min_scale"])
        #expect(above.first?.message.contains("at most 1") == true)
        // One problem, one message: the range says what is wrong, the comparison is skipped.
        let onlyMaximum = issues("[gestures]\nmax_scale = 0.01\n")
        #expect(onlyMaximum.map(\.keyPath) == ["gestures.max_scale"])
    }

    @Test func badSocketValues() {
        let found = issues(
            """
            [socket]
            path = "relative.sock"
            mode = "1777"
            group = "bad group"
            """)
        #expect(
            found.map(\.description) == [
                #"test.toml:2: socket.path: expected an absolute path, found "relative.sock""#,
                #"test.toml:3: socket.mode: expected a permission mode from "0000" to "0777", found "1777""#,
                #"test.toml:4: socket.group: expected a group name or number (or "" for the daemon's own group), found "bad group""#,
            ])
        let integerMode = issues("[socket]\nmode = 660\n")
        #expect(integerMode.map(\.message) == [#"expected an octal mode as a string such as "0660", found 660"#])
        let notOctal = issues("[socket]\nmode = \"0680\"\n")
        #expect(notOctal.map(\.keyPath) == ["socket.mode"])
        let long = issues("[socket]\npath = \"/\(String(repeating: "a", count: 120))\"\n")
        #expect(long.map(\.message) == ["is 121 bytes long; a Unix socket path holds at most 107"])
    }

    @Test func badRuleValuesNameTheRule() {
        let found = issues(
            """
            [[devices.rule]]
            action = "include"

            [[devices.rule]]
            action = "maybe"
            class = "keyboard"
            name = ""
            output = { width = 1920, height = 1080, rotation = 45 }
            """)
        #expect(
            found.map(\.description) == [
                "test.toml:5: devices.rule[2].action: expected include or exclude, found \"maybe\"",
                "test.toml:6: devices.rule[2].class: expected touchscreen or touchpad, found \"keyboard\"",
                "test.toml:7: devices.rule[2].name: expected a non-empty glob pattern, found \"\"",
                "test.toml:8: devices.rule[2].output.rotation: expected 0, 90, 180 or 270, found 45",
            ])
    }

    @Test(arguments: [
        ("[1, 0, 0, 0, 1]", "[1, 0, 0, 0, 1]"),
        ("[1, 0, 0, 0, 1, nan]", "[1, 0, 0, 0, 1, nan]"),
        (#"[1, 0, 0, 0, 1, "0"]"#, #"[1, 0, 0, 0, 1, "0"]"#),
        ("\"identity\"", "\"identity\""),
    ])
    func calibrationNeedsSixFiniteNumbers(value: String, shown: String) {
        let found = issues("[[devices.rule]]\noutput = { width = 10, height = 10, calibration = \(value) }\n")
        #expect(
            found.map(\.description) == [
                "test.toml:2: devices.rule[1].output.calibration: expected 6 finite numbers (the top two rows of "
                    + "libinput's calibration matrix), found \(shown)"
            ])
    }

    @Test func outputNeedsPositiveSize() {
        let found = issues("[[devices.rule]]\noutput = { height = -5 }\n")
        #expect(
            found.map(\.description) == [
                "test.toml:2: devices.rule[1].output.width: is required",
                "test.toml:2: devices.rule[1].output.height: expected a positive number, found -5",
            ])
    }

    @Test func sizeNeedsTwoPositiveNumbers() {
        for value in ["[10]", "[10, 0]", "[10, 20, 30]", "10"] {
            let found = issues("[[devices.rule]]\nsize_mm = \(value)\n")
            #expect(found.map(\.keyPath) == ["devices.rule[1].size_mm"])
        }
    }

    @Test func optionsThatCannotTakeEffectAreErrors() {
        let exclude = issues("[[devices.rule]]\naction = \"exclude\"\ngrab = true\nsize_mm = [1, 2]\n")
        #expect(exclude.map(\.keyPath) == ["devices.rule[1].grab", "devices.rule[1].size_mm"])
        #expect(exclude.first?.message == "has no effect in a rule with action = \"exclude\"")
        let touchpad = issues("[[devices.rule]]\nclass = \"touchpad\"\noutput = { width = 1, height = 1 }\n")
        #expect(
            touchpad.map(\.description) == [
                "test.toml:3: devices.rule[1].output: applies to touchscreens only; this rule matches class = \"touchpad\""
            ])
    }

    @Test func unknownKeysAtEveryLevel() {
        let found = issues(
            """
            colour = "red"
            [socket]
            pathh = "/x"
            [gestures]
            pan_slop = 2
            [[devices.rule]]
            output = { width = 1, height = 1, rotate = 90 }
            [log]
            verbosity = "debug"
            """)
        #expect(
            found.map(\.keyPath) == [
                "colour", "socket.pathh", "gestures.pan_slop", "devices.rule[1].output.rotate", "log.verbosity",
            ])
        #expect(found.map(\.line) == [1, 3, 5, 7, 9])
        #expect(found[1].message.hasPrefix("unknown key (did you mean path?)"))
        #expect(found[2].message.hasPrefix("unknown key (did you mean pan_slop_mm?)"))
        #expect(found[3].message.hasPrefix("unknown key (did you mean rotation?)"))
        #expect(found[4].message == "unknown key; known keys here: level")
    }

    @Test func wrongShapes() {
        let found = issues(
            """
            socket = 5
            [devices]
            rule = "all"
            [clients]
            max_clients = 0
            soft_queue_limit = 2.5
            [log]
            level = "loud"
            """)
        #expect(
            found.map(\.description) == [
                "test.toml:1: socket: expected a table, found 5",
                "test.toml:3: devices.rule: expected an array of tables ([[devices.rule]]), found \"all\"",
                "test.toml:5: clients.max_clients: expected an integer of at least 1, found 0",
                "test.toml:6: clients.soft_queue_limit: expected an integer of at least 1, found 2.5",
                "test.toml:8: log.level: expected one of trace, debug, info, notice, warning, error, critical, found \"loud\"",
            ])
    }

    /// All problems come back at once, in file order, however the TOML library orders keys.
    @Test func collectsEveryErrorInFileOrder() {
        let found = issues(
            """
            [gestures]
            velocity_window_ms = -1
            pan_slop_mm = "x"
            [clients]
            max_line_bytes = 1
            [socket]
            mode = "9"
            """)
        #expect(
            found.map(\.keyPath) == [
                "gestures.velocity_window_ms", "gestures.pan_slop_mm", "clients.max_line_bytes", "socket.mode",
            ])
        #expect(found.map(\.line) == [2, 3, 5, 7])
    }

    @Test func syntaxErrorHasLineAndColumn() {
        let found = issues("[gestures]\npan_slop_mm = = 2\n")
        #expect(found.count == 1)
        #expect(found.first?.line == 2)
        #expect(found.first?.column != nil)
        #expect(found.first?.message.hasPrefix("TOML syntax error: ") == true)
        #expect(found.first?.description.hasPrefix("test.toml:2:") == true)
    }

    @Test func duplicateKeysAreSyntaxErrors() {
        let found = issues("[gestures]\npan_slop_mm = 1\npan_slop_mm = 2\n")
        #expect(found.first?.line == 3)
    }

    /// Inputs that made TOMLKit's toml++ abort (assertion at toml.hpp:15481, exit 134): each is now a
    /// syntax error with its line and column.
    @Test(arguments: [
        ("[+a]\n", 1, 2), ("[socket]\n[\u{01}]\n", 2, 2), ("\n\n[[+a]]\n", 3, 3), ("[gestures.+x]\n", 1, 11),
        ("a.\u{7F} = 1\n", 1, 3),
    ])
    func inputsThatAbortedTOMLKitAreSyntaxErrors(text: String, line: Int, column: Int) {
        let found = issues(text)
        #expect(found.count == 1)
        #expect(found.first?.line == line)
        #expect(found.first?.column == column)
        #expect(found.first?.message.hasPrefix("TOML syntax error: expected a key") == true)
    }

    /// Tables a dotted header or a dotted key creates implicitly have the line that created them, so an
    /// unknown table is reported where it is written.
    @Test func implicitTablesReportTheirLine() {
        let header = issues("# comment\n\n[gestures.tap.extra]\nx = 1\n")
        #expect(header.map(\.keyPath) == ["gestures.tap"])
        #expect(header.first?.line == 3)
        let dotted = issues("[socket]\nmode = \"0660\"\n\nclients.limit.soft = 3\n")
        #expect(dotted.map(\.keyPath) == ["socket.clients"])
        #expect(dotted.first?.line == 4)
        let root = issues("\nlog.level.x = 1\n")
        #expect(root.map(\.keyPath) == ["log.level"])
        #expect(root.first?.line == 2)
    }

    @Test func missingFileNamesTheFileAndReason() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "multitouchd-no-such-\(UUID().uuidString).toml"
        )
        .path
        do {
            _ = try DaemonConfiguration.load(path: path)
            Issue.record("loading a missing file succeeded")
        } catch {
            #expect(error.description == "\(path): cannot open: No such file or directory")
        }
        let check = ConfigurationCheck.run(path: path)
        #expect(!check.ok)
        #expect(check.report == "\(path): 1 problem found\n\(path): cannot open: No such file or directory")
    }

    @Test func loadReadsAFileAndNamesItInErrors() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "multitouchd-config-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let good = directory.appendingPathComponent("good.toml").path
        try "[log]\nlevel = \"error\"\n".write(toFile: good, atomically: true, encoding: .utf8)
        #expect(try DaemonConfiguration.load(path: good).logLevel == .error)

        let bad = directory.appendingPathComponent("bad.toml").path
        try "[log]\nlevel = 3\n[gestures]\nmax_scale = -1\n".write(toFile: bad, atomically: true, encoding: .utf8)
        let check = ConfigurationCheck.run(path: bad)
        #expect(!check.ok)
        #expect(
            check.report == """
                \(bad): 2 problems found
                \(bad):2: log.level: expected one of trace, debug, info, notice, warning, error, critical, found 3
                \(bad):4: gestures.max_scale: expected a number >= 1 (the identity transform must be in range), found -1
                """)

        let binary = directory.appendingPathComponent("binary.toml").path
        try Data([0x61, 0x20, 0x3D, 0x20, 0xFF, 0xFE]).write(to: URL(fileURLWithPath: binary))
        #expect(ConfigurationCheck.run(path: binary).report.contains("not valid UTF-8"))
    }

    @Test func summaryDescribesRules() throws {
        let configuration = try DaemonConfiguration.parse(
            text: """
                [gestures]
                pan_slop_mm = 4
                [[devices.rule]]
                action = "exclude"
                [[devices.rule]]
                name = "ELAN*"
                grab = true
                output = { width = 1920, height = 1080, rotation = 90 }
                """)
        let summary = ConfigurationCheck.summary(of: configuration)
        #expect(summary.contains("rule[1]: exclude, every device"))
        #expect(summary.contains("rule[2]: include, name \"ELAN*\", grab, output 1920x1080 rotated 90"))
        #expect(summary.contains("gestures: changed pan_slop_mm"))
    }

    @Test func locatorFindsNestedKeys() {
        let locator = KeyLocator(
            text: """
                # comment = 1
                [a]
                x = 1
                [[b.c]]
                y = 2
                [[b.c]]
                "y" = 3
                z = { w = 1 }
                """)
        #expect(locator.line(for: "a.x") == 3)
        #expect(locator.line(for: "b.c[1].y") == 5)
        #expect(locator.line(for: "b.c[2].y") == 7)
        #expect(locator.line(for: "b.c[2].z.w") == 8)
        #expect(locator.line(for: "b.c[2].missing") == 6)
        #expect(locator.line(for: "comment") == nil)
    }
}
