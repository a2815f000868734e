import MultitouchCore
import Testing

import Recordings

/// Malformed input of every kind ends in a RecordingError naming the file, the line and what was expected.
@Suite struct MalformedInputTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var text: String
        var line: Int
        var message: String
        var testDescription: String { message }
    }

    static let header = "N: dev\nI: 0003 0001 0002 0003\n"

    static let evemuCases: [Case] = [
        Case(text: header + "E: 1.000000 0003 0000\n", line: 3, message: "expected 'E: <sec>.<usec> <type> <code> <value>'"),
        Case(text: header + "E: 1 0003 0000 5\n", line: 3, message: "expected 'E: <sec>.<usec> <type> <code> <value>'"),
        Case(text: header + "E: 1.5 0003 0000 5\n", line: 3, message: "expected six digits of microseconds"),
        Case(text: header + "E: 1.000000 0003 0000 5x\n", line: 3, message: "expected 'E: <sec>.<usec>"),
        Case(text: header + "E: 1.000000 0003 0000 5 junk\n", line: 3, message: "expected 'E: <sec>.<usec>"),
        Case(text: header + "E: 1.000000 00g3 0000 5\n", line: 3, message: "expected 'E: <sec>.<usec>"),
        Case(text: header + "E:1.000000 0003 0000 5\n", line: 3, message: "expected 'E: <sec>.<usec>"),
        Case(text: header + "E: -1.000000 0003 0000 5\n", line: 3, message: "expected 'E: <sec>.<usec>"),
        Case(text: header + "E: 1.000000 0020 0000 5\n", line: 3, message: "event type 0x20 out of range"),
        Case(text: header + "E: 1.000000 0003 10000 5\n", line: 3, message: "event code out of range"),
        Case(text: header + "E: 1.000000 0003 0000 2147483648\n", line: 3, message: "event value out of Int32 range"),
        Case(text: header + "E: 1.000000 0003 0000 -2147483649\n", line: 3, message: "event value out of Int32 range"),
        Case(text: header + "E: 1.000000 0003 0000 99999999999999999999999\n", line: 3, message: "out of Int32 range"),
        Case(text: header + "E: 1234567890123.000000 0003 0000 1\n", line: 3, message: "timestamp out of range"),
        Case(text: header + "A: 00 0 1\n", line: 3, message: "A: line needs 5 or 6 fields (<code> <min> <max> <fuzz> <flat> [<resolution>]), found 3"),
        Case(text: header + "A: 00 0 1 2 3 4 5\n", line: 3, message: "A: line needs 5 or 6 fields"),
        Case(text: header + "A: 40 0 1 0 0\n", line: 3, message: "expected an ABS code 00...3f"),
        Case(text: header + "A: 00 0 x 0 0\n", line: 3, message: "expected a decimal Int32 in A: line, found 'x'"),
        Case(text: header + "A: 00 0 4294967296 0 0\n", line: 3, message: "expected a decimal Int32"),
        Case(text: header + "A: 00 0 1 0 0\nA: 00 0 1 0 0\n", line: 4, message: "second A: line for code 0x0 (first on line 3)"),
        Case(text: header + "B: 03\n", line: 3, message: "expected 'B: <type> <byte> <byte> ...'"),
        Case(text: header + "B: 20 00\n", line: 3, message: "expected an event type 00...1f"),
        Case(text: header + "B: 03 100\n", line: 3, message: "expected a hex byte 00...ff in 'B:' line, found '100'"),
        Case(text: header + "P:\n", line: 3, message: "expected 'P: <byte> <byte> ...'"),
        Case(text: header + "P: zz\n", line: 3, message: "expected a hex byte 00...ff in 'P:' line"),
        Case(text: "N: dev\nI: 0003 0001 0002\n", line: 2, message: "expected 'I: <bustype> <vendor> <product> <version>' (4 hex fields), found 3"),
        Case(text: "N: dev\nI: 0003 0001 0002 10000\n", line: 2, message: "expected a hex number 0...ffff"),
        Case(text: "N: dev\nN: dev\n", line: 2, message: "second N: line (the name was given on line 1)"),
        Case(text: header + "I: 0 0 0 0\n", line: 3, message: "second I: line"),
        Case(text: "I: 0003 0001 0002 0003\nB: 00 0b\n", line: 1, message: "device description has no 'N: <name>' line"),
        Case(text: "N: dev\nB: 00 0b\n", line: 1, message: "device description has no 'I: <bustype>"),
        Case(text: header + "E: 1.000000 0000 0000 0\nA: 00 0 1 0 0\n", line: 4, message: "device description line 'A:' after the first event (line 3)"),
        Case(text: header + "X: 1\n", line: 3, message: "expected an evemu line (N:, I:, P:, B:, A:, L:, S:, E: or a # comment), found 'X: 1'"),
        Case(text: header + "L: 01\n", line: 3, message: "expected 'L: <led> <state>' (hex code, decimal state), found 'L: 01'"),
        Case(text: header + "S: 00 x\n", line: 3, message: "expected 'S: <switch> <state>'"),
        Case(text: header + "hello\n", line: 3, message: "expected an evemu line"),
        Case(text: header + "E\n", line: 3, message: "expected an evemu line"),
        Case(text: "# EVEMU 2.0\n" + header, line: 1, message: "unsupported evemu file version 2.0 (this reader knows 1.0 to 1.3)"),
        Case(text: "# EVEMU 1.4\n" + header, line: 1, message: "unsupported evemu file version 1.4"),
        Case(text: "# EVEMU one\n" + header, line: 1, message: "expected '# EVEMU <major>.<minor>'"),
        Case(text: "", line: 0, message: "empty file"),
        Case(text: "\n\n# only a comment\n", line: 0, message: "no content: the file holds only blank lines and comments"),
        Case(text: "hello world\n", line: 1, message: "not a recording: expected evemu lines"),
        Case(text: "# Notes\n\nResult: it works\n", line: 3, message: "not a recording: expected evemu lines"),
        Case(text: "\u{0}\u{1}\u{2}garbage", line: 1, message: "not a recording"),
        Case(text: header + "E: 1.000000 0003 0000 \u{0}\n", line: 3, message: "expected 'E: <sec>.<usec>"),
    ]

    @Test(arguments: evemuCases)
    func evemuErrors(_ c: Case) {
        #expect {
            try RecordingReader.parse(text: c.text, name: "bad.evemu")
        } throws: { error in
            guard let e = error as? RecordingError else { return false }
            #expect(e.file == "bad.evemu")
            #expect(e.line == c.line, "\(e)")
            #expect(e.message.contains(c.message), "\(e)")
            return true
        }
    }

    @Test func errorDescriptionHasFileLineAndMessage() {
        #expect(RecordingError(file: "a.evemu", line: 3, message: "m").description == "a.evemu:3: m")
        #expect(RecordingError(file: "a.evemu", line: 0, message: "m").description == "a.evemu: m")
    }

    @Test func invalidUTF8NamesTheLine() {
        var bytes = Array((Self.header + "E: 1.000000 0000 0000 0\n").utf8)
        bytes.insert(0xff, at: 3)  // inside the name on line 1
        bytes += Array("N".utf8) + [0xc3, 0x28, 0x0a]  // another bad sequence on line 4
        #expect {
            try RecordingReader.parse(bytes: bytes, name: "utf.evemu")
        } throws: { error in
            let e = error as? RecordingError
            return e?.line == 1 && e?.message.contains("invalid UTF-8") == true
        }
    }

    @Test func binaryGarbageIsRejected() {
        var rng = SplitMix64(seed: 7)
        let bytes = (0..<4096).map { _ in UInt8.random(in: 0...255, using: &rng) }
        #expect(throws: RecordingError.self) { try RecordingReader.parse(bytes: bytes, name: "garbage.bin") }
    }

    @Test func pathologicalInputIsRejected() {
        // Deeply nested YAML, an unterminated flow, a megabyte-long line.
        for text in [
            "version: 1\ndevices: " + String(repeating: "[", count: 20_000),
            "version: 1\ndevices: " + String(repeating: "- ", count: 20_000),
            Self.header + "E: " + String(repeating: "1", count: 1_000_000) + ".000000 0000 0000 0\n",
        ] {
            #expect(throws: RecordingError.self) { try RecordingReader.parse(text: text, name: "deep") }
        }
    }

    @Test func missingFileAndDirectoryAreErrors() {
        #expect {
            try RecordingReader.read(path: "/nonexistent/x.evemu")
        } throws: { ($0 as? RecordingError)?.message == "no such file" }
        #expect {
            try RecordingReader.read(path: "/tmp")
        } throws: { ($0 as? RecordingError)?.message.contains("is a directory") == true }
    }
}
