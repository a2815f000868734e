/// Which browser pages may open a WebSocket to the bridge: the answer to cross-site WebSocket hijacking
/// and DNS rebinding.
///
/// WebSockets are not bound by the same-origin policy: any web page a person visits could try
/// `new WebSocket("ws://127.0.0.1:PORT/ws")` and read their touches or reset their transform. Browsers
/// always send the page's `Origin`, so the bridge accepts an upgrade only when
/// - there is no `Origin` (not a browser: a local program, which could reach the bridge anyway), or
/// - the origin is a page served from this machine (`http(s)://localhost|127.x.x.x|[::1][:port]`,
///   the bridge's own pages among them), or
/// - the origin is listed with `--allow-origin` (a kiosk app served from elsewhere; `null` for pages
///   opened from `file://`).
///
/// A bridge listening on loopback also requires a loopback `Host` header, so a page on a name that
/// an attacker's DNS later points at 127.0.0.1 (DNS rebinding) is refused too.
public struct OriginPolicy: Sendable, Equatable {
    /// Origins accepted besides loopback ones, exactly as browsers send them (`https://kiosk.example`).
    public var allowedOrigins: Set<String>
    /// Require a loopback `Host` header (on when the bridge listens on loopback).
    public var requireLoopbackHost: Bool

    /// The policy's answer for one upgrade request.
    public enum Decision: Sendable, Equatable {
        /// Upgrade the connection.
        case accept
        /// Answer 403 with this reason.
        case refuse(String)
    }

    /// A policy; `allowedOrigins` are compared after dropping a trailing `/`.
    public init(allowedOrigins: [String] = [], requireLoopbackHost: Bool = true) {
        self.allowedOrigins = Set(allowedOrigins.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 })
        self.requireLoopbackHost = requireLoopbackHost
    }

    /// Decides on the request's `Host` and `Origin` header values (nil when absent).
    public func decide(host: String?, origin: String?) -> Decision {
        if requireLoopbackHost {
            guard let host, Self.isLoopbackAuthority(host) else {
                return .refuse(
                    "Host \(host.map { "'\($0)'" } ?? "(none)") is not loopback; a loopback bridge needs a loopback Host"
                )
            }
        }
        guard let origin else { return .accept }
        if allowedOrigins.contains(origin) { return .accept }
        for scheme in ["http://", "https://"] where origin.hasPrefix(scheme) {
            if Self.isLoopbackAuthority(String(origin.dropFirst(scheme.count))) { return .accept }
        }
        return .refuse("origin refused; the bridge needs --allow-origin \(origin)")
    }

    /// True for `localhost`, `127.x.x.x` or `[::1]`, each with an optional `:port` and nothing else.
    static func isLoopbackAuthority(_ authority: String) -> Bool {
        var hostPart = Substring(authority)
        if hostPart.hasPrefix("[") {
            guard let close = hostPart.firstIndex(of: "]") else { return false }
            let rest = hostPart[hostPart.index(after: close)...]
            guard rest.isEmpty || (rest.hasPrefix(":") && Int(rest.dropFirst()) != nil) else { return false }
            return hostPart[hostPart.index(after: hostPart.startIndex)..<close] == "::1"
        }
        if let colon = hostPart.lastIndex(of: ":") {
            guard Int(hostPart[hostPart.index(after: colon)...]) != nil else { return false }
            hostPart = hostPart[..<colon]
        }
        if hostPart.lowercased() == "localhost" { return true }
        return ListenAddress.ipv4Octets(String(hostPart)).map { $0[0] == 127 } ?? false
    }
}
