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

    /// Writes the whole message, exactly as `Message.gesture(self).write(to:)` does, without wrapping
    /// it in a `Message` (the daemon's publisher writes every gesture line this way).
    public func write(to w: inout JSONWriter) {
        // A whole-device segment update, one per frame while fingers move: the whole object through
        // one reservation (each writer call checks bounds and uniqueness, which one panning finger's
        // line paid about twenty times).
        if region == nil, case .update(let u) = event {
            w.withCursor(reserving: Self.maximumUpdateHeadLength + Self.maximumUpdateLength) { cursor in
                var c = cursor  // a local in registers (see `JSONCursor`)
                defer { cursor = c }
                c.text("{\"type\":")
                c.rawString(MessageKind.gesture.staticName)
                c.key(Keys.device)
                c.int(device)
                c.key(Keys.time)
                c.time(u.time)
                c.key(Keys.session)
                c.int(u.session)
                c.byte(UInt8(ascii: ","))
                writeUpdate(u, to: &c)
                c.byte(UInt8(ascii: "}"))
            }
            return
        }
        w.beginObject()
        w.key("type")
        w.rawString(kind.staticName)
        writeFields(to: &w)
        w.endObject()
    }

    /// May be coalesced away under backpressure (`Message.isDroppable`): a `changed` segment update.
    public var isDroppable: Bool {
        if case .update(let update) = event { return update.phase == .changed }
        return false
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

    /// The key table: every member of the five gesture messages (`velocity`'s own members are
    /// `VelocityKeys`); `keys(of:)` lists one message's, in the order they are written. The precision
    /// of each number is docs/PROTOCOL.md's "Number precision".
    enum Keys {
        static let device = FieldKey("device")
        static let region = FieldKey("region")
        static let time = FieldKey("time")
        static let session = FieldKey("session")
        static let seq = FieldKey("seq")
        static let phase = FieldKey("phase")
        static let mode = FieldKey("mode")
        static let fingers = FieldKey("fingers")
        static let centroid = FieldKey("centroid")
        static let translation = FieldKey("translation")
        static let scale = FieldKey("scale")
        static let rotation = FieldKey("rotation")
        static let velocity = FieldKey("velocity")
        static let matrix = FieldKey("matrix")
        static let predictedMatrix = FieldKey("predictedMatrix")
        static let location = FieldKey("location")
        static let tapCount = FieldKey("tapCount")

        /// The members of one gesture message, in the order they are written.
        static func keys(of kind: MessageKind) -> [FieldKey] {
            switch kind {
            case .session: return [device, region, time, session, phase]
            case .gesture:
                return [
                    device, region, time, session, seq, phase, mode, fingers, centroid, translation, scale, rotation,
                    velocity, matrix, predictedMatrix,
                ]
            case .tap: return [device, region, time, session, location, tapCount, fingers]
            case .doubleTap: return [device, region, time, session, location, matrix]
            case .longPress: return [device, region, time, session, phase, location, fingers]
            case .hello, .deviceAdded, .deviceRemoved, .touches, .dropped, .error, .pong, .subscribed, .unsubscribed,
                .stats, .transform, .regions, .recognized, .regionList:
                return []
            }
        }
    }

    /// The key table of a `gesture` message's `velocity` object.
    enum VelocityKeys {
        static let translation = FieldKey("translation")
        static let scale = FieldKey("scale")
        static let rotation = FieldKey("rotation")
        static let all = [translation, scale, rotation]
    }

    /// Writes `"device"` and the event's fields.
    func writeFields(to w: inout JSONWriter) {
        w.key(Keys.device)
        w.int(device)
        if let region {
            w.key(Keys.region)
            w.string(region)
        }
        switch event {
        case .sessionBegan(let session, let time):
            writeHead(session, time, to: &w)
            w.key(Keys.phase)
            w.rawString("began")
        case .sessionEnded(let session, let time, let cancelled):
            writeHead(session, time, to: &w)
            w.key(Keys.phase)
            if cancelled { w.rawString("cancelled") } else { w.rawString("ended") }
        case .update(let u):
            writeHead(u.session, u.time, to: &w)
            w.withCursor(reserving: Self.maximumUpdateLength) { cursor in
                var c = cursor  // a local in registers (see `JSONCursor`)
                writeUpdate(u, to: &c)
                cursor = c
            }
        case .tap(let session, let time, let location, let tapCount, let fingers):
            writeHead(session, time, to: &w)
            w.key(Keys.location)
            w.point(location.x, location.y, .three)
            w.key(Keys.tapCount)
            w.int(tapCount)
            w.key(Keys.fingers)
            w.int(fingers)
        case .doubleTap(let session, let time, let location, let matrix):
            writeHead(session, time, to: &w)
            w.key(Keys.location)
            w.point(location.x, location.y, .three)
            w.key(Keys.matrix)
            w.transform(matrix)
        case .longPress(let session, let time, let phase, let location, let fingers):
            writeHead(session, time, to: &w)
            w.key(Keys.phase)
            w.string(phase.rawValue)
            w.key(Keys.location)
            w.point(location.x, location.y, .three)
            w.key(Keys.fingers)
            w.int(fingers)
        }
    }

    /// The most bytes `write(to:)` puts before `writeUpdate` and after it: `{"type":"gesture"`, the
    /// device, time and session (three integers of at most 21 bytes with their keys) and the `}`.
    private static let maximumUpdateHeadLength = 128

    /// The most bytes `writeUpdate` writes: 14 keys of at most 15 bytes with punctuation, 21 numbers
    /// of at most 32 bytes, 2 integers of at most 20, 2 short strings, with room to spare.
    private static let maximumUpdateLength = 1024

    /// An update's members after `session`, through one reserved cursor (the hottest gesture
    /// message: one per frame while fingers move).
    @inline(__always)
    private func writeUpdate(_ u: GestureUpdate, to c: inout JSONCursor) {
        c.key(Keys.seq, first: true)  // `withCursor` wrote the comma after `session`
        c.int(u.seq)
        c.key(Keys.phase)
        switch u.phase {
        case .began: c.rawString("began")
        case .changed: c.rawString("changed")
        case .ended: c.rawString("ended")
        case .cancelled: c.rawString("cancelled")
        }
        c.key(Keys.mode)
        switch u.mode {
        case .pan: c.rawString("pan")
        case .pinchRotate: c.rawString("pinchRotate")
        case .quickZoom: c.rawString("quickZoom")
        case .momentum: c.rawString("momentum")
        case .animatedZoom: c.rawString("animatedZoom")
        }
        c.key(Keys.fingers)
        c.int(u.fingers)
        c.key(Keys.centroid)
        c.point(u.centroid.x, u.centroid.y, .three)
        c.key(Keys.translation)
        c.point(u.translation.x, u.translation.y, .three)
        c.key(Keys.scale)
        c.double(u.scale, .six)
        c.key(Keys.rotation)
        c.double(u.rotation, .six)
        c.key(Keys.velocity)
        c.byte(UInt8(ascii: "{"))
        c.key(VelocityKeys.translation, first: true)
        c.point(u.velocity.translation.x, u.velocity.translation.y, .three)
        c.key(VelocityKeys.scale)
        c.double(u.velocity.scale, .six)
        c.key(VelocityKeys.rotation)
        c.double(u.velocity.rotation, .six)
        c.byte(UInt8(ascii: "}"))
        c.key(Keys.matrix)
        c.transform(u.matrix)
        if let predictedMatrix {
            c.key(Keys.predictedMatrix)
            c.transform(predictedMatrix)
        }
    }

    /// `"time"` and `"session"`, which every gesture message has.
    private func writeHead(_ session: UInt64, _ time: Timestamp, to w: inout JSONWriter) {
        w.key(Keys.time)
        w.time(time)
        w.key(Keys.session)
        w.int(session)
    }

    /// Reads a message of one of the gesture kinds.
    init(kind: MessageKind, reading f: FieldReader) throws(WireDecodingError) {
        let device: Int = try f.integer(Keys.device.name)
        let time = try f.time(Keys.time.name)
        let session = try f.integer(Keys.session.name, as: UInt64.self)
        let event: GestureEvent
        switch kind {
        case .session:
            switch try f.enumeration(Keys.phase.name, as: GesturePhase.self) {
            case .began: event = .sessionBegan(session: session, time: time)
            case .ended: event = .sessionEnded(session: session, time: time, cancelled: false)
            case .cancelled: event = .sessionEnded(session: session, time: time, cancelled: true)
            case .changed: throw f.failure(Keys.phase.name, "of a session is began, ended or cancelled, not changed")
            }
        case .gesture:
            let velocity = try f.object(Keys.velocity.name)
            event = .update(
                GestureUpdate(
                    session: session, seq: try f.integer(Keys.seq.name, as: UInt64.self), time: time,
                    phase: try f.enumeration(Keys.phase.name), mode: try f.enumeration(Keys.mode.name),
                    fingers: try f.integer(Keys.fingers.name),
                    centroid: try f.point(Keys.centroid.name), translation: try f.point(Keys.translation.name),
                    scale: try f.double(Keys.scale.name), rotation: try f.double(Keys.rotation.name),
                    velocity: GestureVelocity(
                        translation: try velocity.point(VelocityKeys.translation.name),
                        scale: try velocity.double(VelocityKeys.scale.name),
                        rotation: try velocity.double(VelocityKeys.rotation.name)),
                    matrix: try f.transform(Keys.matrix.name)))
        case .tap:
            event = .tap(
                session: session, time: time, location: try f.point(Keys.location.name),
                tapCount: try f.integer(Keys.tapCount.name), fingers: try f.integer(Keys.fingers.name))
        case .doubleTap:
            event = .doubleTap(
                session: session, time: time, location: try f.point(Keys.location.name),
                matrix: try f.transform(Keys.matrix.name))
        case .longPress:
            event = .longPress(
                session: session, time: time, phase: try f.enumeration(Keys.phase.name),
                location: try f.point(Keys.location.name), fingers: try f.integer(Keys.fingers.name))
        case .hello, .deviceAdded, .deviceRemoved, .touches, .dropped, .error, .pong, .subscribed, .unsubscribed,
            .stats, .transform, .regions, .recognized, .regionList:
            throw WireDecodingError("\(kind.rawValue) is not a gesture message")
        }
        self.init(
            device: device, event: event, region: try f.optionalString(Keys.region.name),
            predictedMatrix: kind == .gesture && f.optionalValue(Keys.predictedMatrix.name) != nil
                ? try f.transform(Keys.predictedMatrix.name) : nil)
    }
}

