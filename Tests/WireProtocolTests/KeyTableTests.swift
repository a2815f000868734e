import Gestures
import MultitouchCore
import Testing
import TouchRouting

@testable import WireProtocol

/// The messages with a key table write exactly the table's keys, in the table's order, after "type" and
/// "id" (every optional member set, so none is left out). With the round-trip tests, which read the same
/// lines back through `init(reading:)`, this holds both directions to the one table.
struct KeyTableTests {
    private func writtenKeys(_ message: Message) throws -> [String] {
        guard case .object(let object) = try JSONReader.parse(Array(message.jsonLine().utf8)) else {
            Issue.record("not an object: \(message.jsonLine())")
            return []
        }
        return object.members.map(\.key).filter { $0 != "type" && $0 != "id" }
    }

    @Test func replyMessagesWriteTheirKeyTableInOrder() throws {
        let transform = AffineTransform(a: 1, b: 0, c: 0, d: 1, tx: 2, ty: 3)
        let cases: [(Message, [FieldKey])] = [
            (
                .subscribed(
                    SubscribedMessage(
                        id: 1, streams: [.touches], devices: .all, predictMilliseconds: 8, frameAligned: true,
                        withheld: "whole-device touches and gestures: missing right \"observe\"")),
                SubscribedMessage.Keys.all
            ),
            (
                .transform(TransformMessage(id: 2, device: 1, matrix: transform, region: "map")),
                TransformMessage.Keys.all
            ),
            (.recognized(RecognizedMessage(id: 3, device: 1, region: "map")), RecognizedMessage.Keys.all),
            (.regions(RegionsMessage(id: 4, device: 1, regions: ["a", "b"])), RegionsMessage.Keys.all),
            (.regionList(RegionListMessage(id: 5, device: 1, regions: [])), RegionListMessage.Keys.all),
        ]
        for (message, keys) in cases {
            #expect(try writtenKeys(message) == keys.map(\.name), "\(message.jsonLine())")
        }
    }

    @Test func deviceAndNoticeMessagesWriteTheirKeyTableInOrder() throws {
        let cases: [(Message, [FieldKey])] = [
            (
                .hello(HelloMessage(daemon: "multitouchd test", devices: [], features: ["regions"])),
                HelloMessage.Keys.all
            ),
            (
                .deviceRemoved(
                    DeviceRemovedMessage(device: 1, time: Timestamp(microseconds: 9_000), reason: "unplugged")),
                DeviceRemovedMessage.Keys.all
            ),
            (
                .dropped(
                    DroppedMessage(
                        device: 1, time: Timestamp(microseconds: 5_000), count: 2, unit: .events,
                        reason: "SYN_DROPPED")),
                DroppedMessage.Keys.all
            ),
            (.error(ErrorMessage(code: .invalidJSON, message: "no", fatal: false, id: 7)), ErrorMessage.Keys.all),
        ]
        for (message, keys) in cases {
            #expect(try writtenKeys(message) == keys.map(\.name), "\(message.jsonLine())")
        }
    }

