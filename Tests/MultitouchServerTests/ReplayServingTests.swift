import Foundation
import MultitouchClient
import Publishing
import Recordings
import Testing
import TouchPipeline
import WireProtocol

#if canImport(Glibc)
import Glibc
#endif

/// The daemon serving a recording to real socket clients: every well-behaved client receives exactly
/// what `multitouchctl replay --json` prints, whatever the other clients do.
@Suite("multitouchd serving a replay", .serialized)
struct ReplayServingTests {
    /// What `multitouchctl replay --json FILE` prints (the same library call), less the announcement a
    /// client of a waiting replay finds in its hello instead.
    func expectedLines(_ path: String) throws -> [String] {
        let recording = try RecordingReader.read(path: path)
        let name = String(path.split(separator: "/").last ?? "")
        return withoutAnnouncement(MessageReplay.messages(recording: recording, source: name).map { $0.jsonLine() })
    }

    /// Lines of the replay itself: drops the connection's own replies (hello, subscribed, pong).
    func streamed(_ lines: [String]) -> [String] {
        lines.filter { !["hello", "subscribed", "pong", "stats"].contains(messageType($0)) }
    }

    /// One concise issue for a mismatch (the arrays are too long to print whole).
    func expectSameLines(_ got: [String], _ expected: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        guard got != expected else { return }
        let first =
            (0..<max(got.count, expected.count)).first { i in
                i >= got.count || i >= expected.count || got[i] != expected[i]
            } ?? 0
        Issue.record(
            """
            received \(got.count) lines, expected \(expected.count); first difference at line \(first):
             got: \(first < got.count ? got[first] : "(end)")
            want: \(first < expected.count ? expected[first] : "(end)")
            """, sourceLocation: sourceLocation)
    }

    /// `got` equals `expected` except that runs of droppable messages may be missing, each run replaced
    /// by one `dropped` notice whose count is the run's length.
    func expectReplayWithAnnouncedGaps(
        _ got: [String], _ expected: [String], sourceLocation: SourceLocation = #_sourceLocation
    ) {
        var e = 0
        var announced = 0
        var skippedDroppable = 0
        for line in got {
            if line.hasPrefix(#"{"type":"dropped""#), jsonObject(line)["reason"] as? String == "client queue full" {
                announced += jsonObject(line)["count"] as? Int ?? 0
                continue
            }
            while e < expected.count && expected[e] != line {
                guard ReplayServingTests.isDroppable(expected[e]) else {
                    Issue.record("a non-droppable message is missing: \(expected[e])", sourceLocation: sourceLocation)
                    return
                }
                skippedDroppable += 1
                e += 1
            }
            guard e < expected.count else {
                Issue.record("received a line that is not in the replay: \(line)", sourceLocation: sourceLocation)
                return
            }
            e += 1
        }
        #expect(e == expected.count, "the stream ended early", sourceLocation: sourceLocation)
        #expect(announced == skippedDroppable, "every missed message is announced", sourceLocation: sourceLocation)
    }

    static func isDroppable(_ line: String) -> Bool {
        let object = jsonObject(line)
        switch object["type"] as? String {
        case "gesture": return object["phase"] as? String == "changed"
        case "touches":
            let phases = (object["touches"] as? [[String: Any]] ?? []).compactMap { $0["phase"] as? String }
            return phases.allSatisfy { $0 == "moved" || $0 == "stationary" }
        default: return false
        }
    }

