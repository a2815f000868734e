/// A parsed TOML document: the root table, and the line where each key path is first defined.
struct TOMLDocument: Sendable {
    var root: TOMLTable
    /// Line of every key path, written the way configuration messages name them: dotted, with array
    /// elements numbered from 1 (`devices.rule[2].output.width`). Tables that a header or a dotted key
    /// creates implicitly (`a` and `a.b` for `[a.b.c]`) get the line that created them.
    var keyLines: [String: Int]
}

/// Reads TOML 1.0 (toml.io/en/v1.0.0) into a `TOMLDocument`, or reports the first syntax error with
/// its line and column. It never traps on any input: every malformed document is a `TOMLSyntaxError`,
/// and nesting is bounded (`maximumDepth`) so no document can exhaust the stack.
///
/// The scanner (`TOMLScanner`) reads the tokens; this type applies TOML's rules on defining tables:
/// a table is defined once, by a `[header]` or by dotted keys, but tables created implicitly along the
/// way may be defined later; inline tables and arrays are complete once written; `[[name]]` appends a
/// table to an array of tables, and headers below it extend that last table. The checks follow the
/// specification's examples and agree with Python's tomllib on every case the tests try.
struct TOMLParser {
    /// Deepest nesting of tables and arrays; far beyond any configuration, and a few kilobytes of stack.
    static let maximumDepth = 64

    private var scanner: TOMLScanner
    private let root = TableNode(path: "", depth: 0, line: 1)
    /// The table that key/value lines go into: the last header's, or the root.
    private var current: TableNode
    /// Tables that dotted keys created or extended since the last header: they close at the next one.
    private var dottedSinceHeader: [TableNode] = []
    private var keyLines: [String: Int] = [:]

    private init(text: String) {
        scanner = TOMLScanner(text: text)
        current = root
    }

    /// Parses `text`.
    /// - Throws: `TOMLSyntaxError` for the first thing that is not valid TOML 1.0.
    static func parse(_ text: String) throws(TOMLSyntaxError) -> TOMLDocument {
        var parser = TOMLParser(text: text)
        try parser.statements()
        return TOMLDocument(root: try parser.root.finished(), keyLines: parser.keyLines)
    }

    // MARK: statements

    private mutating func statements() throws(TOMLSyntaxError) {
        while true {
            scanner.skipWhitespace()
            guard let byte = scanner.peek() else { return }
            if byte == Ascii.newline {
                scanner.advance()
                continue
            }
            if Ascii.isBareKey(byte) || byte == Ascii.quote || byte == Ascii.apostrophe {
                try keyValue(into: current)
            } else if byte == Ascii.openBracket {
                try header()
            } else if byte != Ascii.hash {
                throw scanner.error("expected a key, a [table] header or a comment, found \(scanner.found)")
            }
            scanner.skipWhitespace()
            try scanner.skipComment()
            guard let end = scanner.peek() else { return }
            guard end == Ascii.newline else {
                throw scanner.error("expected the end of the line, found \(scanner.found)")
            }
            scanner.advance()
        }
    }

