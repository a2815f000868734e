import MultitouchCore

/// The device's cumulative transform and the segment that publishes changes to it.
///
/// DESIGN.md: M = S_current * M_base. The published segment (`Segment`) carries its base (the M it
/// began with) and its reference point c0; its values are read back from M, so the matrix, the
/// translation, the scale and the rotation of an update always agree. A segment may be driven by a
/// measurement with a base of its own (`SegmentGeometry.base`): while a finger-count change settles,
/// the fingers that stay drive the segment that is still open, and its scale and rotation are the
/// product and sum of the finished part (`scaleFactor`, `rotationOffset`) and the driving part.
struct TransformStore: Sendable {
    /// The segment whose updates are being published.
    struct Segment: Sendable {
        var mode: GestureMode
        var fingers: Int
        var session: UInt64
        /// The published reference point (the `began` centroid).
        var c0: Point
        /// M when the segment began.
        var base: AffineTransform
        /// Scale and rotation of the part that no longer moves (a finished settle).
        var scaleFactor = 1.0
        var rotationOffset = 0.0
    }

    /// The last published cumulative transform M.
    private(set) var current: AffineTransform = .identity

    /// Sets M (a segment or animation computed it as S * base).
    mutating func set(_ m: AffineTransform) {
        guard m.isFinite else { return }
        current = m
    }

    /// S = M * base^-1 (identity when `base` is singular, which `setTransform` never allows).
    func relative(to base: AffineTransform) -> AffineTransform {
        guard let inverse = base.inverted() else { return .identity }
        return current.concatenating(after: inverse)
    }

    /// Where `segment`'s reference point is now: S(c0).
    func centroid(of segment: Segment) -> Point { relative(to: segment.base).apply(segment.c0) }

    /// A client replaced M with `t`: every running base moves so that its segment's own values continue
    /// (base' = S^-1 * T). Returns the new bases in the order given; nil when `t` is not finite or
    /// singular (a client bug the caller reports).
    mutating func replace(with t: AffineTransform, bases: [AffineTransform]) -> [AffineTransform]? {
        guard t.isFinite, t.inverted() != nil else { return nil }
        let moved = bases.map { base -> AffineTransform in
            guard let s = relative(to: base).inverted() else { return t }
            return s.concatenating(after: t)
        }
        current = t
        return moved
    }

    /// The zoom of a tap applied at once about `point`: M = Z * M with the factor limited like a
    /// segment's. Returns the factor applied (1 when nothing changed).
    mutating func zoom(by factor: Double, about point: Point, configuration c: GestureConfiguration) -> Double {
        let f = limitedFactor(factor, configuration: c)
        guard f != 1 else { return 1 }
        let zoomed = AffineTransform.scaling(by: f, about: point).concatenating(after: current)
        guard zoomed.isFinite else { return 1 }
        current = zoomed
        return f
    }

    /// `factor` limited so the cumulative scale stays within the configured limits (a factor that
    /// points further out of range than M already is becomes 1).
    func limitedFactor(_ factor: Double, configuration c: GestureConfiguration) -> Double {
        Self.limitedFactor(factor, cumulativeScale: current.scaleFactor, configuration: c)
    }

    /// `factor` limited so that a cumulative scale `k` times it stays within the configured limits.
    static func limitedFactor(
        _ factor: Double, cumulativeScale k: Double, configuration c: GestureConfiguration
    )
        -> Double
    {
        guard factor != 1, factor > 0, factor.isFinite else { return 1 }
        guard k > 0, k.isFinite else { return factor }
        return min(max(factor, min(1, c.minimumScale / k)), max(1, c.maximumScale / k))
    }

    /// The factor that brings the cumulative scale back inside the limits (1 when it is inside).
    func springBackFactor(configuration c: GestureConfiguration) -> Double {
        let k = current.scaleFactor
        guard k > 0, k.isFinite else { return 1 }
        if k > c.maximumScale { return c.maximumScale / k }
        if k < c.minimumScale { return c.minimumScale / k }
        return 1
    }
}
