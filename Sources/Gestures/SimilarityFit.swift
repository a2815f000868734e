import MultitouchCore

/// The least-squares similarity between two placements of the same fingers: the scale `s` and rotation
/// `r` (about the centroids) that minimise sum |(q_i - cq) - s R(r) (p_i - cp)|^2, with the translation
/// carrying the start centroid `cp` onto the current centroid `cq` (the pivot stays at the centroid).
///
/// For two fingers this is exact: the ratio of their distances and the turn of the line through them.
/// For more, each finger weighs by its distance from the centroid, so a finger resting near the middle
/// (a palm edge, a thumb) cannot invent rotation the way a mean of per-finger angles does.
/// Pure arithmetic, no allocation: the caller passes the pairs through `add`.
public struct SimilarityFit: Sendable {
    private var count = 0
    private var sumP = Point.zero
    private var sumQ = Point.zero
    private var sumPX2 = 0.0
    private var sumPY2 = 0.0
    private var sumPXQX = 0.0, sumPXQY = 0.0, sumPYQX = 0.0, sumPYQY = 0.0

    public init() {}

    /// Adds one finger: `start` where it was at the reference, `current` where it is now.
    public mutating func add(start p: Point, current q: Point) {
        count += 1
        sumP = sumP + p
        sumQ = sumQ + q
        sumPX2 += p.x * p.x
        sumPY2 += p.y * p.y
        sumPXQX += p.x * q.x
        sumPXQY += p.x * q.y
        sumPYQX += p.y * q.x
        sumPYQY += p.y * q.y
    }

    /// Fingers added.
    public var fingers: Int { count }

    /// Centroid of the start positions.
    public var startCentroid: Point { count > 0 ? sumP / Double(count) : .zero }

    /// Centroid of the current positions.
    public var currentCentroid: Point { count > 0 ? sumQ / Double(count) : .zero }

    /// Scale and rotation (radians, in (-pi, pi]) of the best similarity; nil with fewer than two
    /// fingers or when the start positions coincide (no direction to measure a turn against).
    /// - Parameter minimumRadius: start positions whose RMS distance from the centroid is below this
    ///   count as coincident.
    public func solve(minimumRadius: Double = 1e-9) -> (scale: Double, rotation: Double)? {
        guard count >= 2 else { return nil }
        let n = Double(count)
        let cp = startCentroid
        let cq = currentCentroid
        // Centred sums from the raw ones: sum (p - cp)(q - cq) = sum p q - n cp cq.
        let pxqx = sumPXQX - n * cp.x * cq.x
        let pxqy = sumPXQY - n * cp.x * cq.y
        let pyqx = sumPYQX - n * cp.y * cq.x
        let pyqy = sumPYQY - n * cp.y * cq.y
        let norm = (sumPX2 + sumPY2) - n * (cp.x * cp.x + cp.y * cp.y)
        guard norm > minimumRadius * minimumRadius * n, norm.isFinite else { return nil }
        let a = (pxqx + pyqy) / norm
        let b = (pxqy - pyqx) / norm
        let scale = (a * a + b * b).squareRoot()
        guard scale.isFinite, scale > 0 else { return nil }
        return (scale, _atan2(b, a))
    }
}

#if canImport(Glibc)
import Glibc
private func _atan2(_ y: Double, _ x: Double) -> Double { Glibc.atan2(y, x) }
#elseif canImport(Darwin)
import Darwin
private func _atan2(_ y: Double, _ x: Double) -> Double { Darwin.atan2(y, x) }
#endif
