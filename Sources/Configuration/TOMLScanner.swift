/// A TOML syntax error: where it is (1-based line and column, the column counted in characters) and
/// what was expected there.
struct TOMLSyntaxError: Error, Hashable, Sendable, CustomStringConvertible {
    /// 1-based line.
    var line: Int
    /// 1-based column in characters; nil when only the line is known (a key defined twice, found
    /// while the finished tables are assembled).
    var column: Int?
    /// What is wrong there.
    var message: String

    /// `line:column: message`, or `line: message` without a column.
    var description: String { column.map { "\(line):\($0): \(message)" } ?? "\(line): \(message)" }
}

/// The lexical half of the TOML 1.0 reader: a cursor over the document's UTF-8 bytes that reads keys,
/// strings, numbers, booleans and dates, skips whitespace and comments, and knows its line and column.
/// TOMLParser drives it and builds the tables.
///
/// Every rule follows the TOML 1.0.0 specification (toml.io/en/v1.0.0 and its ABNF); where the
/// specification leaves a choice, the reader agrees with Python's tomllib (the reference the tests
/// compare against): CRLF counts as one newline and a lone CR is an error, years start at 1, seconds
/// stop at 59, fractions keep microseconds. Integers must fit 64 bits (TOML: "an error must be thrown"
/// when one cannot be represented losslessly); tomllib accepts larger ones.
struct TOMLScanner {
    private(set) var bytes: [UInt8]
    private(set) var position = 0
    /// 1-based line of `position`.
    private(set) var line = 1
    /// Byte offset where the current line starts, for columns.
    private var lineStart = 0

    init(text: String) {
        // CRLF is a newline like LF (TOML 1.0 "Newline means LF (0x0A) or CRLF (0x0D 0x0A)"); folding it
        // here leaves a lone CR, which TOML forbids everywhere, to the control-character checks.
        var folded: [UInt8] = []
        folded.reserveCapacity(text.utf8.count)
        var previousWasCR = false
        for byte in text.utf8 {
            if previousWasCR && byte != Ascii.newline { folded.append(Ascii.carriageReturn) }
            previousWasCR = byte == Ascii.carriageReturn
            if !previousWasCR { folded.append(byte) }
        }
        if previousWasCR { folded.append(Ascii.carriageReturn) }
        bytes = folded
    }

    // MARK: cursor

    /// The byte at the cursor (plus `offset`), nil past the end.
    func peek(_ offset: Int = 0) -> UInt8? {
        let index = position + offset
        return index < bytes.count ? bytes[index] : nil
    }

    /// Moves past one byte, counting lines.
    mutating func advance() {
        if bytes[position] == Ascii.newline {
            line += 1
            lineStart = position + 1
        }
        position += 1
    }

    /// Moves past `count` bytes that hold no newline.
    mutating func advance(by count: Int) {
        position += count
    }

    /// The 1-based column of `offset` (characters, not bytes: UTF-8 continuation bytes are skipped).
    func column(at offset: Int) -> Int {
        var column = 1
        var index = lineStart
        while index < offset && index < bytes.count {
            if bytes[index] & 0xC0 != 0x80 { column += 1 }
            index += 1
        }
        return column
    }

    /// An error at the cursor.
    func error(_ message: String) -> TOMLSyntaxError {
        TOMLSyntaxError(line: line, column: column(at: position), message: message)
    }

    /// What is at the cursor, for messages: `'x'`, `U+0001`, `end of line`, `end of file`.
    var found: String {
        guard let byte = peek() else { return "end of file" }
        switch byte {
        case Ascii.newline: return "end of line"
        case 0x21...0x7E: return "'\(Character(Unicode.Scalar(byte)))'"
        case 0x80...:
            var end = position + 1
            while end < bytes.count && bytes[end] & 0xC0 == 0x80 { end += 1 }
            return "'\(String(decoding: bytes[position..<end], as: UTF8.self))'"
        default: return "U+" + hex4(UInt32(byte))
        }
    }

    // MARK: whitespace and comments

    mutating func skipWhitespace() {
        while let byte = peek(), byte == Ascii.space || byte == Ascii.tab { position += 1 }
    }

    /// Skips a `#` comment up to (not including) the newline. Control characters other than tab are
    /// not allowed in comments (TOML 1.0 "Comment").
    mutating func skipComment() throws(TOMLSyntaxError) {
        guard peek() == Ascii.hash else { return }
        position += 1
        while let byte = peek(), byte != Ascii.newline {
            if Ascii.isForbiddenControl(byte) { throw error("control character \(found) in a comment") }
            position += 1
        }
    }

