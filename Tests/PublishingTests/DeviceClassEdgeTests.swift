import MultitouchCore
import MultitouchTestKit
import Publishing
import Testing
import TouchPipeline
import TouchRouting
import WireProtocol

/// A device's class is chosen once, when its pipeline is made (`DeviceKind`), and the publishing edge
/// writes it into the wire's `semiMT`: no frame, routed output or delivery carries it (issue 32).
@Suite("The device's class at the publishing edge")
struct DeviceClassEdgeTests {
    static let pad = TestDevices.semiMTClickpad()
    static let screen = TestDevices.touchscreen(slots: 10, maximum: 1000, resolution: 10)

    static func device(_ id: Int, _ description: DeviceDescription) -> PipelineDevice {
        PipelineDevice(
            id: id, source: "test", description: description, mapper: CoordinateMapper(description: description))
    }

    static let frame: TouchFrame = {
        let p = Point(x: 10, y: 10)
        let touch = Touch(
            id: 1, slot: 0, trackingID: 1, phase: .began, location: p, previousLocation: p, millimeters: p,
            normalized: Point(x: 0.1, y: 0.1), timestamp: Timestamp(microseconds: 1000), type: .indirect)
        return TouchFrame(time: Timestamp(microseconds: 1000), touches: [touch], fingerCount: 1)
    }()

    static func touches(_ messages: [Message]) -> [TouchesMessage] {
        messages.compactMap {
            if case .touches(let t) = $0 { return t }
            return nil
        }
    }

    /// Before, each frame said whether its device was semi-mt (`TouchFrame.isSemiMT`), and a frame
    /// that did not say so was published as a fingers' frame of a semi-mt pad: two sources of one fact.
    @Test func aSemiMTPadsTouchesSaySoFromItsClassNotFromTheFrame() {
        let messages = PipelineMessages.messages([
            .deviceAdded(Self.device(1, Self.pad)), .deviceAdded(Self.device(2, Self.screen)),
            .frame(PipelineFrame(device: 1, frame: Self.frame, events: [])),
            .frame(PipelineFrame(device: 2, frame: Self.frame, events: [])),
        ])
        #expect(Self.touches(messages).map(\.isSemiMT) == [true, false])
        let added = messages.compactMap {
            if case .deviceAdded(let info) = $0 { return info.isSemiMT }
            return nil
        }
        #expect(added == [true, false])
    }

    /// The edge learns a device's class from its `deviceAdded` and forgets it at its end; the
    /// daemon's publisher sees every device's whole output, a tool's edge may start knowing them.
    @Test func theEdgeKnowsADeviceFromItsAnnouncementToItsEnd() {
        var edge = PipelineMessages()
        var out: [Message] = []
        edge.append([.frame(PipelineFrame(device: 1, frame: Self.frame, events: []))], to: &out)
        edge.append([.deviceAdded(Self.device(1, Self.pad))], to: &out)
        edge.append([.frame(PipelineFrame(device: 1, frame: Self.frame, events: []))], to: &out)
        edge.append([.ended(device: 1, time: Timestamp(microseconds: 2000), reason: .endOfRecording)], to: &out)
        edge.append([.frame(PipelineFrame(device: 1, frame: Self.frame, events: []))], to: &out)
        #expect(Self.touches(out).map(\.isSemiMT) == [false, true, false])

        var known = PipelineMessages(knowing: [Self.device(1, Self.pad)])
        out.removeAll()
        known.append([.frame(PipelineFrame(device: 1, frame: Self.frame, events: []))], to: &out)
        #expect(Self.touches(out).map(\.isSemiMT) == [true])
    }

    /// A semi-mt pad's region streams say so too: the routed output carries only the device's id.
    @Test func aSemiMTPadsRegionTouchesSaySo() throws {
        let fixture = Fixtures.semiMT()
        var pipeline = DevicePipeline(deviceID: 1, description: fixture.device)
        #expect(pipeline.device.kind == .semiMTTouchpad && pipeline.gestureSurface.isSemiMT)
        pipeline.startRouting()
        let outcome = pipeline.withRouting {
            $0.replace(
                client: ClientID(7),
                with: [Region(id: "all", shape: .rectangle(RegionRect(x: -1e6, y: -1e6, width: 2e6, height: 2e6)))])
        }
        #expect(outcome == .inForce(["all"], []))
        var out: [PipelineOutput] = [.deviceAdded(pipeline.device)]
        for event in fixture.events { pipeline.push(event, into: &out) }
        pipeline.end(at: fixture.events.last?.time ?? Timestamp(microseconds: 0), reason: .endOfRecording, into: &out)
        var routed: [RoutedMessage] = []
        PipelineMessages.appendRouted(out, to: &routed)
        let flags = Self.touches(routed.map(\.message)).map(\.isSemiMT)
        #expect(!flags.isEmpty && flags.allSatisfy { $0 })
        #expect(Self.touches(PipelineMessages.messages(out)).allSatisfy { $0.isSemiMT })
    }
}
