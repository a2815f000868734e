import Gestures
import MultitouchCore
import TouchScripting

/// One measured number of the feel report: which target of issue 10 it belongs to, what was measured,
/// the value and the goal it is held against.
public struct FeelRow: Sendable, CustomStringConvertible {
    /// Target number and short name, e.g. "1 pan start".
    public var target: String
    /// What was measured, in words, with its unit.
    public var measure: String
    /// The measured value, formatted; "n/a" when the engine has no such feature.
    public var value: String
    /// The goal, in words.
    public var goal: String
    /// Whether the value meets the goal (nil when there is nothing to compare).
    public var met: Bool?

    /// One line of the report: target | what | value | goal | ok.
    public var description: String {
        let mark = met.map { $0 ? "ok" : "MISS" } ?? "-"
        return "\(target) | \(measure) | \(value) | \(goal) | \(mark)"
    }
}

/// The feel report: scripted 60 Hz hand movements in millimetres, replayed through the real pipeline,
/// measured the way a map user would notice them (`multitouchctl feel` prints it; tests hold each row
/// to its goal). Each function builds its scenario with `FingerScript` on a test device (described as
/// data in `TestDevices`) and reads the replay's gesture events.
public enum FeelReport {
    /// Every row, in target order: the scenarios replayed with `base` (the built-in defaults unless a
    /// configuration file says otherwise), then the recordings of `recordings` when given.
    public static func measure(
        configuration base: GestureConfiguration = .default, recordings: String? = nil
    ) -> [FeelRow] {
        var rows = panStart(base) + liftFrames(base) + debounce(base) + intentThresholds(base) + fit(base)
        rows += limits(base) + velocities(base) + discrete(base) + touchpads(base)
        if let recordings { rows += FeelRecordings.measure(directory: recordings, configuration: base) }
        return rows
    }

    static func f(_ v: Double, _ digits: Int = 2) -> String {
        guard v.isFinite else { return "\(v)" }
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let r = (v * scale).rounded() / scale
        return r == 0 ? "0" : "\(r)"
    }

    // MARK: 1. Pan start

    /// A 60 mm swipe at 600 mm/s (10 mm per frame at 60 Hz), held, lifted.
    public static func panSwipe(_ configuration: GestureConfiguration = .default) -> FeelScenario {
        FeelScenario("pan-swipe-60mm", configuration: configuration) { s in
            s.down(0, 60, 128)
            s.emit()
            s.drag([(0, 10, 0)], frames: 6)
            s.step()
            s.lift(0)
        }
    }

    static func panStart(_ c: GestureConfiguration) -> [FeelRow] {
        let trace = FeelTrace.replay(panSwipe(c))
        let frames = trace.frameIndices
        guard let first = frames.first, let landing = trace.entries[first].frame?.touches.first?.location else {
            return []
        }
        // The content point that was under the finger when it landed.
        var lags: [Double] = []
        var travel = 0.0
        var started = false
        for index in frames {
            guard let touch = trace.entries[index].frame?.touches.first, !touch.phase.isTerminal else { continue }
            let content = trace.follow(landing, from: first, to: index)
            travel = content.x - landing.x
            if trace.entries[index].events.contains(where: {
                if case .update = $0 { return true } else { return false }
            }) {
                started = true
            }
            if started { lags.append(touch.location.x - content.x) }
        }
        let lag = lags.last ?? .nan
        let drift = (lags.max() ?? 0) - (lags.min() ?? 0)
        return [
            FeelRow(
                target: "1 pan start", measure: "map travel for a 60 mm swipe at 60 Hz (mm)", value: f(travel),
                goal: ">= 58 (travel minus the 2 mm slop)", met: travel >= 58 - 1e-6),
            FeelRow(
                target: "1 pan start", measure: "lag of the landing point behind the finger (mm)", value: f(lag),
                goal: "<= 2 (the slop)", met: lag <= 2 + 1e-6),
            FeelRow(
                target: "1 pan start", measure: "drift of that lag while dragging (mm)", value: f(drift, 4),
                goal: "0", met: drift <= 1e-6),
        ]
    }