extension JSONWriter {
    /// `[a, b, c, d, tx, ty]` (CGAffineTransform order): the linear part to six decimals like scales
    /// and angles, the translation to three like positions.
    mutating func transform(_ t: AffineTransform) {
        withCursor(reserving: 6 * JSONCursor.maximumNumberLength + 8) { $0.transform(t) }
    }

    /// `[a, b, c, d, tx, ty]` exactly (the shortest round-trip form): a request's matrix is the
    /// client's own, and the daemon checks it against `TransformBounds` as sent.
    mutating func exactTransform(_ t: AffineTransform) {
        beginArray()
        for value in [t.a, t.b, t.c, t.d, t.tx, t.ty] { double(value) }
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
            .transform, .regions, .recognized, .regionList:
            return self
        }
    }
}

extension JSONCursor {
    /// `[a, b, c, d, tx, ty]` as `JSONWriter.transform` writes it.
    mutating func transform(_ t: AffineTransform) {
        byte(UInt8(ascii: "["))
        double(t.a, .six)
        byte(UInt8(ascii: ","))
        double(t.b, .six)
        byte(UInt8(ascii: ","))
        double(t.c, .six)
        byte(UInt8(ascii: ","))
        double(t.d, .six)
        byte(UInt8(ascii: ","))
        double(t.tx, .three)
        byte(UInt8(ascii: ","))
        double(t.ty, .three)
        byte(UInt8(ascii: "]"))
    }
}