    /// `[a.b]` or `[[a.b]]`.
    private mutating func header() throws(TOMLSyntaxError) {
        for table in dottedSinceHeader { table.definedByHeader = true }
        dottedSinceHeader.removeAll()
        let line = scanner.line
        let isArray = scanner.peek(1) == Ascii.openBracket
        scanner.advance(by: isArray ? 2 : 1)
        scanner.skipWhitespace()
        let start = scanner.position
        let key = try scanner.key()
        let name = key.joined(separator: ".")
        guard scanner.peek() == Ascii.closeBracket, !isArray || scanner.peek(1) == Ascii.closeBracket else {
            throw scanner.error("expected '\(isArray ? "]]" : "]")' to close the header [\(isArray ? "[" : "")\(name)")
        }
        scanner.advance(by: isArray ? 2 : 1)

        var parent = root
        for part in key.dropLast() {
            switch parent.entries[part] {
            case nil:
                parent = try parent.addTable(part, line: line, start: start, scanner: scanner, lines: &keyLines)
            case .table(let table):
                parent = table
            case .tables(let array):
                // Headers below [[a]] extend the last table of the array (TOML 1.0 "Array of Tables").
                parent = array.elements[array.elements.count - 1]
            case .value(let value, let valueLine):
                throw error(
                    at: start,
                    "cannot define [\(name)]: \(quoted(part)) is \(kind(value)) (line \(valueLine)), not a table")
            }
        }
        let last = key[key.count - 1]
        if isArray {
            let array: TableArray
            switch parent.entries[last] {
            case nil:
                array = TableArray(path: join(parent.path, last), line: line)
                record(array.path, line)
                parent.add(last, .tables(array))
            case .tables(let existing):
                array = existing
            case .table(let table):
                throw error(
                    at: start, "cannot define [[\(name)]]: it is a table (line \(table.line)), not an array of tables")
            case .value(let value, let valueLine):
                throw error(
                    at: start,
                    "cannot define [[\(name)]]: it is \(kind(value)) (line \(valueLine)); only arrays made with [[...]] can be extended"
                )
            }
            let element = TableNode(
                path: "\(array.path)[\(array.elements.count + 1)]", depth: parent.depth + 1, line: line)
            try checkDepth(element.depth, at: start)
            element.definedByHeader = true
            record(element.path, line)
            array.elements.append(element)
            current = element
        } else {
            let table: TableNode
            switch parent.entries[last] {
            case nil:
                table = try parent.addTable(last, line: line, start: start, scanner: scanner, lines: &keyLines)
            case .table(let existing):
                guard !existing.definedByHeader else {
                    throw error(
                        at: start,
                        "table [\(name)] is already defined (line \(existing.line)); a table is defined only once")
                }
                table = existing
            case .tables(let array):
                throw error(
                    at: start, "cannot define [\(name)]: it is an array of tables ([[\(name)]] at line \(array.line))")
            case .value(let value, let valueLine):
                throw error(at: start, "cannot define [\(name)]: it is already \(kind(value)) (line \(valueLine))")
            }
            table.definedByHeader = true
            current = table
        }
    }

    /// `key = value` into `table` (the current section's table).
    private mutating func keyValue(into table: TableNode) throws(TOMLSyntaxError) {
        let (key, line, start) = try keyAndEquals()
        var parent = table
        for part in key.dropLast() {
            switch parent.entries[part] {
            case nil:
                parent = try parent.addTable(part, line: line, start: start, scanner: scanner, lines: &keyLines)
            case .table(let existing):
                // Dotted keys may extend a table other dotted keys made in this section, or one that was
                // only created implicitly, but not one a header defined (TOML 1.0 "Table").
                guard !existing.definedByHeader else {
                    throw error(
                        at: start,
                        "cannot add \(key.joined(separator: ".")) with a dotted key: \(quoted(part)) is a table defined at line \(existing.line)"
                    )
                }
                parent = existing
            case .tables(let array):
                throw error(
                    at: start,
                    "cannot add \(key.joined(separator: ".")) with a dotted key: \(quoted(part)) is an array of tables (line \(array.line))"
                )
            case .value(let value, let valueLine):
                throw error(
                    at: start,
                    "cannot add \(key.joined(separator: ".")): \(quoted(part)) is already \(kind(value)) (line \(valueLine))"
                )
            }
            dottedSinceHeader.append(parent)
        }
        let last = key[key.count - 1]
        if let existing = parent.entries[last] {
            throw error(
                at: start,
                "\(key.joined(separator: ".")) is already defined (line \(existing.line)); a key is defined only once")
        }
        let path = join(parent.path, last)
        record(path, line)
        let value = try value(path: path, depth: parent.depth + 1)
        parent.add(last, .value(value, line: line))
    }

    /// Reads `key =` and the spaces after it: the key's parts, and the line and offset where it starts.
    private mutating func keyAndEquals() throws(TOMLSyntaxError) -> (key: [String], line: Int, start: Int) {
        let line = scanner.line
        let start = scanner.position
        let key = try scanner.key()
        guard scanner.peek() == Ascii.equals else {
            throw scanner.error("expected '=' after the key \(key.joined(separator: ".")), found \(scanner.found)")
        }
        scanner.advance(by: 1)
        scanner.skipWhitespace()
        return (key, line, start)
    }

    // MARK: values

    private mutating func value(path: String, depth: Int) throws(TOMLSyntaxError) -> TOMLValue {
        switch scanner.peek() {
        case Ascii.openBracket?: return try array(path: path, depth: depth)
        case Ascii.openBrace?: return try inlineTable(path: path, depth: depth)
        default: return try scanner.scalar()
        }
    }

    private mutating func array(path: String, depth: Int) throws(TOMLSyntaxError) -> TOMLValue {
        try checkDepth(depth, at: scanner.position)
        scanner.advance(by: 1)
        var elements: [TOMLValue] = []
        try scanner.skipArraySpace()
        while scanner.peek() != Ascii.closeBracket {
            let elementPath = "\(path)[\(elements.count + 1)]"
            record(elementPath, scanner.line)
            elements.append(try value(path: elementPath, depth: depth + 1))
            try scanner.skipArraySpace()
            if scanner.peek() == Ascii.comma {
                scanner.advance(by: 1)
                try scanner.skipArraySpace()
            } else if scanner.peek() != Ascii.closeBracket {
                throw scanner.error("expected ',' or ']' after an array element, found \(scanner.found)")
            }
        }
        scanner.advance(by: 1)
        return .array(elements)
    }

    /// `{ a = 1, b.c = 2 }`: on one line, no trailing comma, complete once closed (TOML 1.0).
    private mutating func inlineTable(path: String, depth: Int) throws(TOMLSyntaxError) -> TOMLValue {
        try checkDepth(depth, at: scanner.position)
        let table = TableNode(path: path, depth: depth, line: scanner.line)
        scanner.advance(by: 1)
        scanner.skipWhitespace()
        if scanner.peek() == Ascii.closeBrace {
            scanner.advance(by: 1)
            return .table(try table.finished())
        }
        while true {
            let (key, line, start) = try keyAndEquals()
            var parent = table
            for part in key.dropLast() {
                switch parent.entries[part] {
                case nil:
                    parent = try parent.addTable(part, line: line, start: start, scanner: scanner, lines: &keyLines)
                case .table(let existing):
                    parent = existing
                case .tables, .value:
                    throw error(
                        at: start,
                        "cannot add \(key.joined(separator: ".")) to the inline table: \(quoted(part)) is already a value"
                    )
                }
            }
            let last = key[key.count - 1]
            if parent.entries[last] != nil {
                throw error(at: start, "\(key.joined(separator: ".")) is already defined in this inline table")
            }
            let valuePath = join(parent.path, last)
            record(valuePath, line)
            parent.add(last, .value(try value(path: valuePath, depth: parent.depth + 1), line: line))
            scanner.skipWhitespace()
            switch scanner.peek() {
            case Ascii.closeBrace?:
                scanner.advance(by: 1)
                return .table(try table.finished())
            case Ascii.comma?:
                scanner.advance(by: 1)
                scanner.skipWhitespace()
            default:
                throw scanner.error(
                    "expected ',' or '}' in an inline table (inline tables stay on one line, without a trailing comma), found \(scanner.found)"
                )
            }
        }
    }

    // MARK: helpers

    private mutating func record(_ path: String, _ line: Int) {
        if keyLines[path] == nil { keyLines[path] = line }
    }

    private func checkDepth(_ depth: Int, at offset: Int) throws(TOMLSyntaxError) {
        guard depth <= Self.maximumDepth else {
            throw error(at: offset, "nested more than \(Self.maximumDepth) levels deep")
        }
    }

    private func error(at offset: Int, _ message: String) -> TOMLSyntaxError {
        let line = scanner.bytes[..<offset].reduce(1) { $0 + ($1 == Ascii.newline ? 1 : 0) }
        var lineStart = offset
        while lineStart > 0 && scanner.bytes[lineStart - 1] != Ascii.newline { lineStart -= 1 }
        let column = 1 + scanner.bytes[lineStart..<offset].reduce(0) { $0 + ($1 & 0xC0 != 0x80 ? 1 : 0) }
        return TOMLSyntaxError(line: line, column: column, message: message)
    }
}

