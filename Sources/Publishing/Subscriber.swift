import Configuration
import TouchRouting
import WireProtocol

/// What the daemon publishes to one connection and under which rules, apart from its socket: its
/// access grant, subscription, prediction horizon, frame-aligned buffer, outgoing queue, and the devices
/// on which it receives its regions' streams instead of the whole device's (with the switches between
/// them that wait for an open session to end). Every stream it holds (the whole device's, each of its
/// regions') gets every feature it asked for: its horizon's predictions and, when frame-aligned, its
/// frames (DESIGN.md invariant 12). Pure: tests drive it without sockets.
public struct Subscriber {
    public let id: Int
    /// What the access policy lets this client do (docs/SECURITY.md), fixed at connect.
    public var grant: AccessGrant
    /// The uid its regions are charged to (`RoutingGrant.account`): a user's connections share one
    /// share of each device's routing budget. Nil when the peer is unknown.
    public var account: UInt32?
    /// Streams and devices the client asked for; nil before the first subscribe (nothing is streamed).
    public var subscription: (streams: MessageStreams, devices: DeviceFilter)?
    /// The subscription's prediction horizon (`predictMs`), nil when it asked for none.
    public var predictMilliseconds: Int?
    /// A frame-aligned subscription's buffered streams (`"frames": true`), delivered one display frame at
    /// a time on `frame` requests; nil streams them as they come.
    public var frames: FrameAligner?
    public var queue = ClientQueue()
    /// Messages that arrived for the client, for stats (the client's own figure: only it and root see it).
    public var delivered: UInt64 = 0
    /// Devices on which the client declared regions: it gets its regions' own touches and gestures
    /// there instead of the whole device's.
    public private(set) var routedDevices: Set<Int> = []
    /// Switches between a device's whole-device stream (false) and routed streams (true) asked for while
    /// a whole-device session or segment was open on it; each takes effect right after the message that
    /// closes the last of them (`OutboundMessage.closesLastSession`).
    public private(set) var routingSwitch: [Int: Bool] = [:]

    public init(id: Int, grant: AccessGrant = .everything) {
        self.id = id
        self.grant = grant
    }

    /// Whether the connection has regions anywhere, or a switch pending (its regions must go when it does).
    public var hasRoutingState: Bool { !routedDevices.isEmpty || !routingSwitch.isEmpty }

    /// A region request on `device` took effect: the client has regions there now (`routed`) or none.
    /// With a whole-device session open there (`sessionOpen`) the connection keeps the stream it has
    /// until nothing is, so every touch and session it received still ends for it and none arrives
    /// without its began.
    public mutating func regionsChanged(device: Int, routed: Bool, sessionOpen: Bool) {
        if routed == routedDevices.contains(device) {
            routingSwitch[device] = nil
        } else {
            routingSwitch[device] = routed
            if !sessionOpen { applyRoutingSwitch(device) }
        }
    }

    /// Makes the pending switch for `device` take effect, if there is one.
    public mutating func applyRoutingSwitch(_ device: Int) {
        guard let routed = routingSwitch.removeValue(forKey: device) else { return }
        if routed { routedDevices.insert(device) } else { routedDevices.remove(device) }
    }

    /// What the router needs of the grant.
    public var routingGrant: RoutingGrant {
        RoutingGrant(
            zBand: grant.zBand, observesOthers: grant.has(.observe), coversExclusive: grant.has(.cover),
            account: account)
    }

    /// Whether the client receives `message` (its subscription, its regions, its rights).
    public func wants(_ message: OutboundMessage) -> Bool {
        if message.except == id { return false }
        // Replies: to the one client they answer (client 0: a broadcast notice to everyone).
        if message.streams.isEmpty { return message.client == 0 || message.client == id }
        if message.client != 0 {
            guard message.client == id else { return false }
        } else if message.wholeDevice {
            // Without `observe` a client sees its own regions' touches only (Wayland's model).
            if !grant.has(.observe) { return false }
            if !routedDevices.isEmpty && routedDevices.contains(message.device) { return false }
        }
        guard let subscription, !subscription.streams.isDisjoint(with: message.streams) else { return false }
        return message.device == 0 || subscription.devices.contains(message.device)
    }

