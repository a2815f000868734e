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

    /// One response: status, content type and body.
    struct Response {
        var status: HTTPResponseStatus
        var contentType: String
        var body: [UInt8]

        static func text(_ status: HTTPResponseStatus, _ message: String) -> Response {
            Response(status: status, contentType: "text/plain; charset=utf-8", body: Array((message + "\n").utf8))
        }
    }

    /// The response to a request head (pure: the routing table, tested directly).
    static func response(to head: HTTPRequestHead, policy: OriginPolicy) -> Response {
        let path = path(of: head.uri)
        if path == webSocketPath {
            switch policy.decide(host: head.headers.first(name: "host"), origin: head.headers.first(name: "origin")) {
            case .refuse(let reason):
                return .text(.forbidden, "multitouchctl bridge: WebSocket refused: \(reason)")
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
        return Response(status: .ok, contentType: asset.contentType, body: asset.bytes)
    }

    /// Answers every request on one keep-alive connection, then closes it.
    static func serve(
        _ channel: NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>, policy: OriginPolicy
    ) async throws {
        try await channel.executeThenClose { inbound, outbound in
            for try await part in inbound {
                guard case .head(let head) = part else { continue }  // bodies are ignored: nothing takes one
                let response = response(to: head, policy: policy)
                var headers = HTTPHeaders()
                headers.add(name: "Content-Type", value: response.contentType)
                headers.add(name: "Content-Length", value: String(response.body.count))
                headers.add(name: "Cache-Control", value: "no-store")
                headers.add(name: "X-Content-Type-Options", value: "nosniff")
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
