import Gestures
import MultitouchCore
import TouchRouting

/// One device's touch routing (issue 12, docs/ROUTING.md): the routing stage of a `DevicePipeline`,
/// present while some client declared regions on the device. The pipeline hands it every tracked
/// `TouchFrame` as it is (tracking ids, button state and all) and it hands back each routed client's
/// per-region deliveries.
///
/// A `TouchRouter` hit-tests each touch once at `began`, binds it to its region for life and runs each
/// owning region's own `GestureEngine` over only its bound touches (the same engine and surface as the
/// device's). It also filters the whole-device stream for exclusive regions (`wholeDevice(_:)`,
/// `wholeDevice(events:)`). Pure: no I/O and no clock (time comes from the frames and `advance(to:)`).
public struct DeviceRouting: Sendable {
    public let device: Int
    public private(set) var router: TouchRouter
    public let isSemiMT: Bool
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

    /// Routes one tracked frame of the device (every frame, in order). Afterwards `wholeDevice(_:)`
    /// filters the same frame for the whole-device stream.
    public mutating func route(_ frame: TouchFrame) -> [RoutingDelivery] {
        handle(.frame(frame)).filter(\.isSent)
    }

    /// What the whole-device stream shows of the frame just routed: every subscriber but a region's
    /// owner reads it. Touches bound to an `exclusive` owner region (a PIN pad) are left out (nil when
    /// nothing is left) and the live ones among them no longer count as fingers. Unchanged while no
    /// exclusive region has a touch.
    public mutating func wholeDevice(_ frame: TouchFrame) -> TouchFrame? {
        let hidden = router.exclusiveTouchesOfLastFrame
        exclusiveJustEnded = false
        guard !hidden.isEmpty else { return frame }
        var frame = frame
        for touch in frame.touches where hidden.contains(touch.id) {
            if touch.phase.isTerminal {
                exclusiveDown.remove(touch.id)
                exclusiveJustEnded = true
            } else {
                exclusiveDown.insert(touch.id)
            }
        }
        let hiddenLive = frame.touches.reduce(0) { $0 + (hidden.contains($1.id) && !$1.phase.isTerminal ? 1 : 0) }
        frame.touches.removeAll { hidden.contains($0.id) }
        guard !frame.touches.isEmpty else { return nil }
        frame.fingerCount = max(0, frame.fingerCount - hiddenLive)
        return frame
    }

    /// The whole-device gesture events the whole-device stream shows (after `wholeDevice(_:)` of their
    /// frame, or for timers): the sessions that saw an exclusive touch are withheld, taps, double taps
    /// and long presses included, since the whole-device engine ran over those touches and its events
    /// could give them away (docs/SECURITY.md). A session shown before such a touch joined it still
    /// ends.
    public mutating func wholeDevice(events: [GestureEvent]) -> [GestureEvent] {
        guard !exclusiveDown.isEmpty || exclusiveJustEnded || !hiddenSessions.isEmpty else {
            for event in events { note(shown: event) }
            return events
        }
        return events.filter { shows($0) }
    }

    private mutating func note(shown event: GestureEvent) {
        if case .sessionBegan(let session, _) = event { shownSessions.insert(session) }
        if case .sessionEnded(let session, _, _) = event { shownSessions.remove(session) }
    }

    private mutating func shows(_ event: GestureEvent) -> Bool {
        let session = event.session
        if !exclusiveDown.isEmpty || exclusiveJustEnded, !hiddenSessions.contains(session) {
            hiddenSessions.append(session)
            if hiddenSessions.count > Self.hiddenSessionsKept { hiddenSessions.removeFirst() }
        }
        let hidden = hiddenSessions.contains(session)
        switch event {
        case .sessionBegan:
            if hidden { return false }
            shownSessions.insert(session)
            return true
        case .sessionEnded:
            return shownSessions.remove(session) != nil || !hidden
        case .update, .tap, .doubleTap, .longPress:
            return !hidden
        }
    }

    /// No client has regions here and no touch of an exclusive region is still down: the device can be
    /// served without a router again (until then the whole-device stream keeps hiding such a touch,
    /// even after its region's client left).
    public var isIdle: Bool { router.regions.byClient.isEmpty && exclusiveDown.isEmpty }

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
