import ArgumentParser
import DeviceInput
import Glibc
import MultitouchCore
import Publishing
import Recordings
import TouchPipeline
import WireProtocol

/// `multitouchctl listen`: reads one live device through the same pipeline a replay uses and prints
/// the messages, so a live device and a recording of it can be compared line by line.
struct Listen: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "listen",
        abstract: "Read a live evdev device through the touch and gesture pipeline and print what it does.",
        discussion: """
            Without the daemon: opens DEVICE itself (read access to /dev/input/eventN is needed), runs its \
            events through the pipeline and prints each frame's touches and gestures. With --json every \
            line is one message exactly as `multitouchctl replay --json` prints it for a recording of the \
            same input (the device id is 1, as in a replay of one device); only times and velocities \
            differ. Stops on --frames, --idle-exit, --timeout, SIGINT/SIGTERM (touches end cancelled) or \
            when the device goes away (cancelled, then deviceRemoved).
            """)

    @Argument(help: "The device node, e.g. /dev/input/event5.")
    var device: String

    @Flag(name: .long, help: "Print one JSON message per line (the wire protocol).")
    var json = false

    @Option(name: .long, help: "Stop after this many evdev frames (SYN_REPORTs, resyncs included).")
    var frames: Int?

    @Option(
        name: .customLong("idle-exit"),
        help: "Stop this many milliseconds after the last event (counted from the first event).")
    var idleExit: Int?

    @Option(name: .long, help: "Stop after this many seconds in any case.")
    var timeout: Double?

    @Flag(name: .long, help: "Grab the device (EVIOCGRAB): no other reader sees its events meanwhile.")
    var grab = false

    @Option(
        name: .customLong("record"),
        help: "Also write the raw events read to this evemu file (replaying it gives this output again).")
    var recordPath: String?

    @Option(name: .long, help: "Configuration file whose [gestures] apply (default: built-in defaults).")
    var config: String?

    func validate() throws {
        if let frames, frames < 1 { throw ValidationError("--frames must be at least 1") }
        if let idleExit, idleExit < 1 { throw ValidationError("--idle-exit must be at least 1 ms") }
        if let timeout, !(timeout > 0) { throw ValidationError("--timeout must be positive") }
    }

    func run() throws {
        let signals = TerminationSignals()
        let live = try openLiveDevice(device, grab: grab, command: "listen")
        let settings = try loadSettings(configPath: config, path: device, description: live.description)
        var pipeline = DevicePipeline(deviceID: 1, description: live.description, source: device, settings: settings)
        var output = StandardOutput()
        var published = PublishedOutput(json: json)
        func emit(_ outputs: inout [PipelineOutput]) {
            published.print(outputs, to: &output)
            outputs.removeAll(keepingCapacity: true)
            output.flush()
        }
        var batch: [PipelineOutput] = [.deviceAdded(pipeline.device)]
        emit(&batch)
        var raw: [InputEvent] = []
        let recordPath = self.recordPath
        func saveRecording() throws {
            guard let recordPath else { return }
            do {
                try writeFile(recordPath, EvemuWriter.write(description: live.description, events: raw))
            } catch {
                printError("multitouchctl listen: cannot write \(recordPath): \(error.reason)")
                throw ExitCode.failure
            }
        }

        let start = monotonicNow()
        let stopAt = timeout.map { start.adding(milliseconds: $0 * 1000) }
        var frameCount = 0
        var lastEvent: Timestamp?
        var lastActivity: Timestamp?
        var readings: [DeviceReading] = []
        var endReason = DeviceEndReason.endOfInput
        var removed = false
        // Reads what the kernel has queued through the pipeline; false when the listening ends
        // (the frame count reached or the device removed).
        func readQueued() throws -> Bool {
            readings.removeAll(keepingCapacity: true)
            do {
                try live.read(into: &readings)
            } catch {
                printError("multitouchctl listen: \(error)")
                throw ExitCode.failure
            }
            for reading in readings {
                switch reading {
                case .event(let event):
                    if recordPath != nil { raw.append(event) }
                    lastEvent = event.time
                case .resync(let frame, _):
                    if recordPath != nil { raw += reading.recordedEvents }
                    lastEvent = frame.time
                case .removed:
                    break
                }
                switch pipeline.push(reading, into: &batch) {
                case .pending:
                    break
                case .frame, .resynced:
                    frameCount += 1
                    emit(&batch)
                    if let frames, frameCount >= frames { return false }
                case .removed:
                    let end = Swift.max(lastEvent ?? monotonicNow(), monotonicNow())
                    pipeline.end(at: end, reason: .deviceRemoved, into: &batch)
                    emit(&batch)
                    removed = true
                    return false
                }
            }
            if !readings.isEmpty { lastActivity = monotonicNow() }
            return true
        }
        loop: while true {
            let now = monotonicNow()
            var deadlines: [Timestamp] = []
            if let next = pipeline.nextDeadline { deadlines.append(next) }
            if let stopAt { deadlines.append(stopAt) }
            if let idleExit, let lastActivity { deadlines.append(lastActivity.adding(milliseconds: Double(idleExit))) }
            let ready = waitReadable(
                [live.fileDescriptor, signals.fileDescriptor],
                timeoutMilliseconds: pollTimeout(until: deadlines.min(), now: now))
            if ready[1] {
                endReason = .interrupted
                break loop
            }
            if ready[0] {
                guard try readQueued() else { break loop }
                continue
            }
            // Timeout: fire due gesture timers at their deadlines (the same times a replay uses). What
            // the kernel queued before `after` is read first: its events carry earlier times and a
            // replay puts them before the timers (a loaded reader may wake after both are due).
            let after = monotonicNow()
            guard try readQueued() else { break loop }
            while let next = pipeline.nextDeadline, next <= after {
                pipeline.advance(to: next, into: &batch)
            }
            emit(&batch)
            if let stopAt, after >= stopAt {
                endReason = .timeout
                break loop
            }
            if let idleExit, let lastActivity, after >= lastActivity.adding(milliseconds: Double(idleExit)) {
                break loop
            }
        }
        if removed {
            try saveRecording()
            return
        }
        // Like the end of a replay: open touches end cancelled at the last event's time.
        let end = lastEvent ?? monotonicNow()
        pipeline.end(at: end, reason: endReason, into: &batch)
        emit(&batch)
        try saveRecording()
    }
}
