import MultitouchCore
import SystemCalls

/// The result of looking at one node for the daemon: served (opened, grabbed when the rule says so),
/// skipped by the rules, or not openable. Every outcome carries what `multitouchctl devices` and the
/// daemon's log say about it.
public enum DeviceOpening {
    case served(LiveDevice, DeviceDecision)
    case skipped(DeviceDecision)
    case failed(SystemError)

    /// Opens `path`, decides with `matcher` (links under /dev/input/by-* count for path rules), grabs
    /// when the decision says so, and closes the node again when it is skipped. A failed grab (EBUSY:
    /// someone else holds it) is a failure, not a silent passthrough.
    public static func open(path: String, matcher: DeviceMatcher, links: [String]? = nil) -> DeviceOpening {
        let device: LiveDevice
        do {
            device = try LiveDevice(path: path)
        } catch {
            return .failed(error)
        }
        let decision = matcher.decide(
            path: path, links: links ?? DeviceLinks.links(to: path), description: device.description)
        guard decision.serves else { return .skipped(decision) }
        if decision.grabs {
            do {
                try device.grab()
            } catch {
                return .failed(error)
            }
        }
        return .served(device, decision)
    }
}
