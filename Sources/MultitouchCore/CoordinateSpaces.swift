/// The tracker's coordinate spaces, one type each, so that a device position cannot be mistaken for
/// millimetres or a normalized position (they are all `Point` once published in a `Touch`). The
/// conversions are `CoordinateMapper`'s, named after the space they produce.

/// A position in device units: the kernel's `ABS_MT_POSITION_X`/`Y` (or `ABS_X`/`Y`) values.
struct DevicePosition: Equatable, Sendable {
    var x: Int32 = 0
    var y: Int32 = 0
}

/// A position in millimetres from the axes' minimum corner (the sensor's physical space).
struct MillimeterPoint: Sendable {
    var point: Point

    static let zero = MillimeterPoint(point: .zero)

    @inline(__always) func distance(to other: MillimeterPoint) -> Double { point.distance(to: other.point) }
}

/// A position as a fraction of the axes' ranges, 0...1 (the input of an output mapping).
struct NormalizedPoint: Sendable {
    var point: Point
}

extension CoordinateMapper {
    @inline(__always) func millimeters(_ position: DevicePosition) -> MillimeterPoint {
        MillimeterPoint(point: millimeters(x: position.x, y: position.y))
    }

    @inline(__always) func normalized(_ position: DevicePosition) -> NormalizedPoint {
        NormalizedPoint(point: normalized(x: position.x, y: position.y))
    }

    /// The published location (the output mapping's space, or millimetres without one). A calibration
    /// matrix with NaN or infinity (bad configuration) must not leak out: millimetres then.
    @inline(__always) func published(_ normalized: NormalizedPoint, _ millimeters: MillimeterPoint) -> Point {
        guard output != nil else { return millimeters.point }
        let location = published(normalized: normalized.point, millimeters: millimeters.point)
        return location.isFinite ? location : millimeters.point
    }
}

extension Touch {
    /// `millimeters` as the tracker's typed space.
    @inline(__always) var millimeterPoint: MillimeterPoint { MillimeterPoint(point: millimeters) }
}
