import Foundation
import MultitouchClient
import MultitouchCore
import MultitouchTestKit
import Publishing
import Recordings
import Testing
import TouchPipeline
import TouchRouting
import WireProtocol

#if canImport(Glibc)
import Glibc
#endif

/// Touch routing served by the real daemon (issue 12): several real socket clients declare overlapping
/// regions on a replayed touchscreen (100 x 100 mm, published in millimetres) and each receives only
/// what is routed to it.
///
/// The layout every test uses: an opaque toolbar (z 2) over the top 15 mm, an opaque map (z 1) over the
/// whole screen, and an observer (z 0) over the whole screen. Each recording starts with an empty frame
/// and 3 s without touches, although the clients declare their regions on the hello's device before
/// they subscribe (so before the replay starts).
@Suite("multitouchd routing touches to regions", .serialized)
struct RegionRoutingTests {
    static let toolbar = #"{"id":"toolbar","rect":[0,0,100,15],"z":2}"#
    static let map = #"{"id":"map","rect":[0,0,100,100],"z":1}"#
    static let fx = #"{"id":"fx","rect":[0,0,100,100],"mode":"observer"}"#

    // MARK: Recordings

    private static func script() -> TouchScripter {
        var s = TouchScripter(device: EvemuScript.device, start: Timestamp(seconds: 1, microseconds: 0))
        // The origin of the replay, then time for the clients to declare their regions.
        s.frame()
        s.advance(ms: 3000)
        return s
    }

    private static func text(_ s: TouchScripter) -> String {
        EvemuWriter.write(description: EvemuScript.device, events: s.events)
    }

    /// At t = 4 s two fingers land on the map and pinch apart for 200 ms; 30 ms in, a third finger taps
    /// the toolbar (down 50 ms, no movement). All up by t = 4.25 s.
    static func tapAndPinch() -> String {
        var s = script()
        s.down(finger: 0, x: 40, y: 60)
        s.down(finger: 1, x: 60, y: 60)
        s.frame()
        for i in 1...20 {
            s.advance(ms: 10)
            if i == 3 { s.down(finger: 2, x: 20, y: 5) }
            if i == 8 { s.up(finger: 2) }
            s.move(finger: 0, x: 40 - Double(i), y: 60)
            s.move(finger: 1, x: 60 + Double(i), y: 60)
            s.frame()
        }
        s.advance(ms: 10)
        s.up(finger: 0)
        s.up(finger: 1)
        s.frame()
        return text(s)
    }

    /// At t = 4 s a tap on a PIN pad (the top-left quarter), at t = 5 s a tap outside it; 40 ms each.
    static func padTapThenOutsideTap() -> String {
        var s = script()
        s.down(finger: 0, x: 20, y: 20)
        s.frame()
        s.advance(ms: 40)
        s.up(finger: 0)
        s.frame()
        s.advance(ms: 1000)
        s.down(finger: 0, x: 80, y: 80)
        s.frame()
        s.advance(ms: 40)
        s.up(finger: 0)
        s.frame()
        return text(s)
    }

    /// A toolbar tap in the recording's very first frame (no empty frame, no time before it).
    static func tapInTheFirstFrame() -> String {
        var s = TouchScripter(device: EvemuScript.device, start: Timestamp(seconds: 1, microseconds: 0))
        s.down(finger: 0, x: 20, y: 5)
        s.frame()
        s.advance(ms: 40)
        s.up(finger: 0)
        s.frame()
        return text(s)
    }

    /// A slow map pinch from t = 4 s to t = 7 s (a frame every 20 ms); a toolbar finger held from
    /// t = 5 s to t = 6.5 s; a quick touch in the map's middle at t = 6 s (up at 6.1 s).
    static func heldPinch() -> String {
        var s = script()
        s.down(finger: 0, x: 40, y: 60)
        s.down(finger: 1, x: 60, y: 60)
        s.frame()
        for i in 1...150 {
            s.advance(ms: 20)
            if i == 50 { s.down(finger: 2, x: 20, y: 5) }
            if i == 100 { s.down(finger: 3, x: 50, y: 30) }
            if i == 105 { s.up(finger: 3) }
            if i == 125 { s.up(finger: 2) }
            let spread = 10 + Double(i) / 10
            s.move(finger: 0, x: 50 - spread, y: 60)
            s.move(finger: 1, x: 50 + spread, y: 60)
            s.frame()
        }
        s.advance(ms: 20)
        s.up(finger: 0)
        s.up(finger: 1)
        s.frame()
        return text(s)
    }

