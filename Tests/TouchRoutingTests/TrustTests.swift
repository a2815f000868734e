import Gestures
import MultitouchCore
import Testing

@testable import TouchRouting

/// Issue 19: what one client declares cannot make another's touches cost more, reach a client that may
/// not see them, or be covered from a z it may not use.
@Suite("Touch routing: budgets, bounded index, access")
struct TrustTests {
    static func fullScreen(_ id: String, z: Int = 0, mode: RegionMode = .opaque) -> Region {
        Region(id: id, shape: rect(0, 0, 1000, 600), z: z, mode: mode)
    }

    /// 1,024 overlapping full-screen regions once filled every grid cell each (32 x 32 cells x 1,024
    /// regions = 1 M slots, rebuilt on every update); the index now lists each in at most 64 cells of
    /// a coarser level.
    @Test func theIndexStaysLinearInTheRegionsWhateverTheyOverlap() throws {
        var set = RegionSet(budget: .unlimited)
        for c in 0..<4 {
            try set.replace(
                client: ClientID(UInt64(c)), with: (0..<256).map { Self.fullScreen("r\($0)", z: $0 % 7) })
        }
        #expect(set.index.entries.count == 1024)
        #expect(set.index.storedSlots <= 1024 * 64, "not 1024 x 32 x 32 (ROUTING.md: at most 64 cells a region)")
        // And the walk still finds the front-most one.
        #expect(set.index.owner(at: Point(x: 500, y: 300)) == set.index.ownerByLinearScan(at: Point(x: 500, y: 300)))
        #expect(set.index.entries[set.index.owner(at: Point(x: 1, y: 1)) ?? -1].region.z == 6)
    }

    @Test func aClientOverItsBudgetIsRefusedNamingTheLimit() {
        var set = RegionSet()
        let many = (0...RoutingBudget.default.regionsPerClient).map { Self.fullScreen("r\($0)") }
        #expect(throws: RoutingRequestError.self) { try set.replace(client: ClientID(1), with: many) }
        do {
            try set.replace(client: ClientID(1), with: many)
        } catch {
            #expect(error.kind == .overBudget)
            #expect(error.description.contains("regions_per_client: 257 > 256"), "\(error)")
        }
        #expect(!set.hasRegions(ClientID(1)), "refused whole")
        let observers = (0...RoutingBudget.default.observersPerClient).map {
            Self.fullScreen("o\($0)", mode: .observer)
        }
        do {
            try set.replace(client: ClientID(1), with: observers)
            Issue.record("17 observers accepted")
        } catch {
            #expect(error.kind == .overBudget)
            #expect(error.description.contains("observers_per_client"), "\(error)")
        }
        let mask = AlphaMask(columns: 256, rows: 256, solid: Array(repeating: true, count: 65536))
        let masked = (0..<5).map {
            Region(id: "m\($0)", shape: rect(0, 0, 1000, 600), mask: mask, mode: .passthrough)
        }
        do {
            try set.replace(client: ClientID(1), with: masked)
            Issue.record("5 full masks accepted")
        } catch {
            #expect(error.description.contains("mask_cells_per_client: 327680 > 262144"), "\(error)")
        }
    }

    @Test func theDeviceBudgetCountsEveryClientAndFreesWhatALeaverHeld() throws {
        var set = RegionSet()
        for c in 0..<4 {
            try set.replace(client: ClientID(UInt64(c)), with: (0..<256).map { Self.fullScreen("r\($0)") })
        }
        do {
            try set.replace(client: ClientID(9), with: [Self.fullScreen("one more")])
            Issue.record("the 1,025th region was accepted")
        } catch {
            #expect(error.kind == .overBudget)
            #expect(error.description.contains("regions_per_device: 1025 > 1024"), "\(error)")
        }
        // Replacing a client's own set counts the new set, not both.
        try set.replace(client: ClientID(0), with: (0..<256).map { Self.fullScreen("s\($0)") })
        set.removeAll(of: ClientID(0))
        try set.replace(client: ClientID(9), with: [Self.fullScreen("one more")])
        #expect(set.totalCost.regions == 769)
    }

