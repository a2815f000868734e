import MultitouchCore

/// What one evemu text holds: an optional device description (N:, I:, P:, B:, A: lines) and its
/// events (E: lines), in file order.
struct EvemuContent {
    var description: DeviceDescription?
    /// Line of the first description line (for "has its own description" errors).
    var descriptionLine: Int = 0
    var events: [InputEvent] = []
    /// Line of the first E: line, 0 when there is none.
    var firstEventLine: Int = 0
    /// `major.minor` of the `# EVEMU` line, nil when the file has none (evemu then assumes 1.0).
    var version: (major: Int, minor: Int)?
}

/// Byte-level evemu parser. Works on the UTF-8 bytes directly (no Foundation scanning, no regex) so
/// that a million-event file parses in a fraction of a second; every line is either understood or
/// rejected with a `RecordingError`.
///
/// Format reference: evemu's README ("Device Description Format", "Event Data Format") and
/// `evemu_write`/`evemu_read` in evemu's `src/evemu.c`.
struct EvemuParser {
    let file: String
    /// evemu's newest file format (evemu 2.x writes `# EVEMU 1.3`).
    static let newestMinorVersion = 3
    /// `ABS_MAX` (linux/input-event-codes.h): an `A:` code above it cannot exist.
    static let absMax: UInt16 = 0x3f
    /// The absinfo of an ABS code declared in `B:` without an `A:` line: evemu 2.x's placeholder
    /// (`parse_mask` in evemu.c enables such codes with minimum 0, maximum 1), so evemu-device and our
    /// reader create the same axis.
    static let placeholderAxis = AxisInfo(minimum: 0, maximum: 1)
    /// Bitmask bytes accepted per type: enough for every UInt16 code.
    static let maximumMaskBytes = 8192

    private var name: String?
    private var identity: DeviceIdentity?
    private var sawIdentityLine = 0
    private var nameLine = 0
    private var propertyBytes: [UInt8] = []
    private var masks: [UInt16: [UInt8]] = [:]
    private var axes: [UInt16: AxisInfo] = [:]
    private var axisLines: [UInt16: Int] = [:]
    private var content = EvemuContent()
    private var lastTime: Int64 = .min
    private var lastTimeLine = 0

    init(file: String) { self.file = file }

