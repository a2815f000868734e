import MultitouchCore

/// Why a client's routing request (a region declaration or update, a transform for a region) was
/// refused; nothing changed. The daemon answers it with the error code of `kind` listing `problems`.
public struct RoutingRequestError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of refusal it is (the protocol's error code).
    public enum Kind: Hashable, Sendable {
        /// A region or field is invalid (`bad-field`).
        case invalid
        /// A `RoutingBudget` limit would be exceeded (`over-budget`); the problems name the limits.
        case overBudget
        /// The client lacks a right (`forbidden`); the problems name it.
        case forbidden
    }
    public var kind: Kind
    /// One line per problem, in declaration order.
    public var problems: [String]
    public var description: String { problems.joined(separator: "; ") }

    public init(problems: [String], kind: Kind = .invalid) {
        self.problems = problems
        self.kind = kind
    }
}

/// What one client may do with regions on a device, as the daemon's access policy grants it
/// (docs/SECURITY.md): the z band its regions must lie in, and whether its observer regions see
/// touches that other clients' regions own.
public struct RoutingGrant: Hashable, Sendable {
    /// Lowest and highest `z` the client's regions may have.
    public var zBand: ClosedRange<Int>
    /// The `observe` right: its observer regions also see touches owned by other clients' regions
    /// (never those of an `exclusive` region).
    public var observesOthers: Bool
    /// The `cover` right: its regions may sit over another client's `exclusive` region and take the
    /// touches that land there. Without it they are passed over there, whatever their z (issue 28).
    public var coversExclusive: Bool
    /// Who the client's regions are charged to: its uid, so a user's connections share one share of
    /// each device's budget (`RoutingBudget`). Nil: the client is its own account.
    public var account: UInt32?

    public init(
        zBand: ClosedRange<Int> = Int.min...Int.max, observesOthers: Bool = true, coversExclusive: Bool = true,
        account: UInt32? = nil
    ) {
        self.zBand = zBand
        self.observesOthers = observesOthers
        self.coversExclusive = coversExclusive
        self.account = account
    }

    /// Everything: what a client gets when no policy restricts it.
    public static let all = RoutingGrant()
}

/// Every region of one device, per client, and the hit index built over them.
///
/// A client's set is replaced whole (`replace(client:with:)`): either every region is valid, fits the
/// client's grant and the budget, and the new set takes effect at once, or nothing changes and the
/// error lists every problem. The index is rebuilt on every change, O(n log n + n x 16) for n regions
/// (at most `RoutingBudget.regionsPerDevice`); hit-testing reads it at O(1) per touch plus the regions
/// stacked at that cell (ROUTING.md "Hit-testing").
public struct RegionSet: Sendable {
    /// Each client's regions in declaration order.
    public private(set) var byClient: [ClientID: [Region]] = [:]
    /// Every region by key, hidden and disabled ones too (live touches stay bound to them).
    public private(set) var regions: [RegionKey: Region] = [:]
    /// The hit index over the regions that can be hit.
    public private(set) var index = HitIndex(entries: [])
    /// The limits every change is checked against.
    public let budget: RoutingBudget
    /// Each client's grant (`RoutingGrant.all` for a client not listed).
    public private(set) var grants: [ClientID: RoutingGrant] = [:]
    /// What each client's set costs, and all of them together.
    private var costs: [ClientID: RoutingBudget.Cost] = [:]
    public private(set) var totalCost = RoutingBudget.Cost()

    public init(budget: RoutingBudget = .default) { self.budget = budget }

    /// The grant of `client`.
    public func grant(of client: ClientID) -> RoutingGrant { grants[client] ?? .all }

    /// Sets what `client` may do; the next declaration is checked against it (regions in force stay,
    /// re-indexed when what they may cover changed).
    public mutating func setGrant(_ grant: RoutingGrant, for client: ClientID) {
        let covered = self.grant(of: client).coversExclusive
        grants[client] = grant == .all ? nil : grant
        if covered != grant.coversExclusive && byClient[client] != nil { rebuildIndex() }
    }

    /// What the regions of every client charged to `account` other than `client` cost (nothing for a
    /// client that is its own account).
    private func accountCost(of client: ClientID, _ account: UInt32?) -> RoutingBudget.Cost {
        guard let account else { return RoutingBudget.Cost() }
        var sum = RoutingBudget.Cost()
        for (other, cost) in costs where other != client && grant(of: other).account == account { sum = sum + cost }
        return sum
    }

