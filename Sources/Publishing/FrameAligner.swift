import Gestures
import MultitouchCore
import Prediction
import Recordings
import TouchPipeline
import WireProtocol

/// Frame-aligned resampling of one client's message stream (issue 20 item 3, docs/PREDICTION.md): the
/// messages are buffered as they come, and each display frame (`frame(at:into:)`) gets, per device with
/// touches, one `touches` message resampled at the frame time minus `latency` by `FrameResampler`
/// (Android's rules), each touch carrying the raw samples the frame consumed as `coalesced`, followed by
/// the gesture and other messages of the same span in their order. A message is consumed by the first
/// frame whose sample time is at or after its time; later ones stay buffered, and the first later sample
/// of a touch is what the resampler interpolates towards. Phases stay well formed: a touch that began
/// and ended within one frame's span shows `began` in the frame's message and its end in a second
/// message with the same time (as the pipeline itself does); an end is never resampled or dropped.
/// Pure: the frame times are the caller's, no clock.
public struct FrameAligner {
    /// Frame time minus this is the sample time (Android's `RESAMPLE_LATENCY`), µs.
    public static let latency = FrameResampler.latency

    /// What the resampler needs of one raw sample: a few words, where a `TouchPoint` is some 200 bytes
    /// and a copy through its value witness (the cost that dominated, docs/PERFORMANCE.md).
    private struct Sample {
        var time: Int64
        var location: Point
        var normalized: Point
        var millimeters: Point

        init(_ point: TouchPoint, time: Int64) {
            self.time = time
            location = point.location
            normalized = point.normalized
            millimeters = point.millimeters
        }
    }

    private struct Track {
        var id: UInt64
        /// The two newest raw samples consumed.
        var previous: Sample?
        var newest: Sample?
        /// The newest raw point consumed: its other fields (radii, pressure, slot) go out with the
        /// resampled position.
        var newestPoint: TouchPoint?
        /// Raw samples consumed by the frame being built.
        var coalesced: [CoalescedSample] = []
        /// The location and time delivered at the last frame; nil before its `began` went out.
        var delivered: (location: Point, time: Int64)?
        /// The raw `began` sample, while it has not been delivered.
        var began: TouchPoint?
        /// The raw `ended`/`cancelled` sample, once consumed.
        var end: TouchPoint?
    }

    private struct DeviceState {
        var device: Int
        /// Sorted by id. An array: a device has a few touches, and a dictionary's removals cost more.
        var tracks: [Track] = []
        var fingers = 0
        var isSemiMT = false
        var routing: TouchesRouting?
    }

    /// What a frame sends, in order: a buffered message (by its index in `pending`) or a device's
    /// resampled touches.
    private enum Slot {
        case message(Int)
        case touches(device: Int)
    }

    /// Buffered messages: `pending[head...]`; the consumed prefix is dropped when it is all consumed
    /// or large, not shifted every frame.
    private var pending: [Message] = []
    private var head = 0
    /// Sorted by device; an array for the same reason as `tracks`.
    private var devices: [DeviceState] = []
    private var lastSampleTime: Int64 = .min
    /// Scratch reused by every frame (its capacity is kept).
    private var slots: [Slot] = []
    private var placed: [Int] = []
    private var times: [Int64] = []

    public init() {}

    /// Buffered messages past which a client that stopped asking for frames is given what is due
    /// (`catchUp`): the daemon's memory per client stays bounded.
    public static let maximumPending = 4096

    /// Frames at the newest buffered message's time plus the latency: everything buffered is delivered.
    public mutating func catchUp(into out: inout [Message]) {
        guard let newest = pending[head...].lazy.compactMap({ Self.time(of: $0) }).max() else {
            frame(at: Timestamp(microseconds: lastSampleTime &+ Self.latency), into: &out)
            return
        }
        frame(at: Timestamp(microseconds: newest.microseconds &+ Self.latency), into: &out)
    }

