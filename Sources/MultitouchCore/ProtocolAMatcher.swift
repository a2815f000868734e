/// Gives protocol A's anonymous contacts stable identities by matching each frame's contacts to the
/// previous frame's.
///
/// Protocol A (kernel Documentation/input/multi-touch-protocol.rst) re-sends every contact in every
/// frame, separated by `SYN_MT_REPORT`, in no particular order and without tracking ids. The matcher
/// pairs current contacts with previous ones so that the **sum of the distances** (in millimetres) of
/// the pairs is minimal, with these rules:
///
/// - A pair farther apart than `maximumJumpMillimeters` is never formed: the previous contact ends and
///   the current one is new.
/// - Every contact left unpaired (a previous one that ends, a current one that begins) costs
///   `maximumJumpMillimeters`. Pairing two contacts therefore always beats leaving both unpaired, so the
///   matcher keeps as many ids as it can and, among those matchings, picks the one of least total
///   distance.
/// - Up to `exactLimit` contacts on either side the assignment is optimal: a dynamic programme over
///   (current contact, subset of previous contacts used), O(n * m * 2^m) with m <= 8, i.e. at most a few
///   thousand steps. Beyond that (rare: more than 8 fingers on a protocol A panel) it is greedy: the
///   closest allowed pair first, then the next closest among the rest, which is what mtdev-like
///   trackers degrade to as well.
/// - Ties are broken by index order, so the result is deterministic.
///
/// All scratch storage is allocated once; `match` does not allocate.
public struct ProtocolAMatcher: Sendable {
    /// Distance beyond which a contact is treated as a new finger rather than a moved one. 40 mm is a
    /// 2 m/s flick (a fast swipe) at a 50 Hz report rate; protocol A panels such as N-Trig report at
    /// 60-100 Hz, so real motion stays well inside it while a lift-and-land elsewhere does not.
    public var maximumJumpMillimeters: Double
    /// Largest count (of current and of previous contacts) solved exactly.
    public static let exactLimit = 8

    private var table: [Double]
    private var choice: [Int8]
    private var used: [Bool]

    public init(maximumJumpMillimeters: Double = 40) {
        self.maximumJumpMillimeters =
            maximumJumpMillimeters.isFinite && maximumJumpMillimeters > 0 ? maximumJumpMillimeters : 40
        let states = (ProtocolAMatcher.exactLimit + 1) << ProtocolAMatcher.exactLimit
        table = Array(repeating: 0, count: states)
        choice = Array(repeating: -1, count: states)
        used = Array(repeating: false, count: DeviceDescription.protocolAContactLimit * 4)
    }

    /// Matches `current` contacts to `previous` ones.
    ///
    /// - Parameters:
    ///   - previous: positions (mm) of the contacts of the last frame.
    ///   - current: positions (mm) of the contacts of this frame.
    ///   - assignment: replaced by one entry per current contact: the index into `previous` it continues,
    ///     or -1 for a new contact. Previous indices that appear nowhere have ended.
    public mutating func match(previous: [Point], current: [Point], into assignment: inout [Int]) {
        assignment.removeAll(keepingCapacity: true)
        for _ in current.indices { assignment.append(-1) }
        if previous.isEmpty || current.isEmpty { return }
        if previous.count <= ProtocolAMatcher.exactLimit && current.count <= ProtocolAMatcher.exactLimit {
            matchExactly(previous: previous, current: current, into: &assignment)
        } else {
            matchGreedily(previous: previous, current: current, into: &assignment)
        }
    }

    /// Distance of a pair, or nil when the pair is not allowed (too far, or not a finite number).
    @inline(__always)
    private func cost(_ a: Point, _ b: Point) -> Double? {
        let d = a.distance(to: b)
        return d.isFinite && d <= maximumJumpMillimeters ? d : nil
    }

    /// table[i][mask]: least cost of deciding current contacts 0..<i using exactly the previous
    /// contacts in `mask`; choice records the decision for contact i-1 (-1 unpaired, else the index).
    private mutating func matchExactly(previous: [Point], current: [Point], into assignment: inout [Int]) {
        let m = previous.count
        let n = current.count
        let width = 1 << m
        let penalty = maximumJumpMillimeters
        for index in 0..<((n + 1) * width) { table[index] = .infinity }
        table[0] = 0
        for i in 0..<n {
            let row = i * width
            let next = row + width
            for mask in 0..<width {
                let base = table[row + mask]
                if base == .infinity { continue }
                // Leave current contact i unpaired.
                let skip = base + penalty
                if skip < table[next + mask] {
                    table[next + mask] = skip
                    choice[next + mask] = -1
                }
                for j in 0..<m where mask & (1 << j) == 0 {
                    guard let d = cost(current[i], previous[j]) else { continue }
                    let target = next + (mask | (1 << j))
                    if base + d < table[target] {
                        table[target] = base + d
                        choice[target] = Int8(j)
                    }
                }
            }
        }
        // Previous contacts left out cost the penalty each.
        var bestMask = 0
        var best = Double.infinity
        let last = n * width
        for mask in 0..<width where table[last + mask] != .infinity {
            let total = table[last + mask] + penalty * Double(m - mask.nonzeroBitCount)
            if total < best {
                best = total
                bestMask = mask
            }
        }
        var mask = bestMask
        var i = n
        while i > 0 {
            let j = Int(choice[i * width + mask])
            if j >= 0 {
                assignment[i - 1] = j
                mask &= ~(1 << j)
            }
            i -= 1
        }
    }

    /// Closest allowed pair first, repeatedly. O(min(n, m) * n * m) without allocation.
    private mutating func matchGreedily(previous: [Point], current: [Point], into assignment: inout [Int]) {
        let m = min(previous.count, used.count)
        for j in 0..<m { used[j] = false }
        while true {
            var bestI = -1
            var bestJ = -1
            var best = Double.infinity
            for i in current.indices where assignment[i] < 0 {
                for j in 0..<m where !used[j] {
                    if let d = cost(current[i], previous[j]), d < best {
                        best = d
                        bestI = i
                        bestJ = j
                    }
                }
            }
            if bestI < 0 { return }
            assignment[bestI] = bestJ
            used[bestJ] = true
        }
    }
}
