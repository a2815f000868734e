import Gestures
import MultitouchCore
import TouchRouting

/// A device as the pipeline serves it: its daemon id, where its input comes from, what the kernel
/// says it is and how its coordinates map (the publishing edge makes the wire's device object of it).
public struct PipelineDevice: Hashable, Sendable {
    public let id: Int
    /// The event node, or the recording's name for a replay.
    public let source: String
    public let description: DeviceDescription
    public let mapper: CoordinateMapper
    /// The class the device is served as, chosen once when its pipeline was made: every stage of the
    /// pipeline was configured with it, and the publishing edge reads it (the wire's `semiMT`).
    public let kind: DeviceKind

    /// - Parameter kind: nil: `description.kind`.
    public init(
        id: Int, source: String, description: DeviceDescription, mapper: CoordinateMapper, kind: DeviceKind? = nil
    ) {
        self.id = id
        self.source = source
        self.description = description
        self.mapper = mapper
        self.kind = kind ?? description.kind
    }

    public var name: String { description.name }
}

/// Why a device's input ended: the `deviceRemoved` reason clients read.
public enum DeviceEndReason: String, Hashable, Sendable {
    case endOfRecording = "end of recording"
    case unplugged
    case shutdown
    /// `multitouchctl listen`: the node went away.
    case deviceRemoved = "device removed"
    /// `multitouchctl listen`: SIGINT or SIGTERM.
    case interrupted
    /// `multitouchctl listen`: `--frames` or `--idle-exit` reached.
    case endOfInput = "end of input"
    /// `multitouchctl listen --timeout`.
    case timeout
}

/// Input the pipeline could not turn into touches.
public enum PipelineDrop: Hashable, Sendable {
    /// A recorded `SYN_DROPPED`: the events of the frame so far (`count`) are discarded.
    case synDropped(count: Int)
    /// The kernel buffer overflowed and the device state was re-read (the resync frame follows).
    case overflow
    /// A last frame without `SYN_REPORT` at the end of input (`count` events).
    case partialFrame(count: Int)
}

/// One frame's predicted touches at one horizon (docs/PREDICTION.md), for the streams that asked for it.
public struct FramePrediction: Hashable, Sendable {
    public var horizonMilliseconds: Int
    /// Where each live (not ending) touch of the frame is predicted to be, in the frame's order (empty
    /// for a timer's animation frame).
    public var locations: [Point]
    /// The cumulative transform content should show at the predicted time; nil when the frame's events
    /// carry no segment update.
    public var matrix: AffineTransform?

    public init(horizonMilliseconds: Int, locations: [Point], matrix: AffineTransform?) {
        self.horizonMilliseconds = horizonMilliseconds
        self.locations = locations
        self.matrix = matrix
    }
}

/// One tracked frame of one device and what each of its views made of it.
public struct PipelineFrame: Hashable, Sendable {
    public var device: Int
    /// The device's touches as the whole-device view shows them: secure touches (they began in an
    /// exclusive region) are left out and `fingerCount` drops by the live ones among them.
    public var frame: TouchFrame
    /// None of the whole-device view's touches changed (only secure ones did): the whole-device
    /// stream gets nothing for this frame.
    public var isWithheld: Bool
    /// The whole-device view's gesture events.
    public var events: [GestureEvent]
    /// The whole-device view's predictions, one per horizon its subscribers asked for, ascending.
    public var predictions: [FramePrediction]
    /// What the routing stage delivered for the frame, in order (empty without one): each region's
    /// touches and its own gesture session's events.
    public var routed: [RoutingDelivery]

    public init(
        device: Int, frame: TouchFrame, isWithheld: Bool = false, events: [GestureEvent],
        predictions: [FramePrediction] = [], routed: [RoutingDelivery] = []
    ) {
        self.device = device
        self.frame = frame
        self.isWithheld = isWithheld
        self.events = events
        self.predictions = predictions
        self.routed = routed
    }

    /// The prediction at `horizon` ms, if the whole-device view made one.
    public func prediction(horizonMilliseconds horizon: Int) -> FramePrediction? {
        predictions.first { $0.horizonMilliseconds == horizon }
    }
}

/// Deliveries of a device's routing stage that no frame caused: its regions' timers, requests that
/// cancel touches, the device's end.
public struct RoutedOutput: Hashable, Sendable {
    public var device: Int
    public var deliveries: [RoutingDelivery]

    public init(device: Int, deliveries: [RoutingDelivery]) {
        self.device = device
        self.deliveries = deliveries
    }
}

/// Everything a device pipeline produces, typed, in the order clients receive it. The publishing edge
/// (module Publishing) turns it into wire messages; checks, plots and the TUIO output read it as is.
public enum PipelineOutput: Hashable, Sendable {
    /// A device is served from now on.
    case deviceAdded(PipelineDevice)
    /// A note about a recording (an unsupported feature, a repaired stream), before its frames.
    case recordingNote(String)
    /// A tracked frame, its gesture events and (with a routing stage) its routed deliveries.
    case frame(PipelineFrame)
    /// The whole-device view's gesture timers that fired (tap after its double-tap wait, long press,
    /// animation frames), with the predicted matrix at each of its horizons for an animation frame.
    case timers(device: Int, events: [GestureEvent], predictions: [FramePrediction])
    case dropped(device: Int, time: Timestamp, PipelineDrop)
    /// Routing-stage deliveries no frame caused.
    case routed(RoutedOutput)
    /// The answer to a client's request (`DevicePipeline.handle(_:token:into:)`); what the request
    /// cancelled follows as `.routed`.
    case answer(PipelineAnswer)
    /// The device's input ended at `time`: everything it had open was cancelled before this.
    case ended(device: Int, time: Timestamp, reason: DeviceEndReason)

    /// The device the output is about; nil for a recording note.
    public var device: Int? {
        switch self {
        case .deviceAdded(let d): return d.id
        case .recordingNote: return nil
        case .frame(let f): return f.device
        case .timers(let device, _, _), .dropped(let device, _, _), .ended(let device, _, _): return device
        case .routed(let r): return r.device
        case .answer(let a): return a.device
        }
    }
}
