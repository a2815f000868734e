import Gestures
import MultitouchCore
import Prediction
import Recordings
import TouchPipeline
import TouchRouting
import WireProtocol

/// Frame-aligned resampling of one client's streams (issue 20 item 3, docs/PREDICTION.md), on typed
/// frames before they are encoded: the client's items (its whole-device view's and its regions') are
/// buffered as they come, and each display frame (`frame(at:into:)`) gets, per stream with touches (a
/// device's whole-device view, or one region of it), one `touches` message resampled at the frame time
/// minus `latency` by `FrameResampler` (Android's rules), each touch carrying the raw samples the frame
/// consumed as `coalesced` (and its newest sample's prediction at the client's horizon), followed by
/// the gesture and other messages of the same span in their order. An item is consumed by the first
/// frame whose sample time is at or after its time; later ones stay buffered, and the first later
/// sample of a touch is what the resampler interpolates towards. Phases stay well formed: a touch that
/// began and ended within one frame's span shows `began` in the frame's message and its end in a second
/// message with the same time (as the pipeline itself does); an end is never resampled or dropped.
/// Pure: the frame times are the caller's, no clock.
public struct FrameAligner {
    /// Frame time minus this is the sample time (Android's `RESAMPLE_LATENCY`), µs.
    public static let latency = FrameResampler.latency

    /// What the resampler needs of one raw sample.
    private struct Sample {
        var time: Int64
        var location: Point
        var normalized: Point
        var millimeters: Point

        init(_ touch: Touch, time: Int64) {
            self.time = time
            location = touch.location
            normalized = touch.normalized
            millimeters = touch.millimeters
        }
    }

    private struct Track {
        var id: UInt64
        /// The two newest raw samples consumed.
        var previous: Sample?
        var newest: Sample?
        /// The newest raw touch consumed: its other fields (radii, pressure, slot) go out with the
        /// resampled position; and its predicted location at the client's horizon, if any.
        var newestTouch: Touch?
        var newestPredicted: Point?
        /// Raw samples consumed by the frame being built.
        var coalesced: [CoalescedSample] = []
        /// The location and time delivered at the last frame; nil before its `began` went out.
        var delivered: (location: Point, time: Int64)?
        /// The raw `began` sample, while it has not been delivered.
        var began: Touch?
        /// The raw `ended`/`cancelled` sample, once consumed.
        var end: Touch?
    }

    /// A stream of touches: a device's whole-device view, or one region (and role) of it.
    private struct StreamKey: Hashable, Comparable {
        var device: Int
        var region: String?
        var role: RoutingRole?

        static func < (a: StreamKey, b: StreamKey) -> Bool {
            if a.device != b.device { return a.device < b.device }
            if a.region != b.region { return (a.region ?? "") < (b.region ?? "") }
            return (a.role?.rawValue ?? "") < (b.role?.rawValue ?? "")
        }
    }

    private struct StreamState {
        var key: StreamKey
        /// Sorted by id. An array: a stream has a few touches, and a dictionary's removals cost more.
        var tracks: [Track] = []
        var fingers = 0
        var isSemiMT = false
        var routing: TouchesRouting?
    }

    /// A buffered item: a view's touches (with the predicted locations at the client's horizon), or a
    /// message that passes through in order.
    private enum Pending {
        case touches(ViewTouches, predicted: [Point]?)
        case message(Message)

        var time: Timestamp? {
            switch self {
            case .touches(let t, _): return t.time
            case .message(let m): return FrameAligner.time(of: m)
            }
        }
    }

    /// What a frame sends, in order: a buffered message (by its index in `pending`) or a stream's
    /// resampled touches.
    private enum Slot {
        case message(Int)
        case touches(StreamKey)
    }

    /// Buffered items: `pending[head...]`; the consumed prefix is dropped when it is all consumed or
    /// large, not shifted every frame.
    private var pending: [Pending] = []
    private var head = 0
    /// Sorted by key; an array for the same reason as `tracks`.
    private var streams: [StreamState] = []
    private var lastSampleTime: Int64 = .min
    /// Scratch reused by every frame (its capacity is kept).
    private var slots: [Slot] = []
    private var placed: [StreamKey] = []
    private var times: [Int64] = []

    public init() {}

    /// Buffered items past which a client that stopped asking for frames is given what is due
    /// (`catchUp`): the daemon's memory per client stays bounded.
    public static let maximumPending = 4096

