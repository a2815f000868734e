import Gestures
import MultitouchCore
import TouchRouting

/// Scripted fingers on a 1000 x 600 pixel screen with 4 pixels per mm, so gesture thresholds (mm)
/// and region geometry (pixels) are visibly in different spaces. Virtual time only.
struct Screen {
    static let pixelsPerMillimeter = 4.0
    struct Finger {
        var id: UInt64
        var at: Point
        var previous: Point
        var phase: TouchPhase
    }
    var time: Int64 = 1_000_000
    var fingers: [Finger] = []
    var nextID: UInt64 = 1

    @discardableResult
    mutating func down(_ x: Double, _ y: Double) -> UInt64 {
        let id = nextID
        nextID += 1
        fingers.append(Finger(id: id, at: Point(x: x, y: y), previous: Point(x: x, y: y), phase: .began))
        return id
    }

    mutating func move(_ id: UInt64, to x: Double, _ y: Double) {
        guard let i = fingers.firstIndex(where: { $0.id == id }) else { return }
        fingers[i].at = Point(x: x, y: y)
        if fingers[i].phase != .began { fingers[i].phase = .moved }
    }

    mutating func moveBy(_ id: UInt64, _ dx: Double, _ dy: Double) {
        guard let f = fingers.first(where: { $0.id == id }) else { return }
        move(id, to: f.at.x + dx, f.at.y + dy)
    }

    mutating func up(_ id: UInt64) {
        guard let i = fingers.firstIndex(where: { $0.id == id }) else { return }
        fingers[i].phase = .ended
    }

    /// Advances time by `milliseconds` and returns the frame; ended fingers leave afterwards, the rest
    /// become stationary.
    mutating func frame(after milliseconds: Double = 10) -> TouchFrame {
        time += Int64((milliseconds * 1000).rounded())
        let stamp = Timestamp(microseconds: time)
        var touches: [Touch] = []
        for f in fingers {
            touches.append(
                Touch(
                    id: f.id, slot: Int(f.id % 16), trackingID: Int32(truncatingIfNeeded: f.id), phase: f.phase,
                    location: f.at, previousLocation: f.phase == .began ? f.at : f.previous,
                    millimeters: f.at / Self.pixelsPerMillimeter, normalized: Point(x: f.at.x / 1000, y: f.at.y / 600),
                    timestamp: stamp, type: .direct))
        }
        let frame = TouchFrame(
            time: stamp, touches: touches, fingerCount: touches.filter { !$0.phase.isTerminal }.count)
        fingers.removeAll(where: { $0.phase.isTerminal })
        for i in fingers.indices {
            fingers[i].phase = .stationary
            fingers[i].previous = fingers[i].at
        }
        return frame
    }

    var now: Timestamp { Timestamp(microseconds: time) }
}

/// A router fed like the daemon's loop would, with every delivery checked by the invariant checker.
struct RoutingHarness {
    var router = TouchRouter()
    var checker = RoutingInvariantChecker()
    var all: [RoutingDelivery] = []

    @discardableResult
    mutating func send(_ event: TouchRouter.Event) -> [RoutingDelivery] {
        let out = router.handle(event)
        checker.check(event: event, deliveries: out)
        all += out
        return out
    }

    @discardableResult
    mutating func feed(_ frame: TouchFrame) -> [RoutingDelivery] { send(.frame(frame, predicted: [])) }

    mutating func declare(_ client: UInt64, _ regions: [Region]) {
        let out = send(.regionsReplaced(client: ClientID(client), regions: regions))
        precondition(!out.contains { if case .rejected = $0 { return true } else { return false } }, "\(out)")
    }

    /// Raw touch messages for `client` (every region), in order.
    func touches(for client: UInt64) -> [RoutedTouches] {
        all.compactMap {
            if case .touches(let t) = $0, t.recipient.client == ClientID(client) { return t } else { return nil }
        }
    }

    /// Touch ids `client` ever received, by phase.
    func ids(for client: UInt64, phase: TouchPhase) -> Set<UInt64> {
        Set(touches(for: client).flatMap(\.touches).filter { $0.phase == phase }.map(\.id))
    }

    /// Gesture events for `client`'s region `region`.
    func gestures(for client: UInt64, _ region: String) -> [GestureEvent] {
        all.compactMap {
            if case .gesture(let r, let e, _) = $0, r.key == RegionKey(client: ClientID(client), region: region) {
                return e
            }
            return nil
        }
    }
}

extension [GestureEvent] {
    var updates: [GestureUpdate] { compactMap { if case .update(let u) = $0 { return u } else { return nil } } }
    var taps: Int { reduce(0) { if case .tap = $1 { return $0 + 1 } else { return $0 } } }
}

func rect(_ x: Double, _ y: Double, _ w: Double, _ h: Double) -> RegionShape {
    .rectangle(RegionRect(x: x, y: y, width: w, height: h))
}

/// The kiosk of issue 12: a fluid background that observes everything (client 3), a full-screen map
/// (client 1), and a toolbar strip over the top of it (client 2) that is solid only where its three
/// buttons are (x < 300), so the rest of the strip passes touches to the map.
enum Kiosk {
    static let map: UInt64 = 1
    static let toolbar: UInt64 = 2
    static let fluid: UInt64 = 3

    static func toolbarRegion(options: RegionOptions? = nil, hidden: Bool = false, disabled: Bool = false) -> Region {
        Region(
            id: "toolbar", shape: rect(0, 0, 1000, 100),
            mask: AlphaMask(columns: 10, rows: 1, solid: [true, true, true] + Array(repeating: false, count: 7)),
            z: 2, mode: .passthrough, hidden: hidden, disabled: disabled, options: options)
    }

    static func mapRegion(options: RegionOptions? = nil) -> Region {
        Region(id: "map", shape: rect(0, 0, 1000, 600), z: 1, options: options)
    }

    static func fluidRegion(gestures: Bool = false) -> Region {
        Region(
            id: "fluid", shape: rect(0, 0, 1000, 600), z: 0, mode: .observer, options: RegionOptions(gestures: gestures)
        )
    }

    static func harness(map: RegionOptions? = nil, toolbar: RegionOptions? = nil) -> RoutingHarness {
        var h = RoutingHarness()
        h.declare(Self.fluid, [fluidRegion()])
        h.declare(Self.map, [mapRegion(options: map)])
        h.declare(Self.toolbar, [toolbarRegion(options: toolbar)])
        return h
    }
}