    /// Skips whitespace, newlines and comments between array elements.
    mutating func skipArraySpace() throws(TOMLSyntaxError) {
        while true {
            skipWhitespace()
            if peek() == Ascii.hash { try skipComment() }
            guard peek() == Ascii.newline else { return }
            advance()
        }
    }

    // MARK: keys

    /// A key, bare, quoted or dotted (`a . "b.c" . 'd'`), and the whitespace after it.
    mutating func key() throws(TOMLSyntaxError) -> [String] {
        var parts = [try keyPart()]
        skipWhitespace()
        while peek() == Ascii.dot {
            position += 1
            skipWhitespace()
            parts.append(try keyPart())
            skipWhitespace()
        }
        return parts
    }

    private mutating func keyPart() throws(TOMLSyntaxError) -> String {
        guard let byte = peek() else { throw error("expected a key, found end of file") }
        if Ascii.isBareKey(byte) {
            let start = position
            while let next = peek(), Ascii.isBareKey(next) { position += 1 }
            return String(decoding: bytes[start..<position], as: UTF8.self)
        }
        if byte == Ascii.quote {
            if hasPrefix("\"\"\"") { throw error("a key cannot be a multi-line string") }
            return try basicString()
        }
        if byte == Ascii.apostrophe {
            if hasPrefix("'''") { throw error("a key cannot be a multi-line string") }
            return try literalString()
        }
        throw error("expected a key, found \(found) (bare keys use A-Z a-z 0-9 _ -; quote any other key)")
    }

    // MARK: strings

    /// `"..."` with escapes, on one line.
    mutating func basicString() throws(TOMLSyntaxError) -> String {
        position += 1
        var text: [UInt8] = []
        while true {
            guard let byte = peek(), byte != Ascii.newline else {
                throw error("unterminated string: expected '\"' before \(found)")
            }
            if byte == Ascii.quote {
                position += 1
                return String(decoding: text, as: UTF8.self)
            }
            if byte == Ascii.backslash {
                try escape(into: &text)
            } else if Ascii.isForbiddenControl(byte) {
                throw error("control character \(found) in a string (write it as an escape such as \\u0001)")
            } else {
                text.append(byte)
                position += 1
            }
        }
    }

    /// `'...'`: no escapes, on one line.
    mutating func literalString() throws(TOMLSyntaxError) -> String {
        position += 1
        let start = position
        while true {
            guard let byte = peek(), byte != Ascii.newline else {
                throw error("unterminated literal string: expected \"'\" before \(found)")
            }
            if byte == Ascii.apostrophe { break }
            if Ascii.isForbiddenControl(byte) { throw error("control character \(found) in a literal string") }
            position += 1
        }
        let text = String(decoding: bytes[start..<position], as: UTF8.self)
        position += 1
        return text
    }

