#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Gestures
import MultitouchCore
import TOMLKit

extension DaemonConfiguration {
    /// Reads and validates a TOML configuration file (config/multitouchd.toml documents every key).
    /// Keys the file leaves out keep their built-in defaults.
    ///
    /// Blocking file I/O; call it from the daemon's start-up or reload path, not from the device loop.
    /// - Parameter path: the file to read.
    /// - Returns: the configuration.
    /// - Throws: `ConfigurationError` listing every problem found: an unreadable file, a TOML syntax
    ///   error, or each unknown key and bad value, named by key path with its line.
    public static func load(path: String) throws(ConfigurationError) -> DaemonConfiguration {
        let text: String
        switch readTextFile(path) {
        case .success(let contents): text = contents
        case .failure(let problem):
            throw ConfigurationError(issues: [ConfigurationIssue(source: path, keyPath: "", message: problem.message)])
        }
        return try parse(text: text, source: path)
    }

    /// Parses and validates TOML text.
    /// - Parameters:
    ///   - text: the TOML document.
    ///   - source: the name used in error messages (normally the file path).
    /// - Returns: the configuration; keys the text leaves out keep their defaults.
    /// - Throws: `ConfigurationError` with every problem found (see `load(path:)`).
    public static func parse(text: String, source: String = "<string>") throws(ConfigurationError) -> DaemonConfiguration {
        let root: TOMLTable
        do {
            root = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            throw ConfigurationError(issues: [
                ConfigurationIssue(
                    source: source, line: error.source.begin.line, column: error.source.begin.column, keyPath: "",
                    message: "TOML syntax error: \(error.description)")
            ])
        } catch {
            throw ConfigurationError(issues: [
                ConfigurationIssue(source: source, keyPath: "", message: "TOML syntax error: \(error)")
            ])
        }
        var parser = ConfigurationParser(source: source, locator: KeyLocator(text: text))
        let configuration = parser.parse(root)
        if !parser.issues.isEmpty {
            throw ConfigurationError(issues: parser.issues.sortedByLine())
        }
        return configuration
    }
}

extension [ConfigurationIssue] {
    /// Issues in file order; issues without a line keep their order and go last.
    fileprivate func sortedByLine() -> [ConfigurationIssue] {
        enumerated().sorted { a, b in
            switch (a.element.line, b.element.line) {
            case (let la?, let lb?): return la != lb ? la < lb : a.offset < b.offset
            case (.some, .none): return true
            case (.none, .some): return false
            case (.none, .none): return a.offset < b.offset
            }
        }.map(\.element)
    }
}

/// Why a file could not be read.
struct FileReadProblem: Error {
    var message: String
}

/// Reads a whole UTF-8 text file with plain POSIX calls so the error can name the errno.
func readTextFile(_ path: String) -> Result<String, FileReadProblem> {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else {
        return .failure(FileReadProblem(message: "cannot open: \(String(cString: strerror(errno)))"))
    }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
        let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if count < 0 {
            if errno == EINTR { continue }
            return .failure(FileReadProblem(message: "cannot read: \(String(cString: strerror(errno)))"))
        }
        if count == 0 { break }
        bytes.append(contentsOf: chunk[0..<count])
        // A configuration file is a few kilobytes; refuse something that is clearly not one.
        if bytes.count > 16 * 1024 * 1024 {
            return .failure(FileReadProblem(message: "file is larger than 16 MiB; is this a configuration file?"))
        }
    }
    guard let text = String(validating: bytes, as: UTF8.self) else {
        return .failure(FileReadProblem(message: "file is not valid UTF-8 (TOML requires UTF-8)"))
    }
    return .success(text)
}

/// Finds the line of a key path in TOML text, for error messages. TOMLKit reports positions only for
/// syntax errors, so this scans table headers and `key =` lines. It understands `[table]`,
/// `[[array.of.tables]]` (numbered from 1, like the key paths in messages), dotted keys and quoted
/// keys; a key inside an inline table resolves to the line of the inline table.
struct KeyLocator {
    private var lines: [String: Int] = [:]

    init(text: String) {
        var section = ""
        var arrayCounts: [String: Int] = [:]
        var lineNumber = 0
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lineNumber += 1
            let line = raw.drop { $0 == " " || $0 == "\t" }
            if line.hasPrefix("[[") {
                guard let end = line.range(of: "]]") else { continue }
                let name = KeyLocator.normalize(line[line.index(line.startIndex, offsetBy: 2)..<end.lowerBound])
                let count = (arrayCounts[name] ?? 0) + 1
                arrayCounts[name] = count
                section = "\(name)[\(count)]"
                record(section, lineNumber)
            } else if line.hasPrefix("[") {
                guard let end = line.firstIndex(of: "]") else { continue }
                section = KeyLocator.normalize(line[line.index(after: line.startIndex)..<end])
                record(section, lineNumber)
            } else if let first = line.first, first.isLetter || first.isNumber || first == "_" || first == "\"" || first == "'",
                let equals = line.firstIndex(of: "=")
            {
                let key = KeyLocator.normalize(line[..<equals])
                record(section.isEmpty ? key : "\(section).\(key)", lineNumber)
            }
        }
    }

    private mutating func record(_ path: String, _ line: Int) {
        if lines[path] == nil { lines[path] = line }
    }

    /// `a . "b" ` -> `a.b`.
    private static func normalize(_ key: Substring) -> String {
        key.split(separator: ".").map { part in
            part.trimmingCharacters(in: " \t").trimmingCharacters(in: "\"'")
        }.joined(separator: ".")
    }

    /// The line of `path`, else of its nearest enclosing key or table that appears in the text.
    func line(for path: String) -> Int? {
        var current = Substring(path)
        while !current.isEmpty {
            if let line = lines[String(current)] { return line }
            guard let cut = current.lastIndex(where: { $0 == "." || $0 == "[" }) else { return nil }
            current = current[..<cut]
        }
        return nil
    }
}

extension Substring {
    fileprivate func trimmingCharacters(in set: String) -> Substring {
        var result = self
        while let first = result.first, set.contains(first) { result = result.dropFirst() }
        while let last = result.last, set.contains(last) { result = result.dropLast() }
        return result
    }
}
