/// An axis-aligned rectangle in a device's published space (pixels of the mapped output, else mm).
/// `minX <= x < maxX` and `minY <= y < maxY` are inside: two rectangles that share an edge never both
/// contain a point on it.
public struct RegionRect: Hashable, Sendable {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    @inlinable public var maxX: Double { x + width }
    @inlinable public var maxY: Double { y + height }

    /// Finite, with a width and height above zero.
    public var isUsable: Bool {
        x.isFinite && y.isFinite && width.isFinite && height.isFinite && width > 0 && height > 0
            && maxX.isFinite && maxY.isFinite
    }

    @inlinable public func contains(_ p: Point) -> Bool {
        p.x >= x && p.x < x + width && p.y >= y && p.y < y + height
    }
}

/// Where a region is: a rectangle or a simple polygon (even-odd rule, vertices in order, closed
/// implicitly), in the device's published space.
public enum RegionShape: Hashable, Sendable {
    case rectangle(RegionRect)
    case polygon([Point])

    /// The smallest rectangle around the shape (the polygon's vertices' extent).
    public var bounds: RegionRect {
        switch self {
        case .rectangle(let r):
            return r
        case .polygon(let points):
            guard let first = points.first else { return RegionRect(x: 0, y: 0, width: 0, height: 0) }
            var lo = first
            var hi = first
            for p in points {
                lo = Point(x: min(lo.x, p.x), y: min(lo.y, p.y))
                hi = Point(x: max(hi.x, p.x), y: max(hi.y, p.y))
            }
            return RegionRect(x: lo.x, y: lo.y, width: hi.x - lo.x, height: hi.y - lo.y)
        }
    }

    /// Whether `p` is inside: half-open for rectangles, even-odd crossing test for polygons.
    public func contains(_ p: Point) -> Bool {
        switch self {
        case .rectangle(let r):
            return r.contains(p)
        case .polygon(let v):
            // Crossing number (W. Randolph Franklin's PNPOLY): count edges a ray to +x crosses.
            var inside = false
            var j = v.count - 1
            for i in v.indices {
                let a = v[i]
                let b = v[j]
                if (a.y > p.y) != (b.y > p.y) && p.x < (b.x - a.x) * (p.y - a.y) / (b.y - a.y) + a.x {
                    inside.toggle()
                }
                j = i
            }
            return inside
        }
    }

    /// What is wrong with the shape, nil when it is usable: a rectangle needs a finite, positive size; a
    /// polygon 3 to `RegionLimits.maximumPolygonVertices` finite vertices and a bounding box of positive
    /// size.
    public var problem: String? {
        switch self {
        case .rectangle(let r):
            return r.isUsable ? nil : "rectangle must be finite with width and height > 0"
        case .polygon(let v):
            if v.count < 3 || v.count > RegionLimits.maximumPolygonVertices {
                return "polygon needs 3 to \(RegionLimits.maximumPolygonVertices) vertices, got \(v.count)"
            }
            if !v.allSatisfy(\.isFinite) { return "polygon vertices must be finite" }
            return bounds.isUsable ? nil : "polygon must enclose an area (its bounding box has no width or height)"
        }
    }
}

/// A coarse alpha mask over a region's bounding box, seed 001's "transparent pixels pass the touch
/// through" at the resolution a client can afford to send: `columns` x `rows` cells, row-major from the
/// top left, true where the content is solid. A point outside the bounding box is transparent.
public struct AlphaMask: Hashable, Sendable {
    public var columns: Int
    public var rows: Int
    /// `columns * rows` cells, row-major.
    public var solid: [Bool]

    public init(columns: Int, rows: Int, solid: [Bool]) {
        self.columns = columns
        self.rows = rows
        self.solid = solid
    }

    /// What is wrong with the mask, nil when it is usable.
    public var problem: String? {
        guard columns >= 1, rows >= 1, columns <= RegionLimits.maximumMaskSide, rows <= RegionLimits.maximumMaskSide
        else {
            return "mask columns and rows must be 1...\(RegionLimits.maximumMaskSide), got \(columns) x \(rows)"
        }
        guard solid.count == columns * rows else {
            return "mask has \(solid.count) cells, expected columns x rows = \(columns * rows)"
        }
        return nil
    }

    /// Whether the mask is solid at `p`, with the mask stretched over `bounds`.
    @inlinable public func isSolid(at p: Point, over bounds: RegionRect) -> Bool {
        guard bounds.contains(p) else { return false }
        // Clamped: the half-open bounds keep the quotient below 1, but rounding can reach it.
        let c = min(columns - 1, max(0, Int((p.x - bounds.x) / bounds.width * Double(columns))))
        let r = min(rows - 1, max(0, Int((p.y - bounds.y) / bounds.height * Double(rows))))
        return solid[r * columns + c]
    }
}

/// Limits on what one client may declare, so a client bug cannot make hit-testing or memory explode.
public enum RegionLimits {
    /// Regions one client may declare on one device, and so the most one request may carry (checked
    /// before its regions are decoded). The daemon's `RoutingBudget.regionsPerClient`.
    public static let maximumRegionsPerClient = 256
    /// Vertices of one polygon.
    public static let maximumPolygonVertices = 256
    /// Cells along one side of an alpha mask (256 x 256 = 64 Ki cells).
    public static let maximumMaskSide = 256
    /// Length of a region id in UTF-8 bytes.
    public static let maximumIDBytes = 128
}
