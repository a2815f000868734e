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
                    id: id, slot: Int(id), trackingID: Int32(id), phase: phase, location: location,
                    previousLocation: location, millimeters: mm, normalized: n,
                    timestamp: Timestamp(microseconds: time), type: .direct)
            }, fingerCount: touches.count)
    }

    func testPredictedLocationIsThePublishedImageOfThePredictedMillimetres() {
        let output = OutputMapping(width: 1920, height: 1080, rotation: 90)
        let mapper = CoordinateMapper(description: description(), output: output, configuredSize: nil)
        var predictor = TouchPredictor(horizonMilliseconds: 16, mapper: mapper)
        var last: TouchFrame?
        for i in 0..<20 {
            let f = frame(
                Int64(i) * 8_000, [(1, i == 0 ? .began : .moved, 20 + Double(i) * 1.2, 30 + Double(i) * 0.4)],
                mapper: mapper)
            last = predictor.predict(after: f)
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
        var predictor = TouchPredictor(horizonMilliseconds: 33, mapper: mapper)
        _ = predictor.predict(after: frame(0, [(1, .began, 10, 10), (2, .began, 50, 50)], mapper: mapper))
        let still = predictor.predict(
            after: frame(8_000, [(1, .stationary, 10, 10), (2, .ended, 50, 50)], mapper: mapper))
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
        var predictor = TouchPredictor(horizonMilliseconds: 16, mapper: mapper)
        var path: [TrackSample] = []
        for i in 0..<40 {
            let t = Double(i) * 0.008
            let x = 20 + 120 * t - 300 * t * t
            let y = 30 + 40 * sin(t * 6)
            let f = frame(Int64(i) * 8_000, [(1, i == 0 ? .began : .moved, x, y)], mapper: mapper)
            path.append(TrackSample(time: Int64(i) * 8_000, millimeters: f.touches[0].millimeters))
            _ = predictor.predict(after: f)
        }
        var offline = PredictionEvaluation(kinds: [.daemon], horizons: [16], parameters: .direct)
        offline.add(track: path)
        guard let score = offline.score(.daemon, horizon: 16) else { return XCTFail("no score") }
        XCTAssertEqual(predictor.error.count, UInt64(score.count))
        XCTAssertEqual(predictor.error.mean, score.mean, accuracy: 1e-9)
        XCTAssertGreaterThan(predictor.error.maximum, 0)
    }
}