    // MARK: 2. Lift and land frames

    /// Two fingers 40 mm apart drag at 480 mm/s (8 mm per frame); one lifts mid-motion, the other
    /// keeps dragging.
    public static func liftMidDrag(_ configuration: GestureConfiguration = .default) -> FeelScenario {
        .handOff(
            "lift-mid-drag", from: Point(x: 100, y: 60), spread: 40, delta: Point(x: 0, y: 8), before: 8, after: 8,
            configuration: configuration)
    }

    /// Largest rotation (deg) and scale change (|ratio - 1|) of the cumulative transform within a frame
    /// in which the number of active touches dropped, beyond what the fingers that stay explain.
    public static func liftFrameChange(_ trace: FeelTrace) -> (degrees: Double, scale: Double) {
        var worst = (degrees: 0.0, scale: 0.0)
        var previous: TouchFrame?
        for index in trace.frameIndices {
            guard let frame = trace.entries[index].frame else { continue }
            defer { previous = frame }
            guard let before = previous else { continue }
            let activeBefore = before.touches.filter { !$0.phase.isTerminal }
            let remaining = frame.touches.filter { !$0.phase.isTerminal }
            guard remaining.count < activeBefore.count else { continue }
            let d = scaleAndDegrees(change(from: trace.matrixBefore(index), to: trace.matrixAfter[index]))
            // What the remaining fingers' own motion in this frame explains.
            var fit = SimilarityFit()
            for touch in remaining {
                if let old = activeBefore.first(where: { $0.id == touch.id }) {
                    fit.add(start: old.location, current: touch.location)
                }
            }
            let explained = fit.solve() ?? (1, 0)
            // The content may hold still (a locked threshold) or follow the fingers, or anything in
            // between; what it does beyond that, or the other way, is the change the lift added.
            let degrees = beyond(d.degrees, explained.rotation * 180 / Double.pi)
            let scale = beyond(naturalLog(d.scale), naturalLog(explained.scale))  // ~ |ratio - 1|
            worst = (max(worst.degrees, degrees), max(worst.scale, scale))
        }
        return worst
    }

    /// How far `value` lies outside the interval between 0 and `explained`.
    static func beyond(_ value: Double, _ explained: Double) -> Double {
        let low = min(0, explained)
        let high = max(0, explained)
        return value < low ? low - value : (value > high ? value - high : 0)
    }

    static func liftFrames(_ c: GestureConfiguration) -> [FeelRow] {
        let change = liftFrameChange(FeelTrace.replay(liftMidDrag(c)))
        return [
            FeelRow(
                target: "2 lift frames", measure: "rotation at the lift of a fast two-finger drag (deg)",
                value: f(change.degrees, 3), goal: "<= 0.1", met: change.degrees <= 0.1),
            FeelRow(
                target: "2 lift frames", measure: "scale change at that lift (|ratio - 1|)",
                value: f(change.scale, 4), goal: "<= 0.002", met: change.scale <= 0.002),
        ]
    }

    // MARK: 3. Debounce

    /// Two fingers drag slowly (39 mm/s, under the slop per debounce); one lifts, the other goes on.
    public static func slowHandoff(_ configuration: GestureConfiguration = .default) -> FeelScenario {
        .handOff(
            "slow-handoff", from: Point(x: 100, y: 100), spread: 40, delta: Point(x: 0.65, y: 0), before: 20,
            after: 12, configuration: configuration)
    }

