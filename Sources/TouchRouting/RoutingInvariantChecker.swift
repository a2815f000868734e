import Gestures
import MultitouchCore

/// Checks the routing invariants (docs/ROUTING.md "Invariants") on what a `TouchRouter` delivered.
/// Feed it every event with the deliveries `handle(_:)` returned for it, in order, and call `finish()`
/// once the input is over (after a `deviceGone`, or once every finger is up and no client is left
/// with a session). Pure: no clock, no I/O.
///
/// It checks, per recipient (region and role) and touch: the first message is `began`, at most one
/// `ended` or `cancelled` follows and nothing after it; a touch has one owner for its whole life;
/// nothing is addressed to a client after the deliveries of its `clientGone`; router-made messages
/// (`reason` set) hold only cancelled touches; gesture sessions and segments of each recipient are
/// balanced and their events keep time order; at `finish()` nothing is left open.
public struct RoutingInvariantChecker: Sendable {
    public private(set) var violations: [String] = []
    /// Raw touch messages and gesture events checked, for tests that want to know something happened.
    public private(set) var touchMessages = 0
    public private(set) var gestureEvents = 0
    /// Touches router-cancelled, by reason.
    public private(set) var cancellations: [RoutingCancelReason: Int] = [:]

    private var open: [Recipient: Set<UInt64>] = [:]
    private var closed: [Recipient: Set<UInt64>] = [:]
    private var owner: [UInt64: Recipient] = [:]
    private var gone: Set<ClientID> = []
    private var session: [Recipient: UInt64] = [:]
    private var segment: [Recipient: GestureMode] = [:]
    private var lastGestureTime: [Recipient: Timestamp] = [:]

    public init() {}

    public var isClean: Bool { violations.isEmpty }

    /// Checks the deliveries one event caused.
    public mutating func check(event: TouchRouter.Event, deliveries: [RoutingDelivery]) {
        for d in deliveries {
            if gone.contains(d.client) { violations.append("delivery to \(d.client) after it left: \(d)") }
            switch d {
            case .touches(let m): check(m)
            case .gesture(let r, let e, _): check(r, e)
            case .rejected, .transformSet: break
            }
        }
        switch event {
        case .clientGone(let c):
            gone.insert(c)
            for (r, ids) in open where r.client == c && !ids.isEmpty {
                violations.append("\(r) left with touches \(ids.sorted()) never ended or cancelled")
            }
            for (r, s) in session where r.client == c {
                violations.append("\(r) left with gesture session \(s) open")
            }
        case .deviceGone:
            finish()
        case .frame, .regionsReplaced, .gestureRecognized, .setTransform, .advance:
            break
        }
    }

    /// Reports everything still open: every delivered touch must have ended, every session too.
    public mutating func finish() {
        for (r, ids) in open.sorted(by: { $0.key < $1.key }) where !ids.isEmpty && !gone.contains(r.client) {
            violations.append("\(r): touches \(ids.sorted()) were delivered and never ended or cancelled")
        }
        for (r, s) in session.sorted(by: { $0.key < $1.key }) where !gone.contains(r.client) {
            violations.append("\(r): gesture session \(s) never ended")
        }
        open.removeAll()
        session.removeAll()
        segment.removeAll()
    }

    private mutating func check(_ m: RoutedTouches) {
        touchMessages += 1
        let r = m.recipient
        if m.touches.isEmpty { violations.append("\(r): empty touches message at \(m.time)") }
        for t in m.touches {
            if let reason = m.reason {
                if t.phase != .cancelled {
                    violations.append("\(r): router message (\(reason.rawValue)) with a \(t.phase) touch \(t.id)")
                }
                cancellations[reason, default: 0] += 1
            }
            if r.role == .owner {
                if let o = owner[t.id], o != r { violations.append("touch \(t.id) has two owners: \(o) and \(r)") }
                owner[t.id] = r
            }
            if closed[r]?.contains(t.id) == true {
                violations.append("\(r): touch \(t.id) \(t.phase) after it ended or was cancelled")
                continue
            }
            let isOpen = open[r]?.contains(t.id) == true
            switch t.phase {
            case .began:
                if isOpen { violations.append("\(r): touch \(t.id) began twice") }
                open[r, default: []].insert(t.id)
            case .moved, .stationary:
                if !isOpen { violations.append("\(r): touch \(t.id) \(t.phase) without began") }
            case .ended, .cancelled:
                if !isOpen { violations.append("\(r): touch \(t.id) \(t.phase) without began") }
                open[r]?.remove(t.id)
                closed[r, default: []].insert(t.id)
            }
        }
    }

    private mutating func check(_ r: Recipient, _ e: GestureEvent) {
        gestureEvents += 1
        if let last = lastGestureTime[r], e.time < last {
            violations.append("\(r): gesture time went back to \(e.time)")
        }
        lastGestureTime[r] = e.time
        switch e {
        case .sessionBegan(let s, _):
            if let old = session[r] { violations.append("\(r): session \(s) began while \(old) is open") }
            session[r] = s
        case .sessionEnded(let s, _, _):
            if session[r] != s {
                violations.append("\(r): session \(s) ended but \(session[r].map(String.init) ?? "none") is open")
            }
            if let m = segment[r] { violations.append("\(r): session \(s) ended inside a \(m) segment") }
            session[r] = nil
        case .update(let u):
            if session[r] != u.session { violations.append("\(r): update of session \(u.session) outside it") }
            switch u.phase {
            case .began:
                if segment[r] != nil { violations.append("\(r): segment began inside a segment") }
                segment[r] = u.mode
            case .changed:
                if segment[r] != u.mode { violations.append("\(r): \(u.mode) changed without its began") }
            case .ended, .cancelled:
                if segment[r] != u.mode { violations.append("\(r): \(u.mode) \(u.phase) without its began") }
                segment[r] = nil
            }
        case .tap, .doubleTap, .longPress:
            break
        }
    }
}
