import Configuration
import Foundation
import Publishing
import Recordings
import WireProtocol

/// One fuzz target: the code libFuzzer feeds bytes to, and where its seed inputs come from.
///
/// Its committed inputs live in `checks/fuzz/<name>/`: `seeds/` (extra seeds), `regressions/` (inputs
/// that once crashed or hung it, replayed by `swift test`) and an optional `dictionary` for libFuzzer.
/// `scripts/fuzz.sh` runs every harness in `all`; docs/FUZZING.md describes the workflow.
public struct FuzzHarness: Sendable {
    /// What one input did. Anything else (a trap, a crash, a hang) is what the fuzzer looks for.
    public enum Outcome: Hashable, Sendable {
        /// Valid input, processed to the end.
        case accepted
        /// Refused with an error, as bad input must be.
        case rejected
        /// Not this harness's format (an evemu file given to the YAML harness); the other harness reads it.
        case skipped
    }

    /// Names the corpus directory (`checks/fuzz/<name>`) and the harness on the command line.
    public let name: String
    /// Builds the seed inputs from the repository at `root`: inputs that reach deep into the parser.
    public let seeds: @Sendable (_ root: String) -> [(name: String, bytes: [UInt8])]
    /// Runs one input. It must return for every input, quickly.
    public let run: @Sendable (_ input: [UInt8]) -> Outcome

    public init(
        name: String, seeds: @escaping @Sendable (_ root: String) -> [(name: String, bytes: [UInt8])],
        run: @escaping @Sendable (_ input: [UInt8]) -> Outcome
    ) {
        self.name = name
        self.seeds = seeds
        self.run = run
    }

    /// Every harness. Adding one is one entry here (and its module in FuzzHarnesses' dependencies in
    /// Package.swift); the script, the seed corpus and the regression test pick it up by name.
    public static let all: [FuzzHarness] = [
        FuzzHarness(name: "evemu", seeds: Seeds.evemu, run: Harnesses.evemu),
        FuzzHarness(name: "libinput-record", seeds: Seeds.libinputRecord, run: Harnesses.libinputRecord),
        FuzzHarness(name: "configuration", seeds: Seeds.configuration, run: Harnesses.configuration),
        FuzzHarness(name: "request", seeds: Seeds.request, run: Harnesses.request),
        FuzzHarness(
            name: "request-structured", seeds: Seeds.committedOnly("request-structured"), run: StructuredRequests.run),
        FuzzHarness(name: "websocket", seeds: Seeds.committedOnly("websocket"), run: WebSocketFrames.run),
    ]

    public static func named(_ name: String) -> FuzzHarness? {
        all.first { $0.name == name }
    }
}

/// The harness bodies.
enum Harnesses {
    /// An evemu recording, optionally followed by a NUL byte and a description (what `--desc` passes
    /// for an events-only file). A recording that parses is replayed through the whole pipeline by
    /// `RecordingCheck` (twice, with every invariant checker), so a crash anywhere a recording can
    /// reach is found, not only in the reader.
    @Sendable static func evemu(_ input: [UInt8]) -> FuzzHarness.Outcome {
        let (recording, description) = splitAtNUL(input)
        guard let kind = try? RecordingReader.detect(recording, name: "fuzz"), kind != .libinputRecord else {
            return .skipped
        }
        return parseAndReplay(recording, description: description)
    }

    /// A `libinput record` YAML file, replayed like an evemu one when it parses.
    @Sendable static func libinputRecord(_ input: [UInt8]) -> FuzzHarness.Outcome {
        guard (try? RecordingReader.detect(input, name: "fuzz")) == .libinputRecord else { return .skipped }
        return parseAndReplay(input, description: nil)
    }

    /// A configuration file, through the same path `--check-config` and SIGHUP take.
    @Sendable static func configuration(_ input: [UInt8]) -> FuzzHarness.Outcome {
        // The file reader refuses anything but UTF-8 before the parser sees it (ConfigurationLoading).
        guard let text = String(validating: input, as: UTF8.self) else { return .skipped }
        do {
            let configuration = try DaemonConfiguration.parse(text: text, source: "fuzz.toml")
            _ = ConfigurationCheck.summary(of: configuration)
            return .accepted
        } catch {
            _ = error.description
            return .rejected
        }
    }

    /// A client's byte stream, as the daemon reads it: framed by `LineFramer` (in two reads, split in the
    /// middle, so partial lines are exercised) with the default 64 KiB line limit, each line decoded by
    /// `ClientRequest(decoding:)`. Beyond "no crash", three properties must hold, else it traps:
    /// a decoded `setTransform` meets `TransformBounds` (the engine never sees an out-of-bounds base), a
    /// decoded request encodes and decodes back to itself (what clients send is what the daemon reads),
    /// and a refusal encodes as an `error` line.
    @Sendable static func request(_ input: [UInt8]) -> FuzzHarness.Outcome {
        var framer = LineFramer()
        var refused = false
        let middle = input.count / 2
        for chunk in [input[..<middle], input[middle...]] {
            switch framer.append(chunk, maximumLineBytes: 65_536) {
            case .lineTooLong:
                return .rejected
            case .lines(let lines):
                for line in lines where !decodeRequest(line) { refused = true }
            }
        }
        return refused ? .rejected : .accepted
    }

    /// One request line through the decoder and the properties `request` checks; true when it decoded.
    static func decodeRequest(_ line: [UInt8]) -> Bool {
        do {
            let request = try ClientRequest(decoding: line)
            if case .setTransform(_, let matrix) = request.action {
                let entries = [matrix.a, matrix.b, matrix.c, matrix.d, matrix.tx, matrix.ty]
                if case .failure(let error) = TransformBounds.validate(entries) {
                    fatalError("decoded a setTransform outside the bounds: \(error.message)")
                }
            }
            let again = try? ClientRequest(decoding: Array(request.jsonLine().utf8))
            if again != request { fatalError("\(request) does not survive encoding: \(request.jsonLine())") }
            return true
        } catch {
            var bytes: [UInt8] = []
            Message.error(error.errorMessage).encode(into: &bytes)
            if bytes.last != 0x0A { fatalError("the refusal is not one line: \(error)") }
            return false
        }
    }

    private static func parseAndReplay(_ bytes: [UInt8], description: [UInt8]?) -> FuzzHarness.Outcome {
        do {
            let recording = try RecordingReader.parse(
                bytes: bytes, name: "fuzz", descriptionBytes: description, descriptionName: "fuzz.desc")
            let report = RecordingCheck.run(recording: recording, name: "fuzz")
            // MULTITOUCH_FUZZ_STRICT=1 makes a broken invariant (NaN published, unbalanced phases,
            // a replay that differs from itself) a crash too, for a fuzzer run that hunts for those.
            if strict, !report.passed { fatalError("invariant broken: \(report.failures)") }
            return .accepted
        } catch {
            _ = error.description
            return .rejected
        }
    }

    private static let strict = ProcessInfo.processInfo.environment["MULTITOUCH_FUZZ_STRICT"] == "1"

    /// Bytes before the first NUL, and the bytes after it (nil without a NUL).
    static func splitAtNUL(_ input: [UInt8]) -> ([UInt8], [UInt8]?) {
        guard let nul = input.firstIndex(of: 0) else { return (input, nil) }
        return (Array(input[..<nul]), Array(input[(nul + 1)...]))
    }
}