    static func endsReplay(_ lines: [String]) -> Bool {
        lines.last?.hasPrefix(#"{"type":"deviceRemoved""#) ?? false
    }

    @Test func severalClientsReceiveExactlyTheReplayOutputDespiteBadNeighbours() throws {
        let dir = TemporaryDirectory()
        let recording = dir.write("pinch.evemu", EvemuScript.pinchThenPan(frames: 400))
        let expected = try expectedLines(recording)
        #expect(expected.count > 400)
        #expect(expected.contains { messageType($0) == "gesture" })

        // 3 readers, a garbage sender, a client that leaves mid-gesture, a client that never reads:
        // the replay starts once all 6 have subscribed. At 5x real time a reader has 3 ms per frame: at
        // 50x a reader thread descheduled for a few tens of milliseconds on a loaded 2-core machine fell
        // a queue behind and (correctly) got a `dropped` notice instead of every line.
        let daemon = try DaemonProcess(
            directory: dir, arguments: ["--replay", recording, "--speed", "5", "--wait-for-subscribers", "6"])
        var readers: [LineCollector] = []
        for _ in 0..<3 {
            let (client, _) = try connectClient(daemon)
            try client.subscribe()
            readers.append(LineCollector(client: client, stopWhen: ReplayServingTests.endsReplay))
        }
        let (garbage, _) = try connectClient(daemon)
        try garbage.subscribe()
        let (leaver, _) = try connectClient(daemon)
        try leaver.subscribe()
        let (sleeper, _) = try connectClient(daemon)
        try sleeper.subscribe()  // and never reads again

        // The leaver reads until a gesture is under way, then vanishes without a word.
        var sawGesture = false
        while let line = try leaver.nextLine() {
            if messageType(line) == "gesture" {
                sawGesture = true
                break
            }
        }
        #expect(sawGesture)
        leaver.close()
        // The garbage sender keeps sending nonsense during the replay.
        for i in 0..<50 {
            try garbage.sendLine(Array("not json \(i)".utf8))
            try garbage.sendLine([0xC3, 0x28])
        }

        for reader in readers {
            expectSameLines(streamed(reader.wait()), expected)
        }
        // The garbage sender got one error per bad line and is still connected.
        var errors = 0
        while let line = try garbage.nextLine() {
            if messageType(line) == "error" {
                #expect(jsonObject(line)["fatal"] as? Bool == false)
                errors += 1
                if errors == 100 { break }
            }
        }
        #expect(errors == 100)
        try garbage.ping(id: 77)
        var pong = false
        while let line = try garbage.nextLine() {
            if line == #"{"type":"pong","id":77}"# {
                pong = true
                break
            }
        }
        #expect(pong)
        sleeper.close()
    }

    /// A client that subscribes and never reads: its queue coalesces `changed` updates and, once
    /// non-droppable messages pass the hard byte limit, it is told why and disconnected. The daemon's
    /// memory stays bounded meanwhile and the reading client is unaffected.
    @Test func aClientThatNeverReadsIsBoundedAndOthersAreUnaffected() throws {
        let dir = TemporaryDirectory()
        let recording = dir.write("long.evemu", EvemuScript.pinchThenPan(frames: 12000))
        let expected = try expectedLines(recording)
        // A soft limit of 2048 messages gives the reading client slack on a loaded machine (it must not be
        // coalesced itself); the sleeper passes it within a second.
        let config = dir.write("slack.toml", "[socket]\ngroup = \"\"\n[clients]\nsoft_queue_limit = 2048\n")
        let daemon = try DaemonProcess(
            directory: dir,
            arguments: ["--config", config, "--replay", recording, "--speed", "20", "--wait-for-subscribers", "2"])
        let (sleeper, _) = try connectClient(daemon)
        try sleeper.subscribe()
        let (reader, _) = try connectClient(daemon)
        let rssBefore = daemon.residentKiB ?? 0
        try reader.subscribe()
        let collector = LineCollector(client: reader, stopWhen: ReplayServingTests.endsReplay)
        // On an idle machine the reader receives exactly the replay. On a loaded one (CI runs other
        // suites meanwhile) it may itself fall behind by more than the soft limit; then the policy
        // applies to it too, and what it got must be the replay minus droppable messages only, each gap
        // announced with its exact count.
        expectReplayWithAnnouncedGaps(streamed(collector.wait(seconds: 120)), expected)

        // Ask the daemon what happened to the sleeper.
        let (observer, _) = try connectClient(daemon)
        try observer.requestStats(id: 1)
        let stats = jsonObject(try observer.nextLine() ?? "")
        let clients = stats["clients"] as? [[String: Any]] ?? []
        let rssAfter = daemon.residentKiB ?? 0
        // Clients in connection order: the sleeper connected first (the startup probe is gone).
        let sleeperStats = clients.count == 3 ? clients.first : nil
        if let sleeperStats {
            // Still connected: coalesced, queue within the soft limit plus the never-dropped messages.
            #expect((sleeperStats["dropped"] as? Int ?? 0) > 0)
            #expect((sleeperStats["queuedBytes"] as? Int ?? .max) <= 4 * 1024 * 1024)
        } else {
            #expect(daemon.log.contains("queue over the hard limit"))
        }
        // Bounded growth: far less than the replay's total output would need if it were all queued.
        let totalBytes = expected.reduce(0) { $0 + $1.utf8.count + 1 }
        #expect(totalBytes > 8 * 1024 * 1024)
        #expect(rssAfter - rssBefore < 8 * 1024, "RSS grew from \(rssBefore) KiB to \(rssAfter) KiB")
        sleeper.close()
    }

