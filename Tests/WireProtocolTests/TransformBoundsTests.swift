import Gestures
import MultitouchCore
import Testing
import WireProtocol

/// `TransformBounds.validate`: what a `setTransform` matrix may hold (issue 11: a tx of 1.7e308 was
/// accepted and later overflowed every gesture matrix of the device).
@Suite struct TransformBoundsTests {
    static let sane: [[Double]] = [
        [1.0, 0, 0, 1, 0, 0], [2, 0.5, -0.5, 2, 300, -200], [0, 1, -1, 0, 1e9, -1e9], [1e6, 0, 0, 1e6, 0, 0],
        [1e-6, 0, 0, 1e-6, 0, 0], [-1, 0, 0, 1, 5, 5], [1e6, 1e6, -1e-6, 1e-6, 0, 0],
    ]

    @Test(arguments: sane)
    func saneMatricesAreAccepted(matrix: [Double]) throws {
        let transform = try TransformBounds.validate(matrix).get()
        #expect(transform.components == matrix)
    }

    static let outOfRange: [(matrix: [Double], entry: Int, message: String)] = [
        (
            [1.0, 0, 0, 1, 1.7e308, 1.7e308], 4,
            "\"matrix\" entry tx = 1.7e+308 is out of range; |tx| and |ty| must be at most 1e9"
        ),
        (
            [1, 0, 0, 1, 0, -1e9 - 1], 5,
            "\"matrix\" entry ty = -1000000001.0 is out of range; |tx| and |ty| must be at most 1e9"
        ),
        (
            [1e6 + 1, 0, 0, 1, 0, 0], 0,
            "\"matrix\" entry a = 1000001.0 is out of range; |a|, |b|, |c| and |d| must be at most 1e6"
        ),
        (
            [1, 0, 0, -1e300, 0, 0], 3,
            "\"matrix\" entry d = -1e+300 is out of range; |a|, |b|, |c| and |d| must be at most 1e6"
        ),
        ([Double.nan, 0, 0, 1, 0, 0], 0, "\"matrix\" entry a is not finite"),
        ([1, 0, .infinity, 1, 0, 0], 2, "\"matrix\" entry c is not finite"),
        ([1, 0, 0, 1, 0, -.infinity], 5, "\"matrix\" entry ty is not finite"),
    ]

    @Test(arguments: outOfRange)
    func outOfRangeEntriesAreNamed(matrix: [Double], entry: Int, message: String) {
        #expect(TransformBounds.validate(matrix) == .failure(TransformBoundsError(entry: entry, message: message)))
    }

    static let singular: [(matrix: [Double], message: String)] = [
        (
            [0.0, 0, 0, 0, 1, 1],
            "\"matrix\" is not invertible (a*d - b*c = 0); |a*d - b*c| must be between 1e-12 and 1e12"
        ),
        (
            [1, 2, 2, 4, 0, 0],
            "\"matrix\" is not invertible (a*d - b*c = 0); |a*d - b*c| must be between 1e-12 and 1e12"
        ),
        ([0.5, 0, 0, 1e-12, 0, 0], "\"matrix\" has a*d - b*c = 5e-13; |a*d - b*c| must be between 1e-12 and 1e12"),
    ]

    @Test(arguments: singular)
    func determinantOutOfRangeIsRefused(matrix: [Double], message: String) {
        #expect(TransformBounds.validate(matrix) == .failure(TransformBoundsError(entry: nil, message: message)))
    }

    @Test func aDeterminantAboveTheRangeIsRefused() {
        let result = TransformBounds.validate([1e6, 1e6, -1e6, 1e6, 0, 0])
        #expect(
            result
                == .failure(
                    TransformBoundsError(
                        entry: nil,
                        message:
                            "\"matrix\" has a*d - b*c = 2000000000000.0; |a*d - b*c| must be between 1e-12 and 1e12")))
    }

    @Test(arguments: [0, 5, 7])
    func anyOtherCountIsRefused(count: Int) {
        let result = TransformBounds.validate(Array(repeating: 1, count: count))
        #expect(
            result
                == .failure(
                    TransformBoundsError(
                        entry: nil, message: "\"matrix\" must hold 6 numbers [a, b, c, d, tx, ty], got \(count)")))
    }

    /// The promise behind the bounds: any accepted base, composed with the largest similarity a segment
    /// can reach (scale limited to maximumScale / sqrt|det|, centroids anywhere in a 1e5-unit surface),
    /// stays finite, and so does its inverse.
    @Test func acceptedBasesComposeWithoutOverflow() throws {
        let corners: [[Double]] = [
            [1e6, 0, 0, 2e-18, 1e9, 1e9], [7e5, 7e5, -7e5, 7e5, -1e9, 1e9], [1e-6, 0, 0, 2e-6, 1e9, -1e9],
            [0, 1e6, -1e-6, 0, 1e9, 1e9], [-1e6, 1e-6, 1e-6, 1e6, -1e9, -1e9],
        ]
        for corner in corners {
            let base = try TransformBounds.validate(corner).get()
            #expect(base.inverted() != nil, "\(corner)")
            let scale = GestureConfiguration.default.maximumScale / base.scaleFactor
            for rotation in stride(from: -3.0, through: 3.0, by: 0.75) {
                let segment = AffineTransform.pivot(
                    from: Point(x: -1e5, y: 1e5), to: Point(x: 1e5, y: -1e5), scale: max(1, scale), rotation: rotation)
                #expect(segment.concatenating(after: base).isFinite, "\(corner) rotated \(rotation)")
            }
        }
    }
}