    @Test func aRegionOutsideTheClientsZBandIsForbidden() throws {
        var set = RegionSet()
        set.setGrant(RoutingGrant(zBand: 0...100), for: ClientID(2))
        do {
            try set.replace(client: ClientID(2), with: [Self.fullScreen("top", z: 2_147_483_647)])
            Issue.record("z 2147483647 accepted")
        } catch {
            #expect(error.kind == .forbidden)
            #expect(error.description.contains("z band 0...100"), "\(error)")
            #expect(error.description.contains("right \"regions\""))
        }
        try set.replace(client: ClientID(2), with: [Self.fullScreen("ok", z: 100)])
        try set.replace(client: ClientID(3), with: [Self.fullScreen("anyone else", z: 2_147_483_647)])
    }

    /// A PIN pad (client 1, opaque, exclusive) and a client (2) with a full-screen observer region.
    static func pinPad(observes: Bool, exclusive: Bool) -> RoutingHarness {
        var h = RoutingHarness()
        h.router.setGrant(RoutingGrant(observesOthers: observes), for: ClientID(2))
        h.declare(2, [Self.fullScreen("spy", mode: .observer)])
        h.declare(
            1,
            [
                Region(
                    id: "pin", shape: rect(100, 100, 300, 300), z: 5,
                    options: RegionOptions(exclusive: exclusive))
            ])
        return h
    }

    @Test(arguments: [(false, false), (false, true)])
    func anObserverWithoutTheRightNeverSeesAnotherClientsTouches(observes: Bool, exclusive: Bool) {
        var h = Self.pinPad(observes: observes, exclusive: exclusive)
        var s = Screen()
        let digit = s.down(200, 200)
        h.feed(s.frame())
        s.up(digit)
        h.feed(s.frame(after: 50))
        let outside = s.down(800, 500)
        h.feed(s.frame(after: 100))
        s.up(outside)
        h.feed(s.frame(after: 50))
        #expect(h.ids(for: 1, phase: .began) == [digit])
        #expect(h.ids(for: 2, phase: .began) == [outside], "the PIN digit never reaches client 2")
        #expect(h.checker.isClean, "\(h.checker.violations)")
    }

    @Test func withTheRightAnObserverSeesOtherClientsNonExclusiveTouches() {
        var h = Self.pinPad(observes: true, exclusive: false)
        var s = Screen()
        let a = s.down(200, 200)
        h.feed(s.frame())
        s.up(a)
        h.feed(s.frame(after: 50))
        #expect(h.ids(for: 2, phase: .began) == [a])
    }

    /// A finger landing after a cancelsTouchesOnRecognition region recognised its gesture joins the
    /// gesture: its client sees it begin (and at once cancelled), so the `fingers` the gesture counts
    /// are touches the client saw begin.
    @Test func aTouchLandingAfterRecognitionIsDeliveredBeganThenCancelled() {
        var h = Kiosk.harness(map: RegionOptions(cancelsTouchesOnRecognition: true))
        var s = Screen()
        let a = s.down(500, 300)
        h.feed(s.frame())
        for _ in 0..<8 {
            s.moveBy(a, 12, 0)
            h.feed(s.frame(after: 16))
        }
        #expect(h.gestures(for: Kiosk.map, "map").updates.first?.phase == .began, "a pan was recognised")
        let late = s.down(300, 300)
        h.feed(s.frame(after: 16))
        for _ in 0..<4 {
            s.moveBy(a, 12, 0)
            s.moveBy(late, 12, 0)
            h.feed(s.frame(after: 16))
        }
        let counted = h.gestures(for: Kiosk.map, "map").updates.map(\.fingers).max() ?? 0
        #expect(counted == 2, "the late finger counts in the gesture")
        #expect(h.ids(for: Kiosk.map, phase: .began) == [a, late], "so its client saw it begin")
        #expect(h.ids(for: Kiosk.map, phase: .cancelled) == [a, late])
        let lateMessages = h.touches(for: Kiosk.map).filter { $0.touches.contains { $0.id == late } }
        #expect(lateMessages.count == 2, "began, then cancelled; nothing after")
        #expect(lateMessages.last?.reason == .recognized)
        s.up(a)
        s.up(late)
        h.feed(s.frame())
        #expect(h.checker.isClean, "\(h.checker.violations)")
    }
}