/// A table while the document is read: headers and dotted keys may still add to it.
private final class TableNode {
    enum Entry {
        case value(TOMLValue, line: Int)
        case table(TableNode)
        case tables(TableArray)

        var line: Int {
            switch self {
            case .value(_, let line): line
            case .table(let table): table.line
            case .tables(let array): array.line
            }
        }
    }

    private(set) var keys: [String] = []
    private(set) var entries: [String: Entry] = [:]
    /// Key path for messages (`devices.rule[2]`).
    let path: String
    let depth: Int
    /// Where the table first appeared.
    let line: Int
    /// Set by its own `[header]`, and for tables dotted keys made once their section ends: no later
    /// header or dotted key may define it again.
    var definedByHeader = false

    init(path: String, depth: Int, line: Int) {
        self.path = path
        self.depth = depth
        self.line = line
    }

    func add(_ key: String, _ entry: Entry) {
        keys.append(key)
        entries[key] = entry
    }

    /// A new, implicitly created child table.
    func addTable(
        _ key: String, line: Int, start: Int, scanner: TOMLScanner, lines: inout [String: Int]
    )
        throws(TOMLSyntaxError) -> TableNode
    {
        let table = TableNode(path: join(path, key), depth: depth + 1, line: line)
        guard table.depth <= TOMLParser.maximumDepth else {
            throw TOMLSyntaxError(
                line: line, column: scanner.column(at: start),
                message: "nested more than \(TOMLParser.maximumDepth) levels deep")
        }
        if lines[table.path] == nil { lines[table.path] = line }
        add(key, .table(table))
        return table
    }

