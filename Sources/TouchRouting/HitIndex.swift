import MultitouchCore

/// A pyramid of uniform grids over the hittable regions: each cell lists, front to back, the regions
/// whose bounds overlap it, so a hit test looks at one cell per level and only the regions stacked there.
///
/// Built once per region change. Grids rather than an R-tree because regions on one screen are few
/// (tens to thousands), mostly rectangles of similar size, and a began must cost the same whatever
/// the layout: locating a cell is two multiplications, and the cell lists are already in stacking
/// order, so the topmost owner ends the walk early (observers are kept in separate lists so that walk
/// stays short).
///
/// The finest grid has about one cell per region (at most 64 x 64); each coarser level has a quarter
/// of the cells along each side, down to one cell. A region is listed at the finest level where its
/// bounds cover at most `maximumCellsPerEntry` cells, so building costs O(n log n + 16 n) for n regions
/// whatever they overlap (with one grid, 4,096 full-screen regions once filled 16 M cell slots, 0.7 s
/// and hundreds of MB per update, issue 19), and a hit test merges at most four short lists in
/// stacking order, stopping at the first owner.
public struct HitIndex: Sendable {
    /// One hittable region with its stacking position.
    public struct Entry: Sendable {
        public var key: RegionKey
        public var region: Region
        public var bounds: RegionRect
        /// Position in the client's declaration (later is in front among equal z).
        public var declaration: Int
        /// Its client has the `cover` right: it may take touches over another client's exclusive
        /// region (`RoutingGrant.coversExclusive`). Without it the region is passed over there.
        public var coversExclusive = true
    }

    /// One grid of the pyramid.
    private struct Level: Sendable {
        var side: Int
        /// Half a cell's size: coordinates are halved before they are placed, so that the extent of
        /// regions at both ends of the doubles (1e308 - -1e308) stays finite (issue 28).
        var cellWidth: Double
        var cellHeight: Double
        /// Per cell, owners (opaque, passthrough) front to back: `ownerIndices[ownerStart[c]..<ownerStart[c+1]]`.
        var ownerStart: [Int32]
        var ownerIndices: [Int32]
        /// Per cell, observers front to back, same layout.
        var observerStart: [Int32]
        var observerIndices: [Int32]
    }

    /// Regions front to back: z descending, then client id descending, then declaration descending.
    public let entries: [Entry]
    private let origin: Point
    private let levels: [Level]
    /// Some owner may not cover another client's exclusive region, and some exclusive region exists:
    /// only then does a hit test look past the front-most owner.
    private let guardsExclusive: Bool

    /// Most cells a region is listed in at its level.
    static let maximumCellsPerEntry = 64

    /// Most cells along one side: 64 x 64 cells keep the index small (a few hundred KiB at most) while
    /// 1,000 screen-sized-to-button-sized regions share a cell only where they really overlap.
    static let maximumSide = 64

    public init(entries unsorted: [Entry]) {
        let entries = unsorted.sorted { a, b in
            if a.region.z != b.region.z { return a.region.z > b.region.z }
            if a.key.client != b.key.client { return a.key.client > b.key.client }
            return a.declaration > b.declaration
        }
        self.entries = entries
        guardsExclusive =
            entries.contains { $0.region.options.exclusive && $0.region.mode != .observer }
            && entries.contains { !$0.coversExclusive }
        guard let first = entries.first else {
            origin = .zero
            levels = []
            return
        }
        var lo = Point(x: first.bounds.x, y: first.bounds.y)
        var hi = Point(x: first.bounds.maxX, y: first.bounds.maxY)
        for e in entries {
            lo = Point(x: min(lo.x, e.bounds.x), y: min(lo.y, e.bounds.y))
            hi = Point(x: max(hi.x, e.bounds.maxX), y: max(hi.y, e.bounds.maxY))
        }
        origin = lo
        // About one cell per region at the finest level: square-ish cells, at most maximumSide per side.
        var sides = [min(Self.maximumSide, max(1, Int(Double(entries.count).squareRoot().rounded(.up))))]
        while let last = sides.last, last > 1 { sides.append(max(1, last / 4)) }
        var owners = sides.map { [[Int32]](repeating: [], count: $0 * $0) }
        var observers = sides.map { [[Int32]](repeating: [], count: $0 * $0) }
        let sizes = sides.map { side in
            (
                max((hi.x / 2 - lo.x / 2) / Double(side), .leastNormalMagnitude),
                max((hi.y / 2 - lo.y / 2) / Double(side), .leastNormalMagnitude)
            )
        }
        for (i, e) in entries.enumerated() {
            for (l, side) in sides.enumerated() {
                let (w, h) = sizes[l]
                let c0 = Self.cell((e.bounds.x / 2 - lo.x / 2) / w, side)
                let c1 = Self.cell((e.bounds.maxX / 2 - lo.x / 2) / w, side)
                let r0 = Self.cell((e.bounds.y / 2 - lo.y / 2) / h, side)
                let r1 = Self.cell((e.bounds.maxY / 2 - lo.y / 2) / h, side)
                // The coarsest level (one cell) takes whatever is left.
                guard (c1 - c0 + 1) * (r1 - r0 + 1) <= Self.maximumCellsPerEntry || l == sides.count - 1 else {
                    continue
                }
                for r in r0...r1 {
                    for c in c0...c1 {
                        switch e.region.mode {
                        case .opaque, .passthrough: owners[l][r * side + c].append(Int32(i))
                        case .observer: observers[l][r * side + c].append(Int32(i))
                        }
                    }
                }
                break
            }
        }
        levels = sides.indices.map { l in
            let (ownerStart, ownerIndices) = Self.flatten(owners[l])
            let (observerStart, observerIndices) = Self.flatten(observers[l])
            return Level(
                side: sides[l], cellWidth: sizes[l].0, cellHeight: sizes[l].1, ownerStart: ownerStart,
                ownerIndices: ownerIndices, observerStart: observerStart, observerIndices: observerIndices)
        }
    }