    /// Messages buffered for the next frames.
    public var pendingCount: Int { pending.count - head }

    /// True when nothing is buffered and no touch is live: further frames would deliver nothing.
    public var isIdle: Bool { pendingCount == 0 && devices.allSatisfy { $0.tracks.isEmpty } }

    /// Buffers one message of the stream (in the order the client would receive it).
    public mutating func push(_ message: Message) {
        pending.append(message)
    }

    /// The messages of the display frame at `frameTime`: what the client receives for it. Frame times
    /// should increase; an earlier one samples at the previous sample time (nothing moves back).
    public mutating func frame(at frameTime: Timestamp, into out: inout [Message]) {
        let sampleTime = max(frameTime.microseconds &- Self.latency, lastSampleTime)
        lastSampleTime = sampleTime
        var end = head
        while end < pending.count {
            if let time = Self.time(of: pending[end]), time.microseconds > sampleTime { break }
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
            case .touches(let m):
                take(m)
                if !placed.contains(m.device) {
                    placed.append(m.device)
                    slots.append(.touches(device: m.device))
                }
            case .deviceRemoved(let m):
                slots.append(.message(i))
                if !placed.contains(m.device) { placed.append(m.device) }
            default:
                slots.append(.message(i))
            }
        }
        head = end
        // Devices with live touches and no new sample in this span still get their frame, first (in
        // descending device order, as they always were).
        for d in devices.indices.reversed() where !placed.contains(devices[d].device) && !devices[d].tracks.isEmpty {
            emit(device: devices[d].device, sampleTime: sampleTime, into: &out)
        }
        for slot in slots {
            switch slot {
            case .message(let i):
                out.append(pending[i])
                // After the device's last frame went out (its touches' ends come before its removal).
                if case .deviceRemoved(let m) = pending[i] { devices.removeAll { $0.device == m.device } }
            case .touches(let device): emit(device: device, sampleTime: sampleTime, into: &out)
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
    private static func time(of message: Message) -> Timestamp? {
        switch message {
        case .touches(let m): return m.time
        case .gesture(let m): return m.event.time
        case .dropped(let m): return m.time
        case .deviceRemoved(let m): return m.time
        case .hello, .deviceAdded, .error, .pong, .subscribed, .unsubscribed, .stats, .transform, .regions,
            .recognized:
            return nil
        }
    }

    /// The index of the device's state, inserted (empty) in order when absent.
    private mutating func deviceIndex(_ device: Int) -> Int {
        if let i = devices.firstIndex(where: { $0.device == device }) { return i }
        let i = devices.firstIndex(where: { $0.device > device }) ?? devices.endIndex
        devices.insert(DeviceState(device: device), at: i)
        return i
    }

    private mutating func take(_ m: TouchesMessage) {
        let d = deviceIndex(m.device)
        devices[d].fingers = m.fingers
        devices[d].isSemiMT = m.isSemiMT
        devices[d].routing = m.routing
        let time = m.time.microseconds
        for k in m.touches.indices {
            let id = m.touches[k].id
            let phase = m.touches[k].phase
            let location = m.touches[k].location
            let i: Int
            if let found = devices[d].tracks.firstIndex(where: { $0.id == id }) {
                i = found
            } else {
                i = devices[d].tracks.firstIndex(where: { $0.id > id }) ?? devices[d].tracks.endIndex
                devices[d].tracks.insert(Track(id: id), at: i)
            }
            // In place: the track's arrays are not copied.
            if phase == .began { devices[d].tracks[i].began = m.touches[k] }
            // A touch first seen mid-life (a subscription that started during it) is live already.
            if devices[d].tracks[i].delivered == nil && devices[d].tracks[i].began == nil {
                devices[d].tracks[i].delivered = (location, time)
            }
            devices[d].tracks[i].previous = devices[d].tracks[i].newest
            devices[d].tracks[i].newest = Sample(m.touches[k], time: time)
            devices[d].tracks[i].newestPoint = m.touches[k]
            // Room for a few samples per frame: one allocation, not a reallocation at the second.
            if devices[d].tracks[i].coalesced.isEmpty { devices[d].tracks[i].coalesced.reserveCapacity(4) }
            devices[d].tracks[i].coalesced.append(CoalescedSample(location: location, time: m.time))
            if phase.isTerminal { devices[d].tracks[i].end = m.touches[k] }
        }
    }

    /// The first buffered (not yet consumed) sample of a touch: what a frame interpolates towards.
    private func nextSample(device: Int, id: UInt64) -> Sample? {
        for j in head..<pending.count {
            guard case .touches(let m) = pending[j], m.device == device else { continue }
            for k in m.touches.indices where m.touches[k].id == id {
                return Sample(m.touches[k], time: m.time.microseconds)
            }
        }
        return nil
    }

    private mutating func emit(device: Int, sampleTime: Int64, into out: inout [Message]) {
        guard let d = devices.firstIndex(where: { $0.device == device }) else { return }
        // Taken out and put back (not copied): a copy would copy-on-write every track's arrays.
        var state = devices[d]
        devices[d].tracks = []
        var times = self.times
        self.times = []
        defer { self.times = times }
        var touches: [TouchPoint] = []
        touches.reserveCapacity(state.tracks.count)
        var ends: [TouchPoint] = []
        var anyEnded = false
        for i in state.tracks.indices {
            let id = state.tracks[i].id
            if var end = state.tracks[i].end {
                anyEnded = true
                if var began = state.tracks[i].began {
                    // Began and ended within this span: began here, the end in a message of its own.
                    began.coalesced = Array(state.tracks[i].coalesced.prefix(1))
                    touches.append(began)
                    end.previousLocation = began.location
                    end.coalesced = Array(state.tracks[i].coalesced.dropFirst())
                    ends.append(end)
                } else {
                    if let delivered = state.tracks[i].delivered { end.previousLocation = delivered.location }
                    end.coalesced = state.tracks[i].coalesced
                    touches.append(end)
                }
                continue
            }
            guard let newest = state.tracks[i].newest, var point = state.tracks[i].newestPoint else { continue }
            let previous = state.tracks[i].previous
            let next = nextSample(device: device, id: id)
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
            point.coalesced = state.tracks[i].coalesced
            touches.append(point)
            state.tracks[i].delivered = (point.location, blend.time)
            state.tracks[i].began = nil
            state.tracks[i].coalesced = []
        }
        if anyEnded { state.tracks.removeAll { $0.end != nil } }
        devices[d] = state
        guard !touches.isEmpty else { return }
        let time = Timestamp(microseconds: sampleTime)
        out.append(
            .touches(
                TouchesMessage(
                    device: device, time: time, fingers: state.fingers, isSemiMT: state.isSemiMT, touches: touches,
                    routing: state.routing)))
        if !ends.isEmpty {
            out.append(
                .touches(
                    TouchesMessage(
                        device: device, time: time, fingers: state.fingers, isSemiMT: state.isSemiMT, touches: ends,
                        routing: state.routing)))
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
    /// `MessageReplay.run` as a client with this frame clock receives it (`replay --frame-period-us`): each
    /// frame sees the messages whose time is at or before it, as a live client asking at that frame
    /// would. Frames run from the first timed message until everything is delivered and no touch is
    /// live; `sink` receives one batch per frame that delivered something (and the untimed messages
    /// before the first frame).
    public static func replay(
        recording: Recording, source: String = "", settings: PipelineSettings = .init(), clock: FrameClock,
        sink: ([Message]) -> Void
    ) {
        var aligner = FrameAligner()
        var nextFrame: Int64?
        var out: [Message] = []
        func flush() {
            if !out.isEmpty { sink(out) }
            out.removeAll(keepingCapacity: true)
        }
        MessageReplay.run(recording: recording, source: source, settings: settings) { batch in
            for message in batch {
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
                    continue
                }
                aligner.push(message)
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
