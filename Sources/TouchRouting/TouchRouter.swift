import Gestures
import MultitouchCore

/// Routes one device's touches to the regions clients declared on it (issue 12, docs/ROUTING.md).
///
/// In the NIO style: an `Event` goes in through `handle(_:)`, the deliveries it causes come out, in
/// order; no I/O and no clock (time comes from the frames and `advance(to:)`). One router per device;
/// the daemon owns it on its loop thread. Not thread-safe (a value type; the owner serialises calls).
///
/// - Hit-testing happens once, when a touch begins: the front-most opaque region containing the point,
///   or passthrough region solid there, owns the touch; every observer region containing it observes
///   it. That binding lasts until the touch ends: moving out of the region, or the region moving,
///   shrinking, hiding or changing mode never re-binds a live touch.
/// - Each owning region (and each observer that asks) has its own `GestureEngine` fed only the touches
///   bound to it, so a toolbar finger never joins the map's pinch.
/// - Every touch delivered to a recipient ends for that recipient with exactly one `ended` or
///   `cancelled`, whatever happens: the router cancels what the pipeline will not end for it (region
///   removed, client gone, device gone, recognition, exclusive claim). `RoutingInvariantChecker`
///   checks this on any event sequence.
public struct TouchRouter: Sendable {
    /// Everything that can happen to the router.
    public enum Event: Sendable {
        /// One frame of the device's touches from the pipeline (every touch that is down plus those
        /// ending, ordered by id), with its live touches predicted at each horizon a client here asked
        /// for (`setHorizon`; empty when none did). `publicChanged` false: only secure touches changed
        /// in it, and a stream holding public touches only takes no step for it (DESIGN.md invariant 11).
        case frame(TouchFrame, predicted: [PredictedFrame], publicChanged: Bool = true)
        /// A client declared or updated its regions on this device: the new set replaces the old one
        /// atomically (an empty array removes them all). Refused whole, with a `.rejected` delivery,
        /// when any region is invalid.
        case regionsReplaced(client: ClientID, regions: [Region])
        /// The client disconnected (or unsubscribed): its regions vanish, its touches and sessions are
        /// cancelled for it.
        case clientGone(ClientID)
        /// The device is gone: every touch and session still open is cancelled for everyone.
        case deviceGone
        /// The client's own recogniser recognised a gesture in its region (as if the region's gesture
        /// session had): the region's options take effect (cancel raw touches, claim exclusively).
        case gestureRecognized(RegionKey)
        /// The client sets (or resets, with `.identity`) the cumulative transform of its region's gesture
        /// session, as `setTransform` does for a device: the next updates continue from it without a
        /// jump. Answered with `.transformSet`, or `.rejected` for an unknown region, one without
        /// gestures, or a matrix that is not finite and invertible.
        case setTransform(RegionKey, AffineTransform)
        /// Virtual time reached `time` (a deadline from `nextDeadline` expired): fires the gesture
        /// engines' timers (long press, double-tap wait, churn debounce).
        case advance(to: Timestamp)
    }

    /// The regions and their hit index.
    public private(set) var regions: RegionSet
    private let gestureConfiguration: GestureConfiguration
    private let surface: GestureSurface
    /// The latest time seen (frames, advances): the time of cancellations the router makes itself.
    public private(set) var now = Timestamp(microseconds: 0)

    /// What a live touch was bound to when it began (stream ids; fixed for the touch's life).
    private struct Binding {
        var owner: Int?
        var observers: [Int]
    }
    private var bindings: [UInt64: Binding] = [:]
    /// Prediction horizons (ms) of the clients that asked for predictions, for their streams.
    public private(set) var horizons: [ClientID: Int] = [:]

