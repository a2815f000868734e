/// How a region receives a touch: the one owner, or one of any number of observers.
public enum RoutingRole: String, Hashable, Comparable, Sendable {
    case owner, observer
    public static func < (a: RoutingRole, b: RoutingRole) -> Bool { a == .owner && b == .observer }
}

/// Why the router ended touches itself (the pipeline's own cancellations carry no reason here).
public enum RoutingCancelReason: String, Hashable, Sendable {
    /// The region the touches were bound to was removed or replaced without its id.
    case regionRemoved = "region removed"
    /// The client left (the daemon drops what is addressed to a closed connection; an unsubscribing
    /// client that stays connected receives it).
    case clientGone = "client gone"
    /// The device went away.
    case deviceGone = "device removed"
    /// The region's gesture was recognised and it cancels its raw touches (cancelsTouchesOnRecognition).
    case recognized = "gesture recognized"
    /// The owner claimed the touches exclusively; this observer gets no more of them.
    case claimed = "claimed by owner"
}
