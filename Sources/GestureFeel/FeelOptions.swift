import Gestures
import MultitouchCore

/// Rows of the feel report for the options a map can switch on: rotation off, the rubber band,
/// momentum, the two-finger-tap zoom.
enum FeelOptions {
    static func rotationOffRows(_ c: GestureConfiguration) -> [FeelRow] {
        var off = c
        off.rotation = false
        let degrees = FeelReport.largestDeviation(FeelTrace.replay(FeelReport.twist(configuration: off))).degrees
        return [
            FeelRow(
                target: "4 intent thresholds", measure: "45 deg twist with rotation = false: map rotation (deg)",
                value: FeelReport.f(degrees, 3), goal: "0", met: degrees == 0)
        ]
    }

    static func rubberBandRows(_ c: GestureConfiguration) -> [FeelRow] {
        var band = c
        band.maximumScale = 2
        band.rubberBand = true
        let trace = FeelTrace.replay(FeelReport.pinchPastLimit(configuration: band, reverse: false))
        let peak = trace.matrixAfter.map(\.scaleFactor).max() ?? .nan
        let final = trace.matrixAfter.last?.scaleFactor ?? .nan
        return [
            FeelRow(
                target: "6 limits",
                measure: "rubber band past max_scale 2 (pinch to 3x): largest scale, scale after release",
                value: "x\(FeelReport.f(peak, 3)), x\(FeelReport.f(final, 4))", goal: "2 < peak < 4, back to 2",
                met: peak > 2 && peak < 4 && abs(final - 2) < 1e-9)
        ]
    }

    static func momentumRows(_ c: GestureConfiguration) -> [FeelRow] {
        var fling = c
        fling.momentum = true
        let trace = FeelTrace.replay(FeelReport.swipe(rateHz: 60, speed: 300, configuration: fling))
        let momentum = trace.updates.filter { $0.update.mode == .momentum }
        guard let first = momentum.first, let last = momentum.last else {
            return [
                FeelRow(
                    target: "7 velocities", measure: "momentum after a 300 mm/s fling (momentum = true)", value: "none",
                    goal: "decelerating updates", met: false)
            ]
        }
        let travel = last.update.translation.length
        // Each frame's speed is the one before times r^(frame time in ms).
        let speeds = momentum.filter { $0.update.phase != .began }.map(\.update.velocity.translation.length)
        let decreasing = zip(speeds, speeds.dropFirst()).allSatisfy { $1 <= $0 }
        // Travel of an exponential decay from v0: v0 / lambda, lambda = -1000 ln r.
        let expected = 300 / (-1000 * naturalLog(fling.momentumDecelerationRate))
        let duration = last.update.time.milliseconds(since: first.update.time)
        return [
            FeelRow(
                target: "7 velocities",
                measure: "momentum after a 300 mm/s fling: frames, duration (ms), travel (mm) vs v0/lambda",
                value:
                    "\(momentum.count), \(FeelReport.f(duration, 0)), \(FeelReport.f(travel, 1)) vs \(FeelReport.f(expected, 1))",
                goal: "decelerating, travel <= v0/lambda",
                met: decreasing && travel <= expected + 1e-6 && travel > expected * 0.9)
        ]
    }

    static func twoFingerTapZoomRows(_ c: GestureConfiguration) -> [FeelRow] {
        var zoom = c
        zoom.twoFingerTapZoomFactor = 0.5
        let trace = FeelTrace.replay(FeelReport.twoFingerTap(configuration: zoom))
        let final = trace.matrixAfter.last?.scaleFactor ?? .nan
        let steps = FeelReport.scaleSteps(trace)
        return [
            FeelRow(
                target: "8 discrete",
                measure: "two-finger tap with two_finger_tap_zoom_factor = 0.5: final scale, steps",
                value: "x\(FeelReport.f(final, 4)), \(steps)", goal: "0.5, animated",
                met: abs(final - 0.5) < 1e-9 && steps > 1)
        ]
    }
}
