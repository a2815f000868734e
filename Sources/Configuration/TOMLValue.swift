// NOTE (from a second helper that found this worktree in use, 06:58 UTC): this file replaces one that
// the other helper wrote here and that I overwrote by mistake (my `create` hit an existing path).
// It is reconstructed from how TOMLParser.swift, TOMLScanner.swift, ConfigurationParser.swift and
// TOMLConformanceTests.swift use it; compare it with your own copy and keep yours. I have stopped
// editing this worktree.

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

    var string: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    var int: Int? {
        if case .integer(let number) = self { return Int(exactly: number) }
        return nil
    }

    var double: Double? {
        if case .float(let number) = self { return number }
        return nil
    }

    var bool: Bool? {
        if case .boolean(let flag) = self { return flag }
        return nil
    }

    var array: [TOMLValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    var table: TOMLTable? {
        if case .table(let table) = self { return table }
        return nil
    }
}

/// A TOML date, time, or date-time; `form` says which fields are meaningful.
struct TOMLDateTime: Hashable, Sendable {
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

    init(form: Form, year: Int, month: Int, day: Int) {
        self.form = form
        self.year = year
        self.month = month
        self.day = day
    }

    init(form: Form, hour: Int, minute: Int, second: Int, microsecond: Int) {
        self.form = form
        self.hour = hour
        self.minute = minute
        self.second = second
        self.microsecond = microsecond
    }
}

/// A TOML table: keys in document order.
struct TOMLTable: Hashable, Sendable {
    private(set) var keys: [String] = []
    private var values: [String: TOMLValue] = [:]

    init() {}

    subscript(key: String) -> TOMLValue? { values[key] }

    func contains(key: String) -> Bool { values[key] != nil }

    mutating func append(_ key: String, _ value: TOMLValue) {
        if values[key] == nil { keys.append(key) }
        values[key] = value
    }
}
