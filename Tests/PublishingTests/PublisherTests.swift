import Gestures
import MultitouchCore
import MultitouchTestKit
import Publishing
import Testing
import TouchPipeline
import TouchRouting
import WireProtocol

/// The publishing step on a pipeline's typed output, without sockets or a clock: what is encoded, for
/// whom, and where a device has no whole-device session open.
@Suite("Publisher")
struct PublisherTests {
    /// 100 x 100 mm, published in millimetres.
    static let device = TestDevices.touchscreen(slots: 10, maximum: 1000, resolution: 10)

    /// One finger down for 100 ms, panning, then lifted; with client 7's region over the whole device
    /// when `routed`.
    static func outputs(routed: Bool, predictMilliseconds: Int? = nil) -> [PipelineOutput] {
        var settings = PipelineSettings()
        settings.predictionMilliseconds = predictMilliseconds
        var pipeline = DevicePipeline(deviceID: 3, description: device, settings: settings)
        if routed {
            pipeline.startRouting()
            let outcome = pipeline.withRouting {
                $0.replace(
                    client: ClientID(7),
                    with: [Region(id: "all", shape: .rectangle(RegionRect(x: 0, y: 0, width: 100, height: 100)))])
            }
            #expect(outcome == .inForce(["all"], []))
        }
        var s = TouchScripter(device: device, start: Timestamp(seconds: 2, microseconds: 0))
        s.down(finger: 0, x: 30, y: 30)
        s.frame()
        for i in 1...10 {
            s.advance(ms: 10)
            s.move(finger: 0, x: 30 + Double(i * 2), y: 30)
            s.frame()
        }
        s.advance(ms: 10)
        s.up(finger: 0)
        s.frame()
        var out: [PipelineOutput] = []
        for event in s.events { pipeline.push(event, into: &out) }
        pipeline.end(at: s.time, reason: .endOfRecording, into: &out)
        return out
    }

    @Test func everyMessageIsEncodedOnceAndRoutedOnesAreAddressedToTheirClient() throws {
        let outputs = Self.outputs(routed: true)
        var publisher = Publisher()
        var batch = Publisher.Batch()
        publisher.publish(outputs, into: &batch)
        let messages = batch.items.compactMap { $0.message(horizon: nil) }
        #expect(batch.encoded.count == messages.count)
        #expect(batch.variants.isEmpty)
        for (message, encoded) in zip(messages, batch.encoded) {
            #expect(encoded.bytes == Array((message.jsonLine() + "\n").utf8))
        }
        let routed = batch.encoded.filter { $0.client != 0 }
        #expect(!routed.isEmpty)
        #expect(routed.allSatisfy { $0.client == 7 && $0.region == "all" && !$0.wholeDevice })
        // The whole-device messages are the ones a client without regions receives.
        let whole = zip(messages, batch.encoded).filter { $0.1.client == 0 }.map(\.0)
        #expect(whole == PipelineMessages.messages(outputs))
    }

    @Test func theLastWholeDeviceSessionEndMarksWhereAConnectionMaySwitch() {
        var publisher = Publisher()
        var batch = Publisher.Batch()
        var marks: [Bool] = []
        var openAfter: [Bool] = []
        for output in Self.outputs(routed: false) {
            publisher.publish([output], into: &batch)
            marks += batch.encoded.map(\.closesLastSession)
            openAfter.append(publisher.hasOpenSession(device: 3))
        }
        // One session with one pan segment: its segment's end leaves the session open, the session's
        // end closes the last of them.
        #expect(marks.filter { $0 }.count == 1)
        #expect(openAfter.first == true)
        #expect(openAfter.last == false)
        guard let last = marks.lastIndex(of: true) else { return }
        var all = Publisher.Batch()
        var fresh = Publisher()
        fresh.publish(Self.outputs(routed: false), into: &all)
        guard case .gesture(let g)? = all.items[last].message(horizon: nil), case .sessionEnded = g.event else {
            Issue.record("the mark is not on the session's end: \(all.items[last])")
            return
        }
    }

