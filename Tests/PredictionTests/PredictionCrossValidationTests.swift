import MultitouchCore
import XCTest

@testable import Prediction

/// Leave-one-device-out cross-validation: a group's figures come from parameters chosen without it.
final class PredictionCrossValidationTests: XCTestCase {
    /// `count` strokes (60 mm/s and up along x, a sine along y whose phase is `seed`) with a zig-zag
    /// of `wobble` mm on every other sample, every 8 ms.
    private func device(_ name: String, group: String, wobble: Double, count: Int, seed: Int) -> ValidationDevice {
        let tracks = (0..<count).map { k in
            (0..<50).map { i -> TrackSample in
                let t = Double(i) * 0.008
                let zig = i % 2 == 0 ? wobble : -wobble
                return TrackSample(
                    time: Int64(i) * 8_000,
                    millimeters: Point(x: 60 * t * Double(k % 4 + 1), y: 40 * sin(t * 5 + Double(seed + k)) + zig))
            }
        }
        return ValidationDevice(name: name, group: group, type: .direct, cadenceClass: .touchscreen, tracks: tracks)
    }

    private func parameters(noise: Double) -> PredictorParameters {
        PredictorParameters(
            jerkDensity: 1e6, measurementNoise: noise, stationarySpeed: 5, accelerationWeight: 0,
            maximumDisplacement: 40, jumpSpeed: 800, stepSpeedFactor: 2, restChance: 0.05, stepReadings: 2)
    }

    /// A noisy device and a clean one with ten times its samples: each prefers its own smoothing, and
    /// pooled the clean one outweighs. Held out, each gets the other's choice, never its own or the
    /// pooled one (which a fold that saw its own device would make); the choice on every device is the
    /// pooled one.
    func testTheHeldOutGroupDoesNotTakePartInItsChoice() {
        let grid = [parameters(noise: 0.01), parameters(noise: 1)]
        let noisy = device("noisy", group: "A", wobble: 0.8, count: 4, seed: 0)
        let clean = device("clean", group: "C", wobble: 0, count: 40, seed: 1)
        let scores = [noisy, clean].map { DeviceScores(device: $0, grid: grid, horizons: [16]) }
        XCTAssertEqual(PredictionCrossValidation.choose([scores[0]], grid: grid, horizons: [16]), 1)
        XCTAssertEqual(PredictionCrossValidation.choose([scores[1]], grid: grid, horizons: [16]), 0)
        XCTAssertEqual(PredictionCrossValidation.choose(scores, grid: grid, horizons: [16]), 0)

        let v = PredictionCrossValidation(
            devices: [noisy, clean], grid: grid, horizons: [16], kinds: [.none, .daemon], fallback: { _ in .direct })
        XCTAssertEqual(v.folds.map(\.group), ["A", "C"])
        XCTAssertEqual(v.folds[0].parameters[.direct], grid[0])
        XCTAssertEqual(v.folds[1].parameters[.direct], grid[1])
        XCTAssertEqual(v.chosen[.direct], grid[0])
        // The held-out figures of the clean device are those of the noisy device's choice.
        var expected = PredictionEvaluation(kinds: [.none, .daemon], horizons: [16], parameters: grid[1])
        for track in clean.tracks { expected.add(track: track) }
        let heldOut = v.perDevice.first { $0.name == "clean" }?.evaluation.score(.daemon, horizon: 16)
        XCTAssertEqual(heldOut, expected.score(.daemon, horizon: 16))
        // Pooled per class: every device's samples, once.
        let pooled = v.heldOut[.touchscreen]?.score(.none, horizon: 16)?.count
        let each = v.perDevice.compactMap { $0.evaluation.score(.none, horizon: 16)?.count }.reduce(0, +)
        XCTAssertEqual(pooled, each)
    }