    /// Delivery state of one recipient (region, role): created when a touch first binds to it, dropped
    /// when the region goes away.
    private struct Stream {
        var recipient: Recipient
        var engine: GestureEngine?
        /// The region's gesture settings the engine was made with (a region update with new settings
        /// takes effect at the stream's next session).
        var settings: GestureSettings
        /// Touches bound here and still down, with their latest state (to cancel them when needed).
        var live: [UInt64: Touch] = [:]
        /// Touches whose `began` this recipient received and whose end it has not.
        var open: Set<UInt64> = []
        /// Live touches this recipient gets no more raw messages for (cancelled by the router, or
        /// never delivered because recognition discarded them).
        var rawClosed: Set<UInt64> = []
        /// Live touches taken out of this stream's gesture session (an observer whose touch was claimed).
        var gestureClosed: Set<UInt64> = []
        /// Touches that landed after the session recognised a gesture in a region that cancels its
        /// touches on recognition: delivered `began`, then cancelled (reason `recognized`) in the same
        /// frame, so a touch the region's gesture counts is always one its client saw begin.
        var cancelAfterBegan: Set<UInt64> = []
        /// The current session (from the first bound touch down to the last up) recognised a gesture.
        var recognized = false
        /// Held-back messages of an undecided session (delaysTouchesUntilFailure).
        var delayed: [RoutedTouches] = []
        /// Whether the current session holds touches back: the region's option when the session
        /// began, so a region update mid-session cannot split a touch between held and sent.
        var delaying = false
    }
    private var streams: [Int: Stream] = [:]
    private var streamOf: [Recipient: Int] = [:]
    private var nextStream = 1
    /// Streams whose engine has a pending deadline.
    private var timed: Set<Int> = []
    /// Reused per frame: which streams got touches, in first-seen order.
    private var frameStreams: [Int] = []
    private var frameTouches: [Int: [Touch]] = [:]
    private var observerScratch: [Int] = []

    /// A router whose regions' gesture sessions run on `surface`, the device's own (its class, clickpad
    /// button area and height), exactly as the device's whole-device session does in `DevicePipeline`.
    /// - Parameters:
    ///   - gestureConfiguration: thresholds for every region's gesture session.
    public init(
        gestureConfiguration: GestureConfiguration = .default, surface: GestureSurface = .touchscreen,
        budget: RoutingBudget = .default
    ) {
        regions = RegionSet(budget: budget)
        self.gestureConfiguration = gestureConfiguration
        self.surface = surface
    }

    /// The earliest deadline any region's gesture session has pending, for the loop to arm; nil when
    /// none.
    public var nextDeadline: Timestamp? {
        var earliest: Timestamp?
        for sid in timed {
            if let d = streams[sid]?.engine?.nextDeadline, earliest.map({ d < $0 }) ?? true { earliest = d }
        }
        return earliest
    }

    /// Sets what `client` may do on this device (its z band, whether it observes other clients'
    /// touches); checked from its next declaration and touch on.
    public mutating func setGrant(_ grant: RoutingGrant, for client: ClientID) {
        regions.setGrant(grant, for: client)
    }

    /// Sets (or, with nil, clears) the prediction horizon of `client`'s streams: their raw touches carry
    /// `predicted` and their segment updates the predicted matrix (docs/PREDICTION.md).
    public mutating func setHorizon(_ milliseconds: Int?, for client: ClientID) {
        horizons[client] = milliseconds
    }

    /// The distinct horizons clients with regions here asked for, ascending.
    public var requestedHorizons: [Int] {
        Array(Set(horizons.compactMap { regions.hasRegions($0.key) ? $0.value : nil })).sorted()
    }

    /// Touches currently bound (began, not yet ended), for stats and tests.
    public var boundTouchCount: Int { bindings.count }

    /// Handles one event; returns the deliveries it caused, in the order to send them.
    public mutating func handle(_ event: Event) -> [RoutingDelivery] {
        var out: [RoutingDelivery] = []
        switch event {
        case .frame(let frame, let predicted, let publicChanged):
            fireTimers(upTo: frame.time, into: &out)
            now = max(now, frame.time)
            route(frame, predicted: predicted, publicChanged: publicChanged, into: &out)
        case .regionsReplaced(let client, let list):
            replace(client: client, with: list, into: &out)
        case .clientGone(let client):
            for r in regions.byClient[client] ?? [] {
                removeStreams(of: RegionKey(client: client, region: r.id), reason: .clientGone, into: &out)
            }
            regions.removeAll(of: client)
        case .deviceGone:
            for sid in streams.keys.sorted() { closeStream(sid, reason: .deviceGone, into: &out) }
            streams.removeAll()
            streamOf.removeAll()
            bindings.removeAll()
            timed.removeAll()
        case .gestureRecognized(let key):
            if let sid = streamOf[Recipient(key: key, role: .owner)] { recognize(sid, into: &out) }
        case .setTransform(let key, let transform):
            setTransform(key, transform, into: &out)
        case .advance(let time):
            fireTimers(upTo: time, into: &out)
            now = max(now, time)
        }
        return out
    }

