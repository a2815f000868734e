import ArgumentParser
import DeviceInput
import Glibc
import MultitouchCore
import SystemCalls

/// Time now on CLOCK_MONOTONIC, the clock live event timestamps use (libevdev_set_clock_id).
func monotonicNow() -> Timestamp {
    Timestamp(microseconds: Int64(Sys.monotonicNanoseconds() / 1000))
}

/// SIGINT/SIGTERM for a live command's poll loop; `fileDescriptor` is -1 (never readable) if
/// signalfd is unavailable, and the signals then simply terminate the process.
struct TerminationSignals {
    let descriptor: SignalDescriptor?
    var fileDescriptor: Int32 { descriptor?.fileDescriptor ?? -1 }
    init() { descriptor = try? SignalDescriptor() }
}

/// Waits until one of `fds` is readable or `timeoutMilliseconds` passes (-1: forever). Returns the
/// readable flags per fd (POLLHUP/POLLERR count as readable: the read then reports what happened).
func waitReadable(_ fds: [Int32], timeoutMilliseconds: Int32) -> [Bool] {
    var pollfds = fds.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
    guard let ready = try? Sys.poll(&pollfds, timeoutMilliseconds: timeoutMilliseconds), ready > 0 else {
        return fds.map { _ in false }
    }
    return pollfds.map { $0.revents != 0 }
}

/// Milliseconds from `now` until `deadline`, clamped to poll's range; nil deadline waits forever.
func pollTimeout(until deadline: Timestamp?, now: Timestamp) -> Int32 {
    guard let deadline else { return -1 }
    let milliseconds = (deadline.microseconds - now.microseconds + 999) / 1000
    return Int32(clamping: Swift.max(0, milliseconds))
}

/// Opens a device for a command, turning errors into one clear line.
func openLiveDevice(_ path: String, grab: Bool, command: String) throws -> LiveDevice {
    do {
        return try LiveDevice(path: path, grab: grab)
    } catch {
        var text = "multitouchctl \(command): \(error)"
        switch error.kind {
        case .permissionDenied: text += " (run as root or add the user to the 'input' group)"
        case .busy: text += " (another process has grabbed the device)"
        case .noDevice, .other: break
        }
        printError(text)
        throw ExitCode.failure
    }
}