    /// Lag of the content under the finger that stays (from the frame before the lift) over the next
    /// `window` ms, and the largest one-frame step of that lag.
    static func handoffLag(_ trace: FeelTrace, windowMs: Double = 150) -> (lag: Double, jump: Double) {
        var previous: (index: Int, frame: TouchFrame)?
        for index in trace.frameIndices {
            guard let frame = trace.entries[index].frame else { continue }
            defer { previous = (index, frame) }
            guard let before = previous,
                frame.touches.contains(where: { $0.phase.isTerminal }),
                let stay = frame.touches.first(where: { !$0.phase.isTerminal }),
                let start = before.frame.touches.first(where: { $0.id == stay.id })?.location
            else { continue }
            var lag = 0.0
            var jump = 0.0
            var last = 0.0
            for later in trace.frameIndices where later >= index {
                guard let f = trace.entries[later].frame, f.time.milliseconds(since: frame.time) <= windowMs,
                    let finger = f.touches.first(where: { $0.id == stay.id })
                else { continue }
                // Timer entries before this frame fired at their deadlines, earlier than the frame:
                // matrixAfter[later] includes them and nothing later.
                let content = trace.follow(start, from: before.index, to: later)
                let l = content.distance(to: finger.location)
                lag = max(lag, l)
                jump = max(jump, abs(l - last))
                last = l
            }
            return (lag, jump)
        }
        return (.nan, .nan)
    }

    /// Two fingers drag at 120 mm/s; the second bounces four times (up one frame, down the next, each
    /// bounce within the 50 ms debounce).
    public static func bounce(_ configuration: GestureConfiguration = .default) -> FeelScenario {
        FeelScenario("bounce", configuration: configuration) { s in
            s.down(0, 100, 100)
            s.down(1, 140, 100)
            s.emit()
            s.drag([(0, 2, 0), (1, 2, 0)], frames: 10)
            for _ in 0..<4 {
                s.liftMidMotion(1, moving: 0, by: Point(x: 2, y: 0))
                let p = s.position(0)
                s.down(1, p.x + 40 + 2, p.y)
                s.moveBy(0, 2, 0)
                s.step()
                s.drag([(0, 2, 0), (1, 2, 0)], frames: 2)
            }
            s.drag([(0, 2, 0), (1, 2, 0)], frames: 5)
            s.lift(0, 1)
        }
    }

    /// Distance between finger 1 (touch id 1) and the content point that was under it at the frame
    /// before the first lift, at the last frame it is down.
    static func steadyFingerError(_ trace: FeelTrace) -> Double {
        var reference: (index: Int, point: Point)?
        var previous: (index: Int, frame: TouchFrame)?
        var last: (index: Int, point: Point)?
        for index in trace.frameIndices {
            guard let frame = trace.entries[index].frame else { continue }
            if reference == nil, frame.touches.contains(where: { $0.phase.isTerminal }), let before = previous,
                let p = before.frame.touches.first(where: { $0.id == 1 })?.location
            {
                reference = (before.index, p)
            }
            if let t = frame.touches.first(where: { $0.id == 1 }), !t.phase.isTerminal { last = (index, t.location) }
            previous = (index, frame)
        }
        guard let reference, let last else { return .nan }
        return trace.follow(reference.point, from: reference.index, to: last.index).distance(to: last.point)
    }

    static func debounce(_ c: GestureConfiguration) -> [FeelRow] {
        let handoff = handoffLag(FeelTrace.replay(slowHandoff(c)))
        let error = steadyFingerError(FeelTrace.replay(bounce(c)))
        return [
            FeelRow(
                target: "3 debounce", measure: "2->1 handoff: largest lag of the map behind the finger (mm)",
                value: f(handoff.lag, 3), goal: "<= 0.5", met: handoff.lag <= 0.5),
            FeelRow(
                target: "3 debounce", measure: "2->1 handoff: largest one-frame catch-up step (mm)",
                value: f(handoff.jump, 3), goal: "<= 0.5", met: handoff.jump <= 0.5),
            FeelRow(
                target: "3 debounce", measure: "four bounces: steady finger's map point off by (mm)",
                value: f(error, 3), goal: "<= 0.1", met: error <= 0.1),
        ]
    }