    // MARK: - Regions

    private mutating func setTransform(
        _ key: RegionKey, _ transform: AffineTransform, into out: inout [RoutingDelivery]
    ) {
        guard let region = regions.regions[key] else {
            out.append(
                .rejected(key.client, RoutingRequestError(problems: ["no region \"\(key.region)\" on this device"])))
            return
        }
        guard region.options.gestures else {
            out.append(
                .rejected(
                    key.client, RoutingRequestError(problems: ["region \"\(key.region)\" has no gesture session"])))
            return
        }
        let recipient = Recipient(key: key, role: region.mode == .observer ? .observer : .owner)
        let sid = stream(for: recipient, region: region)
        guard var s = streams.removeValue(forKey: sid) else { return }
        let accepted = s.engine?.setTransform(transform) ?? false
        streams[sid] = s
        if accepted {
            out.append(.transformSet(recipient, transform))
        } else {
            out.append(.rejected(key.client, RoutingRequestError(problems: ["matrix must be finite and invertible"])))
        }
    }

    private mutating func replace(client: ClientID, with list: [Region], into out: inout [RoutingDelivery]) {
        let before = Set((regions.byClient[client] ?? []).map(\.id))
        do {
            try regions.replace(client: client, with: list)
        } catch {
            out.append(.rejected(client, error))
            return
        }
        let after = Set(list.map(\.id))
        for id in before.subtracting(after).sorted() {
            removeStreams(of: RegionKey(client: client, region: id), reason: .regionRemoved, into: &out)
        }
    }

    private mutating func removeStreams(
        of key: RegionKey, reason: RoutingCancelReason, into out: inout [RoutingDelivery]
    ) {
        for role in [RoutingRole.owner, .observer] {
            let recipient = Recipient(key: key, role: role)
            guard let sid = streamOf[recipient] else { continue }
            closeStream(sid, reason: reason, into: &out)
            streams[sid] = nil
            streamOf[recipient] = nil
            timed.remove(sid)
            // Bindings keep the dead stream id: the touch stays bound to the removed region (never
            // re-bound) and is simply no longer delivered to it.
        }
    }

    /// Cancels everything the stream has open: raw touches, then its gesture session.
    private mutating func closeStream(_ sid: Int, reason: RoutingCancelReason, into out: inout [RoutingDelivery]) {
        guard var s = streams.removeValue(forKey: sid) else { return }
        cancelOpen(&s, ids: Array(s.open), reason: reason, into: &out)
        s.delayed.removeAll()
        let inSession = s.live.keys.filter { !s.gestureClosed.contains($0) }
        if var engine = s.engine, !inSession.isEmpty {
            var touches = inSession.sorted().compactMap { s.live[$0] }.map { cancelled($0) }
            touches.sort { $0.id < $1.id }
            for e in engine.process(TouchFrame(time: now, touches: touches, fingerCount: 0)) {
                out.append(.gesture(s.recipient, e, predictedMatrix: nil))
            }
            s.engine = engine
        }
        streams[sid] = s
    }

    // MARK: - Frames

    private mutating func route(
        _ frame: TouchFrame, predicted: [PredictedFrame], publicChanged: Bool, into out: inout [RoutingDelivery]
    ) {
        frameStreams.removeAll(keepingCapacity: true)
        for touch in frame.touches {
            if touch.phase == .began { bind(touch) }
            guard let b = bindings[touch.id] else { continue }
            if let o = b.owner { collect(touch, for: o) }
            for sid in b.observers { collect(touch, for: sid) }
            if touch.phase.isTerminal { bindings[touch.id] = nil }
        }
        for sid in frameStreams {
            let touches = frameTouches[sid] ?? []
            frameTouches[sid] = nil
            if !publicChanged && !touches.contains(where: \.isSecure) { continue }
            deliver(touches, to: sid, frame: frame, predicted: predicted, into: &out)
        }
    }

