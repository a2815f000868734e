import Foundation

/// The sample recordings shipped with multitouchd: the checkout's tests/fixtures when run from a
/// checkout, else share/multitouchd/recordings beside the executable's bin directory (where `make
/// install` and the Debian package put them), so `bench` works from any directory.
enum BundledRecordings {
    /// Directories searched, in order.
    static var directories: [String] {
        var found = ["tests/fixtures"]
        if let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            let bin = (executable as NSString).deletingLastPathComponent
            let prefix = (bin as NSString).deletingLastPathComponent
            found.append(prefix + "/share/multitouchd/recordings")
        }
        found.append("/usr/share/multitouchd/recordings")
        return found
    }

    /// The first existing `name` in `directories`, or nil.
    static func path(_ name: String) -> String? {
        directories.map { $0 + "/" + name }.first { FileManager.default.fileExists(atPath: $0) }
    }
}
