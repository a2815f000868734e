import Foundation
import Testing

@testable import Configuration

/// The TOML reader against Python's tomllib (Python 3.11+, a TOML 1.0 reader that passes the toml-test
/// suite): the same documents must be accepted or refused by both, and accepted ones must hold the same
/// values. The documents are the repository's configuration files, hand-written cases from the
/// specification, generated valid documents and byte-level mutations of all of them.
@Suite struct TOMLConformanceTests {
    /// Documents the specification's sections illustrate, valid and invalid.
    static let handWritten: [String] = [
        "", "\n", "# only a comment\n", "a = 1", "a = 1\r\nb = 2\r\n", "a = 1\rb = 2", "a = \"x\r\"",
        // keys
        "bare_key-1 = 1\n1234 = 2\n\"quoted key\" = 3\n'literal' = 4\n\"\" = 5\n",
        "a . b . c = 1\n", "a.\"b.c\".'d' = 1\n", "= 1\n", "a b = 1\n", "a = \n", "a\n", "a.=1\n", ".a=1\n",
        "a = 1\na = 2\n", "a.b = 1\na = 2\n", "a = 1\na.b = 2\n", "a.b = 1\na.c = 2\n", "\"a\" = 1\na = 2\n",
        "apple.type = \"fruit\"\norange.type = \"fruit\"\napple.skin = \"thin\"\n",
        "3.14159 = \"pi\"\n", "true = 1\n", "inf = 1\n", "a.\"\"\" = 1\n", "\"\"\"a\"\"\" = 1\n",
        // strings
        #"a = "tab\there""#, #"a = "\u00e9\U0001F600""#, #"a = "\uD800""#, #"a = "\U00110000""#, #"a = "\x41""#,
        #"a = "\e""#, #"a = "\u12""#, "a = \"unterminated\n", "a = 'lit\\eral'", "a = 'a\u{7F}'", "a = \"a\u{01}\"",
        "a = \"\"\"\nline1\nline2\"\"\"", "a = \"\"\"a \\\n   \n  b\"\"\"", "a = \"\"\"a \\  x\"\"\"",
        "a = \"\"\"a\"\"\"\"\"",
        "a = \"\"\"a\"\"\"\"\"\"", "a = '''\nraw\\n'''", "a = ''''x'''''", "a = ''''x''''''", "a = \"\"\"\r\nx\"\"\"",
        "a = \"\"\"tab\there\u{01}\"\"\"", "a = 'é'\nb = \"ü\"", "a = \"\"\"a\\\n\"\"\"", "a = \"\"\"\\\"\"\"",
        // numbers
        "a = +99\nb = -17\nc = 0\nd = +0\ne = -0\nf = 1_000\ng = 5_349_221\n", "a = 01", "a = 1__0", "a = _1", "a = 1_",
        "a = 0xDEAD_beef\nb = 0o755\nc = 0b1101\n", "a = 0x", "a = 0X1", "a = +0x1", "a = 0x_1", "a = 0o8",
        "a = 9223372036854775807", "a = 9223372036854775808", "a = -9223372036854775808", "a = -9223372036854775809",
        "a = 0x7FFFFFFFFFFFFFFF", "a = 0x8000000000000000",
        "a = +1.0\nb = 3.1415\nc = -0.01\nd = 5e+22\ne = 1e06\nf = -2E-2\ng = 6.626e-34\nh = 224_617.445_991_228\n",
        "a = 1.", "a = .5", "a = 1.e5", "a = 1e", "a = 1e_5", "a = 03.14", "a = -0.0\nb = +0.0",
        "a = 1e400\nb = -1e-400",
        "a = inf\nb = +inf\nc = -inf\nd = nan\ne = +nan\nf = -nan\n", "a = Inf", "a = NaN", "a = infinity",
        "a = 0.1e1_0", "a = 1_2.3_4e5_6", "a = 12.", "a = 0e0", "a = 00e0", "a = 0.0e-0",
        // booleans
        "a = true\nb = false\n", "a = True", "a = truee", "a = fals",
        // dates and times
        "a = 1979-05-27T07:32:00Z\nb = 1979-05-27T00:32:00-07:00\nc = 1979-05-27T00:32:00.999999-07:00\n",
        "a = 1979-05-27 07:32:00Z\nb = 1979-05-27t07:32:00z\n",
        "a = 1979-05-27T07:32:00\nb = 1979-05-27T00:32:00.999999\n",
        "a = 1979-05-27\nb = 07:32:00\nc = 00:32:00.999999\nd = 00:32:00.1234567891\n", "a = 1979-05-27T07:32Z",
        "a = 2000-02-29", "a = 2001-02-29", "a = 1900-02-29", "a = 0000-01-01", "a = 1979-13-01", "a = 1979-05-32",
        "a = 24:00:00", "a = 23:60:00", "a = 23:59:60", "a = 1979-05-27T07:32:00+24:00", "a = 1979-05-27T07:32:00.",
        "a = 1979-05-27 # date then comment\n", "a = 1979-05-27T07:32:00 Z", "a = 07:32", "a = 1979-05-27T",
        // arrays
        "a = [ 1, 2, 3 ]\nb = [ \"red\", 'yellow', \"\"\"green\"\"\" ]\nc = [ [ 1, 2 ], [3, 4, 5] ]\n",
        "a = [ 0.1, 0.2, 0.5, 1, 2, 5 ]\nb = [\n  1,\n  2, # comment\n]\n", "a = [1,,2]", "a = [,]",
        "a = []\nb = [ ]\n",
        "a = [1 2]", "a = [\n1\n,\n2\n,\n]", "a = [1,\n# c\n]", "a = [ { x = 1 }, { y = [ 2 ] } ]", "a = [",
        "a = [1, [2, [3, [4]]]]", "a = [[]]",
        // inline tables
        "a = { first = \"Tom\", last = \"Preston-Werner\" }\nb = { x = 1, y = 2 }\nc = { type.name = \"pug\" }\n",
        "a = {}", "a = { }", "a = {x = 1,}", "a = {x = 1\n}", "a = {\nx = 1}", "a = {x = 1, x = 2}",
        "a = {x.y = 1, x.z = 2}",
        "a = {x = {y = 1}, x.z = 2}", "a = {x.y = 1, x = 2}", "a = {x.y = 1, x.y.z = 2}", "a = {x = 1}\na.y = 2\n",
        "a = {x = 1}\n[a]\n", "a = {x = 1}\n[a.b]\n", "a = [1]\n[[a]]\n", "a = {}\n[[a]]\n", "a = {b = [1]}",
        // tables
        "[table]\n[table-1]\nkey1 = \"some string\"\n[table-2]\nkey1 = \"another\"\n",
        "[dog.\"tater.man\"]\ntype.name = \"pug\"\n",
        "[a.b.c]\n[ d.e.f ]\n[ g .  h  . i ]\n[ j . \"ʞ\" . 'l' ]\n", "[x.y.z.w]\n[x]\n", "[a]\n[a]\n",
        "[a]\n[a.b]\n[a]\n",
        "[fruit]\napple = \"red\"\n[fruit.apple]\n",
        "[fruit]\napple.color = \"red\"\napple.taste.sweet = true\n[fruit.apple.texture]\nsmooth = true\n",
        "[fruit]\napple.color = \"red\"\n[fruit.apple]\n", "[fruit]\napple.color = \"red\"\n[fruit.apple.taste]\n",
        "a.b.c = 1\n[a.b.d]\n", "a.b.c = 1\n[a]\n", "[a.b]\nc = 1\n[a]\nb.d = 2\n", "[a.b.c]\n[a]\nb.d = 1\n",
        "[a.b.c]\n[a]\nb.d = 1\n[a.b]\n",
        "[]\n", "[a.]\n", "[a\n", "[a]]\n", "[[a]\n", "[ [a]]\n", "[a] b = 1\n", "[a] # comment\nb = 1\n", "[+a]\n",
        "[\u{01}]\n", "[[+a]]\n",
        "[a.+b]\n", "a.+b = 1\n", "[\"\"]\n\"\" = 1\n", "[a]\nb = 1\n[a.b]\n", "[a.b]\n[a]\nb = 1\n",
        // arrays of tables
        "[[products]]\nname = \"Hammer\"\n[[products]]\n[[products]]\nname = \"Nail\"\n",
        "[[fruits]]\nname = \"apple\"\n[fruits.physical]\ncolor = \"red\"\n[[fruits.varieties]]\nname = \"red delicious\"\n[[fruits]]\nname = \"banana\"\n[[fruits.varieties]]\nname = \"plantain\"\n",
        "[fruit.physical]\n[[fruit]]\n", "[[fruits]]\n[fruits]\n", "[[a]]\n[a.b]\n[[a]]\n[a.b]\n",
        "[[a]]\nb.c = 1\n[[a]]\nb.c = 2\n",
        "[[a.b]]\n[a]\nb.c = 1\n", "[a]\n[[a.b]]\n[a.b.c]\n", "[[a]]\n[[a.b]]\n[a.b]\n", "[[a]]\nb = 1\n[a.b]\n",
        // statements and comments
        "a = 1 # comment\n", "a = 1 b = 2\n", "a = 1 # c\u{01}\n", "# \u{7F}\n", "a = \"x\" # é\n", "\u{FEFF}a = 1\n",
        "a = 1\n\t\t b = 2 \t\n",
        "  [a]  \n  b = 1  \n", "a = 1\u{0B}\n", "a = 1\0", "a = 'x'\u{0C}\n",
    ]