    private mutating func collect(_ touch: Touch, for sid: Int) {
        // index(forKey:), not streams[sid]: reading the value would copy the whole stream.
        guard streams.index(forKey: sid) != nil else { return }
        if frameTouches[sid] == nil {
            frameStreams.append(sid)
            frameTouches[sid] = [touch]
        } else {
            frameTouches[sid]?.append(touch)
        }
    }

    /// Hit-tests a beginning touch and records what it is bound to for its life. A secure touch (it
    /// began in an exclusive region: the tracker asked the same hit index, `SecureAreas`) reaches no
    /// other client's observer, from its `began` on.
    private mutating func bind(_ touch: Touch) {
        let index = regions.index
        var binding = Binding(owner: nil, observers: [])
        var claimed = false
        var owningEntry: HitIndex.Entry?
        if let i = index.owner(at: touch.location) {
            let entry = index.entries[i]
            owningEntry = entry
            let sid = stream(for: Recipient(key: entry.key, role: .owner), region: entry.region)
            binding.owner = sid
            if let i = streams.index(forKey: sid) {
                claimed = Self.land(touch.id, on: &streams.values[i], options: entry.region.options)
            }
        }
        if !claimed {
            observerScratch.removeAll(keepingCapacity: true)
            index.observers(at: touch.location, into: &observerScratch)
            let owner = binding.owner == nil ? nil : owningEntry
            for i in observerScratch {
                let entry = index.entries[i]
                if touch.isSecure && entry.key.client != owner?.key.client { continue }
                if let owner, !mayObserve(entry.key.client, touchOwnedBy: owner) { continue }
                binding.observers.append(stream(for: Recipient(key: entry.key, role: .observer), region: entry.region))
            }
        }
        if binding.owner != nil || !binding.observers.isEmpty { bindings[touch.id] = binding }
    }

    /// Whether an observer region of `client` may see a touch that `owner` owns (docs/SECURITY.md): a
    /// client's own touches always; another client's only with the `observe` right, which is the right
    /// to see the whole device anyway (an `exclusive` region then claims its touches on recognition).
    private func mayObserve(_ client: ClientID, touchOwnedBy owner: HitIndex.Entry) -> Bool {
        owner.key.client == client || regions.grant(of: client).observesOthers
    }

    /// A finger landing in a region whose session already recognised a gesture joins the gesture: its
    /// raw touch is held back or cancelled like the others. Returns whether observers are kept out
    /// (the session claimed its touches).
    private static func land(_ id: UInt64, on s: inout Stream, options: RegionOptions) -> Bool {
        guard s.recognized else { return false }
        if s.delaying {
            // Held back and discarded like the session's other touches (delaysTouchesUntilFailure).
            s.rawClosed.insert(id)
        } else if options.cancelsTouchesOnRecognition {
            s.cancelAfterBegan.insert(id)
        }
        return options.exclusive
    }

    private mutating func stream(for recipient: Recipient, region: Region) -> Int {
        if let sid = streamOf[recipient] { return sid }
        let sid = nextStream
        nextStream += 1
        streamOf[recipient] = sid
        let settings = region.options.settings
        let engine =
            region.options.gestures
            ? GestureEngine(configuration: settings.applied(to: gestureConfiguration), surface: surface) : nil
        streams[sid] = Stream(recipient: recipient, engine: engine, settings: settings)
        return sid
    }

    /// A stream between sessions whose region now has other gesture settings gets an engine made with
    /// them, continuing from the old engine's cumulative transform (no jump). An engine with a timer
    /// pending (an animation, a tap waiting for a double tap) keeps its settings until it is idle.
    private static func adoptSettings(
        _ s: inout Stream, region: Region?, base: GestureConfiguration, surface: GestureSurface
    ) {
        guard let region, region.options.settings != s.settings, let old = s.engine, old.nextDeadline == nil else {
            return
        }
        var engine = GestureEngine(configuration: region.options.settings.applied(to: base), surface: surface)
        _ = engine.setTransform(old.transform)
        s.engine = engine
        s.settings = region.options.settings
    }