    /// Frames at the newest buffered item's time plus the latency: everything buffered is delivered.
    public mutating func catchUp(into out: inout [Message]) {
        guard let newest = pending[head...].lazy.compactMap(\.time).max() else {
            frame(at: Timestamp(microseconds: lastSampleTime &+ Self.latency), into: &out)
            return
        }
        frame(at: Timestamp(microseconds: newest.microseconds &+ Self.latency), into: &out)
    }

    /// Items buffered for the next frames.
    public var pendingCount: Int { pending.count - head }

    /// True when nothing is buffered and no touch is live: further frames would deliver nothing.
    public var isIdle: Bool { pendingCount == 0 && streams.allSatisfy { $0.tracks.isEmpty } }

    /// Buffers one published item of the client's streams, in the order the client would receive them,
    /// in the form for its prediction horizon (nil: none).
    public mutating func push(_ item: PublishedItem, horizon: Int?) {
        switch item.content {
        case .touches(let t): pending.append(.touches(t, predicted: t.predicted(horizon: horizon)))
        case .gesture, .message:
            if let message = item.message(horizon: horizon) { pending.append(.message(message)) }
        case .answer: break
        }
    }

    /// Buffers a message that is not a view's touches (a whole-device message from elsewhere: tests).
    public mutating func push(_ message: Message) {
        pending.append(.message(message))
    }

