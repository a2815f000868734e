import Gestures
import MultitouchCore
import TouchRouting

/// One device's touch routing (issue 12, docs/ROUTING.md): the routing stage of a `DevicePipeline`,
/// present while some client declared regions on the device. The pipeline hands it every tracked
/// `TouchFrame` as it is (tracking ids, button state and all) and it hands back each routed client's
/// per-region deliveries.
///
/// A `TouchRouter` hit-tests each touch once at `began`, binds it to its region for life and runs each
/// owning region's own `GestureEngine` over only its bound touches, with the region's own gesture
/// settings and the prediction horizon of the region's client. Exclusive regions make their touches
/// secure (`secureAreas`, which the pipeline gives the contact tracker): the whole-device view never
/// sees them. Pure: no I/O and no clock (time comes from the frames and `advance(to:)`).
public struct DeviceRouting: Sendable {
    public let device: Int
    public private(set) var router: TouchRouter

    /// - Parameters:
    ///   - surface: the device's gesture surface (`DevicePipeline.gestureSurface`).
    ///   - gestures: the device's gesture thresholds (each region's own settings apply over them).
    ///   - budget: the limits of what clients may declare here.
    public init(
        device: Int, surface: GestureSurface, gestures: GestureConfiguration, budget: RoutingBudget = .default
    ) {
        self.device = device
        router = TouchRouter(gestureConfiguration: gestures, surface: surface, budget: budget)
    }

    /// Where touches beginning now are secure (an exclusive region would own them); nil when no
    /// region here is exclusive.
    public var secureAreas: ExclusiveAreas? { router.regions.secureAreas }

    /// Sets (or clears) the prediction horizon of `client`'s regions' streams.
    public mutating func setHorizon(_ milliseconds: Int?, for client: ClientID) {
        router.setHorizon(milliseconds, for: client)
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
        case inForce([String], [RoutingDelivery])
        /// Refused whole; nothing changed.
        case rejected(RoutingRequestError)
    }

    /// Replaces every region `client` has on the device (`declareRegions`).
    public mutating func replace(client: ClientID, with regions: [Region]) -> Outcome {
        let deliveries = handle(.regionsReplaced(client: client, regions: regions))
        for case .rejected(_, let error) in deliveries { return .rejected(error) }
        return .inForce(regionIDs(of: client), deliveries.filter(\.isSent))
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
    public mutating func recognized(client: ClientID, region: String) -> [RoutingDelivery]? {
        let key = RegionKey(client: client, region: region)
        guard router.regions.regions[key] != nil else { return nil }
        return handle(.gestureRecognized(key)).filter(\.isSent)
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
    public mutating func advance(to time: Timestamp) -> [RoutingDelivery] {
        handle(.advance(to: time)).filter(\.isSent)
    }

    /// Routes one tracked frame of the device (every frame, in order), with its live touches predicted
    /// at the horizons its clients asked for (`router.requestedHorizons`).
    /// `publicChanged` false: only secure touches changed, so streams of public touches only take no
    /// step (for them the frame does not exist).
    public mutating func route(
        _ frame: TouchFrame, predicted: [PredictedFrame] = [], publicChanged: Bool = true
    ) -> [RoutingDelivery] {
        handle(.frame(frame, predicted: predicted, publicChanged: publicChanged)).filter(\.isSent)
    }

    /// No client has regions here: the device can be served without a router again. (Secure touches
    /// still down stay hidden from the whole-device view without it: they are secure by id.)
    public var isIdle: Bool { router.regions.byClient.isEmpty }

    /// The device is gone: pending gesture timers fire (virtual time runs on past the end of input,
    /// as `DevicePipeline.finish` does for the whole device), then every touch and session still open
    /// is cancelled for everyone it was delivered to.
    public mutating func finish() -> [RoutingDelivery] {
        var out: [RoutingDelivery] = []
        // Each timer moves its deadline on and animations end; the bound is a guard against an engine
        // bug, never reached in practice.
        var rounds = 0
        while let deadline = router.nextDeadline, rounds < 100_000 {
            out += handle(.advance(to: deadline)).filter(\.isSent)
            if router.nextDeadline == deadline { break }
            rounds += 1
        }
        out += handle(.deviceGone).filter(\.isSent)
        return out
    }
}

extension RoutingDelivery {
    /// Touches and gesture events are sent to their client; the answers to requests become the
    /// request's outcome instead.
    var isSent: Bool {
        switch self {
        case .touches, .gesture: return true
        case .transformSet, .rejected: return false
        }
    }
}
