import Glibc
import SystemCalls
import Testing

@Suite struct SignalDescriptorTests {
    /// Process-directed (kill), as SIGTERM from systemd or a shell is: in this multi-threaded test
    /// process any thread may take it. A mask set in one thread would let another thread's default
    /// action kill the process; the handler writes to the pipe whichever thread runs it.
    @Test func aProcessDirectedSignalBecomesReadableFromAnyThread() throws {
        signal(SIGUSR2, SIG_IGN)
        defer { signal(SIGUSR2, SIG_DFL) }
        do {
            let signals = try SignalDescriptor(signals: [SIGUSR2])
            #expect(signals.receive().isEmpty)
            #expect(kill(getpid(), SIGUSR2) == 0)
            var pfd = pollfd(fd: signals.fileDescriptor, events: Int16(POLLIN), revents: 0)
            #expect(poll(&pfd, 1, 5000) == 1)
            #expect(signals.receive() == [SIGUSR2])
            #expect(signals.receive().isEmpty)
        }
        // The previous disposition (ignore) is back once the descriptor is gone.
        var current = sigaction()
        #expect(sigaction(SIGUSR2, nil, &current) == 0)
        #expect(
            unsafeBitCast(current.__sigaction_handler.sa_handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self))
    }
}