    /// One frame's touches for one stream: raw delivery (or holding back), then its gesture session,
    /// then what recognition or the end of the session implies.
    ///
    /// The stream is changed in place (`streams.values[i]`): moving it out of the table and back, or
    /// copying it, costs more than the routing itself (it holds a whole gesture engine).
    private mutating func deliver(
        _ touches: [Touch], to sid: Int, frame: TouchFrame, predicted: [PredictedFrame],
        into out: inout [RoutingDelivery]
    ) {
        guard let i = streams.index(forKey: sid) else { return }
        let horizon = horizons[streams.values[i].recipient.client]
        let prediction = horizon.flatMap { h in predicted.first { $0.horizonMilliseconds == h } }
        if streams.values[i].live.isEmpty {
            Self.adoptSettings(
                &streams.values[i], region: regions.regions[streams.values[i].recipient.key],
                base: gestureConfiguration,
                surface: surface)
        }
        // Only `inout` accesses to `streams.values[i]` (a getter would copy the stream).
        let r = Self.step(
            &streams.values[i], touches: touches, frame: frame, prediction: prediction, regions: regions.regions,
            into: &out)
        if r.deadline { timed.insert(sid) } else { timed.remove(sid) }
        if r.recognized && r.isOwner { recognize(sid, into: &out) }
        // recognize() may have moved streams around: look the stream up again.
        guard let j = streams.index(forKey: sid) else { return }
        Self.finishFrame(&streams.values[j], touches: touches, into: &out)
    }

    /// Touches that ended in this frame leave the stream; the session ends with its last one.
    private static func finishFrame(_ s: inout Stream, touches: [Touch], into out: inout [RoutingDelivery]) {
        for t in touches where t.phase.isTerminal {
            s.live[t.id] = nil
            s.rawClosed.remove(t.id)
            s.gestureClosed.remove(t.id)
        }
        if s.live.isEmpty { endSession(&s, into: &out) }
    }

    /// The part of `deliver` that touches only the stream. Returns whether its session recognised a
    /// gesture in this frame, whether its engine has a deadline pending, and whether it is an owner.
    private static func step(
        _ s: inout Stream, touches: [Touch], frame: TouchFrame, prediction: PredictedFrame?,
        regions: [RegionKey: Region], into out: inout [RoutingDelivery]
    ) -> (recognized: Bool, deadline: Bool, isOwner: Bool) {
        let isOwner = s.recipient.role == .owner
        if s.live.isEmpty {
            s.delaying = isOwner && (regions[s.recipient.key]?.options.delaysTouchesUntilFailure ?? false)
        }
        // Touches ending in this frame stay in `live` until recognition has seen them.
        for t in touches { s.live[t.id] = t }

        // Raw touches: everything not closed for this recipient, unless only stationary ones remain.
        var raw: [Touch] = []
        raw.reserveCapacity(touches.count)
        var changed = false
        for t in touches where !s.rawClosed.contains(t.id) {
            raw.append(t)
            if t.phase != .stationary { changed = true }
        }
        if changed {
            let message = RoutedTouches(
                recipient: s.recipient, time: frame.time, touches: raw, predicted: prediction?.locations(of: raw))
            if s.delaying && !s.recognized { s.delayed.append(message) } else { emit(message, &s, into: &out) }
        }
        if !s.cancelAfterBegan.isEmpty {
            var cancelled: [Touch] = []
            for t in raw where t.phase == .began && s.cancelAfterBegan.contains(t.id) && s.open.contains(t.id) {
                var c = t
                c.phase = .cancelled
                c.previousLocation = t.location
                cancelled.append(c)
                s.open.remove(t.id)
                s.rawClosed.insert(t.id)
            }
            s.cancelAfterBegan.removeAll()
            if !cancelled.isEmpty {
                out.append(
                    .touches(
                        RoutedTouches(recipient: s.recipient, time: frame.time, touches: cancelled, reason: .recognized)
                    ))
            }
        }

        // The region's own gesture session over only its touches.
        guard s.engine != nil else { return (false, false, isOwner) }
        var sub: [Touch] = []
        sub.reserveCapacity(touches.count)
        var active = 0
        for t in touches where !s.gestureClosed.contains(t.id) {
            sub.append(t)
            if !t.phase.isTerminal { active += 1 }
        }
        var recognizedNow = false
        if !sub.isEmpty, var engine = s.engine {
            s.engine = nil  // moved out and back: no copy of the engine's storage
            let sessionFrame = TouchFrame(time: frame.time, touches: sub, fingerCount: active)
            let events = engine.process(sessionFrame)
            var matrix: AffineTransform?
            if let prediction, events.contains(where: \.isSegmentUpdate) {
                matrix = predictedTransform(engine, prediction.frame(of: sub))
            }
            for e in events {
                out.append(.gesture(s.recipient, e, predictedMatrix: e.isSegmentUpdate ? matrix : nil))
                if isRecognition(e) { recognizedNow = true }
            }
            s.engine = engine
        }
        return (recognizedNow, s.engine?.nextDeadline != nil, isOwner)
    }

