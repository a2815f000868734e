import MultitouchCore
import MultitouchTestKit
import Testing

@testable import TouchRouting

@Suite("Regions and hit-testing")
struct HitTestingTests {
    /// Owner and observers of a touch beginning at (x, y), as "client/region" strings.
    func hit(_ set: RegionSet, _ x: Double, _ y: Double) -> (owner: String?, observers: [String]) {
        let p = Point(x: x, y: y)
        var obs: [Int] = []
        set.index.observers(at: p, into: &obs)
        return (
            set.index.owner(at: p).map { set.index.entries[$0].key.description },
            obs.map { set.index.entries[$0].key.description }
        )
    }

    func kiosk() throws -> RegionSet {
        var set = RegionSet(budget: .unlimited)
        try set.replace(client: ClientID(3), with: [Kiosk.fluidRegion()])
        try set.replace(client: ClientID(1), with: [Kiosk.mapRegion()])
        try set.replace(client: ClientID(2), with: [Kiosk.toolbarRegion()])
        return set
    }

    @Test func opaqueOverPassthroughWithMaskOverObserver() throws {
        let set = try kiosk()
        // A toolbar button: the passthrough strip is solid there.
        #expect(hit(set, 50, 50).owner == "2/toolbar")
        #expect(hit(set, 50, 50).observers == ["3/fluid"])
        // The transparent part of the strip passes the touch to the map below.
        #expect(hit(set, 500, 50).owner == "1/map")
        #expect(hit(set, 500, 300).owner == "1/map")
        // The observer sees every touch that begins inside it, whoever owns it.
        #expect(hit(set, 500, 300).observers == ["3/fluid"])
        // Outside every region: nobody.
        #expect(hit(set, 1000, 300).owner == nil)
        #expect(hit(set, -1, 300).observers.isEmpty)
        #expect(hit(set, .nan, 300).owner == nil)
    }

    @Test func observerAloneWhenNothingOwnsThePoint() throws {
        var set = try kiosk()
        try set.replace(client: ClientID(1), with: [])
        #expect(hit(set, 500, 300).owner == nil)
        #expect(hit(set, 500, 300).observers == ["3/fluid"])
        #expect(hit(set, 50, 50).owner == "2/toolbar")
    }

    @Test func hiddenAndDisabledRegionsAreSkipped() throws {
        var set = try kiosk()
        let popup = Region(id: "popup", shape: rect(0, 0, 1000, 600), z: 10, hidden: true)
        let blocker = Region(id: "blocker", shape: rect(0, 0, 1000, 600), z: 9, disabled: true)
        let watcher = Region(id: "watcher", shape: rect(0, 0, 1000, 600), z: 9, mode: .observer, hidden: true)
        try set.replace(client: ClientID(4), with: [popup, blocker, watcher])
        #expect(hit(set, 500, 300).owner == "1/map")
        #expect(hit(set, 500, 300).observers == ["3/fluid"])
        #expect(set.regions[RegionKey(client: ClientID(4), region: "popup")] != nil, "kept for bound touches")
        // Shown again, it is on top.
        try set.replace(client: ClientID(4), with: [Region(id: "popup", shape: rect(0, 0, 1000, 600), z: 10)])
        #expect(hit(set, 500, 300).owner == "4/popup")
    }

    @Test func polygonsAndStackingTies() throws {
        var set = RegionSet(budget: .unlimited)
        // A triangle over a square; equal z: the later declaration is in front.
        let square = Region(id: "square", shape: rect(0, 0, 100, 100))
        let triangle = Region(
            id: "triangle", shape: .polygon([Point(x: 0, y: 0), Point(x: 100, y: 0), Point(x: 0, y: 100)]))
        try set.replace(client: ClientID(1), with: [square, triangle])
        #expect(hit(set, 10, 10).owner == "1/triangle")
        #expect(hit(set, 90, 90).owner == "1/square")
        // Between clients at equal z, the later connection (higher id) is in front.
        try set.replace(client: ClientID(2), with: [Region(id: "b", shape: rect(0, 0, 50, 50))])
        #expect(hit(set, 10, 10).owner == "2/b")
        // z beats both.
        try set.replace(client: ClientID(1), with: [square, Region(id: "triangle", shape: triangle.shape, z: 1)])
        #expect(hit(set, 10, 10).owner == "1/triangle")
    }

