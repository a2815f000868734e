import Gestures
import MultitouchCore
import Recordings
import TouchPipeline

/// What the gesture engine did with one recording, frame by frame, typed: the input a user's fingers
/// made and every gesture event it caused, in order. The feel measurements read it; it is filled by
/// replaying through the real pipeline (`DevicePipeline`), so a measurement sees exactly what a client
/// would.
public struct FeelTrace: Sendable {
    /// One step of the replay.
    public enum Entry: Sendable {
        /// A touch frame and what the engine returned for it.
        case frame(TouchFrame, [GestureEvent])
        /// Timer events (fired between frames, at their own deadlines).
        case timers([GestureEvent])

        public var events: [GestureEvent] {
            switch self {
            case .frame(_, let events), .timers(let events): return events
            }
        }

        public var frame: TouchFrame? {
            switch self {
            case .frame(let frame, _): return frame
            case .timers: return nil
            }
        }
    }

    public private(set) var entries: [Entry] = []
    /// The cumulative transform after each entry (identity before the first).
    public private(set) var matrixAfter: [AffineTransform] = []

    public init() {}

    /// Replays `recording` (device 1 only is observed) with `configuration`.
    public static func replay(_ recording: Recording, configuration: GestureConfiguration) -> FeelTrace {
        var observers = recording.devices.map { _ in Observer() }
        let settings = PipelineSettings(gestures: configuration)
        Replay.run(recording: recording, settings: settings) { batch in
            // Devices are numbered from 1 in the recording's order.
            for output in batch {
                if let device = output.device, observers.indices.contains(device - 1) {
                    observers[device - 1].take(output)
                }
            }
        }
        return observers.first?.trace ?? FeelTrace()
    }

    /// Replays a scripted scenario.
    public static func replay(_ scenario: FeelScenario) -> FeelTrace {
        let recording = Recording(
            format: .evemu, devices: [RecordedDevice(description: scenario.device, events: scenario.events)])
        return replay(recording, configuration: scenario.configuration)
    }

    mutating func append(_ entry: Entry) {
        var m = matrixAfter.last ?? .identity
        for event in entry.events {
            switch event {
            case .update(let u): m = u.matrix
            case .doubleTap(_, _, _, let matrix): m = matrix
            case .sessionBegan, .sessionEnded, .tap, .longPress: break
            }
        }
        entries.append(entry)
        matrixAfter.append(m)
    }

    /// The cumulative transform before entry `index`.
    public func matrixBefore(_ index: Int) -> AffineTransform {
        index > 0 ? matrixAfter[index - 1] : .identity
    }

    /// Where the content point that was at `point` after entry `from` is after entry `to`.
    public func follow(_ point: Point, from: Int, to: Int) -> Point {
        guard let inverse = matrixAfter[from].inverted() else { return point }
        return matrixAfter[to].concatenating(after: inverse).apply(point)
    }

    /// Every gesture update with the index of the entry that carried it.
    public var updates: [(entry: Int, update: GestureUpdate)] {
        var out: [(Int, GestureUpdate)] = []
        for (index, entry) in entries.enumerated() {
            for event in entry.events { if case .update(let u) = event { out.append((index, u)) } }
        }
        return out
    }

    /// Every event of the trace, in order.
    public var events: [GestureEvent] { entries.flatMap(\.events) }

    /// Indices of the frame entries.
    public var frameIndices: [Int] { entries.indices.filter { entries[$0].frame != nil } }

    /// The last position of touch `id` at or before entry `index` (published space).
    public func location(of id: UInt64, atOrBefore index: Int) -> Point? {
        var i = index
        while i >= 0 {
            if let frame = entries[i].frame, let touch = frame.touches.first(where: { $0.id == id }) {
                return touch.location
            }
            i -= 1
        }
        return nil
    }

    /// Collects one device's frames and timers from the pipeline's typed output.
    struct Observer {
        var trace = FeelTrace()
        mutating func take(_ output: PipelineOutput) {
            switch output {
            case .frame(let f) where !f.isWithheld: trace.append(.frame(f.frame, f.events))
            case .timers(_, let events, _): trace.append(.timers(events))
            case .frame, .deviceAdded, .recordingNote, .dropped, .routed, .answer, .ended: break
            }
        }
    }
}

/// Scale and rotation (degrees) of a similarity given as an affine transform.
func scaleAndDegrees(_ m: AffineTransform) -> (scale: Double, degrees: Double) {
    (m.scaleFactor, m.rotationAngle * 180 / Double.pi)
}

/// The change `after * before^-1`.
func change(from before: AffineTransform, to after: AffineTransform) -> AffineTransform {
    guard let inverse = before.inverted() else { return .identity }
    return after.concatenating(after: inverse)
}

#if canImport(Glibc)
import Glibc
func cosine(_ x: Double) -> Double { Glibc.cos(x) }
func sine(_ x: Double) -> Double { Glibc.sin(x) }
func naturalLog(_ x: Double) -> Double { Glibc.log(x) }
#elseif canImport(Darwin)
import Darwin
func cosine(_ x: Double) -> Double { Darwin.cos(x) }
func sine(_ x: Double) -> Double { Darwin.sin(x) }
func naturalLog(_ x: Double) -> Double { Darwin.log(x) }
#endif
