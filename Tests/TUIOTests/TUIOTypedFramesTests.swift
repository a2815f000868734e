import Configuration
import MultitouchCore
import Publishing
import TUIO
import TUIOOutput
import Testing
import TouchPipeline
import TouchScripting
import WireProtocol

/// The daemon feeds the broadcaster the pipeline's typed output; `multitouchctl tuio` feeds it the
/// messages the socket carries. Both must send the same datagrams, byte for byte.
@Suite struct TUIOTypedFramesTests {
    /// The whole-device messages a subscribed client gets of `outputs` (devices and touches: what the
    /// broadcaster reads), as the publishing edge makes them.
    static func messages(_ outputs: [PipelineOutput]) -> [Message] {
        outputs.compactMap { output in
            switch output {
            case .deviceAdded(let d):
                .deviceAdded(DeviceInfo(d))
            case .frame(let f) where !f.isWithheld:
                .touches(TouchesMessage(device: f.device, frame: f.frame, isSemiMT: false))
            case .ended(let device, let time, let reason):
                .deviceRemoved(DeviceRemovedMessage(device: device, time: time, reason: reason.rawValue))
            default: nil
            }
        }
    }

    static func datagrams(_ receiver: LoopbackReceiver) -> [[UInt8]] {
        var out: [[UInt8]] = []
        while let d = receiver.receive() { out.append(d) }
        return out
    }

    @Test(arguments: Fixtures.all.map(\.name))
    func typedFramesSendWhatTheMessagesSend(name: String) throws {
        let fixture = try #require(Fixtures.all.first { $0.name == name })
        var pipeline = DevicePipeline(deviceID: 2, description: fixture.device, source: "fixture")
        var outputs: [PipelineOutput] = [.deviceAdded(pipeline.device)]
        for event in fixture.events { pipeline.push(event, into: &outputs) }
        pipeline.end(
            at: fixture.events.last?.time ?? Timestamp(microseconds: 0), reason: .endOfRecording, into: &outputs)

        let typedReceiver = try LoopbackReceiver()
        let messageReceiver = try LoopbackReceiver()
        let typed = TUIOBroadcaster(
            sender: try UDPDatagramSender(targets: [TUIOTarget(port: typedReceiver.port)]), host: "h")
        let fromMessages = TUIOBroadcaster(
            sender: try UDPDatagramSender(targets: [TUIOTarget(port: messageReceiver.port)]), host: "h")
        // In small batches, as devices emit them (the receivers' buffers stay small).
        var sent: ([[UInt8]], [[UInt8]]) = ([], [])
        var start = 0
        while start < outputs.count {
            let batch = Array(outputs[start..<min(outputs.count, start + 16)])
            typed.observe(batch)
            fromMessages.observe(Self.messages(batch))
            sent.0 += Self.datagrams(typedReceiver)
            sent.1 += Self.datagrams(messageReceiver)
            start += 16
        }
        #expect(!sent.0.isEmpty, "the fixture has touches")
        #expect(sent.0 == sent.1)
        #expect(typed.bundles == fromMessages.bundles)
    }
}
