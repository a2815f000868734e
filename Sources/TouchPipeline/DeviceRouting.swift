import Gestures
import MultitouchCore
import TouchRouting
import WireProtocol

/// A message for one region of one client, made by a device's `TouchRouter`.
public struct RoutedMessage: Hashable, Sendable {
    public var client: ClientID
    /// The region it is about (coalescing under backpressure is per region).
    public var region: String
    public var message: Message

    public init(client: ClientID, region: String, message: Message) {
        self.client = client
        self.region = region
        self.message = message
    }
}

/// One device's touch routing as the daemon serves it (issue 12, docs/ROUTING.md): the device's own
/// pipeline messages go in, in pipeline order, and each routed client's per-region messages come out.
///
/// The whole-device pipeline (`DevicePipeline`) is unchanged and keeps serving clients without regions;
/// this reads its `touches` frames back into `TouchFrame`s and hands them to a `TouchRouter`, which
/// hit-tests each touch once at `began`, binds it to its region for life and runs each owning region's
/// own `GestureEngine` over only its bound touches (the same engine and surface as the device's). Pure:
/// no I/O and no clock (time comes from the frames and `advance(to:)`). Not thread-safe; the daemon's
/// loop thread owns it.
///
/// What a `touches` message does not carry is not routed either: a touchpad's button state
/// (`TouchFrame.isButtonPressed`) is always false in a region's session.
public struct DeviceRouting: Sendable {
    public let device: Int
    public private(set) var router: TouchRouter
    private let isSemiMT: Bool
    /// Touches bound to an `exclusive` owner region and still down: whole-device gesture sessions that
    /// see them are withheld (`wholeDevice(_:)`).
    private var exclusiveDown: Set<UInt64> = []
    /// Whether the last frame ended such a touch (the gestures of that frame and the timers after it,
    /// a tap waiting for its double-tap, belong to its session).
    private var exclusiveJustEnded = false
    /// Whole-device gesture sessions that included such a touch, newest last (a few: a timer's tap or
    /// long press may come after its session ended).
    private var hiddenSessions: [UInt64] = []
    /// Whole-device sessions whose `began` was sent, so their end is sent too (a session that an
    /// exclusive touch joins later ends without its updates in between).
    private var shownSessions: Set<UInt64> = []
    static let hiddenSessionsKept = 16

    /// - Parameters:
    ///   - surface: the device's gesture surface (`DevicePipeline.gestureSurface`).
    ///   - gestures: the device's gesture thresholds.
    ///   - budget: the limits of what clients may declare here.
    public init(
        device: Int, surface: GestureSurface, gestures: GestureConfiguration, budget: RoutingBudget = .default
    ) {
        self.device = device
        isSemiMT = surface.isSemiMT
        router = TouchRouter(gestureConfiguration: gestures, surface: surface, budget: budget)
    }

    /// Sets what `client` may do here (z band, observing other clients' touches), from the access policy.
    public mutating func setGrant(_ grant: RoutingGrant, for client: ClientID) {
        router.setGrant(grant, for: client)
    }

    /// When set, every event the router handles and what it delivered for it are checked against the
    /// routing invariants (`multitouchctl check --regions`, tests); nil in the daemon.
    public var checker: RoutingInvariantChecker?

    private mutating func handle(_ event: TouchRouter.Event) -> [RoutingDelivery] {
        let deliveries = router.handle(event)
        checker?.check(event: event, deliveries: deliveries)
        return deliveries
    }

    /// What a region request did.
    public enum Outcome: Hashable, Sendable {
        /// The client's region ids now in force, in declaration order (empty: not routed any more), and
        /// what the change cancelled (touches of removed regions, for the client to receive).
        case inForce([String], [RoutedMessage])
        /// Refused whole; nothing changed.
        case rejected(RoutingRequestError)
    }

    /// Replaces every region `client` has on the device (`declareRegions`).
    public mutating func replace(client: ClientID, with regions: [Region]) -> Outcome {
        let deliveries = handle(.regionsReplaced(client: client, regions: regions))
        for case .rejected(_, let error) in deliveries { return .rejected(error) }
        return .inForce(regionIDs(of: client), messages(deliveries))
    }

    /// Adds or replaces (by id) some of `client`'s regions and removes others (`updateRegions`),
    /// atomically.
    public mutating func update(client: ClientID, upserting: [Region], removing: [String]) -> Outcome {
        let merged: [Region]
        do {
            merged = try router.regions.merged(client: client, upserting: upserting, removing: removing)
        } catch {
            return .rejected(error)
        }
        return replace(client: client, with: merged)
    }