    @Test func agreesWithPythonTomllib() throws {
        var documents = Self.handWritten
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let shipped = try String(
            contentsOf: repository.appendingPathComponent("config/multitouchd.toml"), encoding: .utf8)
        documents.append(shipped)
        documents.append(uncommentingExamples(shipped))
        var random = XorShift(seed: 0x746f_6d6c)
        for _ in 0..<300 { documents.append(TOMLGenerator.document(&random)) }
        if let seed = ProcessInfo.processInfo.environment["TOML_CONFORMANCE_SEED"].flatMap({ UInt64($0) }) {
            random = XorShift(seed: seed)
        }
        let seeds = documents
        // TOML_CONFORMANCE_MUTATIONS raises the count for a longer run by hand (200000 takes a minute).
        let mutations = ProcessInfo.processInfo.environment["TOML_CONFORMANCE_MUTATIONS"].flatMap { Int($0) } ?? 3000
        for index in 0..<mutations {
            documents.append(mutate(seeds[index % seeds.count], &random))
        }
        let oracle = try PythonTomllib.load(documents)
        try #require(oracle.count == documents.count)

        var accepted = 0
        var refused = 0
        var skipped = 0
        for (document, expected) in zip(documents, oracle) {
            let ours: Result<TOMLDocument, TOMLSyntaxError> = Result { () throws(TOMLSyntaxError) in
                try TOMLParser.parse(document)
            }
            switch (expected, ours) {
            case (.skipped, _):
                skipped += 1
            case (.accepted(let value), .success(let parsed)):
                accepted += 1
                #expect(canonical(.table(parsed.root)) == value, "different values for \(String(reflecting: document))")
            case (.beyond64Bits, .failure(let error)):
                refused += 1
                #expect(error.message.contains("64 bits"))
            case (.beyond64Bits, .success):
                Issue.record("an integer beyond 64 bits is accepted: \(String(reflecting: document))")
            case (.refused, .failure(let error)):
                refused += 1
                #expect(error.line >= 1 && (error.column ?? 0) >= 1 && !error.message.isEmpty)
            case (.accepted, .failure(let error)):
                Issue.record("tomllib accepts, we refuse (\(error)): \(String(reflecting: document))")
            case (.refused, .success):
                Issue.record("tomllib refuses, we accept: \(String(reflecting: document))")
            }
        }
        print("TOML conformance: \(accepted) accepted, \(refused) refused, \(skipped) skipped")
        // Both outcomes must be well represented, or the comparison proves little.
        #expect(accepted > 300)
        #expect(refused > 1000)
        #expect(skipped < documents.count / 100)
    }

