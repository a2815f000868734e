import Gestures
import MultitouchCore
import Recordings
import TouchPipeline
import TouchRouting
import WireProtocol

/// A recording replayed as `multitouchd --replay` serves it to clients that declared regions: each
/// client (numbered from 1 in layout order) declares its regions on every device as soon as the device
/// is announced, and receives what the device pipeline's routing stage (`DeviceRouting`) routes to it. Virtual time, deterministic; the
/// routing invariants (`RoutingInvariantChecker`: one owner per touch, every delivered touch and
/// session ends once, ...) are checked on the way. Used by `multitouchctl check --regions` and
/// `multitouchctl replay --regions`.
public enum RoutedReplay {
    /// What a routed replay produced.
    public struct Result: Sendable {
        /// Every routed message, in the order the daemon would send them.
        public var messages: [RoutedMessage] = []
        /// Broken routing invariants, and region declarations a device refused.
        public var violations: [String] = []
        /// Routed `touches` messages and gesture events checked.
        public var touchMessages = 0
        public var gestureEvents = 0
        /// Touches the router cancelled itself, by reason.
        public var cancellations: [RoutingCancelReason: Int] = [:]
    }

    /// Replays `recording` routed to `layout`'s clients. `keepingMessages` false leaves
    /// `Result.messages` empty, so a check of a long recording holds only its counts and violations.
    public static func run(
        recording: Recording, source: String = "", layout: [[Region]], settings: PipelineSettings = .init(),
        keepingMessages: Bool = true
    ) -> Result {
        var result = Result()
        var edge = PipelineMessages()
        var schedule = ReplaySchedule(recording: recording, source: source, settings: settings)
        var batch: [PipelineOutput] = []
        while let step = schedule.nextStep {
            schedule.take(step, into: &batch)
            for output in batch {
                // Every output, so that the edge learns each device's class from its deviceAdded.
                if keepingMessages { edge.appendRouted([output], to: &result.messages) }
                switch output {
                case .deviceAdded(let device):
                    declare(layout, on: device.id, in: &schedule, into: &result)
                case .ended(let device, _, _):
                    let checker = schedule.withPipeline(device: device) { $0.routing?.checker } ?? nil
                    collect(checker, device: device, into: &result)
                case .frame, .routed, .recordingNote, .timers, .dropped, .answer:
                    break
                }
            }
            batch.removeAll(keepingCapacity: true)
        }
        return result
    }

    /// Every client of the layout declares its regions on a device just announced.
    private static func declare(
        _ layout: [[Region]], on device: Int, in schedule: inout ReplaySchedule, into result: inout Result
    ) {
        let refusals: [String] =
            schedule.withPipeline(device: device) { pipeline in
                pipeline.startRouting()
                var refusals: [String] = []
                _ = pipeline.withRouting { routing in
                    routing.checker = RoutingInvariantChecker()
                    for (index, regions) in layout.enumerated() {
                        let client = ClientID(UInt64(index + 1))
                        switch routing.replace(client: client, with: regions) {
                        case .inForce:
                            break
                        case .rejected(let error):
                            refusals.append("device \(device), \(client): regions refused: \(error)")
                        }
                    }
                }
                return refusals
            } ?? []
        result.violations += refusals
    }

    private static func collect(_ checker: RoutingInvariantChecker?, device: Int, into result: inout Result) {
        guard var checker else { return }
        checker.finish()
        result.violations += checker.violations.map { "device \(device): \($0)" }
        result.touchMessages += checker.touchMessages
        result.gestureEvents += checker.gestureEvents
        result.cancellations.merge(checker.cancellations) { $0 + $1 }
    }
}