    /// The client's own recogniser recognised a gesture in its region (protocol `recognized`): the
    /// region's options take effect as when its gesture session recognises one. Returns what that
    /// cancels (for this client and for observers of other clients), or nil when the client has no
    /// such region here. Nothing happens while the region has no touch down.
    public mutating func recognized(client: ClientID, region: String) -> [RoutedMessage]? {
        let key = RegionKey(client: client, region: region)
        guard router.regions.regions[key] != nil else { return nil }
        return messages(handle(.gestureRecognized(key)))
    }

    /// What setting a region's transform did.
    public enum TransformOutcome: Hashable, Sendable {
        /// The region's gesture session continues from this cumulative transform.
        case set(AffineTransform)
        /// No such region, a region without gestures, or a matrix that is not finite and invertible.
        case rejected(RoutingRequestError)
    }

    /// Sets (or, with `.identity`, resets) the cumulative transform of one of `client`'s regions'
    /// gesture session (protocol `setTransform`/`resetTransform` with `region`).
    public mutating func setTransform(client: ClientID, region: String, _ matrix: AffineTransform) -> TransformOutcome {
        for delivery in handle(.setTransform(RegionKey(client: client, region: region), matrix)) {
            switch delivery {
            case .transformSet(_, let m): return .set(m)
            case .rejected(_, let error): return .rejected(error)
            case .touches, .gesture: continue
            }
        }
        return .rejected(RoutingRequestError(problems: ["no region \"\(region)\" on this device"]))
    }

    /// The ids of `client`'s regions, in declaration order.
    public func regionIDs(of client: ClientID) -> [String] {
        (router.regions.byClient[client] ?? []).map(\.id)
    }

    /// Whether `client` declared any region here.
    public func isRouted(_ client: ClientID) -> Bool { router.regions.hasRegions(client) }

    /// The client disconnected: its regions vanish and its touches and sessions end. What the router
    /// cancels is addressed to the closed connection only, so nothing is returned.
    public mutating func clientGone(_ client: ClientID) {
        _ = handle(.clientGone(client))
    }

    /// The earliest deadline of a region's gesture session (tap, long press, debounce, animation), in
    /// the device's event time; nil when none.
    public var nextDeadline: Timestamp? { router.nextDeadline }

    /// Fires the regions' gesture timers due at or before `time`.
    public mutating func advance(to time: Timestamp) -> [RoutedMessage] {
        messages(handle(.advance(to: time)))
    }

    /// Feeds one message of the device's pipeline, in the order the pipeline made them. Whole-device
    /// `touches` frames are routed; `deviceRemoved` ends everything (after `finish()`); the rest is
    /// not the router's business.
    public mutating func observe(_ message: Message) -> [RoutedMessage] {
        switch message {
        case .touches(let m):
            guard m.device == device, m.routing == nil else { return [] }
            return messages(handle(.frame(Self.frame(of: m))))
        case .deviceRemoved(let m):
            guard m.device == device else { return [] }
            return finish()
        case .hello, .deviceAdded, .gesture, .dropped, .error, .pong, .subscribed, .unsubscribed, .stats,
            .transform, .regions, .recognized:
            return []
        }
    }

