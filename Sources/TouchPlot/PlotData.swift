import MultitouchCore
import TouchVocabulary

/// Everything a plot of one device's replay shows, in the device's published space and the
/// recording's own time: the touches' trails, the gesture segments, the discrete gestures and the
/// cumulative transform over time. Built by `PlotRecorder` from what the pipeline computes; drawn by
/// `SVGPlot`. Pure data: the same replay gives an equal value.
public struct PlotData: Hashable, Sendable {
    /// The recording's file name, shown in the title.
    public var title: String
    public var deviceName: String
    public var deviceClass: DeviceClass
    /// Units of every location and translation here (pixels of a mapped output, else millimetres).
    public var units: PublishedUnits
    /// Extent of the published space: the device outline is (0, 0) to (width, height).
    public var width: Double
    public var height: Double
    /// Time of the device's first and last frame (equal when there was at most one frame).
    public var start: Timestamp
    public var end: Timestamp
    /// Touch frames the pipeline produced.
    public var frameCount: Int
    /// One trail per touch, in the order the touches landed.
    public var trails: [TouchTrail]
    /// Every pan and pinchRotate segment, in the order they began.
    public var segments: [PlotSegment]
    /// Taps, double taps and long presses, in time order.
    public var marks: [GestureMark]
    /// The cumulative transform after every change (gesture updates and double-tap zooms), starting
    /// with the identity at `start`.
    public var transforms: [TransformSample]
    /// Fingers on the surface, one entry per change, starting with 0 at `start`.
    public var fingers: [FingerSample]

    public init(
        title: String, deviceName: String, deviceClass: DeviceClass, units: PublishedUnits, width: Double,
        height: Double
    ) {
        self.title = title
        self.deviceName = deviceName
        self.deviceClass = deviceClass
        self.units = units
        self.width = width
        self.height = height
        start = Timestamp(microseconds: 0)
        end = start
        frameCount = 0
        trails = []
        segments = []
        marks = []
        transforms = []
        fingers = []
    }
}

/// One touch from landing to lift.
public struct TouchTrail: Hashable, Sendable {
    public var id: UInt64
    public var points: [TrailPoint]
    /// `ended` or `cancelled`; nil when the replay ended with the touch still down (it never does
    /// for a whole recording: the pipeline cancels every touch at the end).
    public var end: TouchPhase?

    public init(id: UInt64, points: [TrailPoint] = [], end: TouchPhase? = nil) {
        self.id = id
        self.points = points
        self.end = end
    }
}

/// Where a touch was in one frame, and which segment (index into `PlotData.segments`) was running
/// after that frame, if any.
public struct TrailPoint: Hashable, Sendable {
    public var time: Timestamp
    public var location: Point
    public var segment: Int?

    public init(time: Timestamp, location: Point, segment: Int?) {
        self.time = time
        self.location = location
        self.segment = segment
    }
}

/// One gesture segment: a run of updates with a fixed mode and finger count.
public struct PlotSegment: Hashable, Sendable {
    public var session: UInt64
    public var mode: GestureMode
    public var fingers: Int
    public var began: Timestamp
    /// Time of the `ended`/`cancelled` update; nil when none came.
    public var ended: Timestamp?
    public var cancelled: Bool
    /// The fingers' centroid when the segment began.
    public var centroid: Point

    public init(session: UInt64, mode: GestureMode, fingers: Int, began: Timestamp, centroid: Point) {
        self.session = session
        self.mode = mode
        self.fingers = fingers
        self.began = began
        self.centroid = centroid
        ended = nil
        cancelled = false
    }
}

/// A discrete gesture at a place and time.
public struct GestureMark: Hashable, Sendable {
    /// What happened.
    public enum Kind: Hashable, Sendable {
        case tap(count: Int, fingers: Int)
        case doubleTap
        case longPress(LongPressPhase, fingers: Int)
    }

    public var kind: Kind
    public var time: Timestamp
    public var location: Point

    public init(kind: Kind, time: Timestamp, location: Point) {
        self.kind = kind
        self.time = time
        self.location = location
    }
}

/// The cumulative transform at one time, as the timeline draws it.
public struct TransformSample: Hashable, Sendable {
    public var time: Timestamp
    /// Uniform scale of the matrix (square root of its determinant).
    public var scale: Double
    /// Radians, unwrapped across samples (a +400 degree twist reads 6.98, not 0.70).
    public var rotation: Double
    /// The matrix's translation (tx, ty) in published units.
    public var translation: Point

    public init(time: Timestamp, scale: Double, rotation: Double, translation: Point) {
        self.time = time
        self.scale = scale
        self.rotation = rotation
        self.translation = translation
    }
}

/// Fingers on the surface from `time` on.
public struct FingerSample: Hashable, Sendable {
    public var time: Timestamp
    public var count: Int

    public init(time: Timestamp, count: Int) {
        self.time = time
        self.count = count
    }
}
