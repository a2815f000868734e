/// How a touchscreen maps onto a display output: its size in pixels, the rotation of the panel relative
/// to the output, and a libinput-style calibration matrix applied to normalized coordinates first.
public struct OutputMapping: Hashable, Sendable {
    /// Output size in pixels.
    public var width: Double
    public var height: Double
    /// Clockwise rotation in degrees: 0, 90, 180 or 270.
    public var rotation: Int
    /// Row-major 2x3 (the top of libinput's 3x3 LIBINPUT_CALIBRATION_MATRIX) over normalized 0...1
    /// coordinates: x' = m[0]*x + m[1]*y + m[2], y' = m[3]*x + m[4]*y + m[5].
    public var calibration: [Double]

    public static let identityCalibration: [Double] = [1, 0, 0, 0, 1, 0]

    public init(
        width: Double, height: Double, rotation: Int = 0, calibration: [Double] = OutputMapping.identityCalibration
    ) {
        self.width = width
        self.height = height
        self.rotation = rotation
        self.calibration = calibration
    }
}

/// Converts raw device units into the three spaces a touch carries (normalized, millimetres, published).
/// Built once per device from its description and the configured output mapping.
public struct CoordinateMapper: Hashable, Sendable {
    public let xAxis: AxisInfo
    public let yAxis: AxisInfo
    /// Device units per millimetre actually used (the axis resolution, or the fallback).
    public let unitsPerMillimeterX: Double
    public let unitsPerMillimeterY: Double
    /// How the millimetre scale was found: "resolution", "configured size" or "nominal size".
    public let scaleSource: String
    public let output: OutputMapping?
    public let units: PublishedUnits

    /// Width the fallback gives a touchscreen that reports no resolution and has no configured size:
    /// a 13.3" 16:9 panel is about 294 mm wide (ours; libinput has no such default for touchscreens).
    public static let nominalTouchscreenWidthMillimeters = 294.0
    /// Width the fallback gives a touchpad without resolution: libinput's touchpad code assumes a
    /// 69 x 50 mm pad when it must guess (evdev-mt-touchpad.c, "hysteresis" fallback).
    public static let nominalTouchpadWidthMillimeters = 69.0

    /// - Parameters:
    ///   - description: the device; its position axes decide the ranges.
    ///   - output: where a touchscreen's coordinates go; nil publishes millimetres.
    ///   - configuredSize: physical (width, height) in mm for a device without axis resolution.
    public init(description: DeviceDescription, output: OutputMapping? = nil, configuredSize: (Double, Double)? = nil) {
        let axes = description.positionAxes ?? (AxisInfo(minimum: 0, maximum: 1), AxisInfo(minimum: 0, maximum: 1))
        xAxis = axes.x
        yAxis = axes.y
        let spanX = Swift.max(1, axes.x.span)
        let spanY = Swift.max(1, axes.y.span)
        if axes.x.resolution > 0 && axes.y.resolution > 0 {
            unitsPerMillimeterX = Double(axes.x.resolution)
            unitsPerMillimeterY = Double(axes.y.resolution)
            scaleSource = "resolution"
        } else if let size = configuredSize, size.0 > 0, size.1 > 0, size.0.isFinite, size.1.isFinite {
            unitsPerMillimeterX = spanX / size.0
            unitsPerMillimeterY = spanY / size.1
            scaleSource = "configured size"
        } else {
            // Square units: both axes get the same units-per-mm, chosen so the X span is nominal wide.
            let width =
                description.deviceClass == .touchpad
                ? CoordinateMapper.nominalTouchpadWidthMillimeters : CoordinateMapper.nominalTouchscreenWidthMillimeters
            unitsPerMillimeterX = spanX / width
            unitsPerMillimeterY = unitsPerMillimeterX
            scaleSource = "nominal size"
        }
        if description.deviceClass == .touchscreen, let output {
            self.output = output
            units = .pixels
        } else {
            self.output = nil
            units = .millimeters
        }
    }

    /// Physical size in millimetres (width, height).
    public var sizeMillimeters: (width: Double, height: Double) {
        (Swift.max(1, xAxis.span) / unitsPerMillimeterX, Swift.max(1, yAxis.span) / unitsPerMillimeterY)
    }

    @inlinable public func normalized(x: Int32, y: Int32) -> Point {
        Point(
            x: (Double(x) - Double(xAxis.minimum)) / Swift.max(1, xAxis.span),
            y: (Double(y) - Double(yAxis.minimum)) / Swift.max(1, yAxis.span))
    }

    @inlinable public func millimeters(x: Int32, y: Int32) -> Point {
        Point(
            x: (Double(x) - Double(xAxis.minimum)) / unitsPerMillimeterX,
            y: (Double(y) - Double(yAxis.minimum)) / unitsPerMillimeterY)
    }

    /// The published location for a normalized position and its millimetre position.
    public func published(normalized n: Point, millimeters mm: Point) -> Point {
        guard let output else { return mm }
        let c = output.calibration.count == 6 ? output.calibration : OutputMapping.identityCalibration
        let cx = c[0] * n.x + c[1] * n.y + c[2]
        let cy = c[3] * n.x + c[4] * n.y + c[5]
        let r: Point
        switch ((output.rotation % 360) + 360) % 360 {
        case 90: r = Point(x: 1 - cy, y: cx)
        case 180: r = Point(x: 1 - cx, y: 1 - cy)
        case 270: r = Point(x: cy, y: 1 - cx)
        default: r = Point(x: cx, y: cy)
        }
        return Point(x: r.x * output.width, y: r.y * output.height)
    }

    /// Converts a length in device units along X to millimetres (used for touch radii).
    @inlinable public func millimeters(unitsX: Int32) -> Double { Double(unitsX) / unitsPerMillimeterX }
}