    /// The messages of the display frame at `frameTime`: what the client receives for it. Frame times
    /// should increase; an earlier one samples at the previous sample time (nothing moves back).
    public mutating func frame(at frameTime: Timestamp, into out: inout [Message]) {
        let sampleTime = max(frameTime.microseconds &- Self.latency, lastSampleTime)
        lastSampleTime = sampleTime
        var end = head
        while end < pending.count {
            if let time = pending[end].time, time.microseconds > sampleTime { break }
            end += 1
        }
        var slots = self.slots
        var placed = self.placed
        self.slots = []
        self.placed = []
        slots.removeAll(keepingCapacity: true)
        placed.removeAll(keepingCapacity: true)
        for i in head..<end {
            switch pending[i] {
            case .touches(let t, let predicted):
                let key = take(t, predicted: predicted)
                if !placed.contains(key) {
                    placed.append(key)
                    slots.append(.touches(key))
                }
            case .message(let m):
                slots.append(.message(i))
                if case .deviceRemoved(let r) = m {
                    for s in streams where s.key.device == r.device && !placed.contains(s.key) { placed.append(s.key) }
                }
            }
        }
        head = end
        // Streams with live touches and no new sample in this span still get their frame, first (in
        // descending order, as they always were).
        for d in streams.indices.reversed() where !placed.contains(streams[d].key) && !streams[d].tracks.isEmpty {
            emit(streams[d].key, sampleTime: sampleTime, into: &out)
        }
        for slot in slots {
            switch slot {
            case .message(let i):
                guard case .message(let m) = pending[i] else { continue }
                out.append(m)
                // After the device's last frame went out (its touches' ends come before its removal).
                if case .deviceRemoved(let r) = m { streams.removeAll { $0.key.device == r.device } }
            case .touches(let key): emit(key, sampleTime: sampleTime, into: &out)
            }
        }
        if head == pending.count {
            pending.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 1024 {
            pending.removeFirst(head)
            head = 0
        }
        self.slots = slots
        self.placed = placed
    }

    /// The time that gates a message: its event time; nil (consumed as soon as it is first in line)
    /// for messages without one.
    static func time(of message: Message) -> Timestamp? {
        switch message {
        case .touches(let m): return m.time
        case .gesture(let m): return m.event.time
        case .dropped(let m): return m.time
        case .deviceRemoved(let m): return m.time
        case .hello, .deviceAdded, .error, .pong, .subscribed, .unsubscribed, .stats, .transform, .regions,
            .recognized, .regionList:
            return nil
        }
    }

    private static func key(_ t: ViewTouches) -> StreamKey {
        StreamKey(device: t.device, region: t.routing?.region, role: t.routing?.role)
    }

    /// The index of the stream's state, inserted (empty) in order when absent.
    private mutating func streamIndex(_ key: StreamKey) -> Int {
        if let i = streams.firstIndex(where: { $0.key == key }) { return i }
        let i = streams.firstIndex(where: { key < $0.key }) ?? streams.endIndex
        streams.insert(StreamState(key: key), at: i)
        return i
    }

    private mutating func take(_ t: ViewTouches, predicted: [Point]?) -> StreamKey {
        let key = Self.key(t)
        let d = streamIndex(key)
        streams[d].fingers = t.fingers
        streams[d].isSemiMT = t.isSemiMT
        streams[d].routing = t.routing
        let time = t.time.microseconds
        var live = 0
        for k in t.touches.indices {
            let touch = t.touches[k]
            let id = touch.id
            let phase = touch.phase
            let i: Int
            if let found = streams[d].tracks.firstIndex(where: { $0.id == id }) {
                i = found
            } else {
                i = streams[d].tracks.firstIndex(where: { $0.id > id }) ?? streams[d].tracks.endIndex
                streams[d].tracks.insert(Track(id: id), at: i)
            }
            // In place: the track's arrays are not copied.
            if phase == .began { streams[d].tracks[i].began = touch }
            // A touch first seen mid-life (a subscription that started during it) is live already.
            if streams[d].tracks[i].delivered == nil && streams[d].tracks[i].began == nil {
                streams[d].tracks[i].delivered = (touch.location, time)
            }
            streams[d].tracks[i].previous = streams[d].tracks[i].newest
            streams[d].tracks[i].newest = Sample(touch, time: time)
            streams[d].tracks[i].newestTouch = touch
            if phase.isTerminal {
                streams[d].tracks[i].newestPredicted = nil
            } else {
                streams[d].tracks[i].newestPredicted = predicted.flatMap { live < $0.count ? $0[live] : nil }
                live += 1
            }
            // Room for a few samples per frame: one allocation, not a reallocation at the second.
            if streams[d].tracks[i].coalesced.isEmpty { streams[d].tracks[i].coalesced.reserveCapacity(4) }
            streams[d].tracks[i].coalesced.append(CoalescedSample(location: touch.location, time: t.time))
            if phase.isTerminal { streams[d].tracks[i].end = touch }
        }
        return key
    }

    /// The first buffered (not yet consumed) sample of a touch: what a frame interpolates towards.
    private func nextSample(_ key: StreamKey, id: UInt64) -> Sample? {
        for j in head..<pending.count {
            guard case .touches(let t, _) = pending[j], Self.key(t) == key else { continue }
            for touch in t.touches where touch.id == id { return Sample(touch, time: t.time.microseconds) }
        }
        return nil
    }

    private static func point(_ touch: Touch, coalesced: [CoalescedSample], predicted: Point?) -> TouchPoint {
        var point = TouchPoint(touch)
        point.coalesced = coalesced
        point.predicted = touch.phase.isTerminal ? nil : predicted
        return point
    }

    private mutating func emit(_ key: StreamKey, sampleTime: Int64, into out: inout [Message]) {
        guard let d = streams.firstIndex(where: { $0.key == key }) else { return }
        // Taken out and put back (not copied): a copy would copy-on-write every track's arrays.
        var state = streams[d]
        streams[d].tracks = []
        var times = self.times
        self.times = []
        defer { self.times = times }
        var touches: [TouchPoint] = []
        touches.reserveCapacity(state.tracks.count)
        var ends: [TouchPoint] = []
        var anyEnded = false
        for i in state.tracks.indices {
            let id = state.tracks[i].id
            if let end = state.tracks[i].end {
                anyEnded = true
                if let began = state.tracks[i].began {
                    // Began and ended within this span: began here, the end in a message of its own.
                    touches.append(
                        Self.point(began, coalesced: Array(state.tracks[i].coalesced.prefix(1)), predicted: nil))
                    var e = Self.point(end, coalesced: Array(state.tracks[i].coalesced.dropFirst()), predicted: nil)
                    e.previousLocation = began.location
                    ends.append(e)
                } else {
                    var e = Self.point(end, coalesced: state.tracks[i].coalesced, predicted: nil)
                    if let delivered = state.tracks[i].delivered { e.previousLocation = delivered.location }
                    touches.append(e)
                }
                continue
            }
            guard let newest = state.tracks[i].newest, let raw = state.tracks[i].newestTouch else { continue }
            let previous = state.tracks[i].previous
            let next = nextSample(key, id: id)
            times.removeAll(keepingCapacity: true)
            if let previous { times.append(previous.time) }
            times.append(newest.time)
            if let next { times.append(next.time) }
            let notBefore = state.tracks[i].delivered?.time
            guard
                let blend = FrameResampler.blend(
                    times: times, frameTime: sampleTime &+ Self.latency, notBefore: notBefore)
            else { continue }
            // Index 0 is `previous` when there is one, else `newest`; the last is `next` when there is one.
            func sample(_ index: Int) -> Sample {
                let shifted = previous == nil ? index + 1 : index
                switch shifted {
                case 0: return previous ?? newest
                case 1: return newest
                default: return next ?? newest
                }
            }
            let a = sample(blend.from)
            let b = sample(blend.to)
            var point = Self.point(
                raw, coalesced: state.tracks[i].coalesced, predicted: state.tracks[i].newestPredicted)
            point.location = a.location + (b.location - a.location) * blend.alpha
            point.normalized = a.normalized + (b.normalized - a.normalized) * blend.alpha
            point.millimeters = a.millimeters + (b.millimeters - a.millimeters) * blend.alpha
            if let delivered = state.tracks[i].delivered {
                point.phase = point.location == delivered.location ? .stationary : .moved
                point.previousLocation = delivered.location
            } else {
                point.phase = .began
                point.previousLocation = point.location
            }
            touches.append(point)
            state.tracks[i].delivered = (point.location, blend.time)
            state.tracks[i].began = nil
            state.tracks[i].coalesced = []
        }
        if anyEnded { state.tracks.removeAll { $0.end != nil } }
        streams[d] = state
        guard !touches.isEmpty else { return }
        let time = Timestamp(microseconds: sampleTime)
        out.append(
            .touches(
                TouchesMessage(
                    device: key.device, time: time, fingers: state.fingers, isSemiMT: state.isSemiMT,
                    touches: touches, routing: state.routing)))
        if !ends.isEmpty {
            out.append(
                .touches(
                    TouchesMessage(
                        device: key.device, time: time, fingers: state.fingers, isSemiMT: state.isSemiMT,
                        touches: ends, routing: state.routing)))
        }
    }
}

/// A display's frame clock: frames at `phase + k * period` µs (the time base of the messages' `time`).
public struct FrameClock: Hashable, Sendable {
    public var periodMicroseconds: Int64
    public var phaseMicroseconds: Int64

