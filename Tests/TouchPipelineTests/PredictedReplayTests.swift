import Gestures
import MultitouchCore
import MultitouchTestKit
import Publishing
import Recordings
import Testing
import TouchPipeline
import WireProtocol

/// `replay --json --predict-ms`: predictions are added to the messages and change nothing else.
@Suite struct PredictedReplayTests {
    private func recording(_ fixture: Fixtures.Fixture) -> Recording {
        Recording(format: .evemu, devices: [RecordedDevice(description: fixture.device, events: fixture.events)])
    }

    private func batches(_ recording: Recording, predict: Int?) -> [[Message]] {
        var settings = PipelineSettings()
        settings.predictionMilliseconds = predict
        var out: [[Message]] = []
        MessageReplay.run(recording: recording, source: "test", settings: settings) { out.append($0) }
        return out
    }

    /// A message with its predictions removed.
    private func stripped(_ message: Message) -> Message {
        switch message {
        case .touches(var m):
            for i in m.touches.indices { m.touches[i].predicted = nil }
            return .touches(m)
        case .gesture(var m):
            m.predictedMatrix = nil
            return .gesture(m)
        default:
            return message
        }
    }

    @Test(arguments: Fixtures.all.map(\.name))
    func predictionsChangeNothingElseAndCoverEveryLiveTouch(name: String) throws {
        let fixture = try #require(Fixtures.all.first { $0.name == name })
        let plain = batches(recording(fixture), predict: nil).flatMap { $0 }
        let predicted = batches(recording(fixture), predict: 16).flatMap { $0 }
        #expect(predicted.map(stripped) == plain)
        for message in predicted {
            switch message {
            case .touches(let m):
                for touch in m.touches {
                    #expect((touch.predicted != nil) == !touch.phase.isTerminal, "\(touch)")
                }
            case .gesture(let m):
                if case .update = m.event {
                    #expect(m.predictedMatrix != nil)
                } else {
                    #expect(m.predictedMatrix == nil)
                }
            default:
                break
            }
        }
        // Deterministic, and round-trips through the decoder.
        #expect(predicted == batches(recording(fixture), predict: 16).flatMap { $0 })
        for message in predicted {
            let decoded = try Message(decoding: Array(message.jsonLine().utf8))
            #expect(decoded.jsonLine() == message.jsonLine())
        }
    }

    /// With a zero horizon the prediction is the present: every predicted location is the location,
    /// and the last update of a frame's predicted matrix is its matrix.
    @Test(arguments: Fixtures.all.map(\.name))
    func zeroHorizonPredictsThePresent(name: String) throws {
        let fixture = try #require(Fixtures.all.first { $0.name == name })
        for batch in batches(recording(fixture), predict: 0) {
            var lastUpdate: GestureMessage?
            for message in batch {
                switch message {
                case .touches(let m):
                    for touch in m.touches where !touch.phase.isTerminal { #expect(touch.predicted == touch.location) }
                case .gesture(let m):
                    if case .update = m.event { lastUpdate = m }
                default:
                    break
                }
            }
            if let lastUpdate, case .update(let u) = lastUpdate.event, let p = lastUpdate.predictedMatrix {
                for (a, b) in zip(
                    [u.matrix.a, u.matrix.b, u.matrix.c, u.matrix.d, u.matrix.tx, u.matrix.ty],
                    [p.a, p.b, p.c, p.d, p.tx, p.ty])
                {
                    #expect(abs(a - b) <= 1e-9 * max(1, abs(a)), "\(u.matrix) vs \(p)")
                }
            }
        }
    }
}