    /// The choice weighs the error after stops beside the mean and the tail: of two candidates with
    /// the same errors everywhere else, the one that is further off in the 50 ms after a stop loses.
    /// The stop errors come from the device's stops: a finger that moves 1 mm and more in 50 ms and then
    /// holds still for 100 ms.
    func testTheErrorAfterStopsTakesPartInTheChoice() {
        // Strokes of 150 mm/s along x for 200 ms, each ending in a 200 ms hold, every 8 ms.
        let tracks = (0..<6).map { k in
            (0..<50).map { i -> TrackSample in
                let t = Double(i) * 0.008
                return TrackSample(time: Int64(i) * 8_000, millimeters: Point(x: 150 * min(t, 0.2), y: Double(k)))
            }
        }
        let device = ValidationDevice(
            name: "stops", group: "A", type: .direct, cadenceClass: .touchscreen, tracks: tracks)
        let grid = [parameters(noise: 0.05), parameters(noise: 0.1)]
        var scores = DeviceScores(device: device, grid: grid, horizons: [16])
        XCTAssertEqual(scores.gridStops[0][0].count, 6 * 7, "one stop per stroke, 7 samples in its 50 ms")
        var evaluation = PredictionEvaluation(kinds: [.daemon], horizons: [16], parameters: grid[0])
        for track in tracks { evaluation.add(track: track) }
        XCTAssertEqual(
            scores.gridStops[0][0].mean, evaluation.score(.daemon, horizon: 16)?.stopMean ?? -1, accuracy: 1e-12)
        // Make the candidates equal but for the stops: the one with the larger stop error loses.
        scores.grid[1] = scores.grid[0]
        var worse = StopErrors()
        worse.add(scores.gridStops[0][0].mean + 1)
        scores.gridStops[1][0] = worse
        XCTAssertEqual(PredictionCrossValidation.choose([scores], grid: grid, horizons: [16]), 0)
        scores.gridStops.swapAt(0, 1)
        XCTAssertEqual(PredictionCrossValidation.choose([scores], grid: grid, horizons: [16]), 1)
    }

    /// Issue 20's predictor, the "before", is held out the same way when given a grid: each group's
    /// figures come from its parameters chosen on the other groups.
    func testIssue20IsHeldOutLikeTheDaemon() {
        let grid = [parameters(noise: 0.01), parameters(noise: 1)]
        let noisy = device("noisy", group: "A", wobble: 0.8, count: 4, seed: 0)
        let clean = device("clean", group: "C", wobble: 0, count: 40, seed: 1)
        let scores = [noisy, clean].map { DeviceScores(device: $0, grid: grid, horizons: [16], kind: .issue20) }
        let own = scores.map { PredictionCrossValidation.choose([$0], grid: grid, horizons: [16]) }
        XCTAssertEqual(own, [1, 0], "each prefers its own smoothing")
        let v = PredictionCrossValidation(
            devices: [noisy, clean], grid: grid, issue20Grid: grid, horizons: [16], kinds: [.none, .issue20],
            fallback: { _ in .direct })
        XCTAssertEqual(v.folds.map { $0.issue20[.direct] }, [grid[0], grid[1]])
        var expected = PredictionEvaluation(kinds: [.none, .issue20], horizons: [16], issue20Parameters: grid[1])
        for track in clean.tracks { expected.add(track: track) }
        let heldOut = v.perDevice.first { $0.name == "clean" }?.evaluation.score(.issue20, horizon: 16)
        XCTAssertEqual(heldOut, expected.score(.issue20, horizon: 16))
        // Without a grid, issue 20's own values.
        let fixed = PredictionCrossValidation(
            devices: [noisy, clean], grid: grid, horizons: [16], kinds: [.issue20], fallback: { _ in .direct })
        XCTAssertEqual(fixed.folds.map { $0.issue20[.direct] }, [.issue20(for: .direct), .issue20(for: .direct)])
    }

    /// A touch type without training devices takes the fallback.
    func testALoneTypeFallsBack() {
        let only = device("only", group: "A", wobble: 0.1, count: 2, seed: 0)
        let v = PredictionCrossValidation(
            devices: [only], grid: [parameters(noise: 0.05)], horizons: [16], kinds: [.daemon],
            fallback: { _ in .indirect })
        XCTAssertEqual(v.folds.first?.parameters[.direct], .indirect)
    }

    func testHistogramQuantilesAreWithinABin() {
        var h = ErrorHistogram()
        let errors = (1...1000).map { Double($0) * 0.003 }
        for e in errors { h.add(e) }
        XCTAssertEqual(h.count, 1000)
        XCTAssertEqual(h.mean, errors.reduce(0, +) / 1000, accuracy: 1e-12)
        XCTAssertEqual(h.quantile(0.95), 2.85, accuracy: 2.85 * 0.02)
        var merged = ErrorHistogram()
        merged.merge(h)
        merged.merge(h)
        XCTAssertEqual(merged.quantile(0.95), h.quantile(0.95))
        XCTAssertEqual(ErrorHistogram().quantile(0.95), 0)
    }
}