    // MARK: 4. Intent thresholds

    /// Two fingers 40 mm apart twist 45 degrees about their centroid in half a second.
    public static func twist(degrees: Double = 45, configuration: GestureConfiguration = .default) -> FeelScenario {
        FeelScenario("twist-\(Int(degrees))", configuration: configuration) { s in
            let c = Point(x: 128, y: 128)
            s.down(0, c.x - 20, c.y)
            s.down(1, c.x + 20, c.y)
            s.emit()
            for k in 1...30 {
                let a = degrees * Double(k) / 30 * Double.pi / 180
                s.moveTo(0, c.x - 20 * cosine(a), c.y - 20 * sine(a))
                s.moveTo(1, c.x + 20 * cosine(a), c.y + 20 * sine(a))
                s.step()
            }
            s.step()
            s.lift(0, 1)
        }
    }

    /// Two fingers pan 80 mm while their distance grows 2 mm and their line turns 5 degrees, as a
    /// real two-finger pan does.
    public static func sloppyTwoFingerPan(_ configuration: GestureConfiguration = .default) -> FeelScenario {
        FeelScenario("sloppy-two-finger-pan", configuration: configuration) { s in
            s.down(0, 100, 60)
            s.down(1, 140, 60)
            s.emit()
            for k in 1...40 {
                let t = Double(k) / 40
                let half = 20 + 1 * t
                let a = 5 * t * Double.pi / 180
                let c = Point(x: 120, y: 60 + 80 * t)
                s.moveTo(0, c.x - half * cosine(a), c.y - half * sine(a))
                s.moveTo(1, c.x + half * cosine(a), c.y + half * sine(a))
                s.step()
            }
            s.lift(0, 1)
        }
    }

    /// Largest |rotation| (deg) and |scale - 1| of the cumulative transform over a trace.
    public static func largestDeviation(_ trace: FeelTrace) -> (degrees: Double, scale: Double) {
        var worst = (degrees: 0.0, scale: 0.0)
        for m in trace.matrixAfter {
            let d = scaleAndDegrees(m)
            worst = (max(worst.degrees, abs(d.degrees)), max(worst.scale, abs(d.scale - 1)))
        }
        return worst
    }

    static func intentThresholds(_ c: GestureConfiguration) -> [FeelRow] {
        let twist = scaleAndDegrees(FeelTrace.replay(twist(configuration: c)).matrixAfter.last ?? .identity).degrees
        let pan = largestDeviation(FeelTrace.replay(sloppyTwoFingerPan(c)))
        var rows = [
            FeelRow(
                target: "4 intent thresholds", measure: "45 deg twist: map rotation (deg)", value: f(twist),
                goal: "40...50", met: twist >= 40 && twist <= 50),
            FeelRow(
                target: "4 intent thresholds",
                measure: "two-finger pan (2 mm spread, 5 deg drift): largest rotation (deg)",
                value: f(pan.degrees, 3), goal: "<= 1", met: pan.degrees <= 1),
            FeelRow(
                target: "4 intent thresholds", measure: "two-finger pan: largest |scale - 1|",
                value: f(pan.scale, 4), goal: "<= 0.002", met: pan.scale <= 0.002),
        ]
        rows += FeelOptions.rotationOffRows(c)
        return rows
    }

    // MARK: 5. Fit

    /// Three fingers: two pan 10 mm together, the third rests near their middle.
    public static func restingMiddleFinger(_ configuration: GestureConfiguration = .default) -> FeelScenario {
        FeelScenario("resting-middle-finger", configuration: configuration) { s in
            s.down(0, 108, 128)
            s.down(1, 148, 128)
            s.down(2, 129, 130)
            s.emit()
            s.drag([(0, 0, 0.5), (1, 0, 0.5)], frames: 20)
            s.lift(0, 1, 2)
        }
    }

