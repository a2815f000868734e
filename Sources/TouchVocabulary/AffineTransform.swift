/// A 2-D affine transform in CGAffineTransform order: x' = a*x + c*y + tx, y' = b*x + d*y + ty.
/// Published as [a, b, c, d, tx, ty] in the device's published space.
public struct AffineTransform: Hashable, Sendable {
    public var a: Double, b: Double, c: Double, d: Double, tx: Double, ty: Double

    public init(a: Double, b: Double, c: Double, d: Double, tx: Double, ty: Double) {
        self.a = a
        self.b = b
        self.c = c
        self.d = d
        self.tx = tx
        self.ty = ty
    }

    public static let identity = AffineTransform(a: 1, b: 0, c: 0, d: 1, tx: 0, ty: 0)

    /// The six numbers in wire order.
    public var components: [Double] { [a, b, c, d, tx, ty] }

    public init?(components v: [Double]) {
        guard v.count == 6, v.allSatisfy(\.isFinite) else { return nil }
        self.init(a: v[0], b: v[1], c: v[2], d: v[3], tx: v[4], ty: v[5])
    }

    @inlinable public func apply(_ p: Point) -> Point {
        Point(x: a * p.x + c * p.y + tx, y: b * p.x + d * p.y + ty)
    }

    /// `self` applied after `first`: (self ∘ first)(p) = self(first(p)).
    public func concatenating(after first: AffineTransform) -> AffineTransform {
        AffineTransform(
            a: a * first.a + c * first.b,
            b: b * first.a + d * first.b,
            c: a * first.c + c * first.d,
            d: b * first.c + d * first.d,
            tx: a * first.tx + c * first.ty + tx,
            ty: b * first.tx + d * first.ty + ty)
    }

    /// The similarity S(p) = c + s * R(r) * (p - c0) of a pinchRotate segment (DESIGN.md).
    public static func pivot(from c0: Point, to c: Point, scale s: Double, rotation r: Double) -> AffineTransform {
        let cosR = s * _cos(r)
        let sinR = s * _sin(r)
        return AffineTransform(
            a: cosR, b: sinR, c: -sinR, d: cosR,
            tx: c.x - (cosR * c0.x - sinR * c0.y),
            ty: c.y - (sinR * c0.x + cosR * c0.y))
    }

    public static func translation(_ t: Point) -> AffineTransform {
        AffineTransform(a: 1, b: 0, c: 0, d: 1, tx: t.x, ty: t.y)
    }

    public var isFinite: Bool { a.isFinite && b.isFinite && c.isFinite && d.isFinite && tx.isFinite && ty.isFinite }
}

#if canImport(Glibc)
import Glibc
@usableFromInline func _cos(_ x: Double) -> Double { Glibc.cos(x) }
@usableFromInline func _sin(_ x: Double) -> Double { Glibc.sin(x) }
#elseif canImport(Darwin)
import Darwin
@usableFromInline func _cos(_ x: Double) -> Double { Darwin.cos(x) }
@usableFromInline func _sin(_ x: Double) -> Double { Darwin.sin(x) }
#endif

extension AffineTransform {
    /// a*d - b*c; zero for a singular transform.
    @inlinable public var determinant: Double { a * d - b * c }

    /// The uniform scale of a similarity (sqrt(|det|)); for a general affine, its area scale's root.
    @inlinable public var scaleFactor: Double { abs(determinant).squareRoot() }

    /// The rotation of a similarity in radians, atan2(b, a), in (-pi, pi].
    public var rotationAngle: Double { _atan2(b, a) }

    /// The inverse transform, nil when singular or not finite.
    public func inverted() -> AffineTransform? {
        let det = determinant
        guard det != 0, det.isFinite else { return nil }
        let ia = d / det
        let ib = -b / det
        let ic = -c / det
        let id = a / det
        let result = AffineTransform(
            a: ia, b: ib, c: ic, d: id,
            tx: -(ia * tx + ic * ty),
            ty: -(ib * tx + id * ty))
        return result.isFinite ? result : nil
    }

    /// Uniform scaling by `factor` that keeps `point` fixed (the double-tap zoom).
    public static func scaling(by factor: Double, about point: Point) -> AffineTransform {
        AffineTransform(
            a: factor, b: 0, c: 0, d: factor,
            tx: point.x - factor * point.x,
            ty: point.y - factor * point.y)
    }

    /// Largest component difference divided by max(1, largest component magnitude): the 1e-9
    /// "relative-ish" comparison the continuity invariant uses.
    public func relativeDifference(to other: AffineTransform) -> Double {
        let diff = max(
            abs(a - other.a), abs(b - other.b), abs(c - other.c), abs(d - other.d),
            abs(tx - other.tx), abs(ty - other.ty))
        let magnitude = max(
            1, abs(a), abs(b), abs(c), abs(d), abs(tx), abs(ty),
            abs(other.a), abs(other.b), abs(other.c), abs(other.d), abs(other.tx), abs(other.ty))
        return diff / magnitude
    }
}

#if canImport(Glibc)
@usableFromInline func _atan2(_ y: Double, _ x: Double) -> Double { Glibc.atan2(y, x) }
#elseif canImport(Darwin)
@usableFromInline func _atan2(_ y: Double, _ x: Double) -> Double { Darwin.atan2(y, x) }
#endif