    /// `"""..."""` or `'''...'''`. A newline right after the opening delimiter is dropped; up to two
    /// quotes may stand right before the closing three (TOML 1.0 "String").
    mutating func multilineString(literal: Bool) throws(TOMLSyntaxError) -> String {
        let delimiter = literal ? Ascii.apostrophe : Ascii.quote
        position += 3
        if peek() == Ascii.newline { advance() }
        var text: [UInt8] = []
        while true {
            guard let byte = peek() else {
                throw error("unterminated multi-line string: expected \(literal ? "'''" : "\"\"\"") before end of file")
            }
            if byte == delimiter && peek(1) == delimiter && peek(2) == delimiter {
                position += 3
                // Quotes right before the closing delimiter belong to the string: """a""""" is a"".
                for _ in 0..<2 where peek() == delimiter {
                    text.append(delimiter)
                    position += 1
                }
                return String(decoding: text, as: UTF8.self)
            }
            if !literal && byte == Ascii.backslash {
                try multilineEscape(into: &text)
            } else if byte == Ascii.newline {
                text.append(byte)
                advance()
            } else if Ascii.isForbiddenControl(byte) {
                throw error("control character \(found) in a multi-line string")
            } else {
                text.append(byte)
                position += 1
            }
        }
    }

    /// A backslash in a multi-line basic string: a line-ending backslash (optionally followed by
    /// whitespace) swallows the newline and all whitespace and newlines after it; anything else is an
    /// ordinary escape.
    private mutating func multilineEscape(into text: inout [UInt8]) throws(TOMLSyntaxError) {
        guard let next = peek(1), next == Ascii.space || next == Ascii.tab || next == Ascii.newline else {
            try escape(into: &text)
            return
        }
        var probe = position + 1
        while probe < bytes.count && (bytes[probe] == Ascii.space || bytes[probe] == Ascii.tab) { probe += 1 }
        guard probe == bytes.count || bytes[probe] == Ascii.newline else {
            throw error("a backslash followed by whitespace must end the line (a line-ending backslash)")
        }
        position = probe
        while let byte = peek(), byte == Ascii.space || byte == Ascii.tab || byte == Ascii.newline { advance() }
    }

    /// One escape sequence (TOML 1.0: \b \t \n \f \r \" \\ \uXXXX \UXXXXXXXX).
    private mutating func escape(into text: inout [UInt8]) throws(TOMLSyntaxError) {
        position += 1
        guard let code = peek() else { throw error("unterminated escape sequence at end of file") }
        let simple: UInt8?
        switch code {
        case UInt8(ascii: "b"): simple = 0x08
        case UInt8(ascii: "t"): simple = Ascii.tab
        case UInt8(ascii: "n"): simple = Ascii.newline
        case UInt8(ascii: "f"): simple = 0x0C
        case UInt8(ascii: "r"): simple = Ascii.carriageReturn
        case Ascii.quote: simple = Ascii.quote
        case Ascii.backslash: simple = Ascii.backslash
        case UInt8(ascii: "u"), UInt8(ascii: "U"): simple = nil
        default:
            position -= 1
            throw error(
                "unknown escape sequence '\\\(String(decoding: [code], as: UTF8.self))' (TOML knows \\b \\t \\n \\f \\r \\\" \\\\ \\uXXXX \\UXXXXXXXX)"
            )
        }
        if let simple {
            text.append(simple)
            position += 1
            return
        }
        let length = code == UInt8(ascii: "u") ? 4 : 8
        var value: UInt32 = 0
        for offset in 1...length {
            guard let digit = peek(offset).flatMap(Ascii.hexValue) else {
                position -= 1
                throw error("\\\(code == UInt8(ascii: "u") ? "u" : "U") needs \(length) hexadecimal digits")
            }
            value = value << 4 | UInt32(digit)
        }
        guard let scalar = Unicode.Scalar(value) else {
            position -= 1
            throw error("escape U+\(hex4(value)) is not a Unicode scalar value (surrogate or above U+10FFFF)")
        }
        text.append(contentsOf: Array(String(Character(scalar)).utf8))
        position += 1 + length
    }

    // MARK: scalars

    /// A string, boolean, date/time, integer or float at the cursor.
    mutating func scalar() throws(TOMLSyntaxError) -> TOMLValue {
        switch peek() {
        case Ascii.quote?:
            return .string(hasPrefix("\"\"\"") ? try multilineString(literal: false) : try basicString())
        case Ascii.apostrophe?:
            return .string(hasPrefix("'''") ? try multilineString(literal: true) : try literalString())
        default: break
        }
        if hasPrefix("true") {
            position += 4
            return .boolean(true)
        }
        if hasPrefix("false") {
            position += 5
            return .boolean(false)
        }
        // Dates first: 1979-05-27 starts like an integer.
        if let match = try dateTime(at: position) {
            position = match.end
            return .dateTime(match.value)
        }
        if let match = Self.time(in: bytes, at: position) {
            position = match.end
            let time = match.time
            return .dateTime(
                TOMLDateTime(
                    form: .localTime, hour: time.hour, minute: time.minute, second: time.second,
                    microsecond: time.microsecond))
        }
        if let value = try number() { return value }
        for special in ["inf", "nan", "+inf", "-inf", "+nan", "-nan"] where hasPrefix(special) {
            position += special.utf8.count
            let magnitude = special.hasSuffix("inf") ? Double.infinity : Double.nan
            return .float(special.hasPrefix("-") ? -magnitude : magnitude)
        }
        throw error("expected a value (a string, number, true/false, date, [array] or {table}), found \(found)")
    }

    func hasPrefix(_ text: String) -> Bool {
        var index = position
        for byte in text.utf8 {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
        }
        return true
    }

    /// An integer (decimal, 0x, 0o, 0b) or a float, else nil when the cursor holds no number.
    private mutating func number() throws(TOMLSyntaxError) -> TOMLValue? {
        let start = position
        if peek() == UInt8(ascii: "0"), let prefix = peek(1) {
            let radix: Int?
            switch prefix {
            case UInt8(ascii: "x"): radix = 16
            case UInt8(ascii: "o"): radix = 8
            case UInt8(ascii: "b"): radix = 2
            default: radix = nil
            }
            if let radix, let end = digitRun(from: position + 2, radix: radix) {
                let digits = bytes[(position + 2)..<end].filter { $0 != Ascii.underscore }
                guard let value = Int64(String(decoding: digits, as: UTF8.self), radix: radix) else {
                    throw error(
                        "integer \(String(decoding: bytes[start..<end], as: UTF8.self)) does not fit in 64 bits")
                }
                position = end
                return .integer(value)
            }
        }
        var index = position
        if index < bytes.count && (bytes[index] == Ascii.plus || bytes[index] == Ascii.minus) { index += 1 }
        guard index < bytes.count, Ascii.isDigit(bytes[index]) else { return nil }
        // No leading zeros: the integer part is 0 alone or starts with 1-9.
        var end = bytes[index] == UInt8(ascii: "0") ? index + 1 : (digitRun(from: index, radix: 10) ?? index)
        var isFloat = false
        if end < bytes.count, bytes[end] == Ascii.dot, let fractionEnd = digitRun(from: end + 1, radix: 10) {
            end = fractionEnd
            isFloat = true
        }
        if end < bytes.count, bytes[end] == UInt8(ascii: "e") || bytes[end] == UInt8(ascii: "E") {
            var exponent = end + 1
            if exponent < bytes.count && (bytes[exponent] == Ascii.plus || bytes[exponent] == Ascii.minus) {
                exponent += 1
            }
            if let exponentEnd = digitRun(from: exponent, radix: 10) {
                end = exponentEnd
                isFloat = true
            }
        }
        let text = String(decoding: bytes[start..<end].filter { $0 != Ascii.underscore }, as: UTF8.self)
        if isFloat {
            guard let value = Double(text) else { throw error("cannot read the number \(text)") }
            position = end
            return .float(value)
        }
        guard let value = Int64(text) else {
            throw error("integer \(text) does not fit in 64 bits (TOML integers run from -2^63 to 2^63-1)")
        }
        position = end
        return .integer(value)
    }

    /// The end of `digit (_? digit)*` starting at `start`, or nil when no digit is there. An underscore
    /// must stand between two digits.
    private func digitRun(from start: Int, radix: Int) -> Int? {
        func isDigit(_ byte: UInt8) -> Bool { Ascii.hexValue(byte).map { Int($0) < radix } ?? false }
        guard start < bytes.count, isDigit(bytes[start]) else { return nil }
        var index = start + 1
        while index < bytes.count {
            if isDigit(bytes[index]) {
                index += 1
            } else if bytes[index] == Ascii.underscore, index + 1 < bytes.count, isDigit(bytes[index + 1]) {
                index += 2
            } else {
                break
            }
        }
        return index
    }

    /// A date, with an optional time and offset, at `start`; nil when the text is not a date.
    private func dateTime(at start: Int) throws(TOMLSyntaxError) -> (value: TOMLDateTime, end: Int)? {
        guard let year = Self.digits(bytes, start, 4), Self.byte(bytes, start + 4) == Ascii.minus,
            let month = Self.digits(bytes, start + 5, 2), (1...12).contains(month),
            Self.byte(bytes, start + 7) == Ascii.minus,
            let day = Self.digits(bytes, start + 8, 2), (1...31).contains(day)
        else { return nil }
        var value = TOMLDateTime(form: .localDate, year: year, month: month, day: day)
        var end = start + 10
        let separator = Self.byte(bytes, end)
        if separator == UInt8(ascii: "T") || separator == UInt8(ascii: "t") || separator == Ascii.space,
            let match = Self.time(in: bytes, at: end + 1)
        {
            let time = match.time
            value.form = .localDateTime
            value.hour = time.hour
            value.minute = time.minute
            value.second = time.second
            value.microsecond = time.microsecond
            end = match.end
            let zone = Self.byte(bytes, end)
            if zone == UInt8(ascii: "Z") || zone == UInt8(ascii: "z") {
                value.form = .offsetDateTime
                end += 1
            } else if zone == Ascii.plus || zone == Ascii.minus, let hours = Self.digits(bytes, end + 1, 2),
                hours <= 23,
                Self.byte(bytes, end + 3) == Ascii.colon, let minutes = Self.digits(bytes, end + 4, 2), minutes <= 59
            {
                value.form = .offsetDateTime
                value.offsetMinutes = (zone == Ascii.minus ? -1 : 1) * (hours * 60 + minutes)
                end += 6
            }
        }
        guard year >= 1, day <= Self.daysIn(month: month, year: year) else {
            throw TOMLSyntaxError(
                line: line, column: column(at: start),
                message: "invalid date \(String(decoding: bytes[start..<start + 10], as: UTF8.self))")
        }
        return (value, end)
    }

    /// `HH:MM:SS` with an optional fraction, at `start`.
    private static func time(
        in bytes: [UInt8], at start: Int
    )
        -> (time: (hour: Int, minute: Int, second: Int, microsecond: Int), end: Int)?
    {
        guard let hour = digits(bytes, start, 2), hour <= 23, byte(bytes, start + 2) == Ascii.colon,
            let minute = digits(bytes, start + 3, 2), minute <= 59, byte(bytes, start + 5) == Ascii.colon,
            let second = digits(bytes, start + 6, 2), second <= 59
        else { return nil }
        var end = start + 8
        var microsecond = 0
        if byte(bytes, end) == Ascii.dot, let first = byte(bytes, end + 1), Ascii.isDigit(first) {
            end += 1
            var count = 0
            while let digit = byte(bytes, end), Ascii.isDigit(digit) {
                if count < 6 { microsecond = microsecond * 10 + Int(digit - UInt8(ascii: "0")) }
                count += 1
                end += 1
            }
            for _ in min(count, 6)..<6 { microsecond *= 10 }
        }
        return ((hour, minute, second, microsecond), end)
    }

    private static func byte(_ bytes: [UInt8], _ index: Int) -> UInt8? {
        index < bytes.count ? bytes[index] : nil
    }

    /// `count` decimal digits at `start` as a number.
    private static func digits(_ bytes: [UInt8], _ start: Int, _ count: Int) -> Int? {
        guard start + count <= bytes.count else { return nil }
        var value = 0
        for index in start..<start + count {
            guard Ascii.isDigit(bytes[index]) else { return nil }
            value = value * 10 + Int(bytes[index] - UInt8(ascii: "0"))
        }
        return value
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}

/// `0x1F` -> `"001F"`.
private func hex4(_ value: UInt32) -> String {
    let digits = String(value, radix: 16, uppercase: true)
    return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
}

/// The bytes TOML's grammar names.
enum Ascii {
    static let tab: UInt8 = 0x09
    static let newline: UInt8 = 0x0A
    static let carriageReturn: UInt8 = 0x0D
    static let space: UInt8 = 0x20
    static let quote = UInt8(ascii: "\"")
    static let hash = UInt8(ascii: "#")
    static let apostrophe = UInt8(ascii: "'")
    static let plus = UInt8(ascii: "+")
    static let comma = UInt8(ascii: ",")
    static let minus = UInt8(ascii: "-")
    static let dot = UInt8(ascii: ".")
    static let colon = UInt8(ascii: ":")
    static let equals = UInt8(ascii: "=")
    static let openBracket = UInt8(ascii: "[")
    static let backslash = UInt8(ascii: "\\")
    static let closeBracket = UInt8(ascii: "]")
    static let underscore = UInt8(ascii: "_")
    static let openBrace = UInt8(ascii: "{")
    static let closeBrace = UInt8(ascii: "}")

    static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }

    /// A-Z a-z 0-9 _ - (TOML 1.0 unquoted-key).
    static func isBareKey(_ byte: UInt8) -> Bool {
        isDigit(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == underscore
            || byte == minus
    }

    /// Control characters TOML allows nowhere outside escapes: U+0000-U+001F but tab, and U+007F.
    /// Newline is handled by each caller (allowed only in multi-line strings and between statements).
    static func isForbiddenControl(_ byte: UInt8) -> Bool {
        (byte < 0x20 && byte != tab) || byte == 0x7F
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x41...0x46: byte - 0x41 + 10
        case 0x61...0x66: byte - 0x61 + 10
        default: nil
        }
    }
}
