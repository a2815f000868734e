import ArgumentParser
import Configuration
import Glibc
import Logging
import MultitouchServer
import Recordings
import SystemCalls

/// `multitouchd`: the multitouch gesture daemon. Thin: parses options, loads the configuration and the
/// optional recording, then runs `Daemon`. A library, so that one binary can be both commands: the
/// `multitouchd` executable runs it, and so does `multitouchctl` when it is called by the name
/// `multitouchd` (the Debian package installs one binary under both names, issue 29 item 9).
public struct MultitouchDaemon: ParsableCommand {
    public static let version = "0.1.0"

    public static let configuration = CommandConfiguration(
        commandName: "multitouchd",
        abstract: "Serve multitouch touches and gestures to clients over a Unix socket.",
        discussion: """
            Reads touchscreens and touchpads (or, with --replay, a recording), recognizes pan, pinch, rotate, \
            taps and long presses, and streams them as JSON lines (docs/PROTOCOL.md). SIGHUP reloads the \
            configuration; SIGTERM/SIGINT cancel active touches and gestures and exit.
            """,
        version: version)

    @Option(name: .long, help: "Configuration file (default: \(DaemonConfiguration.defaultPathForCLI) when it exists).")
    var config: String?

    @Flag(
        name: .long,
        help:
            "Validate the configuration file, print what it sets (with who gets which rights) and exit: 0 valid, 78 not."
    )
    var checkConfig = false

    @Argument(help: "With --check-config: the file to validate (default: --config, else the default path).")
    var checkConfigFile: String?

    @Option(name: .long, help: "Listen on this socket path instead of the configured one.")
    var socket: String?