    /// The cumulative transform a copy of `engine` reaches when fed the stream's predicted touches: what
    /// the content should show at the predicted time.
    static func predictedTransform(_ engine: GestureEngine, _ predicted: TouchFrame) -> AffineTransform {
        var copy = engine
        _ = copy.advance(to: predicted.time)
        if !predicted.touches.isEmpty { _ = copy.process(predicted) }
        return copy.transform
    }

    /// Sends a raw message and keeps the open set in step with it.
    private static func emit(_ message: RoutedTouches, _ s: inout Stream, into out: inout [RoutingDelivery]) {
        for t in message.touches {
            if t.phase == .began { s.open.insert(t.id) }
            if t.phase.isTerminal { s.open.remove(t.id) }
        }
        out.append(.touches(message))
    }

    /// The last bound touch of a session lifted: a delaying region that recognised nothing delivers
    /// what it held back (recognition failed), and the next session starts undecided.
    private static func endSession(_ s: inout Stream, into out: inout [RoutingDelivery]) {
        if !s.recognized {
            for m in s.delayed { emit(m, &s, into: &out) }
        }
        s.delayed.removeAll()
        s.recognized = false
        s.delaying = false
    }

    /// Events that mean the region's session recognised a gesture.
    private static func isRecognition(_ e: GestureEvent) -> Bool {
        switch e {
        case .update(let u): return u.phase == .began
        case .tap, .doubleTap: return true
        case .longPress(_, _, let phase, _, _): return phase == .began
        case .sessionBegan, .sessionEnded: return false
        }
    }

    // MARK: - Recognition and claims

    /// The owner stream's session recognised a gesture (its engine, or the client said so): apply
    /// its region's options. Once per session; nothing happens between sessions.
    private mutating func recognize(_ sid: Int, into out: inout [RoutingDelivery]) {
        guard let peek = streams[sid], !peek.recognized, !peek.live.isEmpty,
            var s = streams.removeValue(forKey: sid)
        else { return }
        s.recognized = true
        let options = regions.regions[s.recipient.key]?.options ?? RegionOptions()
        let liveIDs = s.live.keys.sorted()
        if s.delaying {
            // Never delivered, so nothing to cancel: the held-back messages are discarded.
            s.delayed.removeAll()
            for id in liveIDs where !s.open.contains(id) { s.rawClosed.insert(id) }
        }
        if options.cancelsTouchesOnRecognition {
            cancelOpen(&s, ids: liveIDs.filter { s.open.contains($0) }, reason: .recognized, into: &out)
            for id in liveIDs { s.rawClosed.insert(id) }
        }
        streams[sid] = s
        if options.exclusive { claim(liveIDs, from: sid, into: &out) }
    }

