import Gestures
import MultitouchCore
import MultitouchTestKit
import Recordings
import TouchPipeline
import TouchPlot

/// What a replay should show, tallied straight from the pipeline's typed output (not from PlotData),
/// so the SVG is checked against the pipeline rather than against the plot's own model.
struct Tally {
    var ids: [UInt64] = []
    var ends: [UInt64: TouchPhase] = [:]
    var segments: [(mode: GestureMode, fingers: Int)] = []
    /// Fingers of the segments that began in a frame (not at a timer's deadline between frames, such
    /// as the end of a debounce): only those have touch points at their beginning to mark.
    var fingersOfSegmentsBegunInFrames = 0
    var taps = 0
    var doubleTaps = 0
    var longPresses = 0
    var maximumFingers = 0
    var scales: [Double] = []
    var locations: [Point] = []

    mutating func observe(frame: TouchFrame, events: [GestureEvent]) {
        maximumFingers = max(maximumFingers, frame.fingerCount)
        for touch in frame.touches {
            if touch.phase == .began { ids.append(touch.id) }
            if touch.phase.isTerminal { ends[touch.id] = touch.phase }
            locations.append(touch.location)
        }
        for case .update(let u) in events where u.phase == .began && u.time == frame.time {
            fingersOfSegmentsBegunInFrames += u.fingers
        }
        observe(timerEvents: events)
    }

    mutating func observe(timerEvents: [GestureEvent]) {
        for event in timerEvents {
            switch event {
            case .sessionBegan, .sessionEnded: break
            case .update(let u):
                if u.phase == .began { segments.append((u.mode, u.fingers)) }
                scales.append(u.matrix.scaleFactor)
            case .tap: taps += 1
            case .doubleTap(_, _, _, let matrix):
                doubleTaps += 1
                scales.append(matrix.scaleFactor)
            case .longPress(_, _, let phase, _, _): if phase == .began { longPresses += 1 }
            }
        }
    }

    static func of(_ recording: Recording) -> Tally {
        var tally = Tally()
        Replay.run(recording: recording) { batch in
            for output in batch where output.device == 1 {
                switch output {
                case .frame(let f) where !f.isWithheld: tally.observe(frame: f.frame, events: f.events)
                case .timers(_, let events, _): tally.observe(timerEvents: events)
                case .frame, .deviceAdded, .recordingNote, .dropped, .routed, .answer, .ended: break
                }
            }
        }
        return tally
    }
}

enum PlotFixtures {
    static func recording(_ fixture: Fixtures.Fixture) -> Recording {
        Recording(format: .evemu, devices: [RecordedDevice(description: fixture.device, events: fixture.events)])
    }

    /// The size of the stress case in the issue: 3,422 evdev frames, up to ten fingers at once (the
    /// random script writes one more frame than asked, lifting every finger).
    static func tenFingers() -> Recording {
        let device = TestDevices.touchscreen()
        return Recording(
            format: .evemu,
            devices: [
                RecordedDevice(
                    description: device,
                    events: RandomTouchScript.events(device: device, seed: 1, frames: 3421, maximumFingers: 10))
            ])
    }

    static func svg(_ recording: Recording, name: String = "test") -> [UInt8] {
        SVGPlot.render(PlotData.replay(recording: recording, name: name))
    }
}
