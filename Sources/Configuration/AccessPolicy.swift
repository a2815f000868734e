/// One thing a client may be allowed to do (docs/SECURITY.md "Who may do what").
public enum AccessRight: String, Hashable, Sendable, CaseIterable, Comparable {
    /// Receive the touches and gestures of the whole device (what a client without regions gets), and,
    /// in its observer regions, touches that other clients' regions own (never an exclusive region's).
    case observe
    /// Declare regions, with `z` inside the grant's band.
    case regions
    /// Set or reset a device's transform (every client drawing the device sees the new base).
    case transform
    /// Put regions over another client's `exclusive` region and so receive the touches landing there
    /// (issue 28). Without it a client's regions are passed over where another client's exclusive
    /// region lies below them, whatever their z: the shell a deployment trusts has it, programs do not.
    case cover

    public static func < (a: AccessRight, b: AccessRight) -> Bool { a.rawValue < b.rawValue }
}

/// What one client may do: its rights and the z band its regions must lie in.
public struct AccessGrant: Hashable, Sendable {
    public var rights: Set<AccessRight>
    /// Lowest and highest `z` the client's regions may have (with the `regions` right).
    public var zBand: ClosedRange<Int>

    public init(rights: Set<AccessRight> = Set(AccessRight.allCases), zBand: ClosedRange<Int> = Int.min...Int.max) {
        self.rights = rights
        self.zBand = zBand
    }

    /// Every right, any z: what root always has, and every client by default.
    public static let everything = AccessGrant()

    public func has(_ right: AccessRight) -> Bool { rights.contains(right) }
}

/// One `[[access.grant]]` rule: the clients it matches (by peer uid, by group, or both) and what they get.
public struct AccessRule: Hashable, Sendable {
    /// Matches a peer with this uid.
    public var uid: UInt32?
    /// Matches a peer in this group (name or number): its primary or a supplementary group.
    public var group: String?
    public var grant: AccessGrant

    public init(uid: UInt32? = nil, group: String? = nil, grant: AccessGrant) {
        self.uid = uid
        self.group = group
        self.grant = grant
    }
}

/// Who may do what (configuration section `[access]`, docs/SECURITY.md), Wayland's model as the anchor: a
/// client sees input for its own surfaces (regions) only unless it is granted `observe`.
///
/// Rules are tried in order; the first whose every given matcher matches decides; a client no rule
/// matches gets `defaultGrant`. Root (uid 0) has every right whatever the rules say. The built-in
/// default grants everything to everyone who can connect (the socket's mode and group decide that), so
/// single-program setups work as before; a deployment with several programs sets `default` to fewer
/// rights and grants more per group or uid. Pure: group names are resolved by the caller.
public struct AccessPolicy: Hashable, Sendable {
    public var defaultGrant = AccessGrant.everything
    public var rules: [AccessRule] = []

    public init(defaultGrant: AccessGrant = .everything, rules: [AccessRule] = []) {
        self.defaultGrant = defaultGrant
        self.rules = rules
    }

    /// The grant of a peer.
    /// - Parameters:
    ///   - uid: the peer's uid (SO_PEERCRED); nil when unknown (no rule matches; the default applies).
    ///   - groups: the peer's primary and supplementary group ids.
    ///   - groupID: resolves a rule's group (a name or a number) to its id; nil when it does not exist.
    public func grant(uid: UInt32?, groups: [UInt32], groupID: (String) -> UInt32?) -> AccessGrant {
        if uid == 0 { return .everything }
        for rule in rules {
            if let wanted = rule.uid, wanted != uid { continue }
            if let name = rule.group {
                guard let gid = groupID(name), groups.contains(gid) else { continue }
            }
            if rule.uid == nil && rule.group == nil { continue }
            return rule.grant
        }
        return defaultGrant
    }
}