    /// Parses `bytes` (already known to be valid UTF-8).
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>, file: String) throws(RecordingError) -> EvemuContent {
        var parser = EvemuParser(file: file)
        // Roughly 30 bytes per E: line in real files; reserving avoids regrowth on big recordings.
        parser.content.events.reserveCapacity(bytes.count / 28 + 16)
        try parser.run(bytes)
        return parser.content
    }

    private mutating func run(_ b: UnsafeBufferPointer<UInt8>) throws(RecordingError) {
        let n = b.count
        var start = 0
        var line = 0
        var sawNonBlank = false
        while start < n {
            line += 1
            var end = start
            while end < n && b[end] != 0x0a { end += 1 }
            var stop = end
            if stop > start && b[stop - 1] == 0x0d { stop -= 1 }
            var p = start
            while p < stop && (b[p] == 0x20 || b[p] == 0x09) { p += 1 }
            if p < stop {
                let first = !sawNonBlank
                sawNonBlank = true
                let c = b[p]
                if c == UInt8(ascii: "#") {
                    // Only the first line can be the version line (evemu README: "The first line is a
                    // special comment ... If the line is missing, file format 1.0 is assumed").
                    if first { try parseVersion(b, p, stop, line: line) }
                } else if p + 1 < stop && b[p + 1] == UInt8(ascii: ":") {
                    if c == UInt8(ascii: "E") {
                        try parseEvent(b, p + 2, stop, line: line)
                    } else {
                        try parseDescriptionLine(b, p, stop, line: line)
                    }
                } else {
                    throw unexpected(b, p, stop, line: line)
                }
            }
            start = end + 1
        }
        try finish()
    }

    private mutating func parseVersion(_ b: UnsafeBufferPointer<UInt8>, _ p: Int, _ stop: Int, line: Int)
        throws(RecordingError)
    {
        let text = String(decoding: UnsafeBufferPointer(rebasing: b[p..<stop]), as: UTF8.self)
        let marker = "# EVEMU"
        guard text.hasPrefix(marker) else { return }  // an ordinary first comment
        let rest = text.dropFirst(marker.count).trimmingWhitespace()
        let parts = rest.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let major = Int(parts[0]), let minor = Int(parts[1]), major >= 0, minor >= 0 else {
            throw RecordingError(
                file: file, line: line, message: "expected '# EVEMU <major>.<minor>', found '\(Self.excerpt(text))'")
        }
        guard major == 1, minor <= Self.newestMinorVersion else {
            throw RecordingError(
                file: file, line: line,
                message: "unsupported evemu file version \(major).\(minor) (this reader knows 1.0 to 1.\(Self.newestMinorVersion))")
        }
        content.version = (major, minor)
    }

    // MARK: E: lines (the hot path)

    @inline(__always) private static func isBlank(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 }

    @inline(__always) private static func hexValue(_ c: UInt8) -> UInt32? {
        switch c {
        case 0x30...0x39: return UInt32(c &- 0x30)
        case 0x61...0x66: return UInt32(c &- 0x61 &+ 10)
        case 0x41...0x46: return UInt32(c &- 0x41 &+ 10)
        default: return nil
        }
    }

    private mutating func parseEvent(_ b: UnsafeBufferPointer<UInt8>, _ from: Int, _ stop: Int, line: Int)
        throws(RecordingError)
    {
        if content.firstEventLine == 0 { content.firstEventLine = line }
        var p = from
        // At least one blank after "E:".
        guard p < stop, Self.isBlank(b[p]) else { throw badEvent(b, from - 2, stop, line: line) }
        while p < stop && Self.isBlank(b[p]) { p += 1 }
        // <sec>: 1 to 12 decimal digits (12 digits of seconds is 31,000 years: plenty, and no overflow).
        var sec: Int64 = 0
        var digits = 0
        while p < stop, b[p] >= 0x30, b[p] <= 0x39 {
            sec = sec &* 10 &+ Int64(b[p] &- 0x30)
            digits += 1
            p += 1
        }
        guard digits >= 1 else { throw badEvent(b, from - 2, stop, line: line) }
        guard digits <= 12 else { throw timeOutOfRange(b, from - 2, stop, line: line) }
        guard p < stop, b[p] == UInt8(ascii: ".") else { throw badEvent(b, from - 2, stop, line: line) }
        p += 1
        // <usec>: exactly six digits, as evemu writes them ("%06u").
        var usec: Int64 = 0
        digits = 0
        while p < stop, b[p] >= 0x30, b[p] <= 0x39 {
            usec = usec &* 10 &+ Int64(b[p] &- 0x30)
            digits += 1
            p += 1
        }
        guard digits == 6 else {
            throw RecordingError(
                file: file, line: line,
                message: "expected six digits of microseconds in 'E: <sec>.<usec> <type> <code> <value>', found '\(Self.excerpt(b, from - 2, stop))'")
        }
        // <type> and <code>: hex.
        guard p < stop, Self.isBlank(b[p]) else { throw badEvent(b, from - 2, stop, line: line) }
        while p < stop && Self.isBlank(b[p]) { p += 1 }
        var type: UInt32 = 0
        digits = 0
        while p < stop, let v = Self.hexValue(b[p]) {
            if type > 0xffff { break }
            type = type << 4 | v
            digits += 1
            p += 1
        }
        guard digits >= 1, p < stop, Self.isBlank(b[p]) else { throw badEvent(b, from - 2, stop, line: line) }
        guard type <= UInt32(EventType.max) else {
            throw RecordingError(
                file: file, line: line,
                message: "event type 0x\(String(type, radix: 16)) out of range (EV_MAX is 0x1f) in '\(Self.excerpt(b, from - 2, stop))'")
        }
        while p < stop && Self.isBlank(b[p]) { p += 1 }
        var code: UInt32 = 0
        digits = 0
        while p < stop, let v = Self.hexValue(b[p]) {
            if code > 0xffff { break }
            code = code << 4 | v
            digits += 1
            p += 1
        }
        guard digits >= 1, p < stop, Self.isBlank(b[p]) else { throw badEvent(b, from - 2, stop, line: line) }
        guard code <= 0xffff else {
            throw RecordingError(
                file: file, line: line, message: "event code out of range (max 0xffff) in '\(Self.excerpt(b, from - 2, stop))'")
        }
        while p < stop && Self.isBlank(b[p]) { p += 1 }
        // <value>: decimal, optional sign, leading zeros allowed ("-001" is -1, evemu's "%04d").
        var negative = false
        if p < stop, b[p] == UInt8(ascii: "-") || b[p] == UInt8(ascii: "+") {
            negative = b[p] == UInt8(ascii: "-")
            p += 1
        }
        var value: Int64 = 0
        digits = 0
        while p < stop, b[p] >= 0x30, b[p] <= 0x39 {
            if value <= Int64(UInt32.max) { value = value &* 10 &+ Int64(b[p] &- 0x30) }
            digits += 1
            p += 1
        }
        guard digits >= 1 else { throw badEvent(b, from - 2, stop, line: line) }
        if negative { value = -value }
        guard value >= Int64(Int32.min), value <= Int64(Int32.max) else {
            throw RecordingError(
                file: file, line: line,
                message: "event value out of Int32 range in '\(Self.excerpt(b, from - 2, stop))'")
        }
        // Then only blanks, optionally followed by a comment ("\t# EV_ABS / ABS_MT_SLOT 0").
        if p < stop {
            guard Self.isBlank(b[p]) else { throw badEvent(b, from - 2, stop, line: line) }
            while p < stop && Self.isBlank(b[p]) { p += 1 }
            guard p == stop || b[p] == UInt8(ascii: "#") else { throw badEvent(b, from - 2, stop, line: line) }
        }
        let time = sec &* 1_000_000 &+ usec
        if time < lastTime {
            throw RecordingError(
                file: file, line: line,
                message: "time goes backwards: \(Timestamp(microseconds: time)) after \(Timestamp(microseconds: lastTime)) on line \(lastTimeLine); events must be in non-decreasing time")
        }
        lastTime = time
        lastTimeLine = line
        content.events.append(
            InputEvent(time: Timestamp(microseconds: time), type: UInt16(type), code: UInt16(code), value: Int32(value)))
    }

    private func badEvent(_ b: UnsafeBufferPointer<UInt8>, _ from: Int, _ stop: Int, line: Int) -> RecordingError {
        RecordingError(
            file: file, line: line,
            message: "expected 'E: <sec>.<usec> <type> <code> <value>', found '\(Self.excerpt(b, from, stop))'")
    }

    private func timeOutOfRange(_ b: UnsafeBufferPointer<UInt8>, _ from: Int, _ stop: Int, line: Int) -> RecordingError {
        RecordingError(
            file: file, line: line, message: "timestamp out of range (at most 12 digits of seconds) in '\(Self.excerpt(b, from, stop))'")
    }

    private func unexpected(_ b: UnsafeBufferPointer<UInt8>, _ from: Int, _ stop: Int, line: Int) -> RecordingError {
        RecordingError(
            file: file, line: line,
            message: "expected an evemu line (N:, I:, P:, B:, A:, L:, S:, E: or a # comment), found '\(Self.excerpt(b, from, stop))'")
    }

    // MARK: Description lines

    private mutating func parseDescriptionLine(_ b: UnsafeBufferPointer<UInt8>, _ p: Int, _ stop: Int, line: Int)
        throws(RecordingError)
    {
        let kind = b[p]
        switch kind {
        case UInt8(ascii: "N"), UInt8(ascii: "I"), UInt8(ascii: "P"), UInt8(ascii: "B"), UInt8(ascii: "A"),
            UInt8(ascii: "L"), UInt8(ascii: "S"):
            break
        default:
            throw unexpected(b, p, stop, line: line)
        }
        if content.firstEventLine != 0 {
            throw RecordingError(
                file: file, line: line,
                message: "device description line '\(Character(Unicode.Scalar(kind))):' after the first event (line \(content.firstEventLine)); the description must come first")
        }
        if content.descriptionLine == 0 { content.descriptionLine = line }
        let body = p + 2
        switch kind {
        case UInt8(ascii: "N"):
            guard name == nil else {
                throw RecordingError(file: file, line: line, message: "second N: line (the name was given on line \(nameLine))")
            }
            // evemu writes "N: %s": the name is everything after the one space, byte for byte.
            var s = body
            if s < stop && Self.isBlank(b[s]) { s += 1 }
            name = String(decoding: UnsafeBufferPointer(rebasing: b[s..<stop]), as: UTF8.self)
            nameLine = line
        case UInt8(ascii: "I"):
            guard sawIdentityLine == 0 else {
                throw RecordingError(file: file, line: line, message: "second I: line (the id was given on line \(sawIdentityLine))")
            }
            let fields = tokens(b, body, stop)
            guard fields.count == 4 else {
                throw RecordingError(
                    file: file, line: line,
                    message: "expected 'I: <bustype> <vendor> <product> <version>' (4 hex fields), found \(fields.count) field(s)")
            }
            var values: [UInt16] = []
            for f in fields {
                guard let v = Self.hex(b, f), v <= 0xffff else {
                    throw RecordingError(
                        file: file, line: line,
                        message: "expected a hex number 0...ffff in 'I: <bustype> <vendor> <product> <version>', found '\(Self.excerpt(b, f.lowerBound, f.upperBound))'")
                }
                values.append(UInt16(v))
            }
            identity = DeviceIdentity(bustype: values[0], vendor: values[1], product: values[2], version: values[3])
            sawIdentityLine = line
        case UInt8(ascii: "P"):
            let fields = tokens(b, body, stop)
            guard !fields.isEmpty else {
                throw RecordingError(file: file, line: line, message: "expected 'P: <byte> <byte> ...' (hex property bytes), found none")
            }
            for f in fields {
                guard let v = Self.hex(b, f), v <= 0xff else {
                    throw RecordingError(
                        file: file, line: line,
                        message: "expected a hex byte 00...ff in 'P:' line, found '\(Self.excerpt(b, f.lowerBound, f.upperBound))'")
                }
                propertyBytes.append(UInt8(v))
            }
            guard propertyBytes.count <= Self.maximumMaskBytes else {
                throw RecordingError(file: file, line: line, message: "too many P: bytes (at most \(Self.maximumMaskBytes))")
            }
        case UInt8(ascii: "B"):
            let fields = tokens(b, body, stop)
            guard fields.count >= 2 else {
                throw RecordingError(
                    file: file, line: line,
                    message: "expected 'B: <type> <byte> <byte> ...' (type then hex bitmask bytes), found \(fields.count) field(s)")
            }
            guard let type = Self.hex(b, fields[0]), type <= UInt32(EventType.max) else {
                throw RecordingError(
                    file: file, line: line,
                    message: "expected an event type 00...1f in 'B: <type> <bytes...>', found '\(Self.excerpt(b, fields[0].lowerBound, fields[0].upperBound))'")
            }
            var bytes = masks[UInt16(type)] ?? []
            for f in fields.dropFirst() {
                guard let v = Self.hex(b, f), v <= 0xff else {
                    throw RecordingError(
                        file: file, line: line,
                        message: "expected a hex byte 00...ff in 'B:' line, found '\(Self.excerpt(b, f.lowerBound, f.upperBound))'")
                }
                bytes.append(UInt8(v))
            }
            guard bytes.count <= Self.maximumMaskBytes else {
                throw RecordingError(
                    file: file, line: line, message: "B: bitmask of type \(type) is too long (at most \(Self.maximumMaskBytes) bytes)")
            }
            masks[UInt16(type)] = bytes
        case UInt8(ascii: "A"):
            let fields = tokens(b, body, stop)
            guard fields.count == 5 || fields.count == 6 else {
                throw RecordingError(
                    file: file, line: line,
                    message: "A: line needs 5 or 6 fields (<code> <min> <max> <fuzz> <flat> [<resolution>]), found \(fields.count)")
            }
            guard let code = Self.hex(b, fields[0]), code <= UInt32(Self.absMax) else {
                throw RecordingError(
                    file: file, line: line,
                    message: "expected an ABS code 00...3f as the first A: field, found '\(Self.excerpt(b, fields[0].lowerBound, fields[0].upperBound))'")
            }
            var numbers: [Int32] = []
            for f in fields.dropFirst() {
                guard let v = Self.decimal(b, f) else {
                    throw RecordingError(
                        file: file, line: line,
                        message: "expected a decimal Int32 in A: line, found '\(Self.excerpt(b, f.lowerBound, f.upperBound))'")
                }
                numbers.append(v)
            }
            if let previous = axisLines[UInt16(code)] {
                throw RecordingError(
                    file: file, line: line,
                    message: "second A: line for code 0x\(String(code, radix: 16)) (first on line \(previous))")
            }
            axes[UInt16(code)] = AxisInfo(
                minimum: numbers[0], maximum: numbers[1], fuzz: numbers[2], flat: numbers[3],
                resolution: numbers.count == 5 ? numbers[4] : 0)
            axisLines[UInt16(code)] = line
        case UInt8(ascii: "L"), UInt8(ascii: "S"):
            // evemu 2.x's initial LED and switch states ("L: %02x %d", "S: %02x %d"). Checked, not kept:
            // the touch pipeline has no use for them, and evemu itself cannot apply them either.
            let what = kind == UInt8(ascii: "L") ? "L: <led> <state>" : "S: <switch> <state>"
            let fields = tokens(b, body, stop)
            guard fields.count == 2, let code = Self.hex(b, fields[0]), code <= 0xffff, Self.decimal(b, fields[1]) != nil else {
                throw RecordingError(
                    file: file, line: line,
                    message: "expected '\(what)' (hex code, decimal state), found '\(Self.excerpt(b, p, stop))'")
            }
        default:
            throw unexpected(b, p, stop, line: line)
        }
    }

    /// Blank-separated fields of a description line, up to a `#` comment.
    private func tokens(_ b: UnsafeBufferPointer<UInt8>, _ from: Int, _ stop: Int) -> [Range<Int>] {
        var result: [Range<Int>] = []
        var p = from
        while p < stop {
            while p < stop && Self.isBlank(b[p]) { p += 1 }
            if p >= stop || b[p] == UInt8(ascii: "#") { break }
            let s = p
            while p < stop && !Self.isBlank(b[p]) { p += 1 }
            result.append(s..<p)
        }
        return result
    }

    private static func hex(_ b: UnsafeBufferPointer<UInt8>, _ r: Range<Int>) -> UInt32? {
        guard !r.isEmpty, r.count <= 8 else { return nil }
        var v: UInt32 = 0
        for i in r {
            guard let d = hexValue(b[i]) else { return nil }
            v = v << 4 | d
        }
        return v
    }

    private static func decimal(_ b: UnsafeBufferPointer<UInt8>, _ r: Range<Int>) -> Int32? {
        var p = r.lowerBound
        var negative = false
        if p < r.upperBound, b[p] == UInt8(ascii: "-") || b[p] == UInt8(ascii: "+") {
            negative = b[p] == UInt8(ascii: "-")
            p += 1
        }
        guard p < r.upperBound, r.upperBound - p <= 12 else { return nil }
        var v: Int64 = 0
        while p < r.upperBound {
            let c = b[p]
            guard c >= 0x30, c <= 0x39 else { return nil }
            v = v * 10 + Int64(c - 0x30)
            p += 1
        }
        if negative { v = -v }
        return Int32(exactly: v)
    }

    // MARK: Finishing the description

    private mutating func finish() throws(RecordingError) {
        guard content.descriptionLine != 0 else { return }
        guard let name else {
            throw RecordingError(
                file: file, line: content.descriptionLine, message: "device description has no 'N: <name>' line")
        }
        guard let identity else {
            throw RecordingError(
                file: file, line: content.descriptionLine,
                message: "device description has no 'I: <bustype> <vendor> <product> <version>' line")
        }
        // Every evdev device has EV_SYN (the kernel's input_register_device sets it), and libevdev reports
        // every SYN_* code of it (libevdev_has_event_code); libinput record lists them all too.
        var codes: [UInt16: Set<UInt16>] = [EventType.syn: Set(0...EventType.maxCode(for: EventType.syn))]
        // Type 0's line is ignored: evemu 1.x wrote the event-type mask there (EVIOCGBIT(0)), evemu 2.x
        // always writes "B: 00 0b ..." and reads it as SYN codes. A type exists when its own B: lines set
        // a code, which is also how evemu 2.x (libevdev_enable_event_code) builds the device.
        for (type, bytes) in masks where type != EventType.syn {
            let set = Self.bits(bytes)
            if !set.isEmpty { codes[type, default: []].formUnion(set) }
        }
        // Every declared ABS code has an absinfo in the kernel; one without an A: line gets evemu's
        // placeholder.
        var allAxes = axes
        for code in codes[EventType.abs] ?? [] where allAxes[code] == nil {
            allAxes[code] = Self.placeholderAxis
        }
        let properties = Set(Self.bits(propertyBytes))
        content.description = DeviceDescription(
            name: name, identity: identity, properties: properties, codes: codes, axes: allAxes)
    }

    /// Bit indices set in a little-endian byte mask (bit `i` is byte `i / 8`, bit `i % 8`).
    static func bits(_ bytes: [UInt8]) -> [UInt16] {
        var result: [UInt16] = []
        for (index, byte) in bytes.enumerated() where byte != 0 {
            for bit in 0..<8 where byte & (1 << bit) != 0 {
                result.append(UInt16(index * 8 + bit))
            }
        }
        return result
    }

    // MARK: Excerpts for messages

    static func excerpt(_ b: UnsafeBufferPointer<UInt8>, _ from: Int, _ stop: Int) -> String {
        excerpt(String(decoding: UnsafeBufferPointer(rebasing: b[from..<max(from, stop)]), as: UTF8.self))
    }

    /// The text cut to 80 characters with control characters escaped, so an error message stays one line.
    static func excerpt(_ text: String) -> String {
        var out = ""
        var count = 0
        for scalar in text.unicodeScalars {
            if count >= 80 {
                out += "..."
                break
            }
            if scalar.value < 0x20 || scalar.value == 0x7f {
                out += scalar == "\t" ? "\\t" : "\\u{\(String(scalar.value, radix: 16))}"
            } else {
                out.unicodeScalars.append(scalar)
            }
            count += 1
        }
        return out
    }
}

extension StringProtocol {
    func trimmingWhitespace() -> Substring {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" { s.removeLast() }
        return s
    }
}
