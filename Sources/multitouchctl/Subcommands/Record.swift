import ArgumentParser
import DeviceInput
import Glibc
import MultitouchCore
import Recordings
import SystemCalls

/// `multitouchctl record`: captures a live device's events as an evemu recording that `replay` (and
/// evemu-device/evemu-play) read back.
struct Record: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Record a live evdev device to an evemu file.",
        discussion: """
            Captures the device description and every event until --duration, --frames, SIGINT/SIGTERM or \
            the device going away, then writes the recording. A SYN_DROPPED overflow is reported on stderr \
            and written as SYN_DROPPED with value 1 followed by the resynced state frame, which replay \
            reports as the live path does (a dropped message, touches lost in it cancelled).
            """)

    @Argument(help: "The device node, e.g. /dev/input/event5.")
    var device: String

    @Option(name: [.short, .customLong("output")], help: "Write to this file (default: standard output).")
    var output: String?

    @Option(name: .long, help: "Stop after this many seconds.")
    var duration: Double?

    @Option(name: .long, help: "Stop after this many evdev frames (SYN_REPORTs).")
    var frames: Int?

    @Flag(name: .long, help: "Grab the device (EVIOCGRAB) while recording.")
    var grab = false

    func validate() throws {
        if let frames, frames < 1 { throw ValidationError("--frames must be at least 1") }
        if let duration, !(duration > 0) { throw ValidationError("--duration must be positive") }
    }

    func run() throws {
        let signals = TerminationSignals()
        let live = try openLiveDevice(device, grab: grab, command: "record")
        printError("multitouchctl record: recording \(device) (\"\(live.description.name)\")")
        let stopAt = duration.map { monotonicNow().adding(milliseconds: $0 * 1000) }
        var events: [InputEvent] = []
        var frameCount = 0
        var readings: [DeviceReading] = []
        loop: while true {
            let ready = waitReadable(
                [live.fileDescriptor, signals.fileDescriptor],
                timeoutMilliseconds: pollTimeout(until: stopAt, now: monotonicNow()))
            if ready[1] { break }
            if !ready[0] {
                if let stopAt, monotonicNow() >= stopAt { break }
                continue
            }
            readings.removeAll(keepingCapacity: true)
            do {
                try live.read(into: &readings)
            } catch {
                printError("multitouchctl record: \(error)")
                throw ExitCode.failure
            }
            for reading in readings {
                switch reading {
                case .event(let event):
                    events.append(event)
                    if event.isSynReport {
                        frameCount += 1
                        if let frames, frameCount >= frames { break loop }
                    }
                case .resync(_, let droppedAt):
                    printError(
                        "multitouchctl record: SYN_DROPPED at \(droppedAt): events were lost; recorded the resynced state instead"
                    )
                    events += reading.recordedEvents
                    frameCount += 1
                    if let frames, frameCount >= frames { break loop }
                case .removed:
                    printError("multitouchctl record: \(device) was removed; writing what was recorded")
                    break loop
                }
            }
        }
        let text = EvemuWriter.write(description: live.description, events: events)
        guard let output else {
            var out = StandardOutput()
            out.write(text.hasSuffix("\n") ? String(text.dropLast()) : text)
            out.flush()
            return
        }
        do {
            try writeFile(output, text)
        } catch {
            printError("multitouchctl record: cannot write \(output): \(error.reason)")
            throw ExitCode.failure
        }
        printError("multitouchctl record: \(events.count) events, \(frameCount) frames -> \(output)")
    }
}

/// Writes `text` to `path` (created or truncated).
func writeFile(_ path: String, _ text: String) throws(SystemError) {
    let fd = try Sys.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode: 0o644)
    defer { Sys.close(fd) }
    try Sys.writeAll(fd, Array(text.utf8), path)
}
