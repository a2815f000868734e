import Gestures
import MultitouchCore

/// A gesture engine event about one device: on the wire a `session`, `gesture` (segment update), `tap`,
/// `doubleTap` or `longPress` message, one per `GestureEvent` case. The engine's event types are the
/// protocol's vocabulary (docs/GESTURES.md defines the fields), so they are carried as they are.
public struct GestureMessage: Hashable, Sendable {
    public var device: Int
    public var event: GestureEvent
    /// On a routed connection, the region whose own gesture session this is; nil for the whole device.
    public var region: String?
    /// `predictedMatrix` of an update: the matrix the content should show at the update's time plus
    /// the client's prediction horizon (the engine applied to the predicted touches); nil unless
    /// prediction was asked for.
    public var predictedMatrix: AffineTransform?

    public init(device: Int, event: GestureEvent, region: String? = nil, predictedMatrix: AffineTransform? = nil) {
        self.predictedMatrix = predictedMatrix
        self.device = device
        self.event = event
        self.region = region
    }

    /// The wire type of the event.
    public var kind: MessageKind {
        switch event {
        case .sessionBegan, .sessionEnded: return .session
        case .update: return .gesture
        case .tap: return .tap
        case .doubleTap: return .doubleTap
        case .longPress: return .longPress
        }
    }

    /// Writes `"device"` and the event's fields.
    func writeFields(to w: inout JSONWriter) {
        w.key("device")
        w.int(device)
        if let region {
            w.key("region")
            w.string(region)
        }
        switch event {
        case .sessionBegan(let session, let time):
            w.key("time")
            w.time(time)
            w.key("session")
            w.int(session)
            w.key("phase")
            w.rawString("began")
        case .sessionEnded(let session, let time, let cancelled):
            w.key("time")
            w.time(time)
            w.key("session")
            w.int(session)
            w.key("phase")
            if cancelled { w.rawString("cancelled") } else { w.rawString("ended") }
        case .update(let u):
            w.key("time")
            w.time(u.time)
            w.key("session")
            w.int(u.session)
            w.key("seq")
            w.int(u.seq)
            w.key("phase")
            w.string(u.phase.rawValue)
            w.key("mode")
            w.string(u.mode.rawValue)
            w.key("fingers")
            w.int(u.fingers)
            w.key("centroid")
            w.point(u.centroid.x, u.centroid.y)
            w.key("translation")
            w.point(u.translation.x, u.translation.y)
            w.key("scale")
            w.double(u.scale)
            w.key("rotation")
            w.double(u.rotation)
            w.key("velocity")
            w.beginObject()
            w.key("translation")
            w.point(u.velocity.translation.x, u.velocity.translation.y)
            w.key("scale")
            w.double(u.velocity.scale)
            w.key("rotation")
            w.double(u.velocity.rotation)
            w.endObject()
            w.key("matrix")
            w.transform(u.matrix)
            if let predictedMatrix {
                w.key("predictedMatrix")
                w.transform(predictedMatrix)
            }
        case .tap(let session, let time, let location, let tapCount, let fingers):
            w.key("time")
            w.time(time)
            w.key("session")
            w.int(session)
            w.key("location")
            w.point(location.x, location.y)
            w.key("tapCount")
            w.int(tapCount)
            w.key("fingers")
            w.int(fingers)
        case .doubleTap(let session, let time, let location, let matrix):
            w.key("time")
            w.time(time)
            w.key("session")
            w.int(session)
            w.key("location")
            w.point(location.x, location.y)
            w.key("matrix")
            w.transform(matrix)
        case .longPress(let session, let time, let phase, let location, let fingers):
            w.key("time")
            w.time(time)
            w.key("session")
            w.int(session)
            w.key("phase")
            w.string(phase.rawValue)
            w.key("location")
            w.point(location.x, location.y)
            w.key("fingers")
            w.int(fingers)
        }
    }

    /// Reads a message of one of the gesture kinds.
    init(kind: MessageKind, reading f: FieldReader) throws(WireDecodingError) {
        let device: Int = try f.integer("device")
        let time = try f.time("time")
        let session = try f.integer("session", as: UInt64.self)
        let event: GestureEvent
        switch kind {
        case .session:
            switch try f.enumeration("phase", as: GesturePhase.self) {
            case .began: event = .sessionBegan(session: session, time: time)
            case .ended: event = .sessionEnded(session: session, time: time, cancelled: false)
            case .cancelled: event = .sessionEnded(session: session, time: time, cancelled: true)
            case .changed: throw f.failure("phase", "of a session is began, ended or cancelled, not changed")
            }
        case .gesture:
            let velocity = try f.object("velocity")
            event = .update(
                GestureUpdate(
                    session: session, seq: try f.integer("seq", as: UInt64.self), time: time,
                    phase: try f.enumeration("phase"), mode: try f.enumeration("mode"),
                    fingers: try f.integer("fingers"),
                    centroid: try f.point("centroid"), translation: try f.point("translation"),
                    scale: try f.double("scale"), rotation: try f.double("rotation"),
                    velocity: GestureVelocity(
                        translation: try velocity.point("translation"), scale: try velocity.double("scale"),
                        rotation: try velocity.double("rotation")),
                    matrix: try f.transform("matrix")))
        case .tap:
            event = .tap(
                session: session, time: time, location: try f.point("location"), tapCount: try f.integer("tapCount"),
                fingers: try f.integer("fingers"))
        case .doubleTap:
            event = .doubleTap(
                session: session, time: time, location: try f.point("location"), matrix: try f.transform("matrix"))
        case .longPress:
            event = .longPress(
                session: session, time: time, phase: try f.enumeration("phase"), location: try f.point("location"),
                fingers: try f.integer("fingers"))
        case .hello, .deviceAdded, .deviceRemoved, .touches, .dropped, .error, .pong, .subscribed, .unsubscribed,
            .stats, .transform, .regions, .recognized:
            throw WireDecodingError("\(kind.rawValue) is not a gesture message")
        }
        self.init(
            device: device, event: event, region: try f.optionalString("region"),
            predictedMatrix: kind == .gesture && f.optionalValue("predictedMatrix") != nil
                ? try f.transform("predictedMatrix") : nil)
    }
}

extension JSONWriter {
    /// `[a, b, c, d, tx, ty]` (CGAffineTransform order).
    mutating func transform(_ t: AffineTransform) {
        beginArray()
        double(t.a)
        double(t.b)
        double(t.c)
        double(t.d)
        double(t.tx)
        double(t.ty)
        endArray()
    }
}

extension Message {
    /// This message without predictions (`predicted` touches, `predictedMatrix`): what a client that
    /// asked for none receives when the daemon predicts for another.
    public var withoutPredictions: Message {
        switch self {
        case .touches(var m):
            guard m.touches.contains(where: { $0.predicted != nil }) else { return self }
            for i in m.touches.indices { m.touches[i].predicted = nil }
            return .touches(m)
        case .gesture(var m):
            guard m.predictedMatrix != nil else { return self }
            m.predictedMatrix = nil
            return .gesture(m)
        case .hello, .deviceAdded, .deviceRemoved, .dropped, .error, .pong, .subscribed, .unsubscribed, .stats,
            .transform, .regions, .recognized:
            return self
        }
    }
}
