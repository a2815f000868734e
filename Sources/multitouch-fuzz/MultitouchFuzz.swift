import Foundation
// multitouch-fuzz: the project's fuzz targets in one binary (docs/FUZZING.md).
//
// Built by scripts/fuzz.sh with -sanitize=fuzzer and -DFUZZING, it is a libFuzzer binary: libFuzzer
// owns main (SwiftPM then compiles this file as a library) and calls the two functions below. The
// harness comes from the environment, not argv, because libFuzzer re-runs argv in its fork and merge
// modes:
//
//   MULTITOUCH_FUZZ_HARNESS=NAME multitouch-fuzz [libFuzzer options] [corpus dirs or files]
//
// Built normally (swift build), it is a small tool around the same harnesses:
//
//   multitouch-fuzz list                      the harness names, one per line
//   multitouch-fuzz seeds NAME ROOT OUTDIR    write NAME's seed inputs from the repository at ROOT
//   multitouch-fuzz replay NAME FILE...       run inputs through NAME and print each outcome
import FuzzHarnesses

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("multitouch-fuzz: \(message)\n".utf8))
    exit(2)
}

func harness(_ name: String) -> FuzzHarness {
    guard let found = FuzzHarness.named(name) else {
        fail("no harness \"\(name)\"; known: \(FuzzHarness.all.map(\.name).joined(separator: ", "))")
    }
    return found
}

#if FUZZING
/// The harness libFuzzer's callbacks run, chosen once in `LLVMFuzzerInitialize`.
nonisolated(unsafe) var selected: FuzzHarness?

@_cdecl("LLVMFuzzerInitialize")
public func fuzzerInitialize(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>
) -> Int32 {
    guard let name = ProcessInfo.processInfo.environment["MULTITOUCH_FUZZ_HARNESS"] else {
        fail("set MULTITOUCH_FUZZ_HARNESS to one of: \(FuzzHarness.all.map(\.name).joined(separator: ", "))")
    }
    selected = harness(name)
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    _ = selected?.run(input)
    return 0
}
#else
/// The replay tool of a normal build (see the top of this file).
@main
struct MultitouchFuzz {
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        switch arguments.first {
        case "list":
            for harness in FuzzHarness.all { print(harness.name) }
        case "seeds":
            guard arguments.count == 4 else { fail("usage: multitouch-fuzz seeds NAME ROOT OUTDIR") }
            let output = arguments[3]
            try? FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
            let seeds = harness(arguments[1]).seeds(arguments[2])
            for seed in seeds {
                guard FileManager.default.createFile(atPath: output + "/" + seed.name, contents: Data(seed.bytes))
                else {
                    fail("cannot write \(output)/\(seed.name)")
                }
            }
            print("\(seeds.count) seeds for \(arguments[1]) in \(output)")
        case "replay":
            guard arguments.count >= 3 else { fail("usage: multitouch-fuzz replay NAME FILE...") }
            let selected = harness(arguments[1])
            for path in arguments.dropFirst(2) {
                guard let data = FileManager.default.contents(atPath: path) else { fail("cannot read \(path)") }
                print("\(path): \(selected.run([UInt8](data)))")
            }
        default:
            fail("usage: multitouch-fuzz list | seeds NAME ROOT OUTDIR | replay NAME FILE... (docs/FUZZING.md)")
        }
    }
}
#endif
