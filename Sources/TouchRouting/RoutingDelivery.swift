import Gestures
import MultitouchCore

/// Who a delivery is for: a region of a client, in a role. A region normally has one role; a region
/// whose mode changes while touches are bound keeps those touches in the role they began with.
public struct Recipient: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var key: RegionKey
    public var role: RoutingRole
    public init(key: RegionKey, role: RoutingRole) {
        self.key = key
        self.role = role
    }
    public var client: ClientID { key.client }
    public static func < (a: Recipient, b: Recipient) -> Bool { a.key != b.key ? a.key < b.key : a.role < b.role }
    public var description: String { "\(key) (\(role.rawValue))" }
}

/// Touches of one frame for one recipient: the recipient's touches that began, moved, ended or were
/// cancelled, plus its stationary ones (UIEvent.allTouches scoped to the region). Not sent when every
/// touch is stationary (seed 003: UIKit does not deliver such an event to the view).
public struct RoutedTouches: Hashable, Sendable {
    public var recipient: Recipient
    public var time: Timestamp
    public var touches: [Touch]
    /// Set when the router itself cancelled these touches; then every touch here is `cancelled`.
    public var reason: RoutingCancelReason?
    /// Where each live (not ending) touch is predicted to be at the recipient client's horizon, in the
    /// touches' order; nil when its client asked for no prediction.
    public var predicted: [Point]?

    public init(
        recipient: Recipient, time: Timestamp, touches: [Touch], reason: RoutingCancelReason? = nil,
        predicted: [Point]? = nil
    ) {
        self.recipient = recipient
        self.time = time
        self.touches = touches
        self.reason = reason
        self.predicted = predicted
    }
}

/// What the router tells the daemon to send, in order.
public enum RoutingDelivery: Hashable, Sendable {
    /// Raw touches for a region.
    case touches(RoutedTouches)
    /// An event of the region's own gesture session (over only its bound touches); a segment update
    /// carries the matrix predicted at the client's horizon when it asked for predictions.
    case gesture(Recipient, GestureEvent, predictedMatrix: AffineTransform?)
    /// The reply to `setTransform`: the region's cumulative transform is now this.
    case transformSet(Recipient, AffineTransform)
    /// A `regionsReplaced` or `setTransform` was refused; the client's regions are unchanged. A client bug the daemon
    /// answers with a `bad-field` error.
    case rejected(ClientID, RoutingRequestError)

    /// The client this is addressed to.
    public var client: ClientID {
        switch self {
        case .touches(let t): return t.recipient.client
        case .gesture(let r, _, _), .transformSet(let r, _): return r.client
        case .rejected(let c, _): return c
        }
    }
}
