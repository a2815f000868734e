import MultitouchCore

/// The rectangle of a device's published space that TUIO's 0...1 square stands for: the whole
/// device (origin 0, its published width and height) or one region's rectangle.
public struct TUIOArea: Hashable, Sendable {
    public var origin: Point
    public var width: Double
    public var height: Double

    public init(origin: Point = .zero, width: Double, height: Double) {
        self.origin = origin
        self.width = width
        self.height = height
    }

    /// A published location as a fraction of the area (outside 0...1 when the point is outside it).
    /// A degenerate area maps everything to its origin's corner rather than dividing by zero.
    public func normalize(_ p: Point) -> Point {
        Point(
            x: width > 0 ? (p.x - origin.x) / width : 0,
            y: height > 0 ? (p.y - origin.y) / height : 0)
    }
}

/// One cursor of a frame as TUIO sees it: the daemon's touch id, its phase and its position in 0...1.
public struct TUIOCursorSample: Hashable, Sendable {
    public var id: UInt64
    public var phase: TouchPhase
    public var position: Point

    public init(id: UInt64, phase: TouchPhase, position: Point) {
        self.id = id
        self.phase = phase
        self.position = position
    }
}

/// One touch frame of one device (or region) ready for TUIO: its time and every touch in it, the
/// ended and cancelled ones included (they leave `alive`).
public struct TUIOFrame: Hashable, Sendable {
    public var time: Timestamp
    public var cursors: [TUIOCursorSample]

    public init(time: Timestamp, cursors: [TUIOCursorSample]) {
        self.time = time
        self.cursors = cursors
    }

    /// A pipeline frame, its published locations normalized over `area`.
    public init(frame: TouchFrame, area: TUIOArea) {
        self.init(
            time: frame.time,
            cursors: frame.touches.map {
                TUIOCursorSample(id: $0.id, phase: $0.phase, position: area.normalize($0.location))
            })
    }
}

/// Turns a device's touch frames into TUIO 1.1 `/tuio/2Dcur` bundles (tuio.org, "TUIO 1.1 Protocol
/// Specification"): one bundle per frame, or several when one datagram would exceed
/// `maximumDatagramBytes`. Pure: no clock and no I/O; velocities come from the frames' own times.
///
/// Each bundle holds `source`, `alive` (every session id still down), `set` for every active cursor
/// (moved or not, so one lost datagram never leaves a cursor stale), and `fseq`. A split frame repeats
/// `source`, the whole `alive` and the same `fseq` in every part, each part carrying its share of the
/// `set` messages, new cursors first: the layout of the reference TuioServer (TUIO_CPP), which the
/// reference TuioClient accepts (a frame id equal to the last one is not late).
public struct TUIOCursorEncoder: Sendable {
    /// A LAN's unfragmented UDP payload: Ethernet's 1500-byte MTU less 20 bytes of IPv4 and 8 of UDP.
    public static let ethernetDatagramBytes = 1472
    /// Bytes of one `set` element in a bundle (its size prefix included): address 12, type tags 12,
    /// "set" 4, then s x y X Y m, 4 bytes each.
    static let setElementBytes = 4 + 12 + 12 + 4 + 6 * 4

    /// `/tuio/2Dcur source`: "multitouchd:DEVICE@HOST" (TUIO 1.1 "application@address").
    public let source: String
    public let maximumDatagramBytes: Int
    /// The `fseq` of the last frame encoded (the first frame is 1).
    public private(set) var frameSequence: Int32 = 0

    private struct Track {
        var position: Point
        var time: Timestamp
        var velocity: Point
        var speed: Double
    }
    private var tracks: [UInt64: Track] = [:]

    public init(source: String, maximumDatagramBytes: Int = TUIOCursorEncoder.ethernetDatagramBytes) {
        self.source = source
        self.maximumDatagramBytes = maximumDatagramBytes
    }

    /// The source name for a device on a host, as TUIO 1.1 spells a source ("application@address").
    public static func sourceName(device: Int, host: String) -> String { "multitouchd:\(device)@\(host)" }

    /// TUIO session ids are OSC int32: the daemon's ids, which only grow, wrap within 0...Int32.max.
    public static func sessionID(_ id: UInt64) -> Int32 { Int32(truncatingIfNeeded: id & 0x7fff_ffff) }

