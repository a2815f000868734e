/// One TOML 1.0 value as `TOMLParser` produces it and `ConfigurationParser` reads it.
enum TOMLValue: Hashable, Sendable {
    case string(String)
    case integer(Int64)
    case float(Double)
    case boolean(Bool)
    case dateTime(TOMLDateTime)
    case array([TOMLValue])
    case table(TOMLTable)

    /// The kind of a value, as messages name it.
    enum Kind: Hashable, Sendable {
        case string, int, double, bool, array, table, date, time, dateTime
    }

    /// The value's kind; dates and times are told apart by their form.
    var type: Kind {
        switch self {
        case .string: .string
        case .integer: .int
        case .float: .double
        case .boolean: .bool
        case .array: .array
        case .table: .table
        case .dateTime(let value):
            switch value.form {
            case .localDate: .date
            case .localTime: .time
            case .localDateTime, .offsetDateTime: .dateTime
            }
        }
    }

    /// The text of a string; nil for any other kind.
    var string: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// An integer that fits `Int`; nil for any other kind (a float is not converted).
    var int: Int? {
        if case .integer(let number) = self { return Int(exactly: number) }
        return nil
    }

    /// A float; nil for any other kind (an integer is not converted: see `numericValue`).
    var double: Double? {
        if case .float(let number) = self { return number }
        return nil
    }

    /// A boolean; nil for any other kind.
    var bool: Bool? {
        if case .boolean(let flag) = self { return flag }
        return nil
    }

    /// The elements of an array (an array of tables included); nil for any other kind.
    var array: [TOMLValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    /// A table (header, dotted-key or inline); nil for any other kind.
    var table: TOMLTable? {
        if case .table(let table) = self { return table }
        return nil
    }
}

/// A TOML date, time, or date-time; `form` says which fields are meaningful.
struct TOMLDateTime: Hashable, Sendable {
    /// Which of TOML's four date and time kinds this is.
    enum Form: Hashable, Sendable {
        case offsetDateTime, localDateTime, localDate, localTime
    }

    var form: Form
    var year = 0
    var month = 0
    var day = 0
    var hour = 0
    var minute = 0
    var second = 0
    var microsecond = 0
    var offsetMinutes = 0

    /// A date, or the date part of a date-time (the scanner fills in the time fields after).
    init(form: Form, year: Int, month: Int, day: Int) {
        self.form = form
        self.year = year
        self.month = month
        self.day = day
    }

    /// A local time.
    init(form: Form, hour: Int, minute: Int, second: Int, microsecond: Int) {
        self.form = form
        self.hour = hour
        self.minute = minute
        self.second = second
        self.microsecond = microsecond
    }
}

/// A TOML table: keys in document order, each defined once.
struct TOMLTable: Hashable, Sendable {
    /// The keys, in the order the document defines them.
    private(set) var keys: [String] = []
    private var values: [String: TOMLValue] = [:]

    /// An empty table.
    init() {}

    /// The value of `key`; nil when the table does not define it.
    subscript(key: String) -> TOMLValue? { values[key] }

    /// Whether the table defines `key`.
    func contains(key: String) -> Bool { values[key] != nil }

    /// Adds `key`, defined at `line`, after the keys already there.
    /// - Throws: `TOMLSyntaxError` at `line` when the table already defines `key`. TOML 1.0 forbids
    ///   defining a key twice, and keeping either value without a word would hide the mistake; the
    ///   loader puts the file name in front (`file:line: ...`).
    mutating func append(_ key: String, _ value: TOMLValue, line: Int) throws(TOMLSyntaxError) {
        guard values[key] == nil else {
            throw TOMLSyntaxError(
                line: line, column: nil, message: "\(key) is already defined in this table; a key is defined only once")
        }
        keys.append(key)
        values[key] = value
    }
}
