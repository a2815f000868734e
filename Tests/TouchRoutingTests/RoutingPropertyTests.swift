import Gestures
import MultitouchCore
import MultitouchTestKit
import Testing

@testable import TouchRouting

@Suite("Routing invariants under random input")
struct RoutingPropertyTests {
    static func randomRegions(_ rng: inout SplitMix64, count: Int, prefix: String) -> [Region] {
        (0..<count).map { i in
            let mode = [RegionMode.opaque, .opaque, .passthrough, .observer][Int.random(in: 0..<4, using: &rng)]
            let w = Double.random(in: 80...900, using: &rng)
            let h = Double.random(in: 60...500, using: &rng)
            let shape = rect(Double.random(in: 0...500, using: &rng), Double.random(in: 0...300, using: &rng), w, h)
            let mask: AlphaMask? =
                mode == .passthrough
                ? AlphaMask(columns: 3, rows: 3, solid: (0..<9).map { _ in Bool.random(using: &rng) }) : nil
            let owner = mode != .observer
            let options = RegionOptions(
                cancelsTouchesOnRecognition: owner && Int.random(in: 0..<3, using: &rng) == 0,
                delaysTouchesUntilFailure: owner && Int.random(in: 0..<3, using: &rng) == 0,
                exclusive: owner && Int.random(in: 0..<3, using: &rng) == 0,
                gestures: Int.random(in: 0..<4, using: &rng) != 0)
            return Region(
                id: "\(prefix)\(i % 3)", shape: shape, mask: mask, z: Int.random(in: 0..<3, using: &rng), mode: mode,
                hidden: Int.random(in: 0..<8, using: &rng) == 0, disabled: Int.random(in: 0..<8, using: &rng) == 0,
                options: options)
        }.reduce(into: [Region]()) { list, r in if !list.contains(where: { $0.id == r.id }) { list.append(r) } }
    }

    /// Random fingers, region changes, departures, client recognitions and timers; the device goes away
    /// at the end. Whatever happens, one owner per touch and every delivered touch ends.
    @Test(arguments: 0..<200) func invariantsHold(seed: UInt64) {
        var rng = SplitMix64(seed: 0xC0FFEE &+ seed)
        var h = RoutingHarness()
        var clients: [UInt64] = [1, 2, 3, 4]
        var nextClient: UInt64 = 5
        for c in clients {
            h.declare(c, Self.randomRegions(&rng, count: Int.random(in: 1...4, using: &rng), prefix: "r"))
        }
        var s = Screen()
        for _ in 0..<400 {
            switch Int.random(in: 0..<100, using: &rng) {
            case 0..<8 where s.fingers.count < 5:
                s.down(Double.random(in: 0..<1000, using: &rng), Double.random(in: 0..<600, using: &rng))
            case 8..<14:
                if let f = s.fingers.randomElement(using: &rng) { s.up(f.id) }
            case 14..<17:
                if let c = clients.randomElement(using: &rng) {
                    h.declare(c, Self.randomRegions(&rng, count: Int.random(in: 0...4, using: &rng), prefix: "r"))
                }
            case 17:
                if let i = clients.indices.randomElement(using: &rng) {
                    h.send(.clientGone(ClientID(clients[i])))
                    clients[i] = nextClient
                    h.declare(nextClient, Self.randomRegions(&rng, count: 2, prefix: "r"))
                    nextClient += 1
                }
            case 18..<20:
                if let c = clients.randomElement(using: &rng) {
                    h.send(
                        .gestureRecognized(
                            RegionKey(client: ClientID(c), region: "r\(Int.random(in: 0..<3, using: &rng))")))
                }
            case 20..<23:
                // As the loop does: a deadline fires when it comes before the next frame.
                if let d = h.router.nextDeadline {
                    s.time = max(s.time, d.microseconds)
                    h.send(.advance(to: d))
                }
            default:
                for f in s.fingers {
                    s.moveBy(f.id, Double.random(in: -15...15, using: &rng), Double.random(in: -15...15, using: &rng))
                }
            }
            h.feed(s.frame(after: Double.random(in: 4...40, using: &rng)))
        }
        h.send(.deviceGone)
        #expect(h.checker.isClean, "seed \(seed): \(h.checker.violations.prefix(5))")
        #expect(h.checker.touchMessages > 0)
        #expect(h.router.boundTouchCount == 0)
    }

    /// The checker itself catches what it is there to catch.
    @Test func checkerFlagsBrokenDeliveries() {
        let owner = Recipient(key: RegionKey(client: ClientID(1), region: "map"), role: .owner)
        let other = Recipient(key: RegionKey(client: ClientID(2), region: "bar"), role: .owner)
        var s = Screen()
        let a = s.down(1, 1)
        let began = s.frame()
        s.moveBy(a, 1, 0)
        let moved = s.frame()
        func touches(_ r: Recipient, _ f: TouchFrame, reason: RoutingCancelReason? = nil) -> RoutingDelivery {
            .touches(RoutedTouches(recipient: r, time: f.time, touches: f.touches, reason: reason))
        }
        var c = RoutingInvariantChecker()
        c.check(event: .frame(began, predicted: []), deliveries: [touches(owner, began), touches(other, began)])
        #expect(c.violations.contains { $0.contains("two owners") })

        c = RoutingInvariantChecker()
        c.check(event: .frame(moved, predicted: []), deliveries: [touches(owner, moved)])
        #expect(c.violations.contains { $0.contains("without began") })

        c = RoutingInvariantChecker()
        c.check(event: .frame(began, predicted: []), deliveries: [touches(owner, began)])
        c.finish()
        #expect(c.violations.contains { $0.contains("never ended") })

        c = RoutingInvariantChecker()
        c.check(event: .frame(began, predicted: []), deliveries: [touches(owner, began)])
        c.check(event: .clientGone(ClientID(1)), deliveries: [])
        #expect(c.violations.contains { $0.contains("left with touches") })
        c.check(event: .frame(moved, predicted: []), deliveries: [touches(owner, moved)])
        #expect(c.violations.contains { $0.contains("after it left") })

        c = RoutingInvariantChecker()
        c.check(event: .frame(began, predicted: []), deliveries: [touches(owner, began, reason: .claimed)])
        #expect(c.violations.contains { $0.contains("router message") })
    }
}
