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

    /// Every client counts toward the device's limits; a user past its floor (a sixteenth of a limit)
    /// may not use the last quarter, kept for programs that start later (issue 28).
    @Test func theDeviceBudgetCountsEveryClientAndFreesWhatALeaverHeld() throws {
        var set = RegionSet()
        for c in 0..<3 {
            try set.replace(client: ClientID(UInt64(c)), with: (0..<256).map { Self.fullScreen("r\($0)") })
        }
        do {
            try set.replace(client: ClientID(3), with: (0..<256).map { Self.fullScreen("r\($0)") })
            Issue.record("a fourth large set took the reserve")
        } catch {
            #expect(error.kind == .overBudget)
            #expect(error.description.contains("regions_per_device: 1024 > 768 (the last 256 are kept"), "\(error)")
        }
        // Programs within their floor (64) fill the reserve, up to the device's limit.
        for c in 4..<8 {
            try set.replace(client: ClientID(UInt64(c)), with: (0..<64).map { Self.fullScreen("k\($0)") })
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

    /// Issue 28 item 4: a user's connections share one client's budget on a device, so four of them
    /// cannot take it; another user's PIN pad and map still fit.
    @Test func aUsersConnectionsShareOneShare() throws {
        var set = RegionSet()
        let untrusted = RoutingGrant(account: 1001)
        for c in 0..<4 { set.setGrant(untrusted, for: ClientID(UInt64(c))) }
        var tiny: [Region] = []
        for k in 0..<256 {
            let x = Double(k % 16) * 6
            let y = Double(k / 16) * 6
            let mode: RegionMode = k < 16 ? .observer : .opaque
            tiny.append(Region(id: "t\(k)", shape: rect(x, y, 1, 1), mode: mode))
        }
        try set.replace(client: ClientID(0), with: tiny)
        for c in 1..<4 {
            do {
                try set.replace(client: ClientID(UInt64(c)), with: tiny)
                Issue.record("connection \(c) of the same user was accepted")
            } catch {
                #expect(error.kind == .overBudget)
                #expect(error.description.contains("regions_per_user: 512 > 256"), "\(error)")
                #expect(error.description.contains("observers_per_user: 32 > 16"), "\(error)")
            }
        }
        set.setGrant(RoutingGrant(account: 1002), for: ClientID(10))
        try set.replace(client: ClientID(10), with: (0..<12).map { Self.fullScreen("key\($0)") })
        set.setGrant(RoutingGrant(account: 1003), for: ClientID(11))
        try set.replace(client: ClientID(11), with: [Self.fullScreen("map"), Self.fullScreen("fx", mode: .observer)])
        // The user's first connection leaving frees its share for another of its connections.
        set.removeAll(of: ClientID(0))
        try set.replace(client: ClientID(1), with: tiny)
    }

    /// Issue 28 item 5: a region of a client without `cover` is passed over where another client's
    /// exclusive region lies below it, whatever its z; the owner's own regions and a covering
    /// client's are not. The index agrees with the linear scan.
    @Test func onlyTheOwnerOrACoveringClientTakesTouchesOnAnExclusiveRegion() throws {
        var set = RegionSet()
        set.setGrant(RoutingGrant(zBand: 0...99, observesOthers: false, coversExclusive: false), for: ClientID(2))
        try set.replace(
            client: ClientID(1),
            with: [
                Region(id: "pin", shape: rect(100, 100, 200, 200), z: 5, options: RegionOptions(exclusive: true)),
                Region(id: "label", shape: rect(150, 150, 20, 20), z: 6),
            ])
        try set.replace(client: ClientID(2), with: [Self.fullScreen("over", z: 99)])
        func owner(_ x: Double, _ y: Double) -> String? {
            let p = Point(x: x, y: y)
            #expect(set.index.owner(at: p) == set.index.ownerByLinearScan(at: p))
            return set.index.owner(at: p).map { set.index.entries[$0].key.region }
        }
        #expect(owner(120, 120) == "pin", "the untrusted z 99 region is passed over on the pad")
        #expect(owner(155, 155) == "label", "the owner's own region over its pad still takes it")
        #expect(owner(800, 500) == "over", "elsewhere the untrusted region is the front-most")
        // The shell, with `cover`, may sit over it.
        set.setGrant(RoutingGrant(zBand: 0...1000), for: ClientID(3))
        try set.replace(client: ClientID(3), with: [Self.fullScreen("shell", z: 500)])
        #expect(owner(120, 120) == "shell")
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

/// Issue 28: every number a client gives is converted without a trap. Regions at the far ends of the
/// doubles make the index's extent overflow to infinity (1e308 - -1e308); its cells must still be
/// found, and hit tests still agree with the linear scan.
@Suite("Touch routing: extreme coordinates")
struct ExtremeCoordinateTests {
    @Test func regionsAtTheEndsOfTheDoublesIndexWithoutATrap() throws {
        var set = RegionSet()
        let regions = [
            Region(id: "west", shape: rect(-1e308, -1e308, 1e307, 1e307)),
            Region(id: "east", shape: rect(1e308, 1e308, 1e307, 1e307)),
            Region(id: "tiny", shape: rect(0, 0, 5e-324, 5e-324)),
            Region(id: "wide", shape: rect(-1.7e308, 0, 1.7e308, 1)),
        ]
        try set.replace(client: ClientID(1), with: regions)
        for p in [
            Point(x: -1e308, y: -1e308), Point(x: 1e308, y: 1e308), Point(x: 0, y: 0), Point(x: -1e300, y: 0.5),
            Point(x: .infinity, y: 0), Point(x: .nan, y: .nan), Point(x: -.greatestFiniteMagnitude, y: 0),
        ] {
            #expect(set.index.owner(at: p) == set.index.ownerByLinearScan(at: p), "\(p)")
        }
        #expect(set.index.owner(at: Point(x: 1e308, y: 1e308)).map { set.index.entries[$0].key.region } == "east")
    }
}
