import Configuration
import Glibc

/// The access policy's group names resolved to ids once (when the policy is set, not per connection:
/// NSS lookups may block), and a peer's groups read from its socket.
struct AccessGroups {
    private var ids: [String: UInt32] = [:]

    init(_ policy: AccessPolicy) {
        for rule in policy.rules {
            guard let name = rule.group, ids[name] == nil else { continue }
            if let gid = Self.lookUp(name) { ids[name] = gid }
        }
    }

    /// The grant of the client on `fd` with credentials `peer`.
    func grant(policy: AccessPolicy, peer: PeerCredentials?, fd: Int32) -> AccessGrant {
        guard let peer else { return policy.grant(uid: nil, groups: [], groupID: { _ in nil }) }
        if policy.rules.allSatisfy({ $0.group == nil }) {
            return policy.grant(uid: peer.uid, groups: [peer.gid], groupID: { _ in nil })
        }
        return policy.grant(uid: peer.uid, groups: [peer.gid] + Self.supplementaryGroups(fd: fd)) { ids[$0] }
    }

    /// A group name's id (a number is taken as one when no group has that name).
    private static func lookUp(_ name: String) -> UInt32? {
        if let gid = (try? Sys.groupID(named: name)) ?? nil { return gid }
        return UInt32(name)
    }

    /// The peer's supplementary groups as they were when it connected (SO_PEERGROUPS, Linux 4.13).
    private static func supplementaryGroups(fd: Int32) -> [UInt32] {
        let soPeerGroups: Int32 = 59
        // A kernel before 4.13 (ENOPROTOOPT) or more than 256 groups (ERANGE): the primary group only.
        return
            (try? Sys.getsockopt(
                fd, SOL_SOCKET, soPeerGroups, arrayOf: gid_t.self, capacity: 256, name: "SO_PEERGROUPS"))
            ?? []
    }
}
