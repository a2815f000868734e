/// Works out UITouch.tapCount for the touches of one device.
///
/// UIKit semantics: a touch that ends quickly and without moving far is a tap. A touch that begins
/// within `intervalMilliseconds` of a tap's end and within `distanceMillimeters` of where it ended
/// continues that tap's series and gets its count plus one; any other touch starts at 1. Several recent
/// taps are remembered (one per finger of a two-finger double tap); a new touch takes the nearest
/// matching one and consumes it, so two fingers cannot both continue the same tap.
public struct TapCounter: Sendable {
    /// A tap that a later touch may continue.
    private struct RecentTap: Sendable {
        var endedAt: Timestamp
        var millimeters: Point
        var count: Int
    }

    public var parameters: TapCountParameters
    private var recent: [RecentTap]
    /// More simultaneous fingers than this in a multi-tap are not tracked; the oldest tap is forgotten.
    private static let capacity = 10

    public init(parameters: TapCountParameters = .default) {
        self.parameters = parameters
        recent = []
        recent.reserveCapacity(TapCounter.capacity)
    }

    /// The tap count of a touch beginning at `time`, `millimeters`.
    public mutating func touchBegan(at time: Timestamp, millimeters: Point) -> Int {
        var best = -1
        var bestDistance = Double.infinity
        var index = 0
        while index < recent.count {
            let since = time.milliseconds(since: recent[index].endedAt)
            // Stale taps (or ones from a timestamp that went backwards) can never match again.
            if !(since >= 0 && since <= parameters.intervalMilliseconds) {
                recent.remove(at: index)
                continue
            }
            let distance = millimeters.distance(to: recent[index].millimeters)
            if distance <= parameters.distanceMillimeters && distance < bestDistance {
                bestDistance = distance
                best = index
            }
            index += 1
        }
        guard best >= 0 else { return 1 }
        let count = recent[best].count
        recent.remove(at: best)
        return count == Int.max ? count : count + 1
    }

    /// Records the end of a touch; it becomes a tap that a later touch can continue when it was short
    /// and still. A cancelled touch is never a tap.
    ///
    /// - Parameters:
    ///   - travelMillimeters: the farthest the touch got from where it began.
    public mutating func touchEnded(
        at time: Timestamp, millimeters: Point, beganAt: Timestamp, travelMillimeters: Double, tapCount: Int
    ) {
        let duration = time.milliseconds(since: beganAt)
        guard duration >= 0, duration <= parameters.maximumDurationMilliseconds,
            travelMillimeters <= parameters.maximumMovementMillimeters
        else { return }
        if recent.count >= TapCounter.capacity { recent.remove(at: 0) }
        recent.append(RecentTap(endedAt: time, millimeters: millimeters, count: tapCount))
    }

    /// Forgets every tap (e.g. after `cancelAll`).
    public mutating func reset() { recent.removeAll(keepingCapacity: true) }
}
