import MultitouchCore
import SystemCalls
import TouchVocabulary

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
    public static func parse(
        text: String, source: String = "<string>"
    ) throws(ConfigurationError) -> DaemonConfiguration {
        let document: TOMLDocument
        do {
            document = try TOMLParser.parse(text)
        } catch {
            throw ConfigurationError(issues: [
                ConfigurationIssue(
                    source: source, line: error.line, column: error.column, keyPath: "",
                    message: "TOML syntax error: \(error.message)")
            ])
        }
        var parser = ConfigurationParser(source: source, locator: KeyLocator(lines: document.keyLines))
        let configuration = parser.parse(document.root)
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

/// Most bytes a configuration file may have. The shipped file is about 7 KiB; parsing runs on the
/// daemon's loop at SIGHUP, and 32 KiB of device rules parse and validate in about 5 ms (64 KiB took
/// 10 ms; a 16 MiB file once held the loop 3.7 s, issue 19), so anything larger is refused before it
/// is read.
public let maximumConfigurationBytes = 32 * 1024

/// Reads a whole UTF-8 text file with plain POSIX calls so the error can name the errno. The file is
/// opened non-blocking (a FIFO must not hold the loop in open(2) waiting for a writer) and refused
/// unless fstat says it is a regular file of at most `maximumConfigurationBytes`.
func readTextFile(_ path: String) -> Result<String, FileReadProblem> {
    let fd: Int32
    do {
        fd = try Sys.open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
    } catch {
        return .failure(FileReadProblem(message: "cannot open: \(error.reason)"))
    }
    defer { Sys.close(fd) }
    let status: stat
    do {
        status = try Sys.fstat(fd, path)
    } catch {
        return .failure(FileReadProblem(message: "cannot stat: \(error.reason)"))
    }
    guard status.st_mode & S_IFMT == S_IFREG else {
        return .failure(FileReadProblem(message: "not a regular file (a FIFO, device or directory is refused)"))
    }
    guard status.st_size <= maximumConfigurationBytes else {
        return .failure(
            FileReadProblem(
                message:
                    "file has \(status.st_size) bytes, more than the \(maximumConfigurationBytes / 1024) KiB a configuration may have"
            ))
    }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
        let count: Int
        do {
            count = try Sys.read(fd, into: &chunk)
        } catch {
            return .failure(FileReadProblem(message: "cannot read: \(error.reason)"))
        }
        if count == 0 { break }
        bytes.append(contentsOf: chunk[0..<count])
        // The file grew after fstat.
        if bytes.count > maximumConfigurationBytes {
            return .failure(
                FileReadProblem(
                    message: "file is larger than the \(maximumConfigurationBytes / 1024) KiB a configuration may have")
            )
        }
    }
    guard let text = String(validating: bytes, as: UTF8.self) else {
        return .failure(FileReadProblem(message: "file is not valid UTF-8 (TOML requires UTF-8)"))
    }
    return .success(text)
}

/// Finds the line of a key path for error messages, from the lines the TOML parser recorded
/// (`TOMLDocument.keyLines`): every key, table header, implicitly created table and array element.
struct KeyLocator {
    private var lines: [String: Int]

    init(lines: [String: Int]) {
        self.lines = lines
    }

    /// The lines of a TOML text; none when the text does not parse.
    init(text: String) {
        lines = (try? TOMLParser.parse(text).keyLines) ?? [:]
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