    @Test func predictingClientsGetPredictionsAndTheOthersTheSameMessagesWithout() {
        let outputs = Self.outputs(routed: false, predictMilliseconds: 16)
        var publisher = Publisher()
        var batch = Publisher.Batch()
        publisher.publish(outputs, into: &batch)
        let withPredictions = batch.encoded.indices.map {
            String(decoding: batch.message($0, horizon: 16).bytes, as: UTF8.self)
        }
        let without = batch.encoded.map { String(decoding: $0.bytes, as: UTF8.self) }
        #expect(withPredictions.contains { $0.contains("\"predicted") })
        #expect(!without.contains { $0.contains("\"predicted") })
        // A horizon nobody predicted gets the form without.
        #expect(batch.encoded.indices.allSatisfy { batch.message($0, horizon: 8).bytes == batch.encoded[$0].bytes })
        #expect(
            without
                == batch.items.compactMap { $0.message(horizon: 16)?.withoutPredictions.jsonLine() }.map { $0 + "\n" })
    }

    /// Several horizons of one whole-device view: each is encoded once, from the same filter state.
    @Test func everyWholeDeviceHorizonGetsItsOwnForm() {
        var pipeline = DevicePipeline(deviceID: 3, description: Self.device)
        pipeline.setPredictions(PredictionRequests(wholeDevice: [8, 33]))
        var s = TouchScripter(device: Self.device, start: Timestamp(seconds: 2, microseconds: 0))
        s.down(finger: 0, x: 30, y: 30)
        s.frame()
        for i in 1...10 {
            s.advance(ms: 10)
            s.move(finger: 0, x: 30 + Double(i * 2), y: 30)
            s.frame()
        }
        var out: [PipelineOutput] = []
        for event in s.events { pipeline.push(event, into: &out) }
        var publisher = Publisher()
        var batch = Publisher.Batch()
        publisher.publish(out, into: &batch)
        var farther = 0
        for i in batch.encoded.indices {
            guard case .touches(let t8)? = batch.items[i].message(horizon: 8),
                case .touches(let t33)? = batch.items[i].message(horizon: 33),
                let p8 = t8.touches.first?.predicted, let p33 = t33.touches.first?.predicted,
                let x = t8.touches.first?.location.x
            else { continue }
            #expect(p8.x >= x && p33.x >= p8.x)
            if p33.x > p8.x { farther += 1 }
        }
        #expect(farther > 3, "a finger moving right is predicted farther right at 33 ms than at 8 ms")
    }
}

/// The publisher writes each batch's messages into byte buffers it takes back from the batch before
/// (the daemon's steady state allocates nothing, docs/PERFORMANCE.md): a client that still holds an
/// earlier message (a backlogged queue) keeps that message's bytes, whatever is written after it.
@Suite("Publisher buffer reuse")
struct PublisherBufferReuseTests {
    @Test func aBackloggedClientKeepsItsBytesWhileTheBuffersAreReused() {
        let outputs = PublisherTests.outputs(routed: false, predictMilliseconds: 16)
        let expected = outputs.flatMap { output in
            PipelineMessages.messages([output]).map { Array(($0.jsonLine() + "\n").utf8) }
        }
        let expectedPredicted = outputs.flatMap { output in
            PipelineMessages.messages([output], horizon: 16).map { Array(($0.jsonLine() + "\n").utf8) }
        }
        var publisher = Publisher()
        var batch = Publisher.Batch()
        var backlogged = ClientQueue()
        var predicting = ClientQueue()
        var keepingUp: [[UInt8]] = []
        for output in outputs {
            publisher.publish([output], into: &batch)
            for i in batch.encoded.indices {
                backlogged.enqueue(batch.message(i, horizon: nil), softLimit: .max)
                predicting.enqueue(batch.message(i, horizon: 16), softLimit: .max)
                // A client that keeps up: its message is written (copied) and let go at once.
                var queue = ClientQueue()
                queue.enqueue(batch.message(i, horizon: nil), softLimit: .max)
                while let entry = queue.popFirst() { keepingUp.append(entry.message.bytes) }
            }
            batch.removeAll()
        }
        var held: [[UInt8]] = []
        while let entry = backlogged.popFirst() { held.append(entry.message.bytes) }
        var heldPredicted: [[UInt8]] = []
        while let entry = predicting.popFirst() { heldPredicted.append(entry.message.bytes) }
        #expect(expected.count > 10)
        #expect(held == expected)
        #expect(heldPredicted == expectedPredicted)
        #expect(keepingUp == expected)
    }
}
