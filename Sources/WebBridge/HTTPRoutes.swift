import NIOCore
import NIOHTTP1
import WebAssets

/// The HTTP side of the bridge: the embedded pages (clients/js) for GET and HEAD, and a plain-text
/// answer for everything else, including a WebSocket request that was not upgraded and why.
enum HTTPRoutes {
    /// Where browsers open the WebSocket.
    static let webSocketPath = "/ws"

    /// The path of a request target, without query or fragment.
    static func path(of uri: String) -> Substring {
        uri.prefix { $0 != "?" && $0 != "#" }
    }

    /// One response: status, content type, body and extra headers.
    struct Response {
        var status: HTTPResponseStatus
        var contentType: String
        var body: [UInt8]
        var headers: [(name: String, value: String)] = []

        static func text(_ status: HTTPResponseStatus, _ message: String) -> Response {
            Response(status: status, contentType: "text/plain; charset=utf-8", body: Array((message + "\n").utf8))
        }
    }

    /// The response to a request head (pure: the routing table, tested directly). `port` is the
    /// bridge's.
    static func response(to head: HTTPRequestHead, configuration: BridgeConfiguration, port: Int) -> Response {
        let path = path(of: head.uri)
        let carried = BridgeToken.carried(uri: head.uri)
        let admitted = configuration.token.matches(carried)
        if path == webSocketPath {
            switch configuration.originPolicy.decide(
                host: head.headers.first(name: "host"), origin: head.headers.first(name: "origin"))
            {
            case .refuse(let reason):
                return .text(.forbidden, "multitouchctl bridge: WebSocket refused: \(reason)")
            case .accept where carried == nil:
                return .text(
                    .unauthorized,
                    "multitouchctl bridge: WebSocket refused: no token. Open the URL the bridge printed (it ends in ?token=...), or add ?token= from the bridge's --token-file"
                )
            case .accept where !admitted:
                return .text(
                    .forbidden,
                    "multitouchctl bridge: WebSocket refused: wrong token. Open the URL the bridge printed (a restarted bridge has a new token unless it reads --token-file)"
                )
            case .accept:
                return .text(
                    .upgradeRequired,
                    "multitouchctl bridge: \(webSocketPath) is a WebSocket (send Connection: Upgrade, Upgrade: websocket)"
                )
            }
        }
        guard head.method == .GET || head.method == .HEAD else {
            return .text(.methodNotAllowed, "multitouchctl bridge: only GET and HEAD are served")
        }
        guard let asset = WebAssets.all[String(path)] else {
            let known = WebAssets.all.keys.sorted().joined(separator: ", ")
            return .text(
                .notFound, "multitouchctl bridge: no page at \(path); pages: \(known), WebSocket: \(webSocketPath)")
        }
        var response = Response(status: .ok, contentType: asset.contentType, body: asset.bytes)
        // The pages are public (the same files as clients/js) and set no cookie: the token stays in
        // the page's URL, which the page's script forwards to /ws. No Referer carries that URL to
        // another site a page may link to.
        response.headers.append(("Referrer-Policy", "no-referrer"))
        return response
    }

    /// Answers every request on one keep-alive connection, then closes it.
    static func serve(
        _ channel: NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>, configuration: BridgeConfiguration
    ) async throws {
        let port = channel.channel.localAddress?.port ?? 0
        try await channel.executeThenClose { inbound, outbound in
            for try await part in inbound {
                guard case .head(let head) = part else { continue }  // bodies are ignored: nothing takes one
                let response = response(to: head, configuration: configuration, port: port)
                var headers = HTTPHeaders()
                headers.add(name: "Content-Type", value: response.contentType)
                headers.add(name: "Content-Length", value: String(response.body.count))
                headers.add(name: "Cache-Control", value: "no-store")
                headers.add(name: "X-Content-Type-Options", value: "nosniff")
                for (name, value) in response.headers { headers.add(name: name, value: value) }
                // A refused or malformed WebSocket request ends the connection: the client expected a socket.
                let keepAlive = head.isKeepAlive && path(of: head.uri) != webSocketPath
                if !keepAlive { headers.add(name: "Connection", value: "close") }
                try await outbound.write(
                    .head(HTTPResponseHead(version: head.version, status: response.status, headers: headers)))
                if head.method != .HEAD {
                    try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: response.body))))
                }
                try await outbound.write(.end(nil))
                if !keepAlive { return }
            }
        }
    }
}