    public init(periodMicroseconds: Int64, phaseMicroseconds: Int64 = 0) {
        self.periodMicroseconds = max(1, periodMicroseconds)
        self.phaseMicroseconds = phaseMicroseconds
    }

    /// The first frame at or after `time`.
    public func frame(atOrAfter time: Int64) -> Int64 {
        let offset = time &- phaseMicroseconds
        var k = offset / periodMicroseconds
        if k * periodMicroseconds < offset { k += 1 }
        return phaseMicroseconds &+ k * periodMicroseconds
    }
}

extension FrameAligner {
    /// A replay as a whole-device client with this frame clock receives it (`replay --frame-period-us`,
    /// with `settings.predictionMilliseconds` its horizon): each frame sees the items whose time is at or
    /// before it, as a live client asking at that frame would. Frames run from the first timed item
    /// until everything is delivered and no touch is live; `sink` receives one batch per frame that
    /// delivered something (and the untimed messages before the first frame).
    public static func replay(
        recording: Recording, source: String = "", settings: PipelineSettings = .init(), clock: FrameClock,
        sink: ([Message]) -> Void
    ) {
        var aligner = FrameAligner()
        var edge = PipelineMessages()
        var nextFrame: Int64?
        var out: [Message] = []
        let horizon = settings.predictionMilliseconds
        func flush() {
            if !out.isEmpty { sink(out) }
            out.removeAll(keepingCapacity: true)
        }
        Replay.run(recording: recording, source: source, settings: settings) { batch in
            for output in batch {
                edge.forEachItem(output) { item in
                    guard item.address == nil, let message = item.message(horizon: horizon) else { return }
                    if let time = time(of: message)?.microseconds {
                        var frame = nextFrame ?? clock.frame(atOrAfter: time)
                        while frame < time {
                            aligner.frame(at: Timestamp(microseconds: frame), into: &out)
                            flush()
                            frame &+= clock.periodMicroseconds
                        }
                        nextFrame = frame
                    } else if nextFrame == nil {
                        out.append(message)  // before any timed message (deviceAdded): nothing to align it to
                        return
                    }
                    aligner.push(item, horizon: horizon)
                }
            }
        }
        flush()
        guard var frame = nextFrame else { return }
        while !aligner.isIdle {
            aligner.frame(at: Timestamp(microseconds: frame), into: &out)
            flush()
            frame &+= clock.periodMicroseconds
        }
    }
}
