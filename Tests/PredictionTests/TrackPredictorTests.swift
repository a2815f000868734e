import MultitouchCore
import Prediction
import XCTest

/// The predictors on synthetic paths whose future is known exactly.
final class TrackPredictorTests: XCTestCase {
    /// A path sampled every `interval` microseconds from `f(time in seconds)`.
    private func track(_ count: Int, interval: Int64 = 8_000, _ f: (Double) -> Point) -> [TrackSample] {
        (0..<count).map { i in
            let t = Int64(i) * interval
            return TrackSample(time: t, millimeters: f(Double(t) / 1e6))
        }
    }

    func testStationaryTouchPredictsNoMotion() {
        for kind in PredictorKind.allCases {
            var predictor = TrackPredictor(kind: kind)
            let at = Point(x: 12.5, y: 40.25)
            for sample in track(30, { _ in at }) { predictor.add(time: sample.time, millimeters: sample.millimeters) }
            let p = predictor.predict(horizon: 33_000)
            switch kind {
            case .daemon, .none:
                XCTAssertEqual(p, at, "\(kind)")
            case .lastTwo, .leastSquares, .kalman:
                XCTAssertEqual(p.distance(to: at), 0, accuracy: 1e-9, "\(kind)")
            }
        }
    }

    func testSlowDriftBelowTheStationarySpeedPredictsNoMotion() {
        let parameters = PredictorParameters.direct
        var predictor = TrackPredictor(kind: .daemon, parameters: parameters)
        let speed = parameters.stationarySpeed / 2
        let path = track(60) { t in Point(x: 10 + speed * t, y: 10) }
        for sample in path { predictor.add(time: sample.time, millimeters: sample.millimeters) }
        XCTAssertEqual(predictor.predict(horizon: 16_000), path.last?.millimeters)
    }

    func testConstantVelocityIsPredictedClosely() {
        let velocity = Point(x: 150, y: -80)  // mm/s
        let path = track(40) { t in Point(x: 20 + velocity.x * t, y: 60 + velocity.y * t) }
        for parameters in [PredictorParameters.direct, .indirect] {
            var predictor = TrackPredictor(kind: .daemon, parameters: parameters)
            for sample in path { predictor.add(time: sample.time, millimeters: sample.millimeters) }
            guard let last = path.last else { return XCTFail("empty path") }
            let truth = last.millimeters + velocity * 0.016
            let still = last.millimeters.distance(to: truth)
            let error = predictor.predict(horizon: 16_000).distance(to: truth)
            // Far closer than not predicting (which is `still` away).
            XCTAssertLessThan(error, still * 0.05, "\(parameters)")
        }
    }

    func testFirstSampleAndLastTwoReference() {
        var predictor = TrackPredictor(kind: .lastTwo)
        predictor.add(time: 0, millimeters: Point(x: 1, y: 1))
        XCTAssertEqual(predictor.predict(horizon: 10_000), Point(x: 1, y: 1))
        predictor.add(time: 10_000, millimeters: Point(x: 2, y: 3))
        let p = predictor.predict(horizon: 10_000)
        XCTAssertEqual(p.x, 3, accuracy: 1e-12)
        XCTAssertEqual(p.y, 5, accuracy: 1e-12)
    }

    func testLeastSquaresReferenceFitsALine() {
        var predictor = TrackPredictor(kind: .leastSquares)
        for sample in track(20, { t in Point(x: 100 * t, y: 5) }) {
            predictor.add(time: sample.time, millimeters: sample.millimeters)
        }
        // Newest sample at 152 ms: a line through the last 50 ms lands at 100 * 0.168 mm 16 ms later.
        XCTAssertEqual(predictor.predict(horizon: 16_000).x, 100 * 0.168, accuracy: 1e-9)
    }

