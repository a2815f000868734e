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

    func validate() throws {
        do {
            _ = try ListenAddress(parsing: listen)
        } catch {
            throw ValidationError("\(error)")
        }
    }

    /// The bridge configuration for these options and the daemon socket `socketPath`.
    func configuration(socketPath: String) throws -> BridgeConfiguration {
        BridgeConfiguration(
            listen: try ListenAddress(parsing: listen), socketPath: socketPath, allowRemote: allowRemote,
            allowedOrigins: allowOrigin)
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
            from pages served on this machine unless --allow-origin. Whoever can reach the port acts with the \
            bridge user's access to the socket, so run it as a member of the socket's group on a machine whose \
            users may all see the touches.
            """)

    @OptionGroup var listenOptions: BridgeListenOptions

    @Option(name: .long, help: "The daemon's socket.")
    var socket: String = MultitouchClient.defaultSocketPath

    func run() async throws {
        let bridge = try await listenOptions.bind(socketPath: socket, command: "bridge")
        printNow("multitouchctl bridge: http://\(bridge.address)/ relaying ws://\(bridge.address)/ws to \(socket)")
        printNow("  demo: http://\(bridge.address)/demo.html  live view: http://\(bridge.address)/view.html")
        try await bridge.run()
    }
}