    static func fit(_ c: GestureConfiguration) -> [FeelRow] {
        let rotation = largestDeviation(FeelTrace.replay(restingMiddleFinger(c))).degrees
        return [
            FeelRow(
                target: "5 fit", measure: "two fingers pan, a third rests mid-way: largest rotation (deg)",
                value: f(rotation, 3), goal: "<= 1", met: rotation <= 1)
        ]
    }

    // MARK: 6. Limits

    /// A pinch out to 3x (scale limit 2), then straight back in (or, without `reverse`, held and
    /// released at 3x).
    public static func pinchPastLimit(configuration: GestureConfiguration, reverse: Bool = true) -> FeelScenario {
        FeelScenario("pinch-past-limit", configuration: configuration) { s in
            s.down(0, 108, 128)
            s.down(1, 148, 128)
            s.emit()
            s.drag([(0, -1, 0), (1, 1, 0)], frames: 40)
            if reverse { s.drag([(0, 1, 0), (1, -1, 0)], frames: 20) }
            s.step()
            s.lift(0, 1)
        }
    }

    /// Frames and finger travel (mm, per finger) from the reversal of a pinch until the scale drops.
    static func reversalDelay(_ trace: FeelTrace, reversalFrame: Int) -> (frames: Int, millimeters: Double) {
        let frames = trace.frameIndices
        guard frames.count > reversalFrame else { return (-1, .nan) }
        let reversal = frames[reversalFrame]
        let peak = trace.matrixAfter[reversal - 1].scaleFactor
        for (n, index) in frames[reversalFrame...].enumerated() where trace.matrixAfter[index].scaleFactor < peak - 1e-9
        {
            return (n + 1, Double(n + 1) * 1)
        }
        return (-1, .nan)
    }

    static func limits(_ c: GestureConfiguration) -> [FeelRow] {
        var limited = c
        limited.maximumScale = 2
        let trace = FeelTrace.replay(pinchPastLimit(configuration: limited))
        // Frame 0 is the landing; frames 1...40 pinch out; frame 41 is the first that pinches in.
        let delay = reversalDelay(trace, reversalFrame: 41)
        var rows = [
            FeelRow(
                target: "6 limits", measure: "past max_scale, frames until reversing the pinch zooms out",
                value: delay.frames < 0 ? "never" : "\(delay.frames) (\(f(delay.millimeters, 1)) mm per finger)",
                goal: "1", met: delay.frames == 1)
        ]
        rows += FeelOptions.rubberBandRows(c)
        return rows
    }

    // MARK: 7. Velocities

    /// A one-finger swipe at `speed` mm/s for 150 ms on a `rateHz` panel, lifted while moving (the lift
    /// frame carries no motion, as on real panels), or after resting `restMs`.
    public static func swipe(
        rateHz: Double, speed: Double = 200, restMs: Double = 0, configuration: GestureConfiguration = .default
    ) -> FeelScenario {
        FeelScenario("swipe-\(Int(rateHz))hz", rateHz: rateHz, configuration: configuration) { s in
            s.down(0, 60, 128)
            s.emit()
            let frames = Int((0.150 * rateHz).rounded())
            s.drag([(0, speed / rateHz, 0)], frames: frames)
            s.up(0)
            if restMs > 0 {
                s.idle(ms: restMs)
            } else {
                s.step()
            }
        }
    }

    /// The velocity (published units/s, here mm/s) of the last segment update.
    static func releaseSpeed(_ trace: FeelTrace) -> Double {
        let segments = trace.updates.filter { $0.update.fingers > 0 }
        return segments.last?.update.velocity.translation.length ?? .nan
    }

    /// Two fingers drag at 200 mm/s; one lifts, the other goes on at 200 mm/s.
    public static func fastHandoff(_ configuration: GestureConfiguration = .default) -> FeelScenario {
        .handOff(
            "fast-handoff", from: Point(x: 60, y: 100), spread: 40, delta: Point(x: 200.0 / 60, y: 0), before: 12,
            after: 12, configuration: configuration)
    }

