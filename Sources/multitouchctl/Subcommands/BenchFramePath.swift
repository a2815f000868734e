import ArgumentParser
import FoundationEssentials
import Glibc
import MultitouchCore
import MultitouchServer

/// `multitouchctl bench --frame-path`: the daemon's whole frame path, device read to socket write
/// (`FramePathBench`), with heap allocations counted per frame when checks/bench/malloc-count.so is
/// preloaded. A count, not a time: CI fails on any allocation in the measured frames
/// (checks/bench/allocations.sh), the nanoseconds are printed for people.
extension Bench {
    /// One measured configuration of the frame path.
    struct FramePathRow {
        var name: String
        var options: FramePathBench.Options
    }

    /// The frame path over one recording: for each client count, the plain path, and with
    /// --predict-ms and --routed those paths too. Returns false when --fail-on-allocation saw an
    /// allocation (or could not count).
    func benchFramePath(name: String, device: DeviceDescription, events base: [InputEvent]) -> Bool {
        let framesPerCopy = base.lazy.filter(\.isSynReport).count
        guard framesPerCopy > 0 else {
            printError("multitouchctl bench: \(name) has no whole frame")
            return false
        }
        // Warm-up: two whole passes over the recording (every buffer grows to what a pass needs),
        // then whole passes measured, so rows of one recording compare.
        let warmup = 2 * framesPerCopy
        let copies = max(1, (frames + framesPerCopy - 1) / framesPerCopy)
        let measured = copies * framesPerCopy
        let eventsPerCopy = base.count
        guard let stream = Self.repeated(base, atLeast: (2 + copies) * eventsPerCopy + 1) else {
            printError("multitouchctl bench: \(name) has no whole frame")
            return false
        }
        var rows: [FramePathRow] = []
        for n in clientCounts {
            rows.append(FramePathRow(name: "\(n) client\(n == 1 ? "" : "s")", options: .init(clients: n)))
            if let predictMilliseconds {
                rows.append(
                    FramePathRow(
                        name: "\(n) predicting \(predictMilliseconds) ms",
                        options: .init(clients: n, predictMilliseconds: predictMilliseconds)))
            }
            if routed {
                rows.append(FramePathRow(name: "\(n) routed", options: .init(clients: n, routed: true)))
            }
        }
        var ok = true
        let counter = AllocationCounter.find()
        if let counter, !counter.counts() {
            printError("multitouchctl bench: the allocation counter is loaded but does not count; nothing measured")
            return false
        }
        for row in rows {
            var line = "bench: frame path: \(name): \(row.name): \(measured) frames"
            var nanoseconds: [Double] = []
            var allocations: [UInt64] = []
            var perClient = 0
            for _ in 0..<max(1, runs) {
                do {
                    let bench = try FramePathBench(description: device, events: stream, options: row.options)
                    try bench.play(frames: warmup)
                    // Copies (not shared buffers): the bench's counters stay unique, so counting
                    // what the clients read allocates nothing in the measured frames.
                    let before = bench.bytesReceived.map { $0 }
                    let messagesBefore = bench.messagesReceived.map { $0 }
                    let start = ContinuousClock.now
                    let counted = counter?.count()
                    let played = try Self.framePathBody(bench, frames: measured)
                    let after = counter?.count()
                    let elapsed = start.duration(to: .now)
                    guard played == measured else {
                        printError("multitouchctl bench: \(name): played \(played) of \(measured) frames")
                        return false
                    }
                    if let counted, let after { allocations.append(after - counted) }
                    nanoseconds.append(
                        (Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9)
                            / Double(measured))
                    let bytes = zip(bench.bytesReceived, before).map { $0 - $1 }
                    let messages = zip(bench.messagesReceived, messagesBefore).map { $0 - $1 }
                    guard bytes.allSatisfy({ $0 > 0 }) else {
                        printError("multitouchctl bench: \(name): \(row.name): a client received nothing")
                        return false
                    }
                    perClient = bytes.reduce(0, +) / max(1, bytes.count * measured)
                    line += ", \(messages.reduce(0, +)) messages"
                } catch {
                    printError("multitouchctl bench: \(name): \(row.name): \(error)")
                    return false
                }
            }
            nanoseconds.sort()
            line += String(
                format: "; %.0f ns/frame median (%.0f-%.0f)", nanoseconds[nanoseconds.count / 2],
                nanoseconds.first ?? 0, nanoseconds.last ?? 0)
            line += "; \(perClient) bytes/frame per client"
            if let worst = allocations.max() {
                line += String(format: "; allocations: %llu (%.3f per frame)", worst, Double(worst) / Double(measured))
                if failOnAllocation && worst > 0 {
                    line += " FAILED: the steady state allocates"
                    ok = false
                }
            } else {
                line += "; allocations: not counted (preload checks/bench/malloc-count.so)"
                if failOnAllocation { ok = false }
            }
            print(line)
        }
        if failOnAllocation && counter == nil {
            printError(
                "multitouchctl bench: --fail-on-allocation needs the allocation counter: LD_PRELOAD=malloc-count.so (cc -shared -fPIC -o malloc-count.so checks/bench/malloc-count.c)"
            )
        }
        return ok
    }

    /// The client counts of `--clients` ("1,8").
    var clientCounts: [Int] {
        clients.split(separator: ",").compactMap { Int($0.filter { $0 != " " }) }.filter { $0 > 0 }
    }

    /// The measured frames. Not inlined, so that `valgrind --tool=callgrind
    /// --toggle-collect='*framePathBody*'` counts exactly these (instructions, malloc, swift_retain
    /// and swift_release calls per frame).
    @inline(never)
    static func framePathBody(_ bench: FramePathBench, frames: Int) throws -> Int {
        try bench.play(frames: frames)
    }
}

/// The allocation counter of checks/bench/malloc-count.c, when it is preloaded.
struct AllocationCounter {
    private let function: @convention(c) () -> UInt64

    /// The preloaded counter, or nil.
    static func find() -> AllocationCounter? {
        guard let handle = dlopen(nil, RTLD_NOW), let symbol = dlsym(handle, "multitouchd_allocation_count") else {
            return nil
        }
        return AllocationCounter(function: unsafeBitCast(symbol, to: (@convention(c) () -> UInt64).self))
    }

    /// Allocations so far in this process.
    func count() -> UInt64 { function() }

    /// Whether the counter sees an allocation the benchmark makes itself (a self-check: a counter that
    /// never moves would pass every frame).
    func counts() -> Bool {
        let before = count()
        let probe = Self.heapArray(count: 1000)
        let after = count()
        return probe.count == 1000 && after > before
    }

    /// An array that is certainly on the heap (returned out of a function that is not inlined).
    @inline(never)
    private static func heapArray(count: Int) -> [Int] { [Int](repeating: count, count: count) }
}