    /// A finger decelerating to a stop: no prediction of the 50 ms after it rests goes visibly past
    /// where it rests.
    func testDeceleratingFingerDoesNotOvershoot() {
        // x(t) = 200 t - 1000 t² until the stop at t = 0.1 s (x = 10 mm), then still.
        let path = track(40) { t in Point(x: t < 0.1 ? 200 * t - 1000 * t * t : 10, y: 0) }
        var evaluation = PredictionEvaluation(kinds: [.daemon], horizons: [16, 33])
        evaluation.add(track: path)
        for h in [16, 33] {
            guard let daemon = evaluation.score(.daemon, horizon: h) else { return XCTFail("no score") }
            XCTAssertGreaterThan(daemon.stopCount, 0)
            XCTAssertLessThan(daemon.stopOvershoot, 0.1, "\(h) ms")
        }
    }

    /// A finger stopping dead from 150 mm/s: the first prediction after the stop overshoots as any
    /// extrapolation must (the stop is not in the samples yet), the next ones predict the rest
    /// position, where a constant-acceleration Kalman filter keeps going for several samples.
    func testAbruptStopIsFollowedAtOnce() {
        let path = track(40) { t in Point(x: 150 * min(t, 0.1), y: 0) }
        var evaluation = PredictionEvaluation(kinds: [.daemon, .lastTwo, .kalman], horizons: [16, 33])
        evaluation.add(track: path)
        for h in [16, 33] {
            guard let daemon = evaluation.score(.daemon, horizon: h),
                let two = evaluation.score(.lastTwo, horizon: h), let kalman = evaluation.score(.kalman, horizon: h)
            else { return XCTFail("no score") }
            XCTAssertGreaterThan(daemon.stopCount, 1)
            // Held to the newest step's speed (x the step factor), as last-two extrapolation is.
            let factor = PredictorParameters.direct.stepSpeedFactor
            XCTAssertLessThanOrEqual(daemon.stopOvershoot, two.stopOvershoot * factor + 1e-9, "\(h) ms")
            XCTAssertLessThan(daemon.stopMean, kalman.stopMean, "\(h) ms")
        }
    }

    func testUnknownSpeedJumpRestartsTheFilter() {
        var predictor = TrackPredictor(kind: .daemon, parameters: .indirect)
        for sample in track(20, { _ in Point(x: 10, y: 10) }) {
            predictor.add(time: sample.time, millimeters: sample.millimeters)
        }
        // A 30 mm jump in 8 ms: read as a new start, not as a 3.75 m/s motion.
        predictor.add(time: 160_000, millimeters: Point(x: 40, y: 10))
        XCTAssertEqual(predictor.predict(horizon: 16_000), Point(x: 40, y: 10))
    }

    func testEvaluationInterpolatesTheTruthAndScoresNoPrediction() {
        // Constant speed 100 mm/s: no prediction is off by exactly 100 mm/s x H everywhere it is scored.
        let path = track(30, interval: 10_000) { t in Point(x: 100 * t, y: 0) }
        var evaluation = PredictionEvaluation(kinds: [.none, .lastTwo], horizons: [15])
        evaluation.add(track: path)
        guard let none = evaluation.score(.none, horizon: 15), let two = evaluation.score(.lastTwo, horizon: 15) else {
            return XCTFail("no score")
        }
        // Predictions from samples 0...27 have their truth inside the track (27 x 10 ms + 15 <= 290).
        XCTAssertEqual(none.count, 28)
        XCTAssertEqual(none.mean, 1.5, accuracy: 1e-9)
        XCTAssertEqual(none.p95, 1.5, accuracy: 1e-9)
        // Only the first sample has no second to extrapolate from.
        XCTAssertEqual(two.mean, 1.5 / 28, accuracy: 1e-9)
        XCTAssertEqual(two.wrongDirectionRate, 0)
    }

    func testPredictionsAreDeterministic() {
        let path = track(50) { t in Point(x: 30 * sin(t * 9), y: 20 * cos(t * 7)) }
        func run() -> [Point] {
            var predictor = TrackPredictor(kind: .daemon)
            return path.map { sample in
                predictor.add(time: sample.time, millimeters: sample.millimeters)
                return predictor.predict(horizon: 16_000)
            }
        }
        XCTAssertEqual(run(), run())
    }
}