    /// Smallest and largest published speed over `windowMs` after the first lift, as a fraction of
    /// `speed`.
    static func speedAfterHandoff(
        _ trace: FeelTrace, speed: Double, windowMs: Double = 120
    ) -> (low: Double, high: Double) {
        guard
            let lift = trace.entries.first(where: {
                $0.frame?.touches.contains(where: { $0.phase.isTerminal }) ?? false
            })?.frame?.time
        else { return (.nan, .nan) }
        var low = Double.infinity
        var high = 0.0
        for (_, u) in trace.updates
        where u.fingers > 0 && u.time >= lift && u.time.milliseconds(since: lift) <= windowMs {
            guard u.phase == .changed || u.phase == .ended else { continue }
            let r = u.velocity.translation.length / speed
            low = min(low, r)
            high = max(high, r)
        }
        return low.isFinite ? (low, high) : (.nan, .nan)
    }

    static func velocities(_ c: GestureConfiguration) -> [FeelRow] {
        var rows: [FeelRow] = []
        for rate in [60.0, 120.0, 240.0] {
            let ratio = releaseSpeed(FeelTrace.replay(swipe(rateHz: rate, configuration: c))) / 200
            rows.append(
                FeelRow(
                    target: "7 velocities", measure: "release speed / finger speed, \(Int(rate)) Hz swipe at 200 mm/s",
                    value: f(ratio, 3), goal: "0.9...1.1", met: abs(ratio - 1) <= 0.1))
        }
        let rested = releaseSpeed(FeelTrace.replay(swipe(rateHz: 60, restMs: 40, configuration: c)))
        rows.append(
            FeelRow(
                target: "7 velocities", measure: "release speed after a 40 ms rest (mm/s)", value: f(rested, 2),
                goal: "0", met: rested == 0))
        let handoff = speedAfterHandoff(FeelTrace.replay(fastHandoff(c)), speed: 200)
        rows.append(
            FeelRow(
                target: "7 velocities", measure: "speed / finger speed in the 120 ms after a 2->1 handoff",
                value: "\(f(handoff.low, 3))...\(f(handoff.high, 3))", goal: "0.9...1.1",
                met: abs(handoff.low - 1) <= 0.1 && abs(handoff.high - 1) <= 0.1))
        rows += FeelOptions.momentumRows(c)
        return rows
    }

    // MARK: 8. Discrete gestures

    /// Two fingers land together, stay 80 ms, lift together.
    public static func twoFingerTap(configuration: GestureConfiguration = .default) -> FeelScenario {
        FeelScenario("two-finger-tap", configuration: configuration) { s in
            s.down(0, 110, 128)
            s.down(1, 140, 128)
            s.emit()
            s.moveBy(0, 0.3, 0.2)
            s.step()
            s.wait(ms: 64)
            s.up(0)
            s.up(1)
            s.emit()
            s.idle(ms: 1000)
        }
    }

    /// A tap, then 150 ms later the finger lands again and drags 30 mm down.
    public static func doubleTapDrag(configuration: GestureConfiguration = .default) -> FeelScenario {
        FeelScenario("double-tap-drag", configuration: configuration) { s in
            s.tap(0, 128, 100, holdMs: 60, thenMs: 150)
            s.down(0, 128, 100)
            s.emit()
            s.drag([(0, 0, 1.5)], frames: 20)
            s.lift(0)
        }
    }

    /// A double tap (zoom factor 2).
    public static func doubleTap(configuration: GestureConfiguration) -> FeelScenario {
        FeelScenario("double-tap", configuration: configuration) { s in
            for _ in 0..<2 {
                s.tap(0, 128, 100, holdMs: 60, thenMs: 120)
            }
            s.idle(ms: 1000)
        }
    }