    /// Deep nesting is refused with an error instead of recursing until the stack runs out.
    @Test func deepNestingIsRefused() {
        let depth = 100_000
        for document in [
            "a = " + String(repeating: "[", count: depth), "a = " + String(repeating: "{b=", count: depth),
            "[" + Array(repeating: "a", count: depth).joined(separator: ".") + "]",
            Array(repeating: "a", count: depth).joined(separator: ".") + " = 1",
        ] {
            #expect(throws: TOMLSyntaxError.self) { try TOMLParser.parse(document) }
        }
        let fine = "a = " + String(repeating: "[", count: 40) + String(repeating: "]", count: 40)
        #expect(throws: Never.self) { try TOMLParser.parse(fine) }
    }

    /// Every line of an implicitly created table is known, so an unknown key under it has a line.
    @Test func implicitTablesHaveLines() throws {
        let document = try TOMLParser.parse(
            "# x\n[a.b.c]\nd = 1\n[e]\nf.g.h = 2\n[[i.j]]\n[[i.j]]\nk = [1,\n  {l = 3}]\n")
        #expect(document.keyLines["a"] == 2)
        #expect(document.keyLines["a.b"] == 2)
        #expect(document.keyLines["a.b.c.d"] == 3)
        #expect(document.keyLines["e.f"] == 5)
        #expect(document.keyLines["e.f.g"] == 5)
        #expect(document.keyLines["i"] == 6)
        #expect(document.keyLines["i.j[2]"] == 7)
        #expect(document.keyLines["i.j[2].k[2].l"] == 9)
    }