    /// Past the hard byte limit (here 64 KiB, set in a configuration file) a client that does not read
    /// gets a fatal queue-overflow error as its last line and is disconnected; taps are never dropped,
    /// so they fill the queue.
    @Test func aClientPastTheHardLimitIsToldWhyAndDisconnected() throws {
        let dir = TemporaryDirectory()
        let recording = dir.write("taps.evemu", EvemuScript.taps(count: 1500))
        let config = dir.write(
            "small.toml",
            """
            [socket]
            group = ""
            [clients]
            soft_queue_limit = 16
            hard_queue_limit_bytes = 65536
            max_clients = 4
            """)
        let daemon = try DaemonProcess(
            directory: dir,
            arguments: ["--config", config, "--replay", recording, "--speed", "400", "--wait-for-subscribers", "2"])
        let (sleeper, _) = try connectClient(daemon)
        try sleeper.subscribe()
        let (reader, _) = try connectClient(daemon)
        try reader.subscribe(streams: [.devices])
        while let line = try reader.nextLine() {
            if line.hasPrefix(#"{"type":"deviceRemoved""#) { break }
        }
        #expect(daemon.log.contains("queue over the hard limit"))
        // Now read what the sleeper was sent: its stream ends with the reason, then the connection closes.
        var last = ""
        var count = 0
        while let line = try sleeper.nextLine() {
            last = line
            count += 1
        }
        let error = jsonObject(last)
        #expect(error["type"] as? String == "error")
        #expect(error["code"] as? String == "queue-overflow")
        #expect(error["fatal"] as? Bool == true)
        #expect(count > 10)
        // maximum_clients = 4: with the reader and two more connected, the fifth is refused with a reason.
        let (a, _) = try connectClient(daemon)
        let (b, _) = try connectClient(daemon)
        let (c, _) = try connectClient(daemon)
        let refused = try MultitouchClient(path: daemon.socketPath)
        try refused.setReceiveTimeout(seconds: Double(hangBackstopSeconds))
        let refusal = jsonObject(try refused.nextLine() ?? "")
        #expect(refusal["code"] as? String == "too-many-clients")
        #expect(try refused.nextLine() == nil)
        for client in [a, b, c] { client.close() }
    }

    @Test func sigtermMidGestureCancelsEverythingForClients() throws {
        let dir = TemporaryDirectory()
        // 2 fingers pinching for 60 s of recording time at normal speed: the daemon is stopped long before.
        let recording = dir.write("held.evemu", EvemuScript.heldPinch(frames: 6000))
        let daemon = try DaemonProcess(
            directory: dir, arguments: ["--replay", recording, "--speed", "1", "--wait-for-subscribers", "1"])
        let (client, _) = try connectClient(daemon)
        try client.subscribe()
        var lines: [String] = []
        while let line = try client.nextLine() {
            lines.append(line)
            if messageType(line) == "gesture", jsonObject(line)["phase"] as? String == "changed" { break }
        }
        daemon.signal(SIGTERM)
        while let line = try client.nextLine() { lines.append(line) }
        #expect(daemon.waitForExit() == 0)

        let tail = lines.suffix(6).map { jsonObject($0) }
        let touches = lines.last { messageType($0) == "touches" }.map(jsonObject)
        let phases = (touches?["touches"] as? [[String: Any]])?.compactMap { $0["phase"] as? String } ?? []
        #expect(phases == ["cancelled", "cancelled"])
        #expect(lines.contains { messageType($0) == "gesture" && jsonObject($0)["phase"] as? String == "cancelled" })
        #expect(lines.contains { messageType($0) == "session" && jsonObject($0)["phase"] as? String == "cancelled" })
        #expect(tail.last?["type"] as? String == "deviceRemoved")
        #expect(tail.last?["reason"] as? String == "shutdown")
    }

    @Test func loopStartsOverWithAFreshDeviceID() throws {
        let dir = TemporaryDirectory()
        let recording = dir.write("short.evemu", EvemuScript.pinchThenPan(frames: 10))
        let daemon = try DaemonProcess(
            directory: dir,
            arguments: ["--replay", recording, "--speed", "50", "--loop", "--wait-for-subscribers", "1"])
        let (client, hello) = try connectClient(daemon)
        // The first pass's device is there while the replay waits; each later pass announces its own.
        #expect(helloDevices(hello).map { $0["id"] as? Int } == [1])
        try client.subscribe(streams: [.devices])
        var added: [Int] = []
        while added.count < 2, let line = try client.nextLine() {
            if messageType(line) == "deviceAdded", let device = jsonObject(line)["device"] as? [String: Any] {
                added.append(device["id"] as? Int ?? -1)
            }
        }
        #expect(added == [2, 3])
    }

    @Test func statsForgetDepartedDevicesBeyondTheBound() throws {
        // Every --loop pass is a new device: the daemon must not keep stats for all of them forever.
        let dir = TemporaryDirectory()
        let recording = dir.write("short.evemu", EvemuScript.pinchThenPan(frames: 2))
        let daemon = try DaemonProcess(
            directory: dir,
            arguments: ["--replay", recording, "--speed", "50", "--loop", "--wait-for-subscribers", "1"])
        let (client, _) = try connectClient(daemon)
        try client.subscribe(streams: [.devices])
        var lastID = 0
        while lastID < 40, let line = try client.nextLine() {
            if messageType(line) == "deviceAdded", let device = jsonObject(line)["device"] as? [String: Any] {
                lastID = device["id"] as? Int ?? lastID
            }
        }
        #expect(lastID >= 40)
        let (observer, _) = try connectClient(daemon)
        try observer.requestStats()
        let stats = jsonObject(try observer.nextLine() ?? "")
        let ids = (stats["devices"] as? [[String: Any]] ?? []).compactMap { $0["device"] as? Int }
        #expect(!ids.isEmpty)
        #expect(ids.count <= 1 + 16, "stats kept \(ids.count) devices")
        #expect(ids.max() ?? 0 >= 40, "the newest devices are the ones kept")
    }

    @Test func helloListsTheReplayDeviceAndStatsCountItsFrames() throws {
        let dir = TemporaryDirectory()
        let recording = dir.write("held.evemu", EvemuScript.heldPinch(frames: 3000))
        let daemon = try DaemonProcess(directory: dir, arguments: ["--replay", recording, "--speed", "1"])
        let (client, _) = try connectClient(daemon)
        try client.subscribe(streams: [.gestures])
        var sawChange = false
        while let line = try client.nextLine() {
            if messageType(line) == "gesture" {
                sawChange = true
                break
            }
        }
        #expect(sawChange)
        let (late, hello) = try connectClient(daemon)
        let devices = jsonObject(hello)["devices"] as? [[String: Any]] ?? []
        #expect(devices.count == 1)
        #expect(devices.first?["name"] as? String == "multitouchd test touchscreen")
        try late.requestStats()
        let stats = jsonObject(try late.nextLine() ?? "")
        let frames = (stats["devices"] as? [[String: Any]])?.first?["frames"] as? Int ?? 0
        #expect(frames > 0)
        let latency = stats["latency"] as? [String: Any]
        #expect((latency?["count"] as? Int ?? 0) > 0)
        // A transform request for that device is answered with the new matrix.
        try late.setTransform(device: 1, matrix: AffineTransform(a: 2, b: 0, c: 0, d: 2, tx: 10, ty: 20))
        let reply = jsonObject(try late.nextLine() ?? "")
        #expect(reply["type"] as? String == "transform")
        #expect(reply["matrix"] as? [Double] == [2, 0, 0, 2, 10, 20])
    }
}