    /// How many published steps (gesture updates and double taps) change the cumulative scale.
    static func scaleSteps(_ trace: FeelTrace) -> Int {
        var steps = 0
        var last = 1.0
        for event in trace.events {
            let m: AffineTransform
            switch event {
            case .update(let u): m = u.matrix
            case .doubleTap(_, _, _, let matrix): m = matrix
            case .sessionBegan, .sessionEnded, .tap, .longPress: continue
            }
            if abs(m.scaleFactor - last) > 1e-12 { steps += 1 }
            last = m.scaleFactor
        }
        return steps
    }

    static func discrete(_ c: GestureConfiguration) -> [FeelRow] {
        let tap = FeelTrace.replay(twoFingerTap(configuration: c))
        let segments = tap.updates.count
        let taps = tap.events.compactMap {
            if case .tap(_, _, _, _, let fingers) = $0 { return fingers } else { return nil }
        }
        var rows = [
            FeelRow(
                target: "8 discrete", measure: "quick two-finger tap: gesture updates published",
                value: "\(segments)", goal: "0", met: segments == 0),
            FeelRow(
                target: "8 discrete", measure: "quick two-finger tap: tap fingers",
                value: taps.map(String.init).joined(separator: ","), goal: "2", met: taps == [2]),
        ]
        let drag = FeelTrace.replay(doubleTapDrag(configuration: c))
        let modes = Set(drag.updates.map(\.update.mode.rawValue)).sorted().joined(separator: ",")
        let scale = drag.matrixAfter.last?.scaleFactor ?? .nan
        rows.append(
            FeelRow(
                target: "8 discrete", measure: "double-tap-and-drag 30 mm down: segment modes, final scale",
                value: "\(modes) x\(f(scale, 3))", goal: "quickZoom, > 1", met: modes.contains("quickZoom") && scale > 1
            ))
        var zooming = c
        zooming.doubleTapZoomFactor = 2
        let zoom = FeelTrace.replay(doubleTap(configuration: zooming))
        let steps = scaleSteps(zoom)
        rows.append(
            FeelRow(
                target: "8 discrete", measure: "double-tap zoom x2: steps the zoom is spread over",
                value: "\(steps) (final x\(f(zoom.matrixAfter.last?.scaleFactor ?? .nan, 3)))",
                goal: "> 1 when animated", met: steps > 1))
        rows += FeelOptions.twoFingerTapZoomRows(c)
        return rows
    }

    // MARK: 9. Touchpads

    /// On a clickpad: two physical clicks (BTN_LEFT) 150 ms apart with one finger.
    public static func doubleClick(_ configuration: GestureConfiguration = .default) -> FeelScenario {
        FeelScenario("double-click", on: TestDevices.touchpad(), configuration: configuration) { s in
            for _ in 0..<2 {
                s.down(0, 50, 30)
                s.emit()
                s.wait(ms: 20)
                s.scripter.press()
                s.emit()
                s.wait(ms: 40)
                s.scripter.release()
                s.emit()
                s.wait(ms: 20)
                s.up(0)
                s.emit()
                s.wait(ms: 70)
            }
            s.idle(ms: 1000)
        }
    }

    /// On a clickpad: a thumb rests in the button area while the index finger drags 30 mm.
    public static func thumbOnButton(_ configuration: GestureConfiguration = .default) -> FeelScenario {
        FeelScenario("thumb-on-button", on: TestDevices.touchpad(), configuration: configuration) { s in
            s.down(0, 30, 58)
            s.emit()
            s.wait(ms: 200)
            s.down(1, 60, 30)
            s.step()
            s.drag([(1, 1, -0.5)], frames: 30)
            s.lift(1)
            s.lift(0)
        }
    }