    /// A listed region writes its table's keys in order: a client's region `client`, `pid` and `uid`,
    /// a configured one `configured` in their place.
    @Test func aListedRegionWritesItsKeyTableInOrder() throws {
        func keys(_ owner: RegionOwner) throws -> [String] {
            let listing = RegionListing(
                region: "pin", owner: owner, z: 1, band: 0...9, mode: .opaque, exclusive: true, hidden: false,
                disabled: false, bounds: RegionRect(x: 0, y: 0, width: 1, height: 1))
            let line = Message.regionList(RegionListMessage(id: nil, device: 1, regions: [listing])).jsonLine()
            guard case .object(let message) = try JSONReader.parse(Array(line.utf8)),
                case .array(let items)? = message["regions"], case .object(let region)? = items.first
            else {
                Issue.record("no region object: \(line)")
                return []
            }
            return region.members.map(\.key)
        }
        let all = RegionListing.Keys.all.map(\.name)
        #expect(try keys(.client(id: 3, pid: 4, uid: 5)) == all.filter { $0 != "configured" })
        #expect(
            try keys(.configuration("tuio.region[1] for qt")) == all.filter { !["client", "pid", "uid"].contains($0) })
    }

    @Test func theDeviceObjectWritesItsKeyTableInOrder() throws {
        let info = DeviceInfo(
            id: 1, name: "pad", source: "pad.evemu", deviceClass: .touchpad, multitouchProtocol: .b, slots: 5,
            isSemiMT: false, units: .millimeters, width: 100, height: 60, widthMillimeters: 100, heightMillimeters: 60,
            sizeSource: "resolution")
        let line = Message.deviceAdded(info).jsonLine()
        guard case .object(let message) = try JSONReader.parse(Array(line.utf8)),
            case .object(let device)? = message["device"]
        else {
            Issue.record("no device object: \(line)")
            return
        }
        #expect(device.members.map(\.key) == DeviceInfo.Keys.all.map(\.name), "\(line)")
    }

    @Test func statsWritesItsKeyTableInOrder() throws {
        let message = Message.stats(
            StatsMessage(
                id: 1, uptime: 0.25, clients: [], devices: [],
                latency: LatencyStatistics(count: 0, maximum: 0, buckets: [], deferred: 0, recent: nil)))
        #expect(try writtenKeys(message) == StatsMessage.Keys.all.map(\.name), "\(message.jsonLine())")
    }

    /// `stats` with every optional member of its nested objects set.
    private static let fullStats = StatsMessage(
        id: 1, uptime: 0.25,
        clients: [
            ClientStatistics(
                id: 1, pid: 2, uid: 3, subscribed: true, queued: 4, queuedBytes: 5, delivered: 6, dropped: 7,
                rights: ["observe"], band: [0, 10])
        ],
        devices: [
            DeviceStatistics(
                device: 1, name: "pad", frames: 9, active: true,
                predictions: [
                    PredictionStatistics(
                        horizonMilliseconds: 16, count: 3, meanMillimeters: 0.5, maximumMillimeters: 1.5)
                ])
        ],
        latency: LatencyStatistics(
            count: 2, maximum: 12.5, buckets: [LatencyBucket(lessThan: 16, count: 2)], deferred: 1,
            recent: RecentLatency(samples: 2, p50: 8, p99: 12)))

    /// The first object of `key`'s array in `object`, or `key`'s object itself.
    private func nested(_ object: JSONObject, _ key: String) -> JSONObject? {
        switch object[key] {
        case .object(let o)?: return o
        case .array(let items)?:
            if case .object(let o)? = items.first { return o }
            return nil
        default: return nil
        }
    }

    /// Before issue 32 the nested objects of `stats` spelled their keys in the writer and again in the
    /// reader; now each has a table, and both use it.
    @Test func statsNestedObjectsWriteAndReadTheirKeyTables() throws {
        let line = Message.stats(Self.fullStats).jsonLine()
        guard case .object(let stats) = try JSONReader.parse(Array(line.utf8)),
            let client = nested(stats, "clients"), let device = nested(stats, "devices"),
            let prediction = nested(device, "predictions"), let latency = nested(stats, "latency"),
            let bucket = nested(latency, "buckets"), let recent = nested(latency, "recent")
        else {
            Issue.record("a nested object is missing: \(line)")
            return
        }
        #expect(client.members.map(\.key) == ClientStatistics.Keys.all.map(\.name))
        #expect(device.members.map(\.key) == DeviceStatistics.Keys.all.map(\.name))
        #expect(prediction.members.map(\.key) == PredictionStatistics.Keys.all.map(\.name))
        #expect(latency.members.map(\.key) == LatencyStatistics.Keys.all.map(\.name))
        #expect(bucket.members.map(\.key) == LatencyBucket.Keys.all.map(\.name))
        #expect(recent.members.map(\.key) == RecentLatency.Keys.all.map(\.name))

        let log = ReadKeyLog()
        let (_, f) = try reader(.stats(Self.fullStats), log: log)
        #expect(try StatsMessage(reading: f) == Self.fullStats)
        #expect(log.keys["stats.clients"] == Set(ClientStatistics.Keys.all.map(\.name)))
        #expect(log.keys["stats.devices"] == Set(DeviceStatistics.Keys.all.map(\.name)))
        #expect(log.keys["stats.devices.predictions"] == Set(PredictionStatistics.Keys.all.map(\.name)))
        #expect(log.keys["stats.latency"] == Set(LatencyStatistics.Keys.all.map(\.name)))
        #expect(log.keys["stats.latency.buckets"] == Set(LatencyBucket.Keys.all.map(\.name)))
        #expect(log.keys["stats.latency.recent"] == Set(RecentLatency.Keys.all.map(\.name)))
    }

    /// Every request member is one key of `ClientRequest.Keys`, written and accepted by that name.
    @Test func requestsWriteAndAcceptTheKeysOfTheirTable() throws {
        let matrix = AffineTransform(a: 1, b: 0, c: 0, d: 1, tx: 2, ty: 3)
        let region = Region(id: "map", shape: .rectangle(RegionRect(x: 0, y: 0, width: 10, height: 10)))
        let requests = [
            ClientRequest(
                .subscribe(streams: [.touches], devices: .all), id: 1, predictMilliseconds: 8, frameAligned: true),
            ClientRequest(.setRegionTransform(device: 1, region: "map", matrix: matrix), id: 2),
            ClientRequest(.updateRegions(device: 1, regions: [region], remove: ["old"]), id: 3),
            ClientRequest(.frame(time: Timestamp(microseconds: 16_000)), id: 4),
        ]
        var written = Set<String>()
        for request in requests {
            let line = Array(request.jsonLine().utf8)
            guard case .object(let object) = try JSONReader.parse(line) else { continue }
            written.formUnion(object.members.map(\.key).filter { $0 != "type" && $0 != "id" })
            #expect(try ClientRequest(decoding: line) == request, "\(request.jsonLine())")
        }
        let table: [FieldKey] = [
            ClientRequest.Keys.streams, ClientRequest.Keys.devices, ClientRequest.Keys.predictMilliseconds,
            ClientRequest.Keys.frames, ClientRequest.Keys.device, ClientRequest.Keys.matrix,
            ClientRequest.Keys.regions, ClientRequest.Keys.remove, ClientRequest.Keys.region, ClientRequest.Keys.time,
        ]
        #expect(written == Set(table.map(\.name)))
    }

    // MARK: touches and the gesture messages: writer and reader against one table

    /// A touch with every optional member set and millimetres that differ from x/y (an output
    /// mapping), so every key of the touch table is written.
    private static let fullTouch: TouchPoint = {
        var touch = TouchPoint(
            id: 3, phase: .moved, location: Point(x: 300, y: 400.75), previousLocation: Point(x: 298, y: 401),
            normalized: Point(x: 0.15625, y: 0.371), millimeters: Point(x: 45.8, y: 61.2), slot: 1, tapCount: 2,
            type: .direct, majorRadius: 3.5, minorRadius: 2.25, orientation: -0.5, force: 0.75,
            predicted: Point(x: 310.5, y: 402))
        touch.coalesced = [CoalescedSample(location: Point(x: 299, y: 400.875), time: Timestamp(microseconds: 9_000))]
        return touch
    }()

    private static let fullTouches = TouchesMessage(
        device: 1, time: Timestamp(microseconds: 12_000), fingers: 1, isSemiMT: true, touches: [fullTouch],
        routing: TouchesRouting(region: "map", role: .observer, reason: .claimed))

    private static let matrix = AffineTransform(a: 1.25, b: 0.5, c: -0.5, d: 1.25, tx: 12.75, ty: -3)
    private static let time = Timestamp(microseconds: 1_500_000)

    /// One message of each gesture kind with every optional member set.
    private static let fullGestures: [GestureMessage] = [
        GestureMessage(device: 1, event: .sessionBegan(session: 2, time: time), region: "map"),
        GestureMessage(
            device: 1,
            event: .update(
                GestureUpdate(
                    session: 2, seq: 5, time: time, phase: .changed, mode: .pinchRotate, fingers: 2,
                    centroid: Point(x: 10, y: 20.5), translation: Point(x: 1.5, y: -2), scale: 1.25, rotation: 0.5,
                    velocity: GestureVelocity(translation: Point(x: 30, y: 4), scale: 0.5, rotation: -0.25),
                    matrix: matrix)), region: "map", predictedMatrix: matrix),
        GestureMessage(
            device: 1, event: .tap(session: 2, time: time, location: Point(x: 4, y: 5.5), tapCount: 1, fingers: 1),
            region: "map"),
        GestureMessage(
            device: 1, event: .doubleTap(session: 2, time: time, location: Point(x: 4, y: 5.5), matrix: matrix),
            region: "map"),
        GestureMessage(
            device: 1,
            event: .longPress(session: 2, time: time, phase: .began, location: Point(x: 4, y: 5.5), fingers: 1),
            region: "map"),
    ]

    /// The line's top-level object, its text, and a reader over it that notes what it is asked for.
    private func reader(_ message: Message, log: ReadKeyLog) throws -> (JSONObject, FieldReader) {
        let bytes = Array(message.jsonLine().utf8)
        guard case .object(let object) = try JSONReader.parse(bytes) else {
            throw GoldenFile.Failure(description: "not an object")
        }
        return (object, FieldReader(object, context: message.kind.rawValue, source: bytes, log: log))
    }

    @Test func touchesWritesItsKeyTablesInOrder() throws {
        let message = Message.touches(Self.fullTouches)
        #expect(try writtenKeys(message) == TouchesMessage.Keys.all.map(\.name), "\(message.jsonLine())")
        let (object, _) = try reader(message, log: ReadKeyLog())
        guard case .array(let touches)? = object["touches"], case .object(let touch)? = touches.first else {
            Issue.record("no touch object: \(message.jsonLine())")
            return
        }
        #expect(touch.members.map(\.key) == TouchPoint.Keys.all.map(\.name), "\(message.jsonLine())")
    }

    @Test func touchesReadsExactlyTheKeysOfItsTables() throws {
        let log = ReadKeyLog()
        let (_, f) = try reader(.touches(Self.fullTouches), log: log)
        #expect(try TouchesMessage(reading: f) == Self.fullTouches)
        #expect(log.keys["touches"] == Set(TouchesMessage.Keys.all.map(\.name)))
        #expect(log.keys["touches.touches"] == Set(TouchPoint.Keys.all.map(\.name)))
        #expect(log.keys.count == 2, "\(log.keys)")
    }

    @Test func gestureMessagesWriteTheirKeyTablesInOrder() throws {
        for gesture in Self.fullGestures {
            let message = Message.gesture(gesture)
            #expect(
                try writtenKeys(message) == GestureMessage.Keys.keys(of: gesture.kind).map(\.name),
                "\(message.jsonLine())")
            guard case .update = gesture.event else { continue }
            let (object, _) = try reader(message, log: ReadKeyLog())
            guard case .object(let velocity)? = object["velocity"] else {
                Issue.record("no velocity object: \(message.jsonLine())")
                continue
            }
            #expect(velocity.members.map(\.key) == GestureMessage.VelocityKeys.all.map(\.name))
        }
        #expect(Set(Self.fullGestures.map(\.kind)) == [.session, .gesture, .tap, .doubleTap, .longPress])
    }

    @Test func gestureMessagesReadExactlyTheKeysOfTheirTables() throws {
        for gesture in Self.fullGestures {
            let log = ReadKeyLog()
            let (_, f) = try reader(.gesture(gesture), log: log)
            #expect(try GestureMessage(kind: gesture.kind, reading: f) == gesture)
            let kind = gesture.kind.rawValue
            #expect(log.keys[kind] == Set(GestureMessage.Keys.keys(of: gesture.kind).map(\.name)), "\(kind)")
            if case .update = gesture.event {
                #expect(log.keys["gesture.velocity"] == Set(GestureMessage.VelocityKeys.all.map(\.name)))
                #expect(log.keys.count == 2, "\(log.keys)")
            } else {
                #expect(log.keys.count == 1, "\(kind): \(log.keys)")
            }
        }
    }

    /// Every member the writer writes matters to the reader: without it the line is refused or reads
    /// back as a different message (a key the reader spelled differently would be ignored).
    @Test func everyWrittenMemberOfTouchesAndGesturesIsRead() throws {
        let messages = [Message.touches(Self.fullTouches)] + Self.fullGestures.map(Message.gesture)
        for message in messages {
            let bytes = Array(message.jsonLine().utf8)
            guard case .object(let object) = try JSONReader.parse(bytes) else { continue }
            var paths: [(Int, Int?)] = object.members.indices.map { ($0, nil) }
            if let top = object.members.firstIndex(where: { $0.key == "touches" }),
                case .array(let touches) = object.members[top].value, case .object(let touch)? = touches.first
            {
                paths += touch.members.indices.map { (top, $0) }
            }
            for (top, inner) in paths where object.members[top].key != "type" {
                var edited = object
                let name: String
                if let inner {
                    guard case .array(var touches) = edited.members[top].value,
                        case .object(var touch) = touches[0]
                    else { continue }
                    name = "touches[0]." + touch.members[inner].key
                    touch.members.remove(at: inner)
                    touches[0] = .object(touch)
                    edited.members[top].value = .array(touches)
                } else {
                    name = edited.members[top].key
                    edited.members.remove(at: top)
                }
                let f = FieldReader(edited, context: message.kind.rawValue, source: bytes)
                let decoded: Message? =
                    switch message {
                    case .touches: try? .touches(TouchesMessage(reading: f))
                    case .gesture: try? .gesture(GestureMessage(kind: message.kind, reading: f))
                    default: nil
                    }
                #expect(decoded != message, "\(message.kind.rawValue) without \(name) reads back unchanged")
            }
        }
    }

    /// mmX/mmY are written only where they differ from x/y, and a reader takes x/y for them then.
    @Test func millimetresEqualToTheLocationAreLeftOut() throws {
        var touch = Self.fullTouch
        touch.millimeters = touch.location
        let message = Message.touches(
            TouchesMessage(device: 1, time: Self.time, fingers: 1, isSemiMT: false, touches: [touch]))
        let line = message.jsonLine()
        #expect(!line.contains("mmX") && !line.contains("mmY"), "\(line)")
        #expect(try Message(decoding: Array(line.utf8)) == message)
        #expect(Message.touches(Self.fullTouches).jsonLine().contains(#""mmX":45.8,"mmY":61.2"#))
    }

    /// The writer's static spelling of every message type is its raw value (what the reader matches).
    @Test func everyMessageTypeIsWrittenAsItsRawValue() {
        for kind in MessageKind.allCases { #expect(kind.staticName.description == kind.rawValue) }
    }
}
