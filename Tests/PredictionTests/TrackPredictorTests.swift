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
            case .daemon, .issue20, .none:
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

    /// A finger stopping dead from 150 mm/s: the prediction made at the stop overshoots as any
    /// extrapolation must (the stop is not in the samples yet), but no further than the newest step's
    /// speed carries over the horizon; the sensor has read at every report, so the first repeated
    /// position is a rest and the prediction is the rest position exactly from then on, where a
    /// constant-acceleration Kalman filter keeps going for several samples.
    func testAbruptStopIsFollowedWithinTheRestWindow() {
        let path = track(40) { t in Point(x: 150 * min(t, 0.1), y: 0) }
        var evaluation = PredictionEvaluation(kinds: [.daemon, .kalman], horizons: [16, 33])
        evaluation.add(track: path)
        let parameters = PredictorParameters.direct
        for h in [16, 33] {
            guard let daemon = evaluation.score(.daemon, horizon: h), let kalman = evaluation.score(.kalman, horizon: h)
            else { return XCTFail("no score") }
            XCTAssertGreaterThan(daemon.stopCount, 1)
            // Speed 150 mm/s, carried at most over the horizon.
            let carried = 150 * parameters.stepSpeedFactor * Double(h) / 1000
            XCTAssertLessThanOrEqual(daemon.stopOvershoot, carried + 1e-9, "\(h) ms")
            XCTAssertLessThan(daemon.stopMean, kalman.stopMean, "\(h) ms")
        }
        var predictor = TrackPredictor(kind: .daemon, parameters: parameters)
        let rest = Point(x: 15, y: 0)
        for sample in path {
            predictor.add(time: sample.time, millimeters: sample.millimeters)
            // Held since 100 ms: resting from the first repeat, the 108 ms sample (issue 30's first pass
            // waited 1.5 reading intervals, to the 116 ms one, and predicted motion past the rest).
            if sample.time >= 108_000 { XCTAssertEqual(predictor.predict(horizon: 33_000), rest, "\(sample.time)") }
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

    /// A sensor slower than the report rate (issue 30): reports every 4 ms, a new position every third
    /// report. A held position is the sensor not having read yet, not a stop: the prediction keeps
    /// moving, where issue 20's predictor froze at every repeat.
    func testRepeatedPositionsOfASlowSensorKeepThePredictionMoving() {
        let velocity = Point(x: 120, y: 60)  // mm/s
        // Reports every 4 ms; the position is read at every third (12 ms) and held in between.
        let path = (0..<60).map { i -> TrackSample in
            let read = Double((i / 3) * 3) * 0.004
            return TrackSample(time: Int64(i) * 4_000, millimeters: Point(x: 10, y: 20) + velocity * read)
        }
        var evaluation = PredictionEvaluation(kinds: [.none, .issue20, .daemon], horizons: [16, 33])
        evaluation.add(track: path)
        for h in [16, 33] {
            guard let none = evaluation.score(.none, horizon: h), let before = evaluation.score(.issue20, horizon: h),
                let daemon = evaluation.score(.daemon, horizon: h)
            else { return XCTFail("no score") }
            XCTAssertLessThan(daemon.mean, none.mean * 0.25, "\(h) ms")
            XCTAssertLessThan(daemon.mean, before.mean * 0.5, "\(h) ms")
        }
        var predictor = TrackPredictor(kind: .daemon)
        for sample in path.prefix(50) { predictor.add(time: sample.time, millimeters: sample.millimeters) }
        // Sample 49 repeats sample 48's reading: still moving on.
        guard let held = path.prefix(50).last?.millimeters else { return XCTFail("empty path") }
        XCTAssertGreaterThan(predictor.predict(horizon: 16_000).distance(to: held), 1)
    }

    /// Stationarity over the sensor's own time window: on that slow sensor (a reading every third
    /// report) the two held reports after a reading are the sensor not having read yet and the
    /// prediction moves on; the third is longer than the sensor has ever taken, and the touch rests
    /// there, predicting exactly where it is.
    func testRestIsDecidedOverTheSensorsCadence() {
        var predictor = TrackPredictor(kind: .daemon, parameters: .direct)
        var time: Int64 = 0
        var x = 10.0
        var moving: [Int64] = []
        for i in 0..<60 {
            // 120 mm/s, read every third report (4 ms apart), until the reading at i = 42 (168 ms).
            if i % 3 == 0 && i <= 42 { x = 10 + 0.12 * Double(i) * 4 }
            let at = Point(x: x, y: 5)
            predictor.add(time: time, millimeters: at)
            if i > 42 && predictor.predict(horizon: 16_000) != at { moving.append(time) }
            time += 4_000
        }
        // Held 4 and 8 ms: the sensor's usual hold, moving on. Held 12 ms: a rest (issue 30's first
        // pass waited 1.5 of its 12 ms reading intervals and predicted motion at 12 and 16 ms too).
        XCTAssertEqual(moving, [172_000, 176_000])
    }

    /// What the device will report next: a sensor that reads every third report (reports every 4 ms,
    /// a finger at constant speed). Right after a reading the next two reports will repeat it, so the
    /// predictions 4 and 8 ms ahead are the reading itself, exactly; 12 ms ahead the device shows the
    /// next reading, the path 12 ms on. One report later the next reading is two reports away.
    /// (Issue 30's first pass predicted a ramp: 0.3 mm and more of motion the device would not show.)
    func testASlowSensorsNextReportsArePredictedAsItWillShowThem() {
        let velocity = Point(x: 120, y: -45)  // mm/s
        var predictor = TrackPredictor(kind: .daemon, parameters: .direct)
        var reading = Point(x: 10, y: 90)
        // 100 readings: long enough for the touch's first guess (a reading at every report) to fade.
        for i in 0..<300 {
            let time = Int64(i) * 4_000
            if i % 3 == 0 { reading = Point(x: 10, y: 90) + velocity * (Double(time) / 1e6) }
            predictor.add(time: time, millimeters: reading)
            guard i == 297 || i == 298 else { continue }
            let fresh = i == 297
            let ahead = { (ms: Double) in reading + velocity * (ms / 1000) }
            XCTAssertEqual(predictor.predict(horizon: 4_000), reading, "\(i)")
            if fresh { XCTAssertEqual(predictor.predict(horizon: 8_000), reading) }
            let later = predictor.predict(horizon: fresh ? 12_000 : 8_000)
            XCTAssertLessThan(later.distance(to: ahead(12)), velocity.length * 0.012 * 0.02, "\(i)")
        }
    }

    /// Uneven report intervals (2-8 ms) with exact positions: the filter reads motion from the times.
    func testUnevenIntervalsArePredictedFromTheirTimes() {
        let velocity = Point(x: -90, y: 140)
        var time: Int64 = 0
        var path: [TrackSample] = []
        for i in 0..<60 {
            path.append(TrackSample(time: time, millimeters: Point(x: 50, y: 10) + velocity * (Double(time) / 1e6)))
            time += [2_000, 7_000, 3_000, 8_000, 5_000][i % 5]
        }
        var predictor = TrackPredictor(kind: .daemon)
        for sample in path { predictor.add(time: sample.time, millimeters: sample.millimeters) }
        guard let last = path.last else { return XCTFail("empty path") }
        let truth = last.millimeters + velocity * 0.016
        XCTAssertLessThan(predictor.predict(horizon: 16_000).distance(to: truth), velocity.length * 0.016 * 0.05)
    }

    /// `predict(horizon:)` has no effect on the state: one state serves several horizons per frame, in
    /// any order, and a predictor asked nothing predicts the same afterwards.
    func testPredictionHasNoSideEffect() {
        let path = track(40, interval: 6_000) { t in Point(x: 30 * sin(t * 9), y: 20 * cos(t * 7)) }
        for kind in PredictorKind.allCases {
            var asked = TrackPredictor(kind: kind)
            var silent = TrackPredictor(kind: kind)
            for (i, sample) in path.enumerated() {
                asked.add(time: sample.time, millimeters: sample.millimeters)
                silent.add(time: sample.time, millimeters: sample.millimeters)
                let horizons: [Int64] = i % 2 == 0 ? [8_000, 16_000, 33_000] : [33_000, 8_000, 16_000]
                let first = horizons.map { asked.predict(horizon: $0) }
                let again = horizons.reversed().map { asked.predict(horizon: $0) }.reversed()
                XCTAssertEqual(first, Array(again), "\(kind)")
                XCTAssertEqual(first, horizons.map { silent.predict(horizon: $0) }, "\(kind)")
            }
        }
    }
}