    /// Whether the client's whole-device view of `device` asked for predictions: it subscribed to the
    /// device's touches or gestures with a horizon, may see the whole device, and is not routed there.
    public func predictsWholeDevice(_ device: Int) -> Bool {
        guard predictMilliseconds != nil, grant.has(.observe), let subscription, !routedDevices.contains(device),
            !subscription.streams.isDisjoint(with: [.touches, .gestures])
        else { return false }
        return subscription.devices.contains(device)
    }

    /// Takes the batch's items this client wants (`wants`), each in the form for its horizon: streamed
    /// ones into its queue (coalescing droppable ones beyond `softLimit`), a frame-aligned client's
    /// touches and gestures into its `frames`. Applies a pending routing switch where a message closes
    /// the device's last session (nothing can be cut in two there), also after messages it does not
    /// take. Returns whether any message was queued for this client.
    public mutating func take(_ batch: Publisher.Batch, softLimit: Int) -> Bool {
        var any = false
        for i in batch.encoded.indices {
            let message = batch.message(i, horizon: predictMilliseconds)
            if wants(message) {
                if frames != nil && (message.wholeDevice || message.region != nil) {
                    frames?.push(batch.items[i], horizon: predictMilliseconds)
                } else {
                    any = true
                    queue.enqueue(message, softLimit: softLimit)
                }
                delivered &+= 1
            }
            if message.closesLastSession && !routingSwitch.isEmpty { applyRoutingSwitch(message.device) }
        }
        return any
    }

    /// Queues messages addressed to this client alone (a reply, a frame): never filtered, counted.
    public mutating func take(own messages: [OutboundMessage], softLimit: Int) {
        for message in messages {
            queue.enqueue(message, softLimit: softLimit)
            delivered &+= 1
        }
    }
}

// MARK: Request decisions

extension Subscriber {
    /// `subscribe`: the streams, devices, prediction horizon and frame alignment asked for take effect,
    /// for every stream the client holds (the whole device's and its regions'; each client has its own
    /// horizon). Returns the `subscribed` reply, which names what the client will not receive: without
    /// the `observe` right, the whole-device streams (it gets its own regions' only).
    public mutating func subscribe(
        streams: Set<MessageStream>, devices: DeviceFilter, predictMilliseconds: Int?, frameAligned: Bool,
        id: RequestID?, uid: UInt32?
    ) -> SubscribedMessage {
        subscription = (MessageStreams(streams), devices)
        self.predictMilliseconds = predictMilliseconds
        frames = frameAligned ? (frames ?? FrameAligner()) : nil
        var withheld: String?
        if !grant.has(.observe) && !streams.isDisjoint(with: [.touches, .gestures]) {
            withheld =
                "whole-device touches and gestures: missing right \"observe\" (the daemon's [access] configuration does not grant it to uid \(uid.map { String($0) } ?? "unknown")); this connection receives its own regions' touches and gestures only"
        }
        return SubscribedMessage(
            id: id, streams: streams, devices: devices, predictMilliseconds: predictMilliseconds,
            frameAligned: frameAligned, withheld: withheld)
    }

    /// `unsubscribe`: nothing is streamed any more (replies still are).
    public mutating func unsubscribe() {
        subscription = nil
        predictMilliseconds = nil
        frames = nil
    }

    /// The `forbidden` answer to a request that needs `right` when the grant lacks it; nil when granted.
    /// `uid` names the peer in the words.
    public func refusal(missing right: AccessRight, uid: UInt32?, id: RequestID?) -> ErrorMessage? {
        guard !grant.has(right) else { return nil }
        return ErrorMessage(
            .forbidden,
            "missing right \"\(right.rawValue)\" (the daemon's [access] configuration does not grant it to uid \(uid.map { String($0) } ?? "unknown"))",
            id: id)
    }

    /// The answer to a region request the router refused whole.
    public static func refusal(_ error: RoutingRequestError, id: RequestID?) -> ErrorMessage {
        let code: ErrorCode
        switch error.kind {
        case .invalid: code = .badField
        case .overBudget: code = .overBudget
        case .forbidden: code = .forbidden
        }
        return ErrorMessage(code, error.description, id: id)
    }
}