    /// One finger held still on the toolbar from t = 4 s to t = 5.5 s; a second finger lands on the map
    /// at 4.3 s and moves for 50 ms (so the whole device, with two fingers in motion, has no long press
    /// of its own), then no frame until both lift at 5.5 s. Only the toolbar region's long press is due
    /// in between, at 4.5 s.
    static func heldWithoutFrames() -> String {
        var s = script()
        s.down(finger: 0, x: 20, y: 5)
        s.frame()
        s.advance(ms: 300)
        s.down(finger: 1, x: 50, y: 50)
        s.frame()
        for i in 1...5 {
            s.advance(ms: 10)
            s.move(finger: 1, x: 50 + Double(i) * 4, y: 50)
            s.frame()
        }
        s.advance(ms: 1150)
        s.up(finger: 0)
        s.up(finger: 1)
        s.frame()
        return text(s)
    }

    // MARK: Tests

    @Test func aRegionsTimerFiresAtItsDeadlineNotWithTheNextFrame() throws {
        let dir = TemporaryDirectory()
        let recording = dir.write("held.evemu", Self.heldWithoutFrames())
        let daemon = try DaemonProcess(
            directory: dir, arguments: ["--replay", recording, "--speed", "1", "--wait-for-subscribers", "1"])
        let toolbar = try RoutedClient(daemon, regions: [Self.toolbar, Self.map])
        try toolbar.start()
        let lines = toolbar.wait()
        let arrivals = toolbar.arrivals
        let press = try #require(lines.firstIndex { messageType($0) == "longPress" })
        let lift = try #require(
            lines.firstIndex { messageType($0) == "touches" && $0.contains(#""phase":"ended""#) })
        #expect(jsonObject(lines[press])["region"] as? String == "toolbar")
        #expect(lines.filter { messageType($0) == "longPress" && !$0.contains(#""region":"toolbar""#) }.isEmpty)
        #expect(jsonObject(lines[press])["time"] as? Double == 4.5)
        // The press is sent at its deadline, a second before the lift's frame (not together with it).
        #expect(press < lift)
        #expect(arrivals[lift] - arrivals[press] > 0.3)
    }

    @Test func toolbarTapAndMapPinchAtTheSameTimeEachReachOnlyTheirOwnClient() throws {
        let dir = TemporaryDirectory()
        let recording = dir.write("tap-and-pinch.evemu", Self.tapAndPinch())
        let daemon = try DaemonProcess(
            directory: dir, arguments: ["--replay", recording, "--speed", "1", "--wait-for-subscribers", "4"])
        let toolbar = try RoutedClient(daemon, regions: [Self.toolbar])
        let map = try RoutedClient(daemon, regions: [Self.map])
        let fx = try RoutedClient(daemon, regions: [Self.fx])
        let plain = try RoutedClient(daemon, regions: [])
        for client in [toolbar, map, fx, plain] { try client.start() }
        let toolbarLines = toolbar.wait()
        let mapLines = map.wait()
        let fxLines = fx.wait()
        let plainLines = plain.wait()

        // Who landed where: the first two touch ids are the map's fingers, the third the toolbar's.
        let routed = RoutedLines(toolbarLines)
        let mapped = RoutedLines(mapLines)
        let observed = RoutedLines(fxLines)
        #expect(routed.regionsReply == ["toolbar"])
        #expect(mapped.regionsReply == ["map"])
        #expect(observed.regionsReply == ["fx"])
        let mapIDs = mapped.touchIDs
        let toolbarIDs = routed.touchIDs
        #expect(mapIDs.count == 2)
        #expect(toolbarIDs.count == 1)
        #expect(mapIDs.isDisjoint(with: toolbarIDs))
        #expect(observed.touchIDs == mapIDs.union(toolbarIDs))

        // The toolbar: its one finger, region and role on every message, and a one-finger tap.
        #expect(
            routed.touchMessages.allSatisfy { $0["region"] as? String == "toolbar" && $0["role"] as? String == "owner" }
        )
        #expect(routed.phases(of: toolbarIDs.first ?? 0) == ["began", "ended"])
        let taps = routed.ofType("tap")
        #expect(taps.count == 1)
        #expect(taps.first?["region"] as? String == "toolbar")
        #expect(taps.first?["fingers"] as? Int == 1)
        let tapLocation = taps.first?["location"] as? [Double] ?? []
        #expect(tapLocation == [20, 5])
        #expect(routed.ofType("gesture").isEmpty, "a toolbar tap is not a pan or pinch")

        // The map: only its two fingers, and its own pinch (two fingers, spreading).
        #expect(
            mapped.touchMessages.allSatisfy { $0["region"] as? String == "map" && $0["role"] as? String == "owner" })
        #expect(mapped.touchMessages.allSatisfy { ($0["fingers"] as? Int ?? 9) <= 2 })
        let pinch = mapped.ofType("gesture")
        #expect(!pinch.isEmpty)
        #expect(pinch.allSatisfy { $0["region"] as? String == "map" && $0["mode"] as? String == "pinchRotate" })
        #expect(pinch.allSatisfy { $0["fingers"] as? Int == 2 }, "the toolbar finger never joins the map's pinch")
        #expect((pinch.last?["scale"] as? Double ?? 0) > 1.5)
        #expect(pinch.first?["phase"] as? String == "began")
        #expect(pinch.last?["phase"] as? String == "ended")
        #expect(mapped.ofType("tap").isEmpty)
        #expect(mapped.ofType("session").map { $0["phase"] as? String } == ["began", "ended"])

        // The observer: every touch, as an observer, and no gestures (it did not ask).
        #expect(
            observed.touchMessages.allSatisfy { $0["region"] as? String == "fx" && $0["role"] as? String == "observer" }
        )
        #expect(
            observed.ofType("gesture").isEmpty && observed.ofType("tap").isEmpty && observed.ofType("session").isEmpty)

        // Every delivered touch ends exactly once for every client.
        for lines in [routed, mapped, observed] { lines.expectEveryTouchEndsOnce() }

        // A connection without regions is served exactly what `multitouchctl replay --json` prints.
        let expected = withoutAnnouncement(
            MessageReplay.messages(recording: try RecordingReader.read(path: recording), source: "tap-and-pinch.evemu")
                .map { $0.jsonLine() })
        #expect(helloDevices(plain.hello).map { $0["id"] as? Int } == [1])
        #expect(plainLines.filter { !["hello", "subscribed"].contains(messageType($0)) } == expected)
        #expect(jsonObject(plain.hello)["features"] as? [String] == ["regions"])

        // Each routed client got exactly what `multitouchctl replay --regions` prints for it.
        let layout = try RegionLayout.decode(Array("[[\(Self.toolbar)],[\(Self.map)],[\(Self.fx)]]".utf8))
        let offline = RoutedReplay.run(
            recording: try RecordingReader.read(path: recording), source: "tap-and-pinch.evemu", layout: layout)
        #expect(offline.violations.isEmpty)
        for (index, lines) in [toolbarLines, mapLines, fxLines].enumerated() {
            let want = offline.messages.filter { $0.client == ClientID(UInt64(index + 1)) }.map {
                $0.message.jsonLine()
            }
            let got = lines.filter {
                ["touches", "session", "gesture", "tap", "doubleTap", "longPress"].contains(messageType($0))
            }
            #expect(got == want, "client \(index + 1)")
        }
    }

    @Test func aClientThatDisconnectsMidGestureLosesItsRegionsAndNobodyElseNotices() throws {
        let dir = TemporaryDirectory()
        let recording = dir.write("held-pinch.evemu", Self.heldPinch())
        let daemon = try DaemonProcess(
            directory: dir, arguments: ["--replay", recording, "--speed", "1", "--wait-for-subscribers", "3"])
        let toolbar = try RoutedClient(daemon, regions: [Self.toolbar])
        // The map leaves as soon as its pinch is under way (t = 4 s; the pinch goes on to t = 7 s).
        let map = try RoutedClient(daemon, regions: [Self.map]) { line, _ in
            messageType(line) == "gesture" && jsonObject(line)["phase"] as? String == "changed"
                ? .disconnect : .continue
        }
        let fx = try RoutedClient(daemon, regions: [Self.fx])
        for client in [toolbar, map, fx] { try client.start() }
        let mapped = RoutedLines(map.wait())
        let routed = RoutedLines(toolbar.wait())
        let observed = RoutedLines(fx.wait())

        #expect(mapped.ofType("gesture").last?["phase"] as? String == "changed")
        #expect(daemon.logEventuallyContains("client: disconnected"))
        // The toolbar still gets exactly its own finger; the map's fingers (bound to a region that
        // vanished) and the later touch in the map's middle (no owner there now) are nobody's.
        #expect(routed.touchIDs.count == 1)
        #expect(routed.touchIDs.isDisjoint(with: mapped.touchIDs))
        let toolbarFinger = routed.touchIDs.first ?? 0
        #expect(routed.phases(of: toolbarFinger).first == "began")
        #expect(routed.phases(of: toolbarFinger).last == "ended")
        // The observer sees all four touches to their natural end, undisturbed.
        #expect(observed.touchIDs.count == 4)
        #expect(observed.touchIDs.isSuperset(of: mapped.touchIDs.union(routed.touchIDs)))
        for id in observed.touchIDs { #expect(observed.phases(of: id).last == "ended") }
        for lines in [routed, observed] { lines.expectEveryTouchEndsOnce() }
        // The daemon serves on.
        let (late, _) = try connectClient(daemon)
        try late.ping(id: 9)
        #expect(try late.nextLine() == #"{"type":"pong","id":9}"#)
    }

    @Test func regionsUpdatedMidGestureDoNotRebindLiveTouches() throws {
        let dir = TemporaryDirectory()
        let recording = dir.write("held-pinch.evemu", Self.heldPinch())
        let daemon = try DaemonProcess(
            directory: dir, arguments: ["--replay", recording, "--speed", "1", "--wait-for-subscribers", "3"])
        // Once its pinch is under way the map shrinks to the bottom-left corner, away from its fingers.
        let map = try RoutedClient(daemon, regions: [Self.map]) { line, client in
            guard messageType(line) == "gesture", jsonObject(line)["phase"] as? String == "changed", !client.flag
            else { return .continue }
            client.flag = true
            return .send(
                #"{"type":"updateRegions","device":1,"id":2,"regions":[{"id":"map","rect":[0,80,20,20],"z":1}]}"#)
        }
        // The toolbar removes its region while its finger is down.
        let toolbar = try RoutedClient(daemon, regions: [Self.toolbar]) { line, client in
            guard messageType(line) == "touches", !client.flag else { return .continue }
            client.flag = true
            return .send(#"{"type":"updateRegions","device":1,"id":2,"remove":["toolbar"]}"#)
        }
        let fx = try RoutedClient(daemon, regions: [Self.fx])
        for client in [toolbar, map, fx] { try client.start() }
        let mapped = RoutedLines(map.wait())
        let routed = RoutedLines(toolbar.wait())
        let observed = RoutedLines(fx.wait())

        // The map's update was applied, yet its two fingers stay its own to the end (moved, ended) and
        // its pinch runs on; the touch that lands where the map used to be is no longer the map's.
        #expect(mapped.replies(id: 2).map { $0["regions"] as? [String] } == [["map"]])
        #expect(mapped.touchIDs.count == 2)
        for id in mapped.touchIDs { #expect(mapped.phases(of: id).last == "ended") }
        let pinch = mapped.ofType("gesture")
        #expect(pinch.last?["phase"] as? String == "ended")
        #expect(pinch.allSatisfy { $0["fingers"] as? Int == 2 })
        #expect((pinch.last?["scale"] as? Double ?? 0) > 1.5)
        #expect(observed.touchIDs.count == 4)
        // The toolbar's finger ends for it at once, cancelled, with the reason; nothing of it follows.
        #expect(routed.replies(id: 2).map { $0["regions"] as? [String] } == [[]])
        let toolbarFinger = routed.touchIDs.first ?? 0
        #expect(routed.touchIDs.count == 1)
        #expect(routed.phases(of: toolbarFinger) == ["began", "cancelled"])
        let cancel = routed.touchMessages.last
        #expect(cancel?["reason"] as? String == "region removed")
        #expect(cancel?["region"] as? String == "toolbar")
        // Its gesture session ends with the touch, recognising nothing.
        #expect(routed.ofType("session").map { $0["phase"] as? String } == ["began", "cancelled"])
        #expect(routed.ofType("tap").isEmpty && routed.ofType("longPress").isEmpty && routed.ofType("gesture").isEmpty)
        for lines in [routed, mapped, observed] { lines.expectEveryTouchEndsOnce() }
    }
}

extension RegionRoutingTests {
    @Test func aClientsOwnRecognitionClaimsItsTouchesFromObservers() throws {
        let dir = TemporaryDirectory()
        let recording = dir.write("held-pinch.evemu", Self.heldPinch())
        let daemon = try DaemonProcess(
            directory: dir, arguments: ["--replay", recording, "--speed", "1", "--wait-for-subscribers", "3"])
        // The map recognises by itself (no gesture session of its own) and claims what it recognised.
        let mapRegion = #"{"id":"map","rect":[0,0,100,100],"z":1,"gestures":false,"exclusive":true}"#
        let map = try RoutedClient(daemon, regions: [mapRegion]) { line, client in
            guard messageType(line) == "touches", !client.flag else { return .continue }
            client.flag = true
            return .send(
                #"{"type":"recognized","device":1,"region":"map","id":3}"# + "\n"
                    + #"{"type":"recognized","device":1,"region":"nope","id":4}"#)
        }
        let toolbar = try RoutedClient(daemon, regions: [Self.toolbar])
        let fx = try RoutedClient(daemon, regions: [Self.fx])
        for client in [map, toolbar, fx] { try client.start() }
        let mapped = RoutedLines(map.wait())
        let routed = RoutedLines(toolbar.wait())
        let observed = RoutedLines(fx.wait())

        #expect(mapped.ofType("recognized").map { $0["id"] as? Int } == [3])
        let refused = mapped.ofType("error")
        #expect(refused.map { $0["id"] as? Int } == [4])
        #expect(refused.first?["code"] as? String == "bad-field")
        #expect(mapped.ofType("session").isEmpty, "the map asked for no gesture session")
        // The map keeps its raw touches (it did not ask for them to be cancelled): fingers 0 and 1, then
        // the finger that lands on it while its recognised session goes on.
        #expect(mapped.touchIDs.count == 3)
        for id in mapped.touchIDs { #expect(mapped.phases(of: id).last == "ended") }
        // The map's region is exclusive: its touches are secure from `began` (DESIGN.md invariant 11),
        // so the other client's observer never sees them (before issue 27 it saw them until the map's
        // recognition claimed them); the toolbar's finger it sees to the end.
        #expect(observed.touchMessages.allSatisfy { $0["reason"] as? String != "claimed by owner" })
        #expect(observed.touchIDs == routed.touchIDs)
        #expect(observed.touchIDs.isDisjoint(with: mapped.touchIDs))
        #expect(mapped.touchIDs.allSatisfy { $0 >= 1 << 32 }, "secure ids, apart from the public ones")
        for lines in [mapped, routed, observed] { lines.expectEveryTouchEndsOnce() }
    }

    /// While the replay waits for subscribers its device is in the hello and takes regions, so a region
    /// owns a touch that begins in the recording's very first frame (the device used to be announced
    /// only with that frame, after which the touch was already bound to the whole device).
    @Test func aRegionDeclaredFromTheHelloOwnsATouchOfTheFirstFrame() throws {
        let dir = TemporaryDirectory()
        let recording = dir.write("first-frame-tap.evemu", Self.tapInTheFirstFrame())
        let daemon = try DaemonProcess(
            directory: dir, arguments: ["--replay", recording, "--speed", "1", "--wait-for-subscribers", "1"])
        let toolbar = try RoutedClient(daemon, regions: [Self.toolbar])
        #expect(helloDevices(toolbar.hello).map { $0["id"] as? Int } == [1])
        try toolbar.start()
        let lines = toolbar.wait()
        let routed = RoutedLines(lines)
        #expect(routed.regionsReply == ["toolbar"])
        #expect(!lines.contains { messageType($0) == "deviceAdded" }, "the hello's device is not announced again")
        let id = try #require(routed.touchIDs.first)
        #expect(routed.touchIDs.count == 1)
        #expect(routed.phases(of: id) == ["began", "ended"])
        #expect(
            routed.touchMessages.allSatisfy { $0["region"] as? String == "toolbar" && $0["role"] as? String == "owner" }
        )
        #expect(routed.ofType("tap").map { $0["region"] as? String } == ["toolbar"])
    }

    /// A client without regions (and with the default `observe` right) receives the whole device, but
    /// not the touches of another client's `exclusive` region, nor the taps they made.
    @Test func anExclusiveRegionsTouchesAndTapsAreNotInTheWholeDeviceStream() throws {
        let dir = TemporaryDirectory()
        let recording = dir.write("pin.evemu", Self.padTapThenOutsideTap())
        let daemon = try DaemonProcess(
            directory: dir, arguments: ["--replay", recording, "--speed", "1", "--wait-for-subscribers", "2"])
        let pad = try RoutedClient(daemon, regions: [#"{"id":"pin","rect":[0,0,50,50],"z":1,"exclusive":true}"#])
        let plain = try RoutedClient(daemon, regions: [])
        for client in [pad, plain] { try client.start() }
        let padded = RoutedLines(pad.wait())
        let whole = RoutedLines(plain.wait())
        #expect(padded.regionsReply == ["pin"])
        #expect(padded.touchIDs.count == 1)
        #expect(padded.ofType("tap").map { $0["region"] as? String } == ["pin"])
        // The whole device: only the outside touch and its tap.
        #expect(whole.touchIDs.count == 1)
        #expect(whole.touchIDs.isDisjoint(with: padded.touchIDs))
        let taps = whole.ofType("tap")
        #expect(taps.map { $0["location"] as? [Double] ?? [] } == [[80, 80]])
        #expect(whole.ofType("session").map { $0["phase"] as? String } == ["began", "ended"])
        whole.expectEveryTouchEndsOnce()
    }

    @Test func aRegionsTransformIsSetAndItsGestureContinuesFromIt() throws {
        let dir = TemporaryDirectory()
        let recording = dir.write("tap-and-pinch.evemu", Self.tapAndPinch())
        let daemon = try DaemonProcess(
            directory: dir, arguments: ["--replay", recording, "--speed", "1", "--wait-for-subscribers", "1"])
        let map = try RoutedClient(daemon, regions: [Self.map]) { line, client in
            guard messageType(line) == "gesture", jsonObject(line)["phase"] as? String == "began", !client.flag
            else { return .continue }
            client.flag = true
            return .send(
                #"{"type":"setTransform","device":1,"region":"map","matrix":[1,0,0,1,100,0],"id":5}"# + "\n"
                    + #"{"type":"resetTransform","device":1,"region":"nope","id":6}"#)
        }
        try map.start()
        let mapped = RoutedLines(map.wait())
        let set = mapped.ofType("transform")
        #expect(set.count == 1)
        #expect(set.first?["id"] as? Int == 5 && set.first?["region"] as? String == "map")
        #expect(set.first?["matrix"] as? [Double] == [1, 0, 0, 1, 100, 0])
        #expect(mapped.ofType("error").map { $0["id"] as? Int } == [6])
        // The pinch about x = 50 continues from the translation: tx = 50 + 50 s, past 100 (without the
        // set transform it would be 50 - 50 s, below 0).
        let last = mapped.ofType("gesture").last
        #expect(last?["phase"] as? String == "ended")
        #expect(((last?["matrix"] as? [Double]) ?? [])[4] > 100)
    }
}

/// One region client on its own thread: connects, declares `regions` on the hello's devices (and on
/// any device announced later), subscribes to everything, then reads until the device goes (or `react` says to
/// leave), answering lines as `react` says.
final class RoutedClient: @unchecked Sendable {
    enum Reaction {
        case `continue`
        /// Send this request line.
        case send(String)
        /// Close the connection now.
        case disconnect
    }

    private let client: MultitouchClient
    let hello: String
    private let regions: [String]
    private let react: (String, RoutedClient) -> Reaction
    private let lock = NSLock()
    private var lines: [String] = []
    private var arrivalTimes: [Double] = []
    private let done = DispatchSemaphore(value: 0)
    /// Free for `react` to remember something (the reading thread only).
    var flag = false

    init(
        _ daemon: DaemonProcess, regions: [String],
        react: @escaping (String, RoutedClient) -> Reaction = { _, _ in .continue }
    ) throws {
        (client, hello) = try connectClient(daemon)
        self.regions = regions
        self.react = react
    }

    /// Declares the regions on the hello's devices (a waiting replay's device is there before it
    /// starts), subscribes (the replay starts once every client has) and starts reading.
    func start() throws {
        if !regions.isEmpty {
            for device in helloDevices(hello).compactMap({ $0["id"] as? Int }) { try declare(on: device) }
        }
        try client.sendLine(Array(#"{"type":"subscribe"}"#.utf8))
        let thread = Thread { [self] in
            run()
            done.signal()
        }
        thread.start()
    }

    private func run() {
        while let line = try? client.nextLine() {
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            lock.lock()
            lines.append(line)
            arrivalTimes.append(Double(now.tv_sec) + Double(now.tv_nsec) / 1e9)
            lock.unlock()
            let object = jsonObject(line)
            switch object["type"] as? String {
            case "deviceAdded":
                let device = (object["device"] as? [String: Any])?["id"] as? Int ?? 0
                if !regions.isEmpty { try? declare(on: device) }
            case "deviceRemoved":
                return
            default:
                break
            }
            switch react(line, self) {
            case .continue:
                break
            case .send(let request):
                try? client.sendLine(Array(request.utf8))
            case .disconnect:
                client.close()
                return
            }
        }
    }

    private func declare(on device: Int) throws {
        let request =
            #"{"type":"declareRegions","device":\#(device),"id":1,"regions":[\#(regions.joined(separator: ","))]}"#
        try client.sendLine(Array(request.utf8))
    }

    /// When each line arrived (monotonic seconds), parallel to what `wait()` returns.
    var arrivals: [Double] {
        lock.lock()
        defer { lock.unlock() }
        return arrivalTimes
    }

    /// Waits for the end (at most `hangBackstopSeconds`, so a broken daemon fails the test instead of
    /// hanging it; no load makes a working one take that long).
    func wait() -> [String] {
        _ = done.wait(timeout: .now() + .seconds(hangBackstopSeconds))
        lock.lock()
        defer { lock.unlock() }
        return lines
    }
}

/// What one routed client received, parsed.
struct RoutedLines {
    let objects: [[String: Any]]

    init(_ lines: [String]) { objects = lines.map(jsonObject) }

    func ofType(_ type: String) -> [[String: Any]] { objects.filter { $0["type"] as? String == type } }

    var touchMessages: [[String: Any]] { ofType("touches") }

    /// The `regions` list of the reply to the declaration (request id 1).
    var regionsReply: [String]? { replies(id: 1).first?["regions"] as? [String] }

    func replies(id: Int) -> [[String: Any]] { ofType("regions").filter { $0["id"] as? Int == id } }

    var touchIDs: Set<UInt64> {
        var ids: Set<UInt64> = []
        for m in touchMessages {
            for t in m["touches"] as? [[String: Any]] ?? [] { if let id = t["id"] as? UInt64 { ids.insert(id) } }
        }
        return ids
    }

    /// The phases touch `id` went through, stationary ones and repeats of `moved` left out.
    func phases(of id: UInt64) -> [String] {
        var out: [String] = []
        for m in touchMessages {
            for t in m["touches"] as? [[String: Any]] ?? [] where t["id"] as? UInt64 == id {
                guard let phase = t["phase"] as? String, phase != "stationary", out.last != phase else { continue }
                out.append(phase)
            }
        }
        return out
    }

    /// Every touch received begins once and ends (ended or cancelled) exactly once, with nothing after.
    func expectEveryTouchEndsOnce(sourceLocation: SourceLocation = #_sourceLocation) {
        for id in touchIDs {
            var all: [String] = []
            for m in touchMessages {
                for t in m["touches"] as? [[String: Any]] ?? [] where t["id"] as? UInt64 == id {
                    all.append(t["phase"] as? String ?? "?")
                }
            }
            #expect(all.first == "began", "touch \(id): \(all)", sourceLocation: sourceLocation)
            #expect(all.filter { $0 == "began" }.count == 1, "touch \(id): \(all)", sourceLocation: sourceLocation)
            let ends = all.filter { $0 == "ended" || $0 == "cancelled" }.count
            #expect(ends == 1, "touch \(id): \(all)", sourceLocation: sourceLocation)
            #expect(
                all.last == "ended" || all.last == "cancelled", "touch \(id): \(all)", sourceLocation: sourceLocation)
        }
    }
}