    /// A protocol A touchscreen that holds BTN_TOOL_DOUBLETAP for one finger (the N-Trig panel): a
    /// tap, then a one-finger drag.
    public static func doubleTapToolOneFinger(_ configuration: GestureConfiguration = .default) -> FeelScenario {
        FeelScenario("ntrig-one-finger", on: TestDevices.protocolATouchscreen(), configuration: configuration) { s in
            s.scripter.toolFingerCountOverride = 2
            s.tap(0, 100, 100, holdMs: 60, thenMs: 500)
            s.down(0, 100, 100)
            s.emit()
            s.drag([(0, 2, 0)], frames: 20)
            s.lift(0)
            s.idle(ms: 1000)
        }
    }

    /// A semi-mt clickpad: two fingers rest, a third lands outside their bounding box.
    public static func semiMTThirdFinger(_ configuration: GestureConfiguration = .default) -> FeelScenario {
        FeelScenario("semi-mt-third-finger", on: TestDevices.semiMTClickpad(), configuration: configuration) { s in
            s.down(0, 40, 20)
            s.down(1, 60, 25)
            s.emit()
            s.drag([(0, 0, 0.5), (1, 0, 0.5)], frames: 10)
            s.step()
            s.down(2, 80, 40)
            s.step()
            s.step()
            s.lift(2)
            s.lift(0, 1)
        }
    }

    /// Largest displacement (published units) of any touch position by the content change of a frame
    /// in which the finger count rose (a semi-mt pad adds no touch for a third finger, only
    /// `BTN_TOOL_TRIPLETAP`).
    static func landingJump(_ trace: FeelTrace) -> Double {
        var worst = 0.0
        var fingers = 0
        for index in trace.frameIndices {
            guard let frame = trace.entries[index].frame else { continue }
            defer { fingers = frame.fingerCount }
            guard frame.fingerCount > fingers, fingers > 0 else { continue }
            let m = change(from: trace.matrixBefore(index), to: trace.matrixAfter[index])
            for t in frame.touches { worst = max(worst, m.apply(t.location).distance(to: t.location)) }
        }
        return worst
    }

    static func touchpads(_ c: GestureConfiguration) -> [FeelRow] {
        let click = FeelTrace.replay(doubleClick(c))
        let taps = click.events.filter { if case .tap = $0 { return true } else { return false } }.count
        let doubles = click.events.filter { if case .doubleTap = $0 { return true } else { return false } }.count
        let thumb = FeelTrace.replay(thumbOnButton(c))
        let t = scaleAndDegrees(thumb.matrixAfter.last ?? .identity)
        let ntrig = FeelTrace.replay(doubleTapToolOneFinger(c))
        let ntrigTaps = ntrig.events.compactMap {
            if case .tap(_, _, _, _, let n) = $0 { return n } else { return nil }
        }
        let ntrigModes = Set(ntrig.updates.map(\.update.mode.rawValue)).sorted().joined(separator: ",")
        let jump = landingJump(FeelTrace.replay(semiMTThirdFinger(c)))
        return [
            FeelRow(
                target: "9 touchpads", measure: "clickpad double click (BTN_LEFT): taps, doubleTaps",
                value: "\(taps), \(doubles)", goal: "0, 0", met: taps == 0 && doubles == 0),
            FeelRow(
                target: "9 touchpads", measure: "thumb resting in the button area, index drags: scale, rotation (deg)",
                value: "x\(f(t.scale, 3)), \(f(t.degrees, 2))", goal: "x1, 0",
                met: abs(t.scale - 1) < 1e-9 && abs(t.degrees) < 1e-9),
            FeelRow(
                target: "9 touchpads", measure: "protocol A + BTN_TOOL_DOUBLETAP, one finger: tap fingers; drag modes",
                value: "\(ntrigTaps.map(String.init).joined(separator: ",")); \(ntrigModes)", goal: "1; pan",
                met: ntrigTaps == [1] && ntrigModes == "pan"),
            FeelRow(
                target: "9 touchpads", measure: "semi-mt third finger lands: content jump (mm)", value: f(jump, 3),
                goal: "0", met: jump <= 1e-9),
        ]
    }
}
