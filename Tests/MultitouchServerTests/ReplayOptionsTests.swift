import Foundation
import MultitouchClient
import MultitouchCore
import MultitouchTestKit
import Recordings
import Testing
import TouchPipeline

@testable import MultitouchServer

/// Issue 11 item 4: replay options that crashed the daemon (`--loop` of a recording that takes no time
/// recursed until SIGSEGV, `--speed 1e-15` trapped converting to UInt64, `--loop --speed 1e13`
/// recursed) are refused with a clear error, and the loop is iterative.
@Suite("Replay options")
struct ReplayOptionsTests {
    func recording(_ text: String) throws -> Recording {
        let dir = TemporaryDirectory()
        return try RecordingReader.read(path: dir.write("r.evemu", text), descriptionPath: nil)
    }

    @Test(arguments: [1e-15, 0, -1, 1e13, .infinity, .nan, 1000.5])
    func speedsOutsideTheRangeAreRefused(speed: Double) {
        #expect(ReplayOptions.speedProblem(speed) == "--speed must be a number from 0.001 to 1000")
    }

    @Test(arguments: [0.001, 0.5, 1, 400, 1000])
    func speedsInTheRangeAreAccepted(speed: Double) {
        #expect(ReplayOptions.speedProblem(speed) == nil)
    }

    @Test func aLoopOfARecordingThatTakesNoTimeIsRefused() throws {
        let empty = ReplayOptions(recording: try recording(EvemuScript.noEvents()), source: "empty.evemu", loop: true)
        #expect(empty.problem == "--loop needs a recording whose events span some time; empty.evemu has no events")
        let one = ReplayOptions(recording: try recording(EvemuScript.oneTimestamp()), source: "one.evemu", loop: true)
        #expect(
            one.problem
                == "--loop needs a recording whose events span some time; one.evemu has all its events at one timestamp"
        )
        // Without --loop both play once, as before.
        #expect(ReplayOptions(recording: try recording(EvemuScript.noEvents()), source: "e").problem == nil)
        #expect(
            ReplayOptions(recording: try recording(EvemuScript.tap(lastingMicroseconds: 1)), source: "t", loop: true)
                .problem == nil)
    }

    @Test func pacingSaturatesInsteadOfTrapping() throws {
        // 10^6 s of recording at the slowest speed is 10^18 ns from now: near the top of UInt64.
        var events = try recording(EvemuScript.tap(lastingMicroseconds: 1)).devices[0].events
        events[events.count - 1].time = Timestamp(seconds: 9_000_000_000_000, microseconds: 0)
        let options = ReplayOptions(
            recording: Recording(
                format: .evemu, devices: [RecordedDevice(description: EvemuScript.device, events: events)]),
            source: "far", speed: 0.001)
        let pass = ReplayPass(
            options: options, firstDeviceID: 1, idSource: TouchIDSource(), settings: { _ in PipelineSettings() },
            now: 1_000)
        #expect(pass.playTime(Timestamp(seconds: 9_000_000_000_000, microseconds: 0)) == .max)
        #expect(pass.playTime(Timestamp(seconds: 1, microseconds: 0)) == 1_000)
    }

    @Test(arguments: [["--speed", "1e-15"], ["--loop", "--speed", "1e13"]])
    func theDaemonRefusesBadSpeedsWithAUsageError(arguments: [String]) throws {
        let dir = TemporaryDirectory()
        let recording = dir.write("r.evemu", EvemuScript.pinchThenPan(frames: 5))
        let daemon = try DaemonProcess(
            directory: dir, arguments: ["--replay", recording] + arguments, waitForSocket: false)
        #expect(daemon.waitForExit() == 64)
        #expect(daemon.log.contains("--speed must be a number from 0.001 to 1000"))
    }

    @Test func theDaemonRefusesALoopOfARecordingWithOneTimestamp() throws {
        let dir = TemporaryDirectory()
        let recording = dir.write("one.evemu", EvemuScript.oneTimestamp())
        let daemon = try DaemonProcess(
            directory: dir, arguments: ["--replay", recording, "--loop"], waitForSocket: false)
        #expect(daemon.waitForExit() == 64)
        #expect(
            daemon.log.contains(
                "cannot replay: --loop needs a recording whose events span some time; one.evemu has all its events at one timestamp"
            ))
    }

    /// A recording of 1 µs looped at the top speed finishes a pass in 1 ns: the passes follow each other
    /// through the event loop (the old code called itself for each pass and overflowed the stack), and
    /// the daemon keeps answering.
    @Test func aLoopOfAnAlmostInstantRecordingKeepsServing() throws {
        let dir = TemporaryDirectory()
        let recording = dir.write("tap.evemu", EvemuScript.tap(lastingMicroseconds: 1))
        let daemon = try DaemonProcess(
            directory: dir,
            arguments: ["--replay", recording, "--loop", "--speed", "1000", "--wait-for-subscribers", "1"])
        let (client, _) = try connectClient(daemon)
        try client.subscribe(streams: [.devices])
        var added = 0
        while added < 2000, let line = try client.nextLine() {
            if messageType(line) == "deviceAdded" { added += 1 }
        }
        #expect(added == 2000)
        let (other, _) = try connectClient(daemon)
        try other.ping(id: 9)
        var pong = false
        while !pong, let line = try other.nextLine() { pong = line == #"{"type":"pong","id":9}"# }
        #expect(pong)
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
    }
}