    /// A table never keeps one of two definitions of a key without a word: TOML forbids redefining a
    /// key, so adding one twice is an error at the second definition's line.
    @Test func tableRefusesAKeyDefinedTwice() throws {
        var table = TOMLTable()
        try table.append("a", .integer(1), line: 2)
        #expect(
            throws: TOMLSyntaxError(
                line: 7, column: nil, message: "a is already defined in this table; a key is defined only once")
        ) {
            try table.append("a", .integer(2), line: 7)
        }
        #expect(table["a"] == .integer(1))
        #expect(table.keys == ["a"])
    }

    /// The loader reports a redefinition as `file:line:` with the line of the second definition.
    @Test(arguments: [
        ("a = 1\na = 2\n", 2), ("[t]\nx = 1\n\n[t]\ny = 2\n", 4), ("a.b = 1\n[a]\n", 2),
        ("[x.y]\n[x]\ny = 1\n", 3), ("[[r]]\n[r]\n", 2), ("t = {a = 1, a = 2}\n", 1),
    ])
    func redefinitionsAreErrorsWithTheirLine(text: String, line: Int) {
        do {
            _ = try DaemonConfiguration.parse(text: text, source: "dup.toml")
            Issue.record("accepted a redefinition: \(String(reflecting: text))")
        } catch {
            #expect(error.issues.count == 1)
            #expect(error.issues.first?.line == line, "\(error)")
            #expect(error.description.hasPrefix("dup.toml:\(line):"), "\(error)")
            #expect(error.description.contains("define"), "\(error)")
        }
    }
}

// MARK: the oracle

/// Runs Python's tomllib over many documents in one process.
enum PythonTomllib {
    enum Outcome: Equatable {
        case accepted(String)
        case refused
        /// tomllib accepted an integer beyond 64 bits, which TOML tells readers to refuse and tomllib
        /// keeps (Python integers have no limit): we must refuse it.
        case beyond64Bits
        /// tomllib gave up for a reason that is not a TOML verdict (its recursion limit).
        case skipped
    }