    /// The datagrams (OSC bundles) for one frame, in sending order.
    public mutating func encode(_ frame: TUIOFrame) -> [[UInt8]] {
        frameSequence = frameSequence == Int32.max ? 1 : frameSequence + 1
        var alive: [OSCArgument] = [.string("alive")]
        var newSets: [OSCMessage] = []
        var sets: [OSCMessage] = []
        var present = Set<UInt64>()
        for cursor in frame.cursors {
            present.insert(cursor.id)
            if cursor.phase.isTerminal {
                // Ended or cancelled: gone from `alive` in this very frame.
                tracks[cursor.id] = nil
                continue
            }
            let track = advance(tracks[cursor.id], to: cursor, at: frame.time)
            tracks[cursor.id] = track.track
            let s = Self.sessionID(cursor.id)
            alive.append(.int32(s))
            let message = OSCMessage(
                "/tuio/2Dcur",
                [
                    .string("set"), .int32(s), .float32(Float(cursor.position.x)), .float32(Float(cursor.position.y)),
                    .float32(Float(track.track.velocity.x)), .float32(Float(track.track.velocity.y)),
                    .float32(Float(track.acceleration)),
                ])
            if track.isNew { newSets.append(message) } else { sets.append(message) }
        }
        // A touch that vanished without its ended (never from the pipeline, but cheap to be sure of).
        if tracks.count > present.count { tracks = tracks.filter { present.contains($0.key) } }

        let sourceMessage = OSCMessage("/tuio/2Dcur", [.string("source"), .string(source)])
        let aliveMessage = OSCMessage("/tuio/2Dcur", alive)
        let fseqMessage = OSCMessage("/tuio/2Dcur", [.string("fseq"), .int32(frameSequence)])
        let fixed =
            OSC.bundleHeaderCount + 4 + sourceMessage.encodedCount + 4 + aliveMessage.encodedCount + 4
            + fseqMessage.encodedCount
        // At least one set per bundle, even if `alive` alone fills the datagram (hundreds of touches):
        // the bundle is then larger than asked rather than never sent.
        let perBundle = max(1, (maximumDatagramBytes - fixed) / Self.setElementBytes)
        let allSets = newSets + sets
        var out: [[UInt8]] = []
        var start = 0
        repeat {
            let end = min(allSets.count, start + perBundle)
            out.append(OSC.bundle([sourceMessage, aliveMessage] + allSets[start..<end] + [fseqMessage]))
            start = end
        } while start < allSets.count
        return out
    }

    /// The cursor's new track and its motion acceleration; velocity in normalized units per second
    /// from the previous frame's position and time (TUIO_CPP's TuioCursor::update), zero at `began`.
    private func advance(
        _ old: Track?, to cursor: TUIOCursorSample, at time: Timestamp
    )
        -> (track: Track, acceleration: Double, isNew: Bool)
    {
        guard let old else {
            return (Track(position: cursor.position, time: time, velocity: .zero, speed: 0), 0, true)
        }
        let dt = time.seconds - old.time.seconds
        // Two frames at one time (never from a device; possible in a synthetic recording): keep the
        // last velocity rather than divide by zero.
        guard dt > 0 else {
            return (Track(position: cursor.position, time: time, velocity: old.velocity, speed: old.speed), 0, false)
        }
        let velocity = Point(
            x: (cursor.position.x - old.position.x) / dt, y: (cursor.position.y - old.position.y) / dt)
        let speed = (velocity.x * velocity.x + velocity.y * velocity.y).squareRoot()
        return (
            Track(position: cursor.position, time: time, velocity: velocity, speed: speed), (speed - old.speed) / dt,
            false
        )
    }
}

extension TUIOFrame {
    /// A pipeline frame by each touch's `normalized` (0...1 over the axis ranges, before any output
    /// mapping): for a device whose published size is unknown.
    public init(axesOf frame: TouchFrame) {
        self.init(
            time: frame.time,
            cursors: frame.touches.map { TUIOCursorSample(id: $0.id, phase: $0.phase, position: $0.normalized) })
    }
}