    /// The table as `TOMLTable` values.
    /// - Throws: `TOMLSyntaxError` if a key was added twice. The parser checks every definition
    ///   before adding it, so this only guards against a mistake here never becoming a silent overwrite.
    func finished() throws(TOMLSyntaxError) -> TOMLTable {
        var table = TOMLTable()
        for key in keys {
            guard let entry = entries[key] else { continue }
            switch entry {
            case .value(let value, _): try table.append(key, value, line: entry.line)
            case .table(let child): try table.append(key, .table(try child.finished()), line: entry.line)
            case .tables(let array):
                var elements: [TOMLValue] = []
                for element in array.elements { elements.append(.table(try element.finished())) }
                try table.append(key, .array(elements), line: entry.line)
            }
        }
        return table
    }
}

/// An array of tables made by `[[name]]` headers.
private final class TableArray {
    var elements: [TableNode] = []
    let path: String
    let line: Int

    init(path: String, line: Int) {
        self.path = path
        self.line = line
    }
}

private func join(_ path: String, _ key: String) -> String {
    path.isEmpty ? key : "\(path).\(key)"
}

/// A key as messages show it: bare keys as they are, others quoted.
private func quoted(_ key: String) -> String {
    !key.isEmpty && key.utf8.allSatisfy(Ascii.isBareKey) ? key : "\"\(key)\""
}

/// "an integer", "an inline table"... for messages about redefinitions.
private func kind(_ value: TOMLValue) -> String {
    switch value.type {
    case .string: "a string"
    case .int: "an integer"
    case .double: "a float"
    case .bool: "a boolean"
    case .array: "an array"
    case .table: "an inline table"
    case .date, .time, .dateTime: "a date or time"
    }
}
