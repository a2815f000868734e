import MultitouchCore
import Recordings
import TouchPipeline
import TouchVocabulary

/// Collects a `PlotData` from what the pipeline computes for one device, typed, as a replay runs
/// (the same typed output `multitouchctl check` reads, so the plot shows exactly what clients receive).
public struct PlotRecorder {
    public private(set) var data: PlotData
    /// Trail index of every touch seen, by id.
    private var trailIndex: [UInt64: Int] = [:]
    /// Index of the segment running now, if any.
    private var running: Int?
    /// The last sample's matrix angle (wrapped) and unwrapped rotation, for unwrapping.
    private var lastAngle = 0.0
    private var lastRotation = 0.0

    public init(data: PlotData) { self.data = data }

    /// Takes one output of the device's pipeline (its frames and timers; the rest draws nothing).
    public mutating func take(_ output: PipelineOutput) {
        switch output {
        case .frame(let f) where !f.isWithheld: observe(frame: f.frame, events: f.events)
        case .timers(_, let events, _): observe(timerEvents: events)
        case .frame, .deviceAdded, .recordingNote, .dropped, .routed, .answer, .ended: break
        }
    }

    public mutating func observe(frame: TouchFrame, events: [GestureEvent]) {
        if data.frameCount == 0 {
            data.start = frame.time
            data.transforms.append(TransformSample(time: frame.time, scale: 1, rotation: 0, translation: .zero))
            data.fingers.append(FingerSample(time: frame.time, count: 0))
        }
        data.frameCount += 1
        data.end = max(data.end, frame.time)
        let before = running
        handle(events)
        // A frame that ends a segment without starting another still belongs to the one it ended, and a
        // touch lifting in a frame that hands over to a new segment belongs to the old one.
        let continuing = running ?? before
        let lifting = before ?? running
        for touch in frame.touches {
            let segment = touch.phase.isTerminal ? lifting : continuing
            let index: Int
            if let known = trailIndex[touch.id] {
                index = known
            } else {
                index = data.trails.count
                trailIndex[touch.id] = index
                data.trails.append(TouchTrail(id: touch.id))
            }
            // A stationary touch adds nothing to draw unless a segment boundary passes it.
            if let last = data.trails[index].points.last, last.location == touch.location, last.segment == segment,
                !touch.phase.isTerminal
            {
                continue
            }
            data.trails[index].points.append(TrailPoint(time: frame.time, location: touch.location, segment: segment))
            if touch.phase.isTerminal { data.trails[index].end = touch.phase }
        }
        if data.fingers.last?.count != frame.fingerCount {
            data.fingers.append(FingerSample(time: frame.time, count: frame.fingerCount))
        }
    }

    public mutating func observe(timerEvents: [GestureEvent]) {
        handle(timerEvents)
    }

    private mutating func handle(_ events: [GestureEvent]) {
        for event in events {
            data.end = max(data.end, event.time)
            switch event {
            case .sessionBegan, .sessionEnded:
                break
            case .update(let u):
                switch u.phase {
                case .began:
                    running = data.segments.count
                    data.segments.append(
                        PlotSegment(
                            session: u.session, mode: u.mode, fingers: u.fingers, began: u.time, centroid: u.centroid))
                case .changed:
                    break
                case .ended, .cancelled:
                    if let index = running {
                        data.segments[index].ended = u.time
                        data.segments[index].cancelled = u.phase == .cancelled
                    }
                    running = nil
                }
                sample(u.matrix, at: u.time)
            case .tap(_, let time, let location, let count, let fingers):
                data.marks.append(
                    GestureMark(kind: .tap(count: count, fingers: fingers), time: time, location: location))
            case .doubleTap(_, let time, let location, let matrix):
                data.marks.append(GestureMark(kind: .doubleTap, time: time, location: location))
                sample(matrix, at: time)
            case .longPress(_, let time, let phase, let location, let fingers):
                data.marks.append(
                    GestureMark(kind: .longPress(phase, fingers: fingers), time: time, location: location))
            }
        }
    }

    /// Adds a transform sample when the matrix changed the plotted quantities.
    private mutating func sample(_ matrix: AffineTransform, at time: Timestamp) {
        let angle = matrix.rotationAngle
        var delta = angle - lastAngle
        // The matrix never jumps (DESIGN.md), so the shortest way round is the way it turned.
        while delta > Double.pi { delta -= 2 * Double.pi }
        while delta < -Double.pi { delta += 2 * Double.pi }
        lastAngle = angle
        lastRotation += delta
        let next = TransformSample(
            time: time, scale: matrix.scaleFactor, rotation: lastRotation,
            translation: Point(x: matrix.tx, y: matrix.ty))
        if let last = data.transforms.last, last.scale == next.scale, last.rotation == next.rotation,
            last.translation == next.translation
        {
            return
        }
        data.transforms.append(next)
    }
}

extension PlotData {
    /// Replays `recording` through the pipeline and collects the plot of one of its devices.
    ///
    /// - Parameters:
    ///   - name: the recording's file name (title, and the `source` the pipeline reports).
    ///   - device: index into `recording.devices`; must be valid.
    public static func replay(
        recording: Recording, name: String, settings: PipelineSettings = .init(), device: Int = 0
    ) -> PlotData {
        precondition(recording.devices.indices.contains(device), "device index out of range")
        var observers: [PlotRecorder] = recording.devices.enumerated().map { index, recorded in
            // The device the replay announces in deviceAdded: published units and extent.
            let device = DevicePipeline(
                deviceID: index + 1, description: recorded.description, source: name, settings: settings
            ).device
            let size = device.mapper.sizeMillimeters
            let published = device.mapper.output.map { ($0.width, $0.height) } ?? (size.width, size.height)
            return PlotRecorder(
                data: PlotData(
                    title: name, deviceName: device.name, deviceClass: device.description.deviceClass,
                    units: device.mapper.units, width: published.0, height: published.1))
        }
        Replay.run(recording: recording, source: name, settings: settings) { batch in
            // Devices are numbered from 1 in the recording's order.
            for output in batch {
                if let id = output.device, observers.indices.contains(id - 1) { observers[id - 1].take(output) }
            }
        }
        return observers[device].data
    }
}
