import Glibc
import Testing

@testable import DeviceInput

@Suite struct DeviceLinksTests {
    @Test func findsTheLinksThatResolveToANode() throws {
        let root = try temporaryDirectory()
        let node = root + "/event4"
        let other = root + "/event5"
        for path in [node, other] {
            let fd = open(path, O_CREAT | O_WRONLY, 0o600)
            try #require(fd >= 0)
            close(fd)
        }
        #expect(mkdir(root + "/by-id", 0o755) == 0)
        #expect(mkdir(root + "/by-path", 0o755) == 0)
        #expect(symlink("../event4", root + "/by-id/usb-Vendor_Panel-event-if00") == 0)
        #expect(symlink("../event5", root + "/by-id/usb-Other-event-kbd") == 0)
        #expect(symlink(node, root + "/by-path/pci-0000:00:14.0-usb-0:1:1.0-event") == 0)
        let links = DeviceLinks.links(to: node, directories: [root + "/by-id", root + "/by-path"])
        #expect(
            links == [
                root + "/by-id/usb-Vendor_Panel-event-if00", root + "/by-path/pci-0000:00:14.0-usb-0:1:1.0-event",
            ])
        #expect(DeviceLinks.links(to: root + "/missing", directories: [root + "/by-id"]).isEmpty)
    }
}

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
