import MultitouchCore
import MultitouchTestKit
import Prediction
import XCTest

/// The device-level predictor: predicted frames in all three spaces, consistent with the mapper.
final class TouchPredictorTests: XCTestCase {
    private func description() -> DeviceDescription { TestDevices.touchscreen() }

    private func frame(
        _ time: Int64, _ touches: [(UInt64, TouchPhase, Double, Double)], mapper: CoordinateMapper
    )
        -> TouchFrame
    {
        TouchFrame(
            time: Timestamp(microseconds: time),
            touches: touches.map { id, phase, x, y in
                let raw = (x: Int32(x * mapper.unitsPerMillimeterX), y: Int32(y * mapper.unitsPerMillimeterY))
                let mm = mapper.millimeters(x: raw.x, y: raw.y)
                let n = mapper.normalized(x: raw.x, y: raw.y)
                let location = mapper.published(normalized: n, millimeters: mm)
                return Touch(
                    id: id, slot: 0, trackingID: Int32(truncatingIfNeeded: id), phase: phase, location: location,
                    previousLocation: location, millimeters: mm, normalized: n,
                    timestamp: Timestamp(microseconds: time), type: .direct)
            }, fingerCount: touches.count)
    }

    /// One frame through the predictor as the pipeline feeds it: the filters take the frame once, then
    /// the frame predicted at `horizon`, recorded for scoring.
    private func step(_ predictor: inout TouchPredictor, _ f: TouchFrame, horizon: Int) -> TouchFrame {
        predictor.update(f)
        let p = predictor.predicted(f, horizonMilliseconds: horizon)
        predictor.record(p)
        return p.frame
    }

    func testPredictedLocationIsThePublishedImageOfThePredictedMillimetres() {
        let output = OutputMapping(width: 1920, height: 1080, rotation: 90)
        let mapper = CoordinateMapper(description: description(), output: output, configuredSize: nil)
        var predictor = TouchPredictor(mapper: mapper)
        var last: TouchFrame?
        for i in 0..<20 {
            let f = frame(
                Int64(i) * 8_000, [(1, i == 0 ? .began : .moved, 20 + Double(i) * 1.2, 30 + Double(i) * 0.4)],
                mapper: mapper)
            last = step(&predictor, f, horizon: 16)
        }
        guard let predicted = last?.touches.first else { return XCTFail("no prediction") }
        XCTAssertEqual(predicted.phase, .moved)
        XCTAssertEqual(predicted.timestamp, Timestamp(microseconds: 19 * 8_000 + 16_000))
        let expected = mapper.published(normalized: predicted.normalized, millimeters: predicted.millimeters)
        XCTAssertEqual(predicted.location.x, expected.x, accuracy: 1e-6)
        XCTAssertEqual(predicted.location.y, expected.y, accuracy: 1e-6)
        // Moving right in millimetres is moving down the rotated output; the prediction moved on.
        XCTAssertGreaterThan(predicted.millimeters.x, 20 + 19 * 1.2)
    }

    func testEndedTouchesAreDroppedAndStillTouchesKeepTheirLocation() {
        let mapper = CoordinateMapper(description: description(), output: nil, configuredSize: nil)
        var predictor = TouchPredictor(mapper: mapper)
        _ = step(&predictor, frame(0, [(1, .began, 10, 10), (2, .began, 50, 50)], mapper: mapper), horizon: 33)
        let still = step(
            &predictor, frame(8_000, [(1, .stationary, 10, 10), (2, .ended, 50, 50)], mapper: mapper), horizon: 33)
        XCTAssertEqual(still.touches.map(\.id), [1])
        XCTAssertEqual(still.touches.first?.phase, .stationary)
        XCTAssertEqual(
            still.touches.first?.location, frame(0, [(1, .began, 10, 10)], mapper: mapper).touches.first?.location)
        XCTAssertEqual(predictor.trackCount, 1)
    }

    /// The running error (`stats`) scores every prediction whose time came while the touch was down,
    /// against the touch's position then: the same numbers as the offline evaluation of the same path.
    func testRunningErrorMatchesTheOfflineEvaluation() {
        let mapper = CoordinateMapper(description: description(), output: nil, configuredSize: nil)
        var predictor = TouchPredictor(mapper: mapper)
        predictor.score(horizons: [16])
        var path: [TrackSample] = []
        for i in 0..<40 {
            let t = Double(i) * 0.008
            let x = 20 + 120 * t - 300 * t * t
            let y = 30 + 40 * sin(t * 6)
            let f = frame(Int64(i) * 8_000, [(1, i == 0 ? .began : .moved, x, y)], mapper: mapper)
            path.append(TrackSample(time: Int64(i) * 8_000, millimeters: f.touches[0].millimeters))
            _ = step(&predictor, f, horizon: 16)
        }
        var offline = PredictionEvaluation(kinds: [.daemon], horizons: [16], parameters: .direct)
        offline.add(track: path)
        guard let score = offline.score(.daemon, horizon: 16), let error = predictor.errors.first?.error else {
            return XCTFail("no score")
        }
        XCTAssertEqual(error.count, UInt64(score.count))
        XCTAssertEqual(error.mean, score.mean, accuracy: 1e-9)
        XCTAssertGreaterThan(error.maximum, 0)
    }

    /// One filter state per touch serves every horizon (issue 27): predicting at 8 and 33 ms from the
    /// shared state gives exactly what a predictor used for that horizon alone gives, in any order.
    func testEveryHorizonFromOneStateEqualsThatHorizonAlone() {
        let mapper = CoordinateMapper(description: description(), output: nil, configuredSize: nil)
        var shared = TouchPredictor(mapper: mapper)
        var alone8 = TouchPredictor(mapper: mapper)
        var alone33 = TouchPredictor(mapper: mapper)
        for i in 0..<30 {
            let t = Double(i) * 0.008
            let f = frame(
                Int64(i) * 8_000, [(1, i == 0 ? .began : .moved, 20 + 90 * t, 30 + 20 * t * t)], mapper: mapper)
            shared.update(f)
            let late = shared.predicted(f, horizonMilliseconds: 33)
            let early = shared.predicted(f, horizonMilliseconds: 8)
            XCTAssertEqual(early.frame, step(&alone8, f, horizon: 8))
            XCTAssertEqual(late.frame, step(&alone33, f, horizon: 33))
        }
    }

    /// Secure touches (an exclusive region's) are predicted for their owner but never scored: the
    /// `stats` figure other clients read cannot count them (DESIGN.md invariant 11).
    func testSecureTouchesAreNotScored() {
        let mapper = CoordinateMapper(description: description(), output: nil, configuredSize: nil)
        var predictor = TouchPredictor(mapper: mapper)
        predictor.score(horizons: [16])
        let secure = TouchIDSource.firstSecureID + 1
        for i in 0..<20 {
            let f = frame(Int64(i) * 8_000, [(secure, i == 0 ? .began : .moved, 20 + Double(i), 30)], mapper: mapper)
            let p = step(&predictor, f, horizon: 16)
            XCTAssertEqual(p.touches.map(\.id), [secure], "predicted for its owner")
        }
        XCTAssertEqual(predictor.errors.first?.error.count, 0)
    }
}