    @Test func invalidDeclarationsAreRefusedWholeAndChangeNothing() throws {
        var set = try kiosk()
        let bad: [Region] = [
            Region(id: "a", shape: rect(0, 0, 10, 10)),
            Region(id: "a", shape: rect(0, 0, 10, 10)),
            Region(id: "p", shape: rect(0, 0, 10, 10), mode: .passthrough),
            Region(id: "o", shape: rect(0, 0, 10, 10), mask: AlphaMask(columns: 1, rows: 1, solid: [true])),
            Region(id: "z", shape: rect(0, 0, 0, 10)),
            Region(
                id: "m", shape: rect(0, 0, 10, 10), mask: AlphaMask(columns: 2, rows: 2, solid: [true]), mode: .observer
            ),
            Region(id: "poly", shape: .polygon([Point(x: 0, y: 0), Point(x: 1, y: 1)])),
            Region(id: "inf", shape: rect(.infinity, 0, 10, 10)),
            Region(id: "obs", shape: rect(0, 0, 10, 10), mode: .observer, options: RegionOptions(exclusive: true)),
        ]
        #expect(throws: RoutingRequestError.self) { try set.replace(client: ClientID(1), with: bad) }
        do {
            try set.replace(client: ClientID(1), with: bad)
        } catch {
            #expect(error.problems.count == 8, "\(error.problems)")
            #expect(error.description.contains("declared twice"))
            #expect(error.description.contains("needs a mask"))
        }
        #expect(hit(set, 500, 300).owner == "1/map", "the old set is still in force")
    }

    /// The grid must agree with walking every region front to back, whatever the layout.
    @Test(arguments: [1, 7, 100, 1000]) func gridAgreesWithLinearScan(count: Int) throws {
        var rng = SplitMix64(seed: UInt64(count) * 7919)
        var set = RegionSet(budget: .unlimited)
        var perClient: [UInt64: [Region]] = [:]
        for i in 0..<count {
            let w = Double.random(in: 5...300, using: &rng)
            let h = Double.random(in: 5...300, using: &rng)
            let x = Double.random(in: -50...1000, using: &rng)
            let y = Double.random(in: -50...600, using: &rng)
            let mode = [RegionMode.opaque, .opaque, .passthrough, .observer][Int.random(in: 0..<4, using: &rng)]
            let shape: RegionShape =
                Bool.random(using: &rng)
                ? rect(x, y, w, h)
                : .polygon([Point(x: x, y: y), Point(x: x + w, y: y + h / 3), Point(x: x + w / 2, y: y + h)])
            let mask: AlphaMask? =
                mode == .passthrough
                ? AlphaMask(columns: 4, rows: 4, solid: (0..<16).map { _ in Bool.random(using: &rng) }) : nil
            perClient[UInt64(i % 5), default: []].append(
                Region(
                    id: "r\(i)", shape: shape, mask: mask, z: Int.random(in: 0..<4, using: &rng), mode: mode,
                    hidden: Int.random(in: 0..<20, using: &rng) == 0))
        }
        for (c, list) in perClient { try set.replace(client: ClientID(c), with: list) }
        for _ in 0..<2000 {
            let p = Point(x: Double.random(in: -60...1060, using: &rng), y: Double.random(in: -60...660, using: &rng))
            #expect(set.index.owner(at: p) == set.index.ownerByLinearScan(at: p), "at \(p)")
            var obs: [Int] = []
            set.index.observers(at: p, into: &obs)
            let expected = set.index.entries.indices.filter {
                set.index.entries[$0].region.mode == .observer
                    && set.index.entries[$0].region.isHit(at: p, bounds: set.index.entries[$0].bounds)
            }
            #expect(obs == expected, "at \(p)")
        }
    }
}

@Suite("Region updates")
struct RegionUpdateTests {
    @Test func updateMergesInPlaceAppendsAndRemoves() throws {
        var set = RegionSet(budget: .unlimited)
        let c = ClientID(1)
        let a = Region(id: "a", shape: rect(0, 0, 10, 10))
        let b = Region(id: "b", shape: rect(10, 0, 10, 10))
        try set.replace(client: c, with: [a, b])
        var a2 = a
        a2.z = 5
        let merged = try set.merged(
            client: c, upserting: [Region(id: "c", shape: rect(0, 10, 10, 10)), a2], removing: ["b"])
        #expect(merged.map(\.id) == ["a", "c"])
        #expect(merged.first?.z == 5)
        #expect(throws: RoutingRequestError.self) { try set.merged(client: c, upserting: [], removing: ["nope"]) }
        #expect(throws: RoutingRequestError.self) { try set.merged(client: c, upserting: [a], removing: ["a"]) }
        #expect(throws: RoutingRequestError.self) { try set.merged(client: c, upserting: [a, a], removing: []) }
        #expect(set.byClient[c]?.map(\.id) == ["a", "b"], "merging alone changes nothing")
    }
}
