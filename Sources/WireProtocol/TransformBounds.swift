/// The cumulative transforms a client may set with `setTransform`, and the check the request decoder
/// applies before the engine sees one.
///
/// Any finite, invertible matrix used to be accepted, and `[1,0,0,1,1.7e308,1.7e308]` made later
/// gesture matrices overflow for every client of the device (issue 11). The bounds keep every product
/// the engine forms far from overflow while leaving room no real content needs:
///
/// - each of a, b, c, d within ±`maximumLinear` (1e6: a millionfold zoom);
/// - tx and ty within ±`maximumTranslation` (1e9 published units; a 4K screen is ~4e3 pixels wide);
/// - the magnitude of the determinant a*d - b*c within `determinantRange` (1e-12 to 1e12, a uniform
///   scale between 1e-6 and 1e6), which also keeps the inverse finite.
///
/// With these, a segment's similarity (scale at most `GestureConfiguration.maximumScale`) composed with
/// the base stays below about 1e17 in every entry, and the engine keeps the last finite matrix anyway.
public enum TransformBounds {
    /// Largest magnitude of a, b, c and d (the messages below spell the bounds out; keep them in step).
    public static let maximumLinear = 1e6
    /// Largest magnitude of tx and ty.
    public static let maximumTranslation = 1e9
    /// Smallest and largest magnitude of the determinant a*d - b*c.
    public static let determinantRange: ClosedRange<Double> = 1e-12...1e12

    /// The names of the six entries in wire order, as error messages use them.
    static let entryNames = ["a", "b", "c", "d", "tx", "ty"]

    /// Checks the six numbers of a `setTransform` `matrix` (`[a, b, c, d, tx, ty]`).
    ///
    /// Pure and total: any array of any numbers gets a transform or an error, never a trap.
    /// - Parameter components: the request's numbers, in wire order.
    /// - Returns: the transform, or the first rule it breaks as a `TransformBoundsError` whose
    ///   `message` is written for the client (the decoder sends it as a `bad-field` error).
    public static func validate(_ components: [Double]) -> Result<AffineTransform, TransformBoundsError> {
        guard components.count == 6 else {
            return .failure(
                TransformBoundsError(
                    entry: nil,
                    message: "\"matrix\" must hold 6 numbers [a, b, c, d, tx, ty], got \(components.count)"))
        }
        for (index, value) in components.enumerated() {
            let name = entryNames[index]
            guard value.isFinite else {
                return .failure(TransformBoundsError(entry: index, message: "\"matrix\" entry \(name) is not finite"))
            }
            let limit = index < 4 ? maximumLinear : maximumTranslation
            guard abs(value) <= limit else {
                return .failure(
                    TransformBoundsError(
                        entry: index,
                        message:
                            "\"matrix\" entry \(name) = \(value) is out of range; \(index < 4 ? "|a|, |b|, |c| and |d| must be at most 1e6" : "|tx| and |ty| must be at most 1e9")"
                    ))
            }
        }
        let transform = AffineTransform(
            a: components[0], b: components[1], c: components[2], d: components[3], tx: components[4],
            ty: components[5])
        let determinant = transform.determinant
        guard determinantRange.contains(abs(determinant)) else {
            let problem = determinant == 0 ? "is not invertible (a*d - b*c = 0)" : "has a*d - b*c = \(determinant)"
            return .failure(
                TransformBoundsError(
                    entry: nil,
                    message: "\"matrix\" \(problem); |a*d - b*c| must be between 1e-12 and 1e12"))
        }
        return .success(transform)
    }
}

/// Why `TransformBounds.validate(_:)` refused a matrix.
public struct TransformBoundsError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Index of the offending entry in `[a, b, c, d, tx, ty]`; nil for the count or the determinant.
    public var entry: Int?
    /// What is wrong, for the client.
    public var message: String

    /// An error about `entry` (nil: the whole matrix).
    public init(entry: Int?, message: String) {
        self.entry = entry
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
