import MultitouchCore
import Prediction
import XCTest

/// Device classes from the samples, and the scripted slow sensor they are checked on.
final class SampleCadenceTests: XCTestCase {
    /// A straight stroke at 100 mm/s with report times from `intervals` (µs, cycled).
    private func stroke(_ count: Int, intervals: [Int64]) -> [TrackSample] {
        var time: Int64 = 0
        return (0..<count).map { i in
            defer { time += intervals[i % intervals.count] }
            return TrackSample(time: time, millimeters: Point(x: 100 * Double(time) / 1e6, y: 3))
        }
    }

    func testAnEvenTouchscreenIsAPlainTouchscreen() {
        let cadence = SampleCadence(tracks: [stroke(80, intervals: [8_000])])
        XCTAssertEqual(cadence.repeatedFraction, 0)
        XCTAssertEqual(cadence.medianInterval, 8_000)
        XCTAssertEqual(cadence.deviceClass(type: .direct), .touchscreen)
        XCTAssertEqual(cadence.deviceClass(type: .indirect), .touchpad)
    }

    /// Wacom ISDv4 finger sensors stamp their reports 8 and 12 ms apart, alternately.
    func testAlternatingIntervalsAreUneven() {
        let cadence = SampleCadence(tracks: [stroke(80, intervals: [8_000, 12_000])])
        XCTAssertEqual(cadence.unevenFraction, 0.5, accuracy: 0.02)
        XCTAssertEqual(cadence.deviceClass(type: .direct), .touchscreenUneven)
    }

    func testTheScriptedSlowSensorRepeatsPositionsAtUnevenIntervals() throws {
        let real = stroke(60, intervals: [8_000])
        let scripted = try XCTUnwrap(ScriptedSensor.slowSensor(real, seed: 7))
        XCTAssertEqual(scripted.first, real.first)
        XCTAssertEqual(scripted.last, real.last)
        let steps = zip(scripted, scripted.dropFirst())
        // Every report but the last (the real path's own end) comes 2-8 ms after the one before.
        for (a, b) in steps.dropLast() {
            XCTAssertTrue((2_000...8_000).contains(b.time - a.time), "\(b.time - a.time)")
        }
        // A new position every second or third report: one half to two thirds repeat.
        let cadence = SampleCadence(tracks: [scripted])
        XCTAssertGreaterThan(cadence.repeatedFraction, 0.45)
        XCTAssertLessThan(cadence.repeatedFraction, 0.7)
        XCTAssertEqual(cadence.deviceClass(type: .direct), .touchscreenRepeated)
        // Every reading lies on the real path (a straight line at 100 mm/s) at its report time.
        for s in scripted { XCTAssertEqual(s.millimeters.y, 3) }
        XCTAssertEqual(ScriptedSensor.slowSensor(real, seed: 7), scripted, "deterministic")
        XCTAssertNotEqual(ScriptedSensor.slowSensor(real, seed: 8), scripted)
        XCTAssertNil(ScriptedSensor.slowSensor(Array(real.prefix(1)), seed: 7))
    }

    func testTooLittleMotionKeepsThePlainClass() {
        // A held finger: no moving steps, however many repeats.
        let held = (0..<50).map { TrackSample(time: Int64($0) * 4_000, millimeters: Point(x: 1, y: 1)) }
        let cadence = SampleCadence(tracks: [held])
        XCTAssertEqual(cadence.movingSteps, 0)
        XCTAssertEqual(cadence.deviceClass(type: .direct), .touchscreen)
    }
}
