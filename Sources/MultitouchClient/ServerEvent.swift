import Foundation

/// A device as the daemon describes it (hello, deviceAdded). docs/PROTOCOL.md "device object".
public struct DeviceSummary: Codable, Hashable, Sendable {
    public var id: Int
    public var name: String
    public var source: String
    public var `class`: String
    public var `protocol`: String
    public var slots: Int
    public var semiMT: Bool
    public var units: String
    public var width: Double
    public var height: Double
    public var widthMM: Double?
    public var heightMM: Double?
    public var sizeSource: String?
}

/// One touch of a `touches` message.
public struct TouchPoint: Codable, Hashable, Sendable {
    public var id: UInt64
    public var phase: String
    public var x: Double
    public var y: Double
    public var prevX: Double
    public var prevY: Double
    public var nx: Double?
    public var ny: Double?
    public var mmX: Double?
    public var mmY: Double?
    public var slot: Int?
    public var tapCount: Int
    public var type: String
    public var majorRadius: Double?
    public var minorRadius: Double?
    public var orientation: Double?
    public var force: Double?
}

/// A `touches` message: every touch of one evdev frame.
public struct TouchFrameMessage: Codable, Hashable, Sendable {
    public var device: Int
    public var time: Double
    public var fingers: Int
    public var semiMT: Bool?
    public var touches: [TouchPoint]
}

/// Velocities of a gesture update.
public struct GestureVelocityMessage: Codable, Hashable, Sendable {
    public var translation: [Double]
    public var scale: Double
    public var rotation: Double
}

/// A `gesture` message: one update of a pan or pinchRotate segment.
public struct GestureMessage: Codable, Hashable, Sendable {
    public var device: Int
    public var time: Double
    public var session: UInt64
    public var seq: UInt64
    /// began, changed, ended, cancelled
    public var phase: String
    /// pan, pinchRotate
    public var mode: String
    public var fingers: Int
    public var centroid: [Double]
    public var translation: [Double]
    public var scale: Double
    public var rotation: Double
    public var velocity: GestureVelocityMessage
    /// [a, b, c, d, tx, ty], CGAffineTransform order.
    public var matrix: [Double]
}

/// A `session` message (first finger down / last finger up).
public struct SessionMessage: Codable, Hashable, Sendable {
    public var device: Int
    public var time: Double
    public var session: UInt64
    public var phase: String
}

/// `tap`, `doubleTap` and `longPress` share this shape; fields a kind lacks are nil.
public struct DiscreteGestureMessage: Codable, Hashable, Sendable {
    public var device: Int
    public var time: Double
    public var session: UInt64
    public var location: [Double]
    public var tapCount: Int?
    public var fingers: Int?
    public var phase: String?
    public var matrix: [Double]?
}

/// Something the client missed or the input lost.
public struct DroppedMessage: Codable, Hashable, Sendable {
    public var device: Int?
    public var time: Double?
    public var count: Int
    public var unit: String
    public var reason: String
}

/// An error the daemon reports; `fatal` means the connection closes after it.
public struct ErrorMessage: Codable, Hashable, Sendable {
    public var code: String
    public var message: String
    public var fatal: Bool
    /// The id of the request that caused it, as JSON text.
    public var id: String?
}

/// One message from the daemon, typed (docs/PROTOCOL.md). Unknown types arrive as `.other` so a
/// newer daemon does not break an older client.
public enum ServerEvent: Hashable, Sendable {
    case hello(protocolVersion: Int, daemon: String, devices: [DeviceSummary])
    case deviceAdded(DeviceSummary)
    case deviceRemoved(device: Int, time: Double?, reason: String)
    case touches(TouchFrameMessage)
    case session(SessionMessage)
    case gesture(GestureMessage)
    case tap(DiscreteGestureMessage)
    case doubleTap(DiscreteGestureMessage)
    case longPress(DiscreteGestureMessage)
    case dropped(DroppedMessage)
    case error(ErrorMessage)
    /// Reply to `ping`; the id as JSON text (`7`, `"abc"`).
    case pong(id: String?)
    /// Reply to `stats`: the whole object as JSON text (its shape is documented, not typed here).
    case stats(json: String)
    case subscribed(json: String)
    /// A device's cumulative transform was set or reset (by this or another client).
    case transform(device: Int, matrix: [Double])
    case other(type: String, json: String)
}

