/// A token bucket per user (issue 19, docs/SECURITY.md "Limits"), on the hub's monotonic clock (virtual
/// in tests). The hub keeps two: region requests (each rebuilds a device's hit index) and the bytes of
/// large request lines (each is parsed, and its masks decoded, on the loop before anything can refuse
/// it). One user's clients share a bucket, so 16 connections cannot take 16 times the budget, and a
/// flood is refused after a burst instead of keeping the loop busy.
struct RequestRate {
    /// Tokens added per second.
    let perSecond: Int
    /// Most tokens a bucket holds: the largest burst.
    let capacity: Int
    private var buckets: [UInt32: (tokens: Double, at: UInt64)] = [:]

    init(perSecond: Int, capacity: Int) {
        self.perSecond = perSecond
        self.capacity = capacity
    }

    /// Takes `cost` tokens of user `uid` at `now` (ns); false (nothing taken) when the bucket holds fewer.
    mutating func take(uid: UInt32, now: UInt64, cost: Int = 1) -> Bool {
        let full = Double(capacity)
        var bucket = buckets[uid] ?? (full, now)
        let elapsed = Double(now &- bucket.at) / 1e9
        bucket.tokens = min(full, bucket.tokens + elapsed * Double(perSecond))
        bucket.at = now
        let allowed = bucket.tokens >= Double(cost)
        if allowed { bucket.tokens -= Double(cost) }
        // Full buckets are the default: forgetting them keeps the table to the users that are busy.
        buckets[uid] = bucket.tokens >= full ? nil : bucket
        return allowed
    }
}