    /// Cancels `ids` for every observer they are bound to, raw touches and gesture sessions alike.
    private mutating func claim(_ ids: [UInt64], from owner: Int, into out: inout [RoutingDelivery]) {
        var byObserver: [Int: [UInt64]] = [:]
        for id in ids {
            guard let b = bindings[id], b.owner == owner else { continue }
            for o in b.observers { byObserver[o, default: []].append(id) }
        }
        for (oid, claimed) in byObserver.sorted(by: { $0.key < $1.key }) {
            guard var o = streams.removeValue(forKey: oid) else { continue }
            // Only touches still live here: one that already ended for this observer is done with.
            cancelOpen(&o, ids: claimed.filter { o.open.contains($0) }, reason: .claimed, into: &out)
            for id in claimed where o.live[id] != nil { o.rawClosed.insert(id) }
            let leaving = claimed.filter { o.live[$0] != nil && !o.gestureClosed.contains($0) }
            if var engine = o.engine, !leaving.isEmpty {
                o.engine = nil
                // The session sees the claimed touches cancelled and the rest stationary.
                var touches: [Touch] = []
                for (id, t) in o.live where !o.gestureClosed.contains(id) {
                    if leaving.contains(id) {
                        touches.append(cancelled(t))
                    } else {
                        var still = t
                        still.phase = .stationary
                        still.previousLocation = t.location
                        still.timestamp = now
                        touches.append(still)
                    }
                }
                touches.sort { $0.id < $1.id }
                let active = touches.reduce(0) { $0 + ($1.phase.isTerminal ? 0 : 1) }
                for e in engine.process(
                    TouchFrame(time: now, touches: touches, fingerCount: active))
                {
                    out.append(.gesture(o.recipient, e, predictedMatrix: nil))
                }
                if engine.nextDeadline != nil { timed.insert(oid) } else { timed.remove(oid) }
                o.engine = engine
            }
            for id in leaving { o.gestureClosed.insert(id) }
            // The touches stay bound to this observer, suppressed, until they end: their terminal
            // frame clears them from every set.
            streams[oid] = o
        }
    }

    /// Sends `cancelled` for `ids` (touches the recipient has open) with the router's reason.
    private func cancelOpen(
        _ s: inout Stream, ids: [UInt64], reason: RoutingCancelReason, into out: inout [RoutingDelivery]
    ) {
        let touches = ids.sorted().compactMap { s.live[$0] }.map { cancelled($0) }
        guard !touches.isEmpty else { return }
        for t in touches {
            s.open.remove(t.id)
            s.rawClosed.insert(t.id)
        }
        out.append(.touches(RoutedTouches(recipient: s.recipient, time: now, touches: touches, reason: reason)))
    }

    private func cancelled(_ t: Touch) -> Touch {
        var c = t
        c.phase = .cancelled
        c.previousLocation = t.location
        c.timestamp = now
        return c
    }

    // MARK: - Timers

    /// Fires the gesture timers due at or before `time`, earliest deadline first (ties by stream
    /// age), with `now` at each deadline so what a recognition cancels carries that time.
    private mutating func fireTimers(upTo time: Timestamp, into out: inout [RoutingDelivery]) {
        guard !timed.isEmpty else { return }
        var due: [(deadline: Timestamp, sid: Int)] = []
        for sid in timed {
            guard let d = streams[sid]?.engine?.nextDeadline else {
                timed.remove(sid)
                continue
            }
            if d <= time { due.append((d, sid)) }
        }
        due.sort { $0.deadline != $1.deadline ? $0.deadline < $1.deadline : $0.sid < $1.sid }
        for (deadline, sid) in due {
            guard var s = streams.removeValue(forKey: sid) else { continue }
            guard var engine = s.engine else {
                streams[sid] = s
                continue
            }
            s.engine = nil
            now = max(now, deadline)
            var recognizedNow = false
            let events = engine.advance(to: time)
            var matrix: AffineTransform?
            if let h = horizons[s.recipient.client], events.contains(where: \.isSegmentUpdate) {
                // An animation's frame: the engine copy runs on to the predicted time.
                var copy = engine
                _ = copy.advance(to: Timestamp(microseconds: time.microseconds &+ Int64(h) * 1000))
                matrix = copy.transform
            }
            for e in events {
                out.append(.gesture(s.recipient, e, predictedMatrix: e.isSegmentUpdate ? matrix : nil))
                if Self.isRecognition(e) {
                    recognizedNow = true
                    now = max(now, e.time)
                }
            }
            if engine.nextDeadline == nil { timed.remove(sid) }
            s.engine = engine
            streams[sid] = s
            if recognizedNow && s.recipient.role == .owner { recognize(sid, into: &out) }
        }
    }
}
