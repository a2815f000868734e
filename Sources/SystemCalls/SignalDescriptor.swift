import Glibc

/// Signals as a readable fd, so a poll loop handles SIGINT/SIGTERM like input and ends cleanly (touches
/// cancelled, files written) instead of dying mid-write.
///
/// A handler installed with sigaction(2) writes each signal's number into a non-blocking pipe; the
/// loop polls the pipe's read end. Unlike blocking the signals and reading a signalfd, this works in a
/// process with several threads (multitouchctl's async main runs commands beside runtime threads,
/// and a signal blocked only in the calling thread is delivered to another one, killing the process).
/// One instance at a time: the handlers share one pipe. The previous handlers come back on deinit.
public final class SignalDescriptor {
    public let fileDescriptor: Int32
    private let writeEnd: Int32
    private let signals: [Int32]
    private var previous: [sigaction]

    public init(signals: [Int32] = [SIGINT, SIGTERM]) throws(SystemError) {
        let ends = try Sys.pipe(nonBlocking: true, closeOnExec: true)
        fileDescriptor = ends.read
        writeEnd = ends.write
        self.signals = signals
        previous = []
        // Stored before any handler can run, so the handler only ever reads it.
        signalPipeWriteEnd = writeEnd
        for signal in signals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in
                var byte = UInt8(truncatingIfNeeded: number)
                let saved = errno
                _ = write(signalPipeWriteEnd, &byte, 1)  // async-signal-safe; a full pipe already says enough
                errno = saved
            }
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            var old = sigaction()
            guard sigaction(signal, &action, &old) == 0 else {
                // Every stored property is set, so deinit runs: it restores the handlers installed so
                // far and closes the pipe (closing it here too would close it twice).
                throw Sys.failure("sigaction", errno: errno, detail: "signal \(signal)")
            }
            previous.append(old)
        }
    }

    deinit {
        restoreHandlers()
        Sys.close(fileDescriptor)
        Sys.close(writeEnd)
    }

    private func restoreHandlers() {
        for (signal, old) in zip(signals, previous) {
            var old = old
            sigaction(signal, &old, nil)
        }
    }

    /// The signal numbers received since the last call (empty when none).
    public func receive() -> [Int32] {
        var result: [Int32] = []
        var buffer = [UInt8](repeating: 0, count: 64)
        while true {
            // EAGAIN (all read) and any error end the batch alike: the pipe is ours and never fails.
            guard let n = try? Sys.read(fileDescriptor, into: &buffer), n > 0 else { return result }
            result += buffer[0..<n].map { Int32($0) }
        }
    }
}

/// The pipe the signal handler writes to (a C handler cannot capture it).
nonisolated(unsafe) private var signalPipeWriteEnd: Int32 = -1
