import Gestures
import MultitouchCore
import Recordings
import TouchRouting
import WireProtocol

/// A recording replayed as `multitouchd --replay` serves it to clients that declared regions: each
/// client (numbered from 1 in layout order) declares its regions on every device as soon as the device
/// is announced, and receives what `DeviceRouting` routes to it. Virtual time, deterministic; the
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
        var schedule = ReplaySchedule(recording: recording, source: source, settings: settings)
        var routings: [Int: DeviceRouting] = [:]
        var batch: [Message] = []
        while let step = schedule.nextStep {
            schedule.take(step, into: &batch)
            for message in batch {
                if case .deviceAdded(let info) = message {
                    guard let pipeline = schedule.pipelines.first(where: { $0.deviceID == info.id }) else { continue }
                    var routing = DeviceRouting(
                        device: info.id, surface: pipeline.gestureSurface, gestures: pipeline.gestureConfiguration)
                    routing.checker = RoutingInvariantChecker()
                    for (index, regions) in layout.enumerated() {
                        let client = ClientID(UInt64(index + 1))
                        switch routing.replace(client: client, with: regions) {
                        case .inForce:
                            break
                        case .rejected(let error):
                            result.violations.append("device \(info.id), \(client): regions refused: \(error)")
                        }
                    }
                    routings[info.id] = routing
                    continue
                }
                guard let device = message.device, routings.index(forKey: device) != nil else { continue }
                let routed = routings[device]?.observe(message) ?? []
                if keepingMessages { result.messages += routed }
                if case .deviceRemoved = message, let routing = routings.removeValue(forKey: device) {
                    collect(routing.checker, device: device, into: &result)
                }
            }
            batch.removeAll(keepingCapacity: true)
        }
        // A schedule always ends its devices; any routing left is finished here.
        for device in routings.keys.sorted() {
            guard var routing = routings[device] else { continue }
            let routed = routing.finish()
            if keepingMessages { result.messages += routed }
            collect(routing.checker, device: device, into: &result)
        }
        return result
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
