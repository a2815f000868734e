/// A point or vector in a plane: millimetres, device units or published units depending on context;
/// the property that holds it says which.
public struct Point: Hashable, Sendable, CustomStringConvertible {
    public var x: Double
    public var y: Double

    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    public static let zero = Point(x: 0, y: 0)

    @inlinable public static func + (a: Point, b: Point) -> Point { Point(x: a.x + b.x, y: a.y + b.y) }
    @inlinable public static func - (a: Point, b: Point) -> Point { Point(x: a.x - b.x, y: a.y - b.y) }
    @inlinable public static func * (a: Point, s: Double) -> Point { Point(x: a.x * s, y: a.y * s) }
    @inlinable public static func / (a: Point, s: Double) -> Point { Point(x: a.x / s, y: a.y / s) }

    /// Euclidean length of this vector.
    @inlinable public var length: Double { (x * x + y * y).squareRoot() }

    @inlinable public func distance(to other: Point) -> Double { (self - other).length }

    public var isFinite: Bool { x.isFinite && y.isFinite }

    public var description: String { "(\(x), \(y))" }
}