    @Option(name: .long, help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: String?

    @Option(name: .long, help: "Serve this recording (evemu or libinput record) as if it were a device.")
    var replay: String?

    @Option(name: .long, help: "Device description (.desc) for an events-only evemu recording.")
    var desc: String?

    @Flag(
        name: .long,
        help: "Start the recording over when it ends (with fresh device ids); its events must span some time.")
    var loop = false

    @Option(name: .long, help: "Replay speed factor from 0.001 to 1000 (2 plays twice as fast).")
    var speed: Double = 1

    @Option(
        name: .long,
        help: "Start the replay only once this many clients have subscribed (its devices are in the hello meanwhile).")
    var waitForSubscribers: Int = 0

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Start the replay only once regions with these ids (comma-separated) are declared on its devices by subscribed clients or the configuration.",
            valueName: "ids"))
    var waitForRegions: String?

    @Flag(name: .long, help: "Exit (status 0) once the replay has played through (not with --loop).")
    var exitWhenDone = false

    @Flag(name: .long, help: "Open no live devices (serve only the replay).")
    var noDevices = false

    public init() {}

    public func validate() throws {
        if let problem = ReplayOptions.speedProblem(speed) { throw ValidationError(problem) }
        guard waitForSubscribers >= 0 else { throw ValidationError("--wait-for-subscribers must be 0 or more") }
        if let logLevel, LogLevel(rawValue: logLevel) == nil {
            throw ValidationError(
                "unknown --log-level \(logLevel); use one of \(LogLevel.allCases.map(\.rawValue).joined(separator: ", "))"
            )
        }
        if desc != nil && replay == nil { throw ValidationError("--desc needs --replay") }
        if waitForRegions != nil || exitWhenDone || waitForSubscribers > 0, replay == nil {
            throw ValidationError("--wait-for-subscribers, --wait-for-regions and --exit-when-done need --replay")
        }
        if exitWhenDone && loop {
            throw ValidationError("--exit-when-done ends the daemon after the replay; a --loop replay never ends")
        }
        if let waitForRegions {
            let ids = Self.regionIDs(waitForRegions)
            if ids.isEmpty || ids.contains(where: { $0.isEmpty || $0.utf8.count > 128 }) {
                throw ValidationError(
                    "--wait-for-regions \(waitForRegions): expected region ids (1...128 bytes each) separated by commas"
                )
            }
        }
        if checkConfigFile != nil && !checkConfig {
            throw ValidationError(
                "unexpected argument \(checkConfigFile ?? ""); a file argument goes with --check-config")
        }
    }

    /// `map,pin,qt` -> the ids, in order, duplicates dropped.
    static func regionIDs(_ text: String) -> [String] {
        var seen: Set<String> = []
        return text.split(separator: ",", omittingEmptySubsequences: false).map(String.init).filter {
            seen.insert($0).inserted
        }
    }

    public func run() throws {
        if checkConfig {
            let result = ConfigurationFile.check(path: checkConfigFile ?? config)
            print(result.report)
            throw ExitCode(result.ok ? 0 : 78)  // EX_CONFIG, as a start with this file exits
        }

        var configuration: DaemonConfiguration
        do {
            configuration = try ConfigurationFile.load(path: config)
        } catch {
            printError("multitouchd: \(error)")
            throw ExitCode(78)  // EX_CONFIG (sysexits.h): systemd shows it as a configuration problem
        }
        if let socket { configuration.socket.path = socket }
        if let logLevel, let level = LogLevel(rawValue: logLevel) { configuration.logLevel = level }

        // Under systemd stderr is the journal: priorities as <N> prefixes and no second timestamp.
        let journal = JournalLogHandler.stderrIsJournal
        LoggingSystem.bootstrap { label in
            if journal { return JournalLogHandler(logLevel: .trace, label: label) }
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .trace
            return handler
        }
        var logger = Logger(label: "multitouchd")
        logger.logLevel = Logger.Level(configuration.logLevel)

        // The accounts the configuration names, as --check-config sees them: a required socket group
        // that does not exist is a configuration problem (EX_CONFIG), the rest are warnings.
        for finding in ConfigurationCheck.accountFindings(configuration, accounts: ConfigurationFile.systemAccounts) {
            let metadata: Logger.Metadata = ["config.key": "\(finding.keyPath)", "problem": "\(finding.message)"]
            if finding.stopsStart {
                logger.critical("config: cannot start with this configuration", metadata: metadata)
                printError("multitouchd: \(finding.keyPath): \(finding.message)")
                throw ExitCode(78)  // EX_CONFIG
            }
            // The socket's own warning comes from the socket when it binds; the grants' only from here.
            if finding.keyPath.hasPrefix("access.") {
                logger.warning("config: an access grant names an account that does not exist", metadata: metadata)
            }
        }

        var replayOptions: ReplayOptions?
        if let replay {
            do {
                let recording = try RecordingReader.read(path: replay, descriptionPath: desc)
                replayOptions = ReplayOptions(
                    recording: recording, source: replay.split(separator: "/").last.map(String.init) ?? replay,
                    path: replay, loop: loop, speed: speed, waitForSubscribers: waitForSubscribers,
                    waitForRegions: waitForRegions.map(Self.regionIDs) ?? [], exitWhenDone: exitWhenDone)
            } catch {
                printError("multitouchd: cannot replay: \(error)")
                throw ExitCode(66)  // EX_NOINPUT
            }
            if let problem = replayOptions?.problem {
                printError("multitouchd: cannot replay: \(problem)")
                throw ExitCode.validationFailure
            }
        }

        let reloadPath = ConfigurationFile.effectivePath(config)
        let socketOverride = socket
        let levelOverride = logLevel.flatMap(LogLevel.init(rawValue:))
        var reload: (@Sendable () throws -> DaemonConfiguration)?
        if let reloadPath {
            reload = { @Sendable () throws -> DaemonConfiguration in
                var fresh = try ConfigurationFile.load(path: reloadPath)
                if let socketOverride { fresh.socket.path = socketOverride }
                if let levelOverride { fresh.logLevel = levelOverride }
                return fresh
            }
        }
        let options = DaemonOptions(
            configuration: configuration, reloadConfiguration: reload, replay: replayOptions,
            noDevices: noDevices, daemonVersion: "multitouchd \(MultitouchDaemon.version)")
        do {
            let daemon = try Daemon(options: options, logger: logger)
            let status = try daemon.run()
            throw ExitCode(status)
        } catch let error as ListenError {
            logger.critical("socket: cannot listen", metadata: ["error": "\(error)"])
            printError("multitouchd: \(error)")
            throw ExitCode(1)
        } catch let error as SystemError {
            printError("multitouchd: \(error)")
            throw ExitCode(1)
        }
    }
}

func printError(_ text: String) {
    var bytes = Array(text.utf8)
    bytes.append(0x0A)
    _ = bytes.withUnsafeBytes { try? Sys.write(2, $0, "stderr") }
}
