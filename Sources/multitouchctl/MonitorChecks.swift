import ArgumentParser
import Foundation

/// What `monitor` checks itself: its options before connecting, and each received line for an error
/// reply (which ends it with a failure) and for whether it counts toward --count.
enum MonitorChecks {
    /// The protocol's stream names (the daemon's `MessageStream`, docs/PROTOCOL.md "Requests").
    static let streamNames = ["touches", "gestures", "devices"]
    /// Replies to requests; every other message type belongs to a stream.
    static let replyTypes: Set<String> = ["hello", "subscribed", "unsubscribed", "pong", "stats"]

    static func validate(streams: [String], count: Int) throws {
        for stream in streams where !streamNames.contains(stream) {
            throw ValidationError(
                "unknown stream '\(stream)' in --streams; use any of: \(streamNames.joined(separator: ", "))")
        }
        guard count >= 0 else { throw ValidationError("--count must be 0 or more") }
    }

    /// The type and code of a line (nil fields when it is not a JSON object).
    private static func fields(_ line: String) -> (type: String?, code: String?, message: String?) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
            return (nil, nil, nil)
        }
        return (object["type"] as? String, object["code"] as? String, object["message"] as? String)
    }

    /// "code: message" when the line is an error the daemon sent about this client (every error but a
    /// replayed recording's notes, which are part of the stream).
    static func failure(line: String) -> String? {
        let f = fields(line)
        guard f.type == "error", f.code != "recording" else { return nil }
        return "\(f.code ?? "error"): \(f.message ?? line)"
    }

    /// True for stream messages (touches, gestures, device changes, notes), false for replies.
    static func isStreamMessage(_ line: String) -> Bool {
        let f = fields(line)
        guard let type = f.type else { return false }
        if type == "error" { return f.code == "recording" }
        return !replyTypes.contains(type)
    }
}

/// The cumulative zoom and angle of a gesture's matrix, printed beside the segment's own scale and
/// rotation in the readable replay and monitor lines (the matrices are similarities: zoom is the
/// length of the first column, angle its direction).
enum CumulativeText {
    static func of(matrix: [Double]) -> String {
        guard matrix.count == 6 else { return "" }
        let zoom = (matrix[0] * matrix[0] + matrix[1] * matrix[1]).squareRoot()
        let degrees = atan2(matrix[1], matrix[0]) * 180 / Double.pi
        return " | zoom=\(ReadableFormat.fmt(zoom, 3)) angle=\(ReadableFormat.fmt(degrees))°"
    }
}
