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
            maximumDisplacement: 40, jumpSpeed: 800, stepSpeedFactor: 2, restIntervals: 1.5, stepReadings: 2)
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
