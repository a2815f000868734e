// The one Swift file of this directory: it makes the browser files beside it a Swift module, so the
// bridge serves them from memory (SwiftPM's embedInCode) and an installed binary needs no data files.

/// A file the bridge serves: its URL path, media type and bytes.
public struct WebAsset: Sendable {
    /// The URL path, such as `/multitouch.js`.
    public let path: String
    /// The `Content-Type` header value.
    public let contentType: String
    /// The file's bytes, as committed in clients/js.
    public let bytes: [UInt8]
}

/// Every file the bridge serves, by URL path.
public enum WebAssets {
    /// The files, keyed by path; `/` serves the index page.
    public static let all: [String: WebAsset] = {
        let files = [
            WebAsset(path: "/index.html", contentType: "text/html; charset=utf-8", bytes: PackageResources.index_html),
            WebAsset(path: "/view.html", contentType: "text/html; charset=utf-8", bytes: PackageResources.view_html),
            WebAsset(path: "/view.js", contentType: "text/javascript; charset=utf-8", bytes: PackageResources.view_js),
            WebAsset(path: "/demo.html", contentType: "text/html; charset=utf-8", bytes: PackageResources.demo_html),
            WebAsset(
                path: "/multitouch.js", contentType: "text/javascript; charset=utf-8",
                bytes: PackageResources.multitouch_js),
            WebAsset(path: "/map.svg", contentType: "image/svg+xml", bytes: PackageResources.map_svg),
        ]
        var byPath: [String: WebAsset] = [:]
        for file in files { byPath[file.path] = file }
        byPath["/"] = byPath["/index.html"]
        return byPath
    }()
}