    static let script = #"""
        import math, struct, sys, tomllib, datetime
        class Big(Exception): pass
        def canon(v):
            if isinstance(v, bool): return "b1" if v else "b0"
            if isinstance(v, int):
                if not -2**63 <= v < 2**63: raise Big()
                return "i%d" % v
            if isinstance(v, float):
                return "fnan" if math.isnan(v) else "f%016x" % struct.unpack("<Q", struct.pack("<d", v))[0]
            if isinstance(v, str): return "s" + v.encode("utf-8").hex()
            if isinstance(v, datetime.datetime):
                return ("odt:" if v.tzinfo else "ldt:") + v.isoformat()
            if isinstance(v, datetime.date): return "ld:" + v.isoformat()
            if isinstance(v, datetime.time): return "lt:" + v.isoformat()
            if isinstance(v, list): return "[" + ",".join(canon(x) for x in v) + "]"
            if isinstance(v, dict):
                return "{" + ",".join(sorted(k.encode("utf-8").hex() + ":" + canon(x) for k, x in v.items())) + "}"
            raise TypeError(type(v))
        for line in sys.stdin:
            text = bytes.fromhex(line.strip()).decode("utf-8")
            try:
                print("ok " + canon(tomllib.loads(text)))
            except tomllib.TOMLDecodeError:
                print("error")
            except Big:
                print("big")
            except RecursionError:
                print("skip")
        """#

    static func load(_ documents: [String]) throws -> [Outcome] {
        let input =
            documents.map { Array($0.utf8).map { String(format: "%02x", $0) }.joined() }.joined(separator: "\n") + "\n"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script]
        let stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        try process.run()
        // Write from another thread: the output pipe would fill while this one blocks on input.
        let writer = Thread {
            stdin.fileHandleForWriting.write(Data(input.utf8))
            try? stdin.fileHandleForWriting.close()
        }
        writer.start()
        let output = String(decoding: stdout.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw OracleError(
                description:
                    "python3 with tomllib (Python 3.11 or later) is needed for this test; exit \(process.terminationStatus)"
            )
        }
        return output.split(separator: "\n").map { line in
            if line.hasPrefix("ok ") { return .accepted(String(line.dropFirst(3))) }
            switch line {
            case "big": return .beyond64Bits
            case "skip": return .skipped
            default: return .refused
            }
        }
    }

    struct OracleError: Error, CustomStringConvertible { var description: String }
}

/// The oracle's canonical text of a value.
func canonical(_ value: TOMLValue) -> String {
    switch value {
    case .boolean(let flag): return flag ? "b1" : "b0"
    case .integer(let number): return "i\(number)"
    case .float(let number): return number.isNaN ? "fnan" : "f" + String(format: "%016llx", number.bitPattern)
    case .string(let text): return "s" + hex(text)
    case .array(let elements): return "[" + elements.map(canonical).joined(separator: ",") + "]"
    case .table(let table):
        return "{" + table.keys.map { hex($0) + ":" + canonical(table[$0]!) }.sorted().joined(separator: ",") + "}"
    case .dateTime(let value):
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let date = String(format: "%04d-%@-%@", value.year, two(value.month), two(value.day))
        var time = "\(two(value.hour)):\(two(value.minute)):\(two(value.second))"
        if value.microsecond != 0 { time += String(format: ".%06d", value.microsecond) }
        let offset = abs(value.offsetMinutes)
        let zone = (value.offsetMinutes < 0 ? "-" : "+") + two(offset / 60) + ":" + two(offset % 60)
        switch value.form {
        case .offsetDateTime: return "odt:\(date)T\(time)\(zone)"
        case .localDateTime: return "ldt:\(date)T\(time)"
        case .localDate: return "ld:\(date)"
        case .localTime: return "lt:\(time)"
        }
    }
}

private func hex(_ text: String) -> String {
    text.utf8.map { String(format: "%02x", $0) }.joined()
}

// MARK: inputs

/// A small deterministic generator (xorshift64*), so every run compares the same documents.
struct XorShift {
    var state: UInt64
    init(seed: UInt64) { state = seed | 1 }
    mutating func next() -> UInt64 {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        return state &* 0x2545_F491_4F6C_DD1D
    }
    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
    mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }
}

/// Valid TOML documents in many spellings: headers, arrays of tables, dotted and quoted keys, every
/// value type, comments and blank lines in odd places.
enum TOMLGenerator {
    static func document(_ random: inout XorShift) -> String {
        var lines: [String] = []
        var used = Set<String>()
        for _ in 0..<(1 + random.below(6)) {
            lines.append(contentsOf: keyValues(&random, into: &used))
        }
        for section in 0..<random.below(5) {
            let name = "t\(section)" + (random.below(2) == 0 ? ".\(key(&random))" : "")
            if random.below(3) == 0 {
                for _ in 0..<(1 + random.below(3)) {
                    lines.append("[[\(name)]]" + (random.below(4) == 0 ? " # array" : ""))
                    var local = Set<String>()
                    lines.append(contentsOf: keyValues(&random, into: &local))
                }
            } else {
                lines.append(
                    random.below(2) == 0 ? "[\(name)]" : "[ \(name.replacingOccurrences(of: ".", with: " . ")) ]")
                var local = Set<String>()
                lines.append(contentsOf: keyValues(&random, into: &local))
            }
            if random.below(3) == 0 { lines.append(random.pick(["", "# between sections", "  \t"])) }
        }
        return lines.joined(separator: random.below(8) == 0 ? "\r\n" : "\n") + (random.below(2) == 0 ? "\n" : "")
    }

    static func keyValues(_ random: inout XorShift, into used: inout Set<String>) -> [String] {
        var lines: [String] = []
        for _ in 0..<random.below(4) {
            let name = key(&random)
            guard used.insert(name).inserted else { continue }
            let dotted = random.below(4) == 0 ? "\(name).\(key(&random))" : name
            if dotted != name { used.insert(dotted) }
            lines.append("\(dotted) = \(value(&random, depth: 0))" + (random.below(4) == 0 ? " # note" : ""))
        }
        return lines
    }

    static func key(_ random: inout XorShift) -> String {
        let bare = random.pick(["a", "b", "key", "k-1", "k_2", "3", "true", "pan_slop_mm", "Ünï"])
        switch random.below(6) {
        case 0: return "\"\(bare)\""
        case 1: return "'\(bare)'"
        case 2 where bare == "Ünï": return "\"\(bare)\""
        default: return bare == "Ünï" ? "'\(bare)'" : bare + "\(random.below(100))"
        }
    }

    static func value(_ random: inout XorShift, depth: Int) -> String {
        switch random.below(depth < 3 ? 8 : 6) {
        case 0:
            return random.pick([
                "0", "-1", "+42", "1_000", "0xdead_BEEF", "0o17", "0b1010", "9223372036854775807", "-0",
            ])
        case 1:
            return random.pick(["1.5", "-0.0", "6.02e23", "1e-3", "3.14_15", "inf", "-inf", "nan", "1E+2", "2.5e-1_0"])
        case 2:
            return random.pick([
                "\"plain\"", "\"esc \\\" \\\\ \\n \\t \\u00e9 \\U0001F600\"", "'C:\\path'", "\"\"\"\nmulti\nline\"\"\"",
                "'''\nraw \\n'''", "\"\"\"trim \\\n   here\"\"\"", "\"\"", "''", "\"ünïcödé\"", "\"\"\"q\"\"\"\"\"",
            ])
        case 3: return random.pick(["true", "false"])
        case 4:
            return random.pick([
                "1979-05-27T07:32:00Z", "1979-05-27 07:32:00.5+01:30", "1979-05-27T07:32:00", "1979-05-27",
                "07:32:00.123",
                "2000-02-29T23:59:59.999999999-12:00",
            ])
        case 5: return random.pick(["\"group\"", "0660", "\"0660\"", "[1920, 1080]"])
        case 6:
            let count = random.below(4)
            let elements = (0..<count).map { _ in value(&random, depth: depth + 1) }
            let separator = random.pick([", ", ",", " ,\n  ", ", # c\n"])
            return "[" + elements.joined(separator: separator) + (count > 0 && random.below(3) == 0 ? "," : "") + "]"
        default:
            var keys = Set<String>()
            var pairs: [String] = []
            for _ in 0..<random.below(4) {
                let name = key(&random)
                guard keys.insert(name).inserted else { continue }
                pairs.append("\(name) = \(value(&random, depth: depth + 1).replacingOccurrences(of: "\n", with: " "))")
            }
            return pairs.isEmpty ? "{}" : "{ " + pairs.joined(separator: ", ") + " }"
        }
    }
}

/// Byte-level edits with characters TOML gives meaning to.
func mutate(_ text: String, _ random: inout XorShift) -> String {
    var bytes = Array(text.utf8)
    let interesting = Array(" \t\n\r#=.,[]{}\"'\\+-_:0123456789eExobTZaz".utf8) + [0x01, 0x7F]
    for _ in 0..<(1 + random.below(3)) {
        guard !bytes.isEmpty else {
            bytes = [random.pick(interesting)]
            continue
        }
        let index = random.below(bytes.count)
        switch random.below(6) {
        case 0: bytes.remove(at: index)
        case 1: bytes.insert(random.pick(interesting), at: index)
        case 2: bytes[index] = random.pick(interesting)
        case 3:
            let end = min(bytes.count, index + 1 + random.below(20))
            bytes.insert(contentsOf: bytes[index..<end], at: random.below(bytes.count + 1))
        case 4: bytes.removeSubrange(index..<min(bytes.count, index + 1 + random.below(20)))
        default: bytes.swapAt(index, random.below(bytes.count))
        }
    }
    // Keep valid UTF-8 (the file reader refuses anything else before the parser sees it).
    return String(decoding: bytes, as: UTF8.self)
}

/// The shipped file with its commented examples (`# key = value`) turned into live lines.
func uncommentingExamples(_ text: String) -> String {
    text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
        if line.hasPrefix("# ") && line.contains("=") { return String(line.dropFirst(2)) }
        if line.hasPrefix("# [") { return String(line.dropFirst(2)) }
        return String(line)
    }.joined(separator: "\n")
}
