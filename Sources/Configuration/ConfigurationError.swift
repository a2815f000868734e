/// One problem found in a configuration file: where it is and what is wrong with it.
public struct ConfigurationIssue: Hashable, Sendable, CustomStringConvertible {
    /// The file name (or another label for the text, such as "<string>").
    public var source: String
    /// 1-based line of the key (or of the syntax error) when it could be located.
    public var line: Int?
    /// 1-based column, only known for syntax errors.
    public var column: Int?
    /// Dotted key path, array-of-table entries numbered from 1: `devices.rule[2].action`. Empty for a
    /// problem with the whole file (unreadable, syntax error).
    public var keyPath: String
    /// What is wrong, e.g. `expected a non-negative number, found "abc"`.
    public var message: String

    public init(source: String, line: Int? = nil, column: Int? = nil, keyPath: String, message: String) {
        self.source = source
        self.line = line
        self.column = column
        self.keyPath = keyPath
        self.message = message
    }

    /// `file:line:column: key.path: message`, the compiler-style form editors can jump to.
    public var description: String {
        var text = source
        if let line {
            text += ":\(line)"
            if let column { text += ":\(column)" }
        }
        text += ": "
        if !keyPath.isEmpty { text += keyPath + ": " }
        return text + message
    }
}

/// Everything wrong with a configuration file. Loading collects every problem before failing, so one
/// run of `multitouchd --check-config` lists them all.
public struct ConfigurationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The problems, in file order where lines are known.
    public var issues: [ConfigurationIssue]

    public init(issues: [ConfigurationIssue]) {
        self.issues = issues
    }

    /// One issue per line.
    public var description: String {
        issues.map(\.description).joined(separator: "\n")
    }
}
