import NIOHTTP1
import Testing

@testable import WebBridge

/// `--listen` parsing and the loopback rule, the origin policy, and the HTTP routing table.
@Suite("bridge addresses, origins and routes")
struct AddressAndOriginTests {
    @Test(arguments: [
        ("127.0.0.1:8080", "127.0.0.1", 8080, true),
        ("localhost:0", "127.0.0.1", 0, true),
        ("127.1.2.3:9", "127.1.2.3", 9, true),
        ("[::1]:8080", "::1", 8080, true),
        ("0.0.0.0:8080", "0.0.0.0", 8080, false),
        ("192.168.1.5:80", "192.168.1.5", 80, false),
        ("[::]:8080", "::", 8080, false),
    ])
    func parsesListenAddresses(text: String, host: String, port: Int, loopback: Bool) throws {
        let address = try ListenAddress(parsing: text)
        #expect(address.host == host)
        #expect(address.port == port)
        #expect(address.isLoopback == loopback)
    }

    @Test(arguments: [
        "8080", "127.0.0.1", "127.0.0.1:70000", "127.0.0.1:x", "example.com:80", "::1:80", "[::1]8080", ":80",
    ])
    func refusesBadListenAddresses(text: String) {
        #expect(throws: ListenAddress.ParseError.self) { try ListenAddress(parsing: text) }
    }

    @Test func bindRefusesANonLoopbackAddressWithoutTheFlag() async throws {
        let configuration = BridgeConfiguration(
            listen: try ListenAddress(parsing: "0.0.0.0:0"), socketPath: "/nonexistent")
        do {
            _ = try await WebBridge.bind(configuration)
            Issue.record("bind on 0.0.0.0 succeeded without allowRemote")
        } catch let error as BridgeError {
            #expect(error.description.contains("not a loopback address"))
            #expect(error.description.contains("--allow-remote"))
        }
    }

    @Test func originPolicyAcceptsLocalPagesAndProgramsOnly() {
        let policy = OriginPolicy(allowedOrigins: ["https://kiosk.example/"])
        let host = "127.0.0.1:8080"
        #expect(policy.decide(host: host, origin: nil) == .accept)  // not a browser
        #expect(policy.decide(host: host, origin: "http://127.0.0.1:8080") == .accept)  // our own pages
        #expect(policy.decide(host: host, origin: "http://localhost:3000") == .accept)
        #expect(policy.decide(host: host, origin: "http://[::1]:3000") == .accept)
        #expect(policy.decide(host: host, origin: "https://kiosk.example") == .accept)  // --allow-origin
        #expect(policy.decide(host: host, origin: "https://evil.example") != .accept)
        #expect(policy.decide(host: host, origin: "http://127.0.0.1.evil.example") != .accept)
        #expect(policy.decide(host: host, origin: "null") != .accept)  // file:// pages need --allow-origin null
        // DNS rebinding: a foreign name in Host, even from a "loopback" origin, is refused.
        #expect(policy.decide(host: "evil.example:8080", origin: nil) != .accept)
        #expect(policy.decide(host: nil, origin: nil) != .accept)
        let remote = OriginPolicy(requireLoopbackHost: false)
        #expect(remote.decide(host: "kiosk.lan:8080", origin: nil) == .accept)
    }

    @Test func routesServeTheEmbeddedPagesAndExplainTheRest() {
        let configuration = BridgeConfiguration(
            listen: try! ListenAddress(parsing: "127.0.0.1:1"), socketPath: "/nonexistent",
            token: try! BridgeToken("0123456789abcdefXYZ"))
        func get(
            _ uri: String, method: HTTPMethod = .GET, headers: [(String, String)] = [("Host", "127.0.0.1:1")]
        ) -> HTTPRoutes.Response {
            HTTPRoutes.response(
                to: HTTPRequestHead(version: .http1_1, method: method, uri: uri, headers: HTTPHeaders(headers)),
                configuration: configuration, port: 1)
        }
        let script = get("/multitouch.js?v=2")
        #expect(script.status == .ok)
        #expect(script.contentType.hasPrefix("text/javascript"))
        #expect(String(decoding: script.body, as: UTF8.self).contains("export class MultitouchClient"))
        for page in ["/", "/view.html", "/demo.html", "/view.js", "/map.svg"] {
            #expect(get(page).status == .ok, "\(page)")
            #expect(!get(page).body.isEmpty, "\(page)")
        }
        #expect(get("/nope").status == .notFound)
        #expect(String(decoding: get("/nope").body, as: UTF8.self).contains("/view.html"))
        #expect(get("/view.html", method: .POST).status == .methodNotAllowed)
        #expect(get("/ws?token=0123456789abcdefXYZ").status == .upgradeRequired)
        let refused = get(
            "/ws?token=0123456789abcdefXYZ", headers: [("Host", "127.0.0.1:1"), ("Origin", "https://evil.example")])
        #expect(refused.status == .forbidden)
        #expect(String(decoding: refused.body, as: UTF8.self).contains("--allow-origin https://evil.example"))
    }
}
