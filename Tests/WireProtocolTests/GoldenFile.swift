import Glibc
import Testing

/// Paths relative to the repository (tests run from anywhere).
enum URLPath {
    /// The repository root: this file is Tests/WireProtocolTests/GoldenFile.swift.
    static let repositoryRoot: String = {
        var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        return parts.joined(separator: "/")
    }()
}

/// Reads and checks golden files. `MULTITOUCHD_UPDATE_GOLDEN=1 swift test --filter golden` rewrites
/// them from the encoder (review the diff before committing it).
enum GoldenFile {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func read(_ path: String) throws -> String {
        guard let file = fopen(path, "rb") else { throw Failure(description: "cannot open \(path)") }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = fread(&chunk, 1, chunk.count, file)
            if n == 0 { break }
            bytes.append(contentsOf: chunk[0..<n])
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func write(_ path: String, _ text: String) throws {
        guard let file = fopen(path, "wb") else { throw Failure(description: "cannot write \(path)") }
        defer { fclose(file) }
        let bytes = Array(text.utf8)
        guard fwrite(bytes, 1, bytes.count, file) == bytes.count else {
            throw Failure(description: "short write \(path)")
        }
    }

    static func lines(_ path: String) throws -> [String] {
        try read(path).split(separator: "\n").map(String.init)
    }

    static func list(_ directory: String) throws -> [String] {
        guard let dir = opendir(directory) else { throw Failure(description: "cannot list \(directory)") }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// Compares the file with `expected` (or rewrites it when MULTITOUCHD_UPDATE_GOLDEN=1).
    static func check(path: String, expected: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        if getenv("MULTITOUCHD_UPDATE_GOLDEN").map({ String(cString: $0) }) == "1" {
            try write(path, expected)
            return
        }
        let actual = try read(path)
        if actual != expected {
            Issue.record(
                "\(path) differs from what the encoder writes.\n--- file\n\(actual)--- encoder\n\(expected)",
                sourceLocation: sourceLocation)
        }
    }
}
