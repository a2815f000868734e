/// How much routing state one client, and every client together, may declare on one device (issue 19,
/// docs/SECURITY.md "Limits"): what bounds the work a frame, a hit test and an index rebuild cost, so
/// no client can hold the daemon's loop whatever it declares.
///
/// Regions cost memory and an index rebuild; polygon vertices cost every hit test that reaches them;
/// mask cells cost memory; observer regions cost every frame of every touch that begins inside them
/// (one message per observer per frame), which is why they have their own, smaller, limit. A request
/// that would exceed a limit is refused whole (`over-budget`, naming the limit) and changes nothing.
public struct RoutingBudget: Hashable, Sendable {
    /// Regions of one client on one device.
    public var regionsPerClient = RegionLimits.maximumRegionsPerClient
    /// Regions of all clients on one device.
    public var regionsPerDevice = 1024
    /// Observer regions of one client on one device.
    public var observersPerClient = 16
    /// Observer regions of all clients on one device.
    public var observersPerDevice = 64
    /// Polygon vertices of one client on one device (a rectangle counts 4).
    public var verticesPerClient = 16_384
    /// Polygon vertices of all clients on one device.
    public var verticesPerDevice = 65_536
    /// Alpha mask cells of one client on one device (four full 256 x 256 masks).
    public var maskCellsPerClient = 262_144
    /// Alpha mask cells of all clients on one device.
    public var maskCellsPerDevice = 1_048_576

    public init() {}

    /// The daemon's limits.
    public static let `default` = RoutingBudget()

    /// No limit at all, for tests of the index and the router on synthetic loads.
    public static let unlimited: RoutingBudget = {
        var b = RoutingBudget()
        b.regionsPerClient = .max
        b.regionsPerDevice = .max
        b.observersPerClient = .max
        b.observersPerDevice = .max
        b.verticesPerClient = .max
        b.verticesPerDevice = .max
        b.maskCellsPerClient = .max
        b.maskCellsPerDevice = .max
        return b
    }()

    /// What a set of regions costs.
    public struct Cost: Hashable, Sendable {
        public var regions = 0
        public var observers = 0
        public var vertices = 0
        public var maskCells = 0

        public init() {}

        /// The cost of `regions`.
        public init(of regions: some Sequence<Region>) {
            for r in regions { add(r) }
        }

        public mutating func add(_ r: Region) {
            regions += 1
            if r.mode == .observer { observers += 1 }
            switch r.shape {
            case .rectangle: vertices += 4
            case .polygon(let v): vertices += v.count
            }
            if let m = r.mask { maskCells += m.columns * m.rows }
        }

        public static func + (a: Cost, b: Cost) -> Cost {
            var c = a
            c.regions += b.regions
            c.observers += b.observers
            c.vertices += b.vertices
            c.maskCells += b.maskCells
            return c
        }

        public static func - (a: Cost, b: Cost) -> Cost {
            var c = a
            c.regions -= b.regions
            c.observers -= b.observers
            c.vertices -= b.vertices
            c.maskCells -= b.maskCells
            return c
        }
    }

    /// The limits `client` (its whole new set) and `device` (every client's sets with the new one)
    /// would exceed, each as "NAME: USED > LIMIT" with the limit's name as docs/SECURITY.md gives it;
    /// empty when both fit.
    public func exceeded(client: Cost, device: Cost) -> [String] {
        var out: [String] = []
        func check(_ name: String, _ used: Int, _ limit: Int) {
            if used > limit { out.append("\(name): \(used) > \(limit)") }
        }
        check("regions_per_client", client.regions, regionsPerClient)
        check("observers_per_client", client.observers, observersPerClient)
        check("vertices_per_client", client.vertices, verticesPerClient)
        check("mask_cells_per_client", client.maskCells, maskCellsPerClient)
        check("regions_per_device", device.regions, regionsPerDevice)
        check("observers_per_device", device.observers, observersPerDevice)
        check("vertices_per_device", device.vertices, verticesPerDevice)
        check("mask_cells_per_device", device.maskCells, maskCellsPerDevice)
        return out
    }
}