/// Why a line from the daemon could not be understood.
public struct ServerEventDecodingError: Error, CustomStringConvertible, Sendable {
    public var line: String
    public var reason: String
    public var description: String { "cannot decode daemon message (\(reason)): \(line)" }
}

extension ServerEvent {
    private struct Envelope: Decodable { var type: String }
    private struct Hello: Decodable {
        var `protocol`: Int
        var daemon: String
        var devices: [DeviceSummary]
    }
    private struct Added: Decodable { var device: DeviceSummary }
    private struct Removed: Decodable {
        var device: Int
        var time: Double?
        var reason: String
    }
    private struct Transform: Decodable {
        var device: Int
        var matrix: [Double]
    }

    /// Decodes one JSON line from the daemon.
    public static func decode(line: String) throws -> ServerEvent {
        let data = Data(line.utf8)
        let decoder = JSONDecoder()
        do {
            let type = try decoder.decode(Envelope.self, from: data).type
            switch type {
            case "hello":
                let hello = try decoder.decode(Hello.self, from: data)
                return .hello(protocolVersion: hello.protocol, daemon: hello.daemon, devices: hello.devices)
            case "deviceAdded": return .deviceAdded(try decoder.decode(Added.self, from: data).device)
            case "deviceRemoved":
                let removed = try decoder.decode(Removed.self, from: data)
                return .deviceRemoved(device: removed.device, time: removed.time, reason: removed.reason)
            case "touches": return .touches(try decoder.decode(TouchFrameMessage.self, from: data))
            case "session": return .session(try decoder.decode(SessionMessage.self, from: data))
            case "gesture": return .gesture(try decoder.decode(GestureMessage.self, from: data))
            case "tap": return .tap(try decoder.decode(DiscreteGestureMessage.self, from: data))
            case "doubleTap": return .doubleTap(try decoder.decode(DiscreteGestureMessage.self, from: data))
            case "longPress": return .longPress(try decoder.decode(DiscreteGestureMessage.self, from: data))
            case "dropped": return .dropped(try decoder.decode(DroppedMessage.self, from: data))
            case "error":
                var error = try decoder.decode(ErrorWithoutID.self, from: data).message
                error.id = idText(data)
                return .error(error)
            case "pong": return .pong(id: idText(data))
            case "stats": return .stats(json: line)
            case "subscribed": return .subscribed(json: line)
            case "transform":
                let transform = try decoder.decode(Transform.self, from: data)
                return .transform(device: transform.device, matrix: transform.matrix)
            default: return .other(type: type, json: line)
            }
        } catch let error as DecodingError {
            throw ServerEventDecodingError(line: line, reason: "\(error)")
        }
    }

    private struct ErrorWithoutID: Decodable {
        var message: ErrorMessage
        init(from decoder: any Decoder) throws {
            enum Keys: String, CodingKey { case code, message, fatal }
            let c = try decoder.container(keyedBy: Keys.self)
            message = ErrorMessage(
                code: try c.decode(String.self, forKey: .code), message: try c.decode(String.self, forKey: .message),
                fatal: try c.decodeIfPresent(Bool.self, forKey: .fatal) ?? false, id: nil)
        }
    }

    /// The "id" member re-serialized as JSON text, or nil.
    private static func idText(_ data: Data) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any], let id = object["id"] else {
            return nil
        }
        if let s = id as? String {
            let quoted = try? JSONSerialization.data(withJSONObject: [s], options: [.fragmentsAllowed])
            return quoted.flatMap { String(data: $0, encoding: .utf8) }.map { String($0.dropFirst().dropLast()) }
        }
        if let n = id as? NSNumber { return n.stringValue }
        return nil
    }
}
