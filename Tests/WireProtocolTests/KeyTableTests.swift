import Gestures
import MultitouchCore
import Testing

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
                    SubscribedMessage(id: 1, streams: [.touches], devices: .all, predictMilliseconds: 8)),
                SubscribedMessage.Keys.all
            ),
            (
                .transform(TransformMessage(id: 2, device: 1, matrix: transform, region: "map")),
                TransformMessage.Keys.all
            ),
            (.recognized(RecognizedMessage(id: 3, device: 1, region: "map")), RecognizedMessage.Keys.all),
            (.regions(RegionsMessage(id: 4, device: 1, regions: ["a", "b"])), RegionsMessage.Keys.all),
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
}
