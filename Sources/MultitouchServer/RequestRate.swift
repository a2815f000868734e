/// A token bucket per user for region requests (issue 19, docs/SECURITY.md "Limits"): every
/// `declareRegions`/`updateRegions` rebuilds the device's hit index, so one user's clients together may
/// send at most `perSecond` of them per second (bursts up to the same number), enough for a region
/// animated at 60 Hz by each of several programs, and a flood cannot keep the loop rebuilding. Time is
/// the hub's monotonic clock (virtual in tests).
struct RequestRate {
    let perSecond: Int
    private var buckets: [UInt32: (tokens: Double, at: UInt64)] = [:]

    init(perSecond: Int) { self.perSecond = perSecond }

    /// Takes one request of user `uid` at `now` (ns); false when the user's budget is spent.
    mutating func take(uid: UInt32, now: UInt64) -> Bool {
        let capacity = Double(perSecond)
        var bucket = buckets[uid] ?? (capacity, now)
        let elapsed = Double(now &- bucket.at) / 1e9
        bucket.tokens = min(capacity, bucket.tokens + elapsed * capacity)
        bucket.at = now
        let allowed = bucket.tokens >= 1
        if allowed { bucket.tokens -= 1 }
        // Full buckets are the default: forgetting them keeps the table to the users that are busy.
        buckets[uid] = bucket.tokens >= capacity ? nil : bucket
        return allowed
    }
}
