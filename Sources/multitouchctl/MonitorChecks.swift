import ArgumentParser
import WireProtocol

#if canImport(Glibc)
import Glibc
#endif

/// What `monitor` checks itself: its options before connecting, and each received message for an
/// error reply (which ends it with a failure) and for whether it counts toward --count.
enum MonitorChecks {
    static func validate(streams: [String], devices: [Int], count: Int) throws {
        let known = MessageStream.allCases.map(\.rawValue).joined(separator: ", ")
        for stream in streams where MessageStream(rawValue: stream) == nil {
            throw ValidationError("unknown stream '\(stream)' in --streams; use any of: \(known)")
        }
        if devices.contains(where: { $0 < 0 }) { throw ValidationError("device ids are 0 or more") }
        guard count >= 0 else { throw ValidationError("--count must be 0 or more") }
    }

    /// "code: message" when the message is an error the daemon sent about this client (every error but
    /// a replayed recording's notes, which are part of the stream).
    static func failure(_ message: Message) -> String? {
        guard case .error(let error) = message, error.code != .recording else { return nil }
        return "\(error.code): \(error.message)"
    }

    /// True for stream messages (touches, gestures, device changes, notes), false for replies and for
    /// lines that are not a message. A type this build does not know counts: the daemon only sends
    /// replies this client asked for, so anything new is a stream message.
    static func isStreamMessage(_ decoded: Result<Message, MessageDecodingError>) -> Bool {
        switch decoded {
        case .success(.error(let error)): return error.code == .recording
        case .success(let message): return !message.streams.isEmpty
        case .failure(.unknownType): return true
        case .failure(.invalid): return false
        }
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