    /// The cell a scaled coordinate falls in, clamped to the grid; never traps (a NaN is cell 0).
    private static func cell(_ v: Double, _ side: Int) -> Int {
        guard v >= 0 else { return 0 }
        guard v < Double(side) else { return side - 1 }
        return Int(v)
    }

    private static func flatten(_ lists: [[Int32]]) -> ([Int32], [Int32]) {
        var start: [Int32] = [0]
        start.reserveCapacity(lists.count + 1)
        var flat: [Int32] = []
        for l in lists {
            flat.append(contentsOf: l)
            start.append(Int32(flat.count))
        }
        return (start, flat)
    }

    /// Cell slots over every level: the index's size, which stays within n x `maximumCellsPerEntry`
    /// (tests check the bound).
    public var storedSlots: Int { levels.reduce(0) { $0 + $1.ownerIndices.count + $1.observerIndices.count } }

    /// The cell of `level` holding `p`, nil outside the union of the regions' bounds (no region can
    /// contain it; NaN fails every comparison and lands here too).
    @inline(__always) private func cell(at p: Point, _ level: Level) -> Int? {
        let fx = (p.x / 2 - origin.x / 2) / level.cellWidth
        let fy = (p.y / 2 - origin.y / 2) / level.cellHeight
        guard fx >= 0, fy >= 0, fx < Double(level.side), fy < Double(level.side) else { return nil }
        return min(Int(fy), level.side - 1) * level.side + min(Int(fx), level.side - 1)
    }

    /// The region that owns a touch beginning at `p` (the front-most opaque region containing it, or
    /// passthrough region solid there), as an index into `entries`; nil when none does.
    ///
    /// Another client's `exclusive` region further back at `p` passes over every region in front of it
    /// whose client may not cover it (`Entry.coversExclusive`, issue 28): only its owner's regions and
    /// a covering client's can take a touch landing on it, whatever z the others picked.
    public func owner(at p: Point) -> Int? {
        guard guardsExclusive else {
            var result: Int?
            walk(at: p, observers: false) { i in
                result = i
                return false
            }
            return result
        }
        var hits: [Int] = []
        walk(at: p, observers: false) { i in
            hits.append(i)
            return true
        }
        return Self.firstEligible(hits, entries)
    }

    /// The front-most of `hits` (front to back) that no exclusive region of another client behind it
    /// passes over.
    static func firstEligible(_ hits: [Int], _ entries: [Entry]) -> Int? {
        for (n, i) in hits.enumerated() {
            let e = entries[i]
            if e.coversExclusive { return i }
            let passedOver = hits[(n + 1)...].contains { j in
                entries[j].region.options.exclusive && entries[j].key.client != e.key.client
            }
            if !passedOver { return i }
        }
        return nil
    }

    /// Appends the observers of a touch beginning at `p`, front to back, as indices into `entries`.
    public func observers(at p: Point, into out: inout [Int]) {
        walk(at: p, observers: true) { i in
            out.append(i)
            return true
        }
    }

    /// Calls `hit` with each owner (or observer) containing `p`, front to back, merging the point's
    /// cell list of every level (each ascending), until `hit` returns false.
    @inline(__always)
    private func walk(at p: Point, observers: Bool, _ hit: (Int) -> Bool) {
        guard let finest = levels.first, let c = cell(at: p, finest) else { return }
        let list = observers ? finest.observerIndices : finest.ownerIndices
        let starts = observers ? finest.observerStart : finest.ownerStart
        var k = Int(starts[c])
        let end = Int(starts[c + 1])
        // The coarser levels' lists at the point (on the stack: at most three), usually all empty (no
        // wide region there), and then the walk is the finest cell's list alone.
        withUnsafeTemporaryAllocation(of: (level: Int, next: Int, end: Int).self, capacity: levels.count) { coarse in
            var count = 0
            for l in 1..<levels.count {
                let level = levels[l]
                guard let cc = cell(at: p, level) else { continue }
                let s = observers ? level.observerStart : level.ownerStart
                if s[cc] < s[cc + 1] {
                    coarse[count] = (l, Int(s[cc]), Int(s[cc + 1]))
                    count += 1
                }
            }
            while true {
                var bestCursor = -1
                var best = k < end ? list[k] : Int32.max
                for n in 0..<count where coarse[n].next < coarse[n].end {
                    let level = levels[coarse[n].level]
                    let candidate =
                        observers ? level.observerIndices[coarse[n].next] : level.ownerIndices[coarse[n].next]
                    if candidate < best {
                        best = candidate
                        bestCursor = n
                    }
                }
                guard best != Int32.max else { return }
                if bestCursor < 0 { k += 1 } else { coarse[bestCursor].next += 1 }
                let i = Int(best)
                if entries[i].region.isHit(at: p, bounds: entries[i].bounds) && !hit(i) { return }
            }
        }
    }

    /// Reference hit test by walking every region front to back, for tests and the benchmark's
    /// comparison: must agree with `owner(at:)`.
    public func ownerByLinearScan(at p: Point) -> Int? {
        var hits: [Int] = []
        for (i, e) in entries.enumerated() {
            switch e.region.mode {
            case .opaque, .passthrough:
                if e.region.isHit(at: p, bounds: e.bounds) { hits.append(i) }
            case .observer:
                continue
            }
        }
        return Self.firstEligible(hits, entries)
    }
}