    /// Replaces `client`'s regions with `regions` (an empty array removes them all).
    /// - Throws: `RoutingRequestError` listing every problem (duplicate ids, too many regions, bad shapes,
    ///   masks or options); the set is then unchanged.
    public mutating func replace(client: ClientID, with regions: [Region]) throws(RoutingRequestError) {
        var problems: [String] = []
        var seen: Set<String> = []
        for r in regions {
            if let p = r.problem { problems.append(p) }
            if !seen.insert(r.id).inserted { problems.append("region id \"\(r.id)\" is declared twice") }
        }
        guard problems.isEmpty else { throw RoutingRequestError(problems: problems) }
        let band = grant(of: client).zBand
        let outside = regions.filter { !band.contains($0.z) }.map {
            "region \"\($0.id)\": z \($0.z) is outside this client's z band \(band.lowerBound)...\(band.upperBound) (right \"regions\")"
        }
        guard outside.isEmpty else { throw RoutingRequestError(problems: outside, kind: .forbidden) }
        let cost = RoutingBudget.Cost(of: regions)
        let device = totalCost - (costs[client] ?? RoutingBudget.Cost()) + cost
        let user = accountCost(of: client, grant(of: client).account) + cost
        let exceeded = budget.exceeded(
            client: cost, user: user, device: device, previous: costs[client] ?? RoutingBudget.Cost())
        guard exceeded.isEmpty else {
            throw RoutingRequestError(problems: exceeded.map { "over budget: \($0)" }, kind: .overBudget)
        }
        costs[client] = regions.isEmpty ? nil : cost
        totalCost = device
        if let old = byClient[client] {
            for r in old { self.regions[RegionKey(client: client, region: r.id)] = nil }
        }
        byClient[client] = regions.isEmpty ? nil : regions
        for r in regions { self.regions[RegionKey(client: client, region: r.id)] = r }
        rebuildIndex()
    }

    /// `client`'s set after an incremental update (protocol `updateRegions`): each region in
    /// `upserting` replaces the one with its id in place or is appended, each id in `removing` goes.
    /// Pass the result to `replace(client:with:)`, which validates it, so the update is atomic too.
    /// - Throws: `RoutingRequestError` when an id is removed that is not declared, is both upserted and
    ///   removed, or is upserted twice.
    public func merged(
        client: ClientID, upserting: [Region], removing: [String]
    ) throws(RoutingRequestError) -> [Region] {
        var list = byClient[client] ?? []
        var problems: [String] = []
        let upserted = upserting.map(\.id)
        if Set(upserted).count != upserted.count { problems.append("a region id is given twice in one update") }
        for id in removing {
            if !list.contains(where: { $0.id == id }) {
                problems.append("cannot remove region \"\(id)\": not declared")
            }
            if upserted.contains(id) { problems.append("region \"\(id)\" is both updated and removed") }
        }
        guard problems.isEmpty else { throw RoutingRequestError(problems: problems) }
        list.removeAll { removing.contains($0.id) }
        for r in upserting {
            if let i = list.firstIndex(where: { $0.id == r.id }) { list[i] = r } else { list.append(r) }
        }
        return list
    }

    /// Removes everything `client` declared (it disconnected).
    public mutating func removeAll(of client: ClientID) {
        grants[client] = nil
        guard byClient[client] != nil else { return }
        // An empty declaration has no problems, so this cannot throw.
        try? replace(client: client, with: [])
    }

    /// Whether `client` declared any region: clients without regions are not routed (they observe the
    /// whole device, as before issue 12).
    public func hasRegions(_ client: ClientID) -> Bool { byClient[client] != nil }

    private mutating func rebuildIndex() {
        var entries: [HitIndex.Entry] = []
        for (client, list) in byClient {
            for (order, r) in list.enumerated() where !r.hidden && !r.disabled {
                entries.append(
                    HitIndex.Entry(
                        key: RegionKey(client: client, region: r.id), region: r, bounds: r.shape.bounds,
                        declaration: order, coversExclusive: grant(of: client).coversExclusive))
            }
        }
        index = HitIndex(entries: entries)
    }
}

/// The exclusive regions' share of a hit index, as the contact tracker asks it (`SecureAreas`): a touch
/// is secure where the region that would own it is `exclusive`. The same index the router binds
/// touches with, so the tracker's and the router's answers cannot differ.
public struct ExclusiveAreas: SecureAreas {
    public let index: HitIndex

    public init(index: HitIndex) { self.index = index }

    public func isSecure(at location: Point) -> Bool {
        guard let i = index.owner(at: location) else { return false }
        return index.entries[i].region.options.exclusive
    }
}

extension RegionSet {
    /// Where touches are secure now; nil when no region here is exclusive (nothing can be).
    public var secureAreas: ExclusiveAreas? {
        guard regions.values.contains(where: { $0.options.exclusive }) else { return nil }
        return ExclusiveAreas(index: index)
    }
}