    /// What the whole-device stream carries of `message` (after `observe(_:)` of the same message), for
    /// every subscriber: a routed client skips its routed devices' whole-device messages, so these reach
    /// only clients other than any region's owner. Touches bound to an `exclusive` owner region (a PIN
    /// pad) are left out of `touches` frames (nil when nothing is left), and the whole-device gesture
    /// sessions that saw them are withheld, taps, double taps and long presses included: the whole-device
    /// engine ran over them, so its events could give them away (docs/SECURITY.md). A session shown
    /// before such a touch joined it still ends. Unchanged while no exclusive region has a touch.
    public mutating func wholeDevice(_ message: Message) -> Message? {
        switch message {
        case .touches(var m):
            guard m.device == device, m.routing == nil else { return message }
            let hidden = router.exclusiveTouchesOfLastFrame
            exclusiveJustEnded = false
            guard !hidden.isEmpty else { return message }
            for point in m.touches where hidden.contains(point.id) {
                if point.phase.isTerminal {
                    exclusiveDown.remove(point.id)
                    exclusiveJustEnded = true
                } else {
                    exclusiveDown.insert(point.id)
                }
            }
            let hiddenLive = m.touches.reduce(0) { $0 + (hidden.contains($1.id) && !$1.phase.isTerminal ? 1 : 0) }
            m.touches.removeAll { hidden.contains($0.id) }
            guard !m.touches.isEmpty else { return nil }
            m.fingers = max(0, m.fingers - hiddenLive)
            return .touches(m)
        case .gesture(let g):
            guard g.device == device, g.region == nil else { return message }
            let session = g.event.session
            if !exclusiveDown.isEmpty || exclusiveJustEnded, !hiddenSessions.contains(session) {
                hiddenSessions.append(session)
                if hiddenSessions.count > Self.hiddenSessionsKept { hiddenSessions.removeFirst() }
            }
            let hidden = hiddenSessions.contains(session)
            switch g.event {
            case .sessionBegan:
                if hidden { return nil }
                shownSessions.insert(session)
                return message
            case .sessionEnded:
                return shownSessions.remove(session) != nil || !hidden ? message : nil
            case .update, .tap, .doubleTap, .longPress:
                return hidden ? nil : message
            }
        case .hello, .deviceAdded, .deviceRemoved, .dropped, .error, .pong, .subscribed, .unsubscribed, .stats,
            .transform, .regions, .recognized:
            return message
        }
    }

    /// No client has regions here and no touch of an exclusive region is still down: the device can be
    /// served without a router again (until then the whole-device stream keeps hiding such a touch,
    /// even after its region's client left).
    public var isIdle: Bool { router.regions.byClient.isEmpty && exclusiveDown.isEmpty }

    /// The device is gone: pending gesture timers fire (virtual time runs on past the end of input,
    /// as `DevicePipeline.finish` does for the whole device), then every touch and session still open
    /// is cancelled for everyone it was delivered to.
    public mutating func finish() -> [RoutedMessage] {
        var out: [RoutedMessage] = []
        // Each timer moves its deadline on and animations end; the bound is a guard against an engine
        // bug, never reached in practice.
        var rounds = 0
        while let deadline = router.nextDeadline, rounds < 100_000 {
            out += messages(handle(.advance(to: deadline)))
            if router.nextDeadline == deadline { break }
            rounds += 1
        }
        out += messages(handle(.deviceGone))
        return out
    }

    /// A pipeline `touches` message as the frame it was made from. The kernel tracking id is not on
    /// the wire and not used by routing or gestures.
    public static func frame(of m: TouchesMessage) -> TouchFrame {
        let touches = m.touches.map { p in
            Touch(
                id: p.id, slot: p.slot, trackingID: -1, phase: p.phase, location: p.location,
                previousLocation: p.previousLocation, millimeters: p.millimeters, normalized: p.normalized,
                timestamp: m.time, tapCount: p.tapCount, majorRadius: p.majorRadius, minorRadius: p.minorRadius,
                orientation: p.orientation, force: p.force, type: p.type)
        }
        return TouchFrame(time: m.time, touches: touches, fingerCount: m.fingers, isSemiMT: m.isSemiMT)
    }

    /// The router's deliveries as wire messages (docs/PROTOCOL.md "What a routed connection receives").
    private func messages(_ deliveries: [RoutingDelivery]) -> [RoutedMessage] {
        var out: [RoutedMessage] = []
        out.reserveCapacity(deliveries.count)
        for delivery in deliveries {
            switch delivery {
            case .touches(let t):
                let fingers = t.touches.reduce(0) { $0 + ($1.phase.isTerminal ? 0 : 1) }
                let message = TouchesMessage(
                    device: device, time: t.time, fingers: fingers, isSemiMT: isSemiMT,
                    touches: t.touches.map(TouchPoint.init),
                    routing: TouchesRouting(region: t.recipient.key.region, role: t.recipient.role, reason: t.reason))
                out.append(
                    RoutedMessage(
                        client: t.recipient.client, region: t.recipient.key.region, message: .touches(message)))
            case .gesture(let recipient, let event):
                out.append(
                    RoutedMessage(
                        client: recipient.client, region: recipient.key.region,
                        message: .gesture(GestureMessage(device: device, event: event, region: recipient.key.region))))
            case .transformSet, .rejected:
                // Answers to requests this type does not send (a region's setTransform), or that
                // `replace` turns into its outcome.
                continue
            }
        }
        return out
    }
}
