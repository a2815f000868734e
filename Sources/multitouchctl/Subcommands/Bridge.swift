import ArgumentParser
import MultitouchClient
import WebBridge

#if canImport(Glibc)
import Glibc
#endif

/// The listening options `bridge` and `view` share.
struct BridgeListenOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "Where browsers connect: HOST:PORT, e.g. 127.0.0.1:8080 (port 0: any free port).", valueName: "host:port"))
    var listen: String

    @Flag(
        name: .long,
        help: "Allow a non-loopback --listen address (anyone who reaches it can read touches and set transforms).")
    var allowRemote = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Also accept WebSockets from pages of this origin, e.g. https://kiosk.example (repeatable; 'null' for file:// pages).",
            valueName: "origin"))
    var allowOrigin: [String] = []

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Read the WebSocket token from this file (made, mode 0600, when missing; must be yours or root's, not writable by its group, not open to others). Default: a new random token each start, printed in the URL.",
            valueName: "path"))
    var tokenFile: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Browsers relayed at once; each uses one of your daemon connections (the daemon allows 16 per user).",
            valueName: "n"))
    var maxConnections = BridgeConfiguration.defaultMaximumBrowsers

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Close an HTTP connection silent this long; ping a silent WebSocket and close it after as long again.",
            valueName: "seconds"))
    var idleTimeout = 30

    func validate() throws {
        do {
            _ = try ListenAddress(parsing: listen)
        } catch {
            throw ValidationError("\(error)")
        }
        guard maxConnections >= 1 else { throw ValidationError("--max-connections must be at least 1") }
        guard idleTimeout >= 1 else { throw ValidationError("--idle-timeout must be at least 1 second") }
    }

    /// The bridge configuration for these options and the daemon socket `socketPath`.
    func configuration(socketPath: String) throws -> BridgeConfiguration {
        BridgeConfiguration(
            listen: try ListenAddress(parsing: listen), socketPath: socketPath, allowRemote: allowRemote,
            allowedOrigins: allowOrigin, token: try tokenFile.map { try BridgeToken.load(path: $0) } ?? .random(),
            maximumBrowsers: maxConnections, idleTimeout: .seconds(Int64(idleTimeout)))
    }

    /// Binds, printing a clear error and failing for a refused or busy address.
    func bind(socketPath: String, command: String) async throws -> WebBridge {
        do {
            return try await WebBridge.bind(try configuration(socketPath: socketPath)) { line in printError(line) }
        } catch {
            printError("multitouchctl \(command): \(error)")
            throw ExitCode.failure
        }
    }
}

/// Prints one line to stdout at once (scripts and tests wait for the URL line).
func printNow(_ line: String) {
    var output = StandardOutput()
    output.write(line)
    output.flush()
}

/// `multitouchctl bridge`: a WebSocket bridge between browsers and the daemon's socket.
struct Bridge: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bridge",
        abstract: "Relay the daemon's protocol to browsers over WebSocket.",
        discussion: """
            Serves ws://HOST:PORT/ws: every browser connection gets its own connection to the daemon's socket, \
            each protocol line is one WebSocket text message and each text message one request (docs/PROTOCOL.md, \
            "WebSocket bridge"). Also serves the JavaScript client (/multitouch.js), the demo page \
            (/demo.html) and the live view (/view.html). Loopback only unless --allow-remote; WebSockets only \
            from pages served on this machine unless --allow-origin. A WebSocket needs the bridge's token (in the \
            printed URL, ?token=...; never a cookie, which every server of the host would get): TCP carries no user, so the token is what \
            keeps other local users out (--token-file to keep one across restarts). At most --max-connections \
            browsers at once, each on one of your daemon connections; silent connections are closed after \
            --idle-timeout.
            """)

    @OptionGroup var listenOptions: BridgeListenOptions

    @Option(name: .long, help: "The daemon's socket.")
    var socket: String = MultitouchClient.defaultSocketPath

    func run() async throws {
        let bridge = try await listenOptions.bind(socketPath: socket, command: "bridge")
        let token = "?token=\(bridge.configuration.token.value)"
        printNow(
            "multitouchctl bridge: http://\(bridge.address)/\(token) relaying ws://\(bridge.address)/ws\(token) to \(socket)"
        )
        printNow(
            "  demo: http://\(bridge.address)/demo.html\(token)  live view: http://\(bridge.address)/view.html\(token)")
        try await bridge.run()
    }
}
