import MultitouchCore

/// A uniform grid over the hittable regions: each cell lists, front to back, the regions whose bounds
/// overlap it, so a hit test looks at one cell and only the regions stacked there.
///
/// Built once per region change. A grid rather than an R-tree because regions on one screen are few
/// (tens to thousands), mostly rectangles of similar size, and a began must cost the same whatever
/// the layout: locating the cell is two multiplications, and the cell list is already in stacking
/// order, so the topmost owner ends the walk early (observers are kept in a separate list per cell so
/// that walk stays short).
///
/// A region whose bounds cover more than `maximumCellsPerEntry` cells is not copied into them: it goes
/// to one "wide" list (front to back) that every hit test merges with the cell's list. So building
/// costs O(n log n + n x maximumCellsPerEntry) whatever the regions' sizes (4,096 full-screen regions
/// once filled 16 M cell slots, 0.7 s and hundreds of MB per update, issue 19), and a hit test walks
/// the cell's list and the wide list in stacking order, stopping at the first owner.
public struct HitIndex: Sendable {
    /// One hittable region with its stacking position.
    public struct Entry: Sendable {
        public var key: RegionKey
        public var region: Region
        public var bounds: RegionRect
        /// Position in the client's declaration (later is in front among equal z).
        public var declaration: Int
    }

    /// Regions front to back: z descending, then client id descending, then declaration descending.
    public let entries: [Entry]
    private let origin: Point
    private let cellWidth: Double
    private let cellHeight: Double
    private let columns: Int
    private let rows: Int
    /// Per cell, owners (opaque, passthrough) front to back: `ownerIndices[ownerStart[c]..<ownerStart[c+1]]`.
    private let ownerStart: [Int32]
    private let ownerIndices: [Int32]
    /// Per cell, observers front to back, same layout.
    private let observerStart: [Int32]
    private let observerIndices: [Int32]
    /// Owners and observers too wide for the grid, front to back (ascending indices into `entries`).
    private let wideOwners: [Int32]
    private let wideObservers: [Int32]

    /// Most cells a region is listed in; wider ones go to the wide lists.
    static let maximumCellsPerEntry = 16

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
        guard let first = entries.first else {
            origin = .zero
            cellWidth = 1
            cellHeight = 1
            columns = 1
            rows = 1
            ownerStart = [0, 0]
            ownerIndices = []
            observerStart = [0, 0]
            observerIndices = []
            wideOwners = []
            wideObservers = []
            return
        }
        var lo = Point(x: first.bounds.x, y: first.bounds.y)
        var hi = Point(x: first.bounds.maxX, y: first.bounds.maxY)
        for e in entries {
            lo = Point(x: min(lo.x, e.bounds.x), y: min(lo.y, e.bounds.y))
            hi = Point(x: max(hi.x, e.bounds.maxX), y: max(hi.y, e.bounds.maxY))
        }
        // About one cell per region: square-ish cells, at most maximumSide per side.
        let side = min(Self.maximumSide, max(1, Int(Double(entries.count).squareRoot().rounded(.up))))
        columns = side
        rows = side
        origin = lo
        cellWidth = max((hi.x - lo.x) / Double(side), .leastNormalMagnitude)
        cellHeight = max((hi.y - lo.y) / Double(side), .leastNormalMagnitude)

        var owners = [[Int32]](repeating: [], count: side * side)
        var observers = [[Int32]](repeating: [], count: side * side)
        var wideOwners: [Int32] = []
        var wideObservers: [Int32] = []
        for (i, e) in entries.enumerated() {
            let c0 = Self.clamp(Int(((e.bounds.x - lo.x) / cellWidth).rounded(.down)), side)
            let c1 = Self.clamp(Int(((e.bounds.maxX - lo.x) / cellWidth).rounded(.down)), side)
            let r0 = Self.clamp(Int(((e.bounds.y - lo.y) / cellHeight).rounded(.down)), side)
            let r1 = Self.clamp(Int(((e.bounds.maxY - lo.y) / cellHeight).rounded(.down)), side)
            if (c1 - c0 + 1) * (r1 - r0 + 1) > Self.maximumCellsPerEntry {
                switch e.region.mode {
                case .opaque, .passthrough: wideOwners.append(Int32(i))
                case .observer: wideObservers.append(Int32(i))
                }
                continue
            }
            for r in r0...r1 {
                for c in c0...c1 {
                    switch e.region.mode {
                    case .opaque, .passthrough: owners[r * side + c].append(Int32(i))
                    case .observer: observers[r * side + c].append(Int32(i))
                    }
                }
            }
        }
        (ownerStart, ownerIndices) = Self.flatten(owners)
        (observerStart, observerIndices) = Self.flatten(observers)
        self.wideOwners = wideOwners
        self.wideObservers = wideObservers
    }

    /// Entries listed in the grid, summed over cells, plus the wide ones: the index's size, which
    /// stays within n x `maximumCellsPerEntry` (tests check the bound).
    public var storedSlots: Int { ownerIndices.count + observerIndices.count + wideOwners.count + wideObservers.count }

    private static func clamp(_ v: Int, _ side: Int) -> Int { min(side - 1, max(0, v)) }

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

    /// The cell holding `p`, nil outside the union of the regions' bounds (no region can contain it;
    /// NaN fails every comparison and lands here too).
    @inline(__always) private func cell(at p: Point) -> Int? {
        let fx = (p.x - origin.x) / cellWidth
        let fy = (p.y - origin.y) / cellHeight
        guard fx >= 0, fy >= 0, fx < Double(columns), fy < Double(rows) else { return nil }
        return min(Int(fy), rows - 1) * columns + min(Int(fx), columns - 1)
    }

    /// The region that owns a touch beginning at `p` (the front-most opaque region containing it, or
    /// passthrough region solid there), as an index into `entries`; nil when none does.
    public func owner(at p: Point) -> Int? {
        var result: Int?
        walk(at: p, cells: ownerStart, ownerIndices, wide: wideOwners) { i in
            result = i
            return false
        }
        return result
    }

    /// Appends the observers of a touch beginning at `p`, front to back, as indices into `entries`.
    public func observers(at p: Point, into out: inout [Int]) {
        walk(at: p, cells: observerStart, observerIndices, wide: wideObservers) { i in
            out.append(i)
            return true
        }
    }

    /// Calls `hit` with each entry containing `p`, front to back, merging the cell's list with the wide
    /// list (both ascending), until `hit` returns false.
    @inline(__always)
    private func walk(
        at p: Point, cells start: [Int32], _ indices: [Int32], wide: [Int32], _ hit: (Int) -> Bool
    ) {
        guard let c = cell(at: p) else { return }
        var k = Int(start[c])
        let end = Int(start[c + 1])
        var w = 0
        while k < end || w < wide.count {
            let i: Int
            if w < wide.count && (k >= end || wide[w] < indices[k]) {
                i = Int(wide[w])
                w += 1
            } else {
                i = Int(indices[k])
                k += 1
            }
            if entries[i].region.isHit(at: p, bounds: entries[i].bounds) && !hit(i) { return }
        }
    }

    /// Reference hit test by walking every region front to back, for tests and the benchmark's
    /// comparison: must agree with `owner(at:)`.
    public func ownerByLinearScan(at p: Point) -> Int? {
        for (i, e) in entries.enumerated() {
            switch e.region.mode {
            case .opaque, .passthrough:
                if e.region.isHit(at: p, bounds: e.bounds) { return i }
            case .observer:
                continue
            }
        }
        return nil
    }
}
