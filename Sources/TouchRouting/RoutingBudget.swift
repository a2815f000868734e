import TouchVocabulary

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

    // Shares (issue 28): a user's connections together may hold what one client may, and a quarter of
    // every per-device limit is kept for users holding no more than their floor (a sixteenth of it),
    // so a user with many connections cannot take a device, and a program that starts later can always
    // declare a PIN pad's worth (64 regions, 4 observers) while fewer than five such late programs
    // share the reserve. `RegionSet` charges a client to its `RoutingGrant.account` (its uid).

    /// Regions of one user's clients together on one device.
    public var regionsPerUser = RegionLimits.maximumRegionsPerClient
    /// Observer regions of one user's clients together on one device.
    public var observersPerUser = 16
    /// Polygon vertices of one user's clients together on one device.
    public var verticesPerUser = 16_384
    /// Alpha mask cells of one user's clients together on one device.
    public var maskCellsPerUser = 262_144

    /// The part of a per-device limit only users within their floor may use: a quarter of it.
    static func reserve(_ perDevice: Int) -> Int { perDevice / 4 }
    /// What a user may hold and still use the reserve: a sixteenth of the per-device limit.
    static func floor(_ perDevice: Int) -> Int { perDevice / 16 }

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
        b.regionsPerUser = .max
        b.observersPerUser = .max
        b.verticesPerUser = .max
        b.maskCellsPerUser = .max
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
        exceeded(client: client, user: client, device: device)
    }

    /// The limits `client` (its whole new set), its user (`user`: every set charged to the client's
    /// account, the new one included) and `device` would exceed, as "NAME: USED > LIMIT"; a user past
    /// its floor that grows (its set costs more than `previous`, what the client held) is held to the
    /// per-device limit less the reserve. Empty when everything fits.
    public func exceeded(client: Cost, user: Cost, device: Cost, previous: Cost = Cost()) -> [String] {
        var out: [String] = []
        func check(_ name: String, _ used: Int, _ limit: Int) {
            if used > limit { out.append("\(name): \(used) > \(limit)") }
        }
        check("regions_per_client", client.regions, regionsPerClient)
        check("observers_per_client", client.observers, observersPerClient)
        check("vertices_per_client", client.vertices, verticesPerClient)
        check("mask_cells_per_client", client.maskCells, maskCellsPerClient)
        check("regions_per_user", user.regions, regionsPerUser)
        check("observers_per_user", user.observers, observersPerUser)
        check("vertices_per_user", user.vertices, verticesPerUser)
        check("mask_cells_per_user", user.maskCells, maskCellsPerUser)
        func checkDevice(_ name: String, _ grows: Bool, _ userUsed: Int, _ used: Int, _ limit: Int) {
            let floor = Self.floor(limit)
            let shared = limit - Self.reserve(limit)
            if used > limit {
                out.append("\(name): \(used) > \(limit)")
            } else if grows && userUsed > floor && used > shared {
                out.append(
                    "\(name): \(used) > \(shared) (the last \(limit - shared) are kept for users holding at most \(floor))"
                )
            }
        }
        checkDevice(
            "regions_per_device", client.regions > previous.regions, user.regions, device.regions, regionsPerDevice)
        checkDevice(
            "observers_per_device", client.observers > previous.observers, user.observers, device.observers,
            observersPerDevice)
        checkDevice(
            "vertices_per_device", client.vertices > previous.vertices, user.vertices, device.vertices,
            verticesPerDevice)
        checkDevice(
            "mask_cells_per_device", client.maskCells > previous.maskCells, user.maskCells, device.maskCells,
            maskCellsPerDevice)
        return out
    }
}
