import XCTest

@testable import Prediction

/// The reports a touch's sensor takes per reading, and what the device will show next.
final class SensorCadenceTests: XCTestCase {
    /// A sensor that reads at every report: the device shows the path at the horizon, and a repeated
    /// position is not the sensor's doing (the touch may rest at once).
    func testASensorReadingAtEveryReportShowsThePathAtTheHorizon() {
        var cadence = SensorCadence()
        for _ in 0..<10 { cadence.learn(reports: 1) }
        XCTAssertTrue(cadence.readsEveryReport)
        XCTAssertEqual(cadence.stillReading(afterHeld: 0), 1)
        XCTAssertEqual(cadence.stillReading(afterHeld: 1), 0)
        XCTAssertEqual(
            cadence.expectedAge(held: 0, heldReports: 0, reportInterval: 0.008, horizon: 0.016), 0.016,
            accuracy: 1e-12)
    }

    /// Readings two and three reports apart in turn (the newest three apart), reports every 5 ms:
    /// after one held report the sensor is surely still to read, after two it reads at the next report
    /// about half the time, after three it has always read. Right after a reading, the device shows it
    /// for the next report and, half the time, the one after: the expected age of what it shows 10 ms
    /// on is half of 10 ms; 15 ms on, half of 10 and half of 15 (each share a little off a half: the
    /// newest reading weighs most).
    func testTwoAndThreeReportsPerReading() {
        var cadence = SensorCadence()
        for i in 0..<200 { cadence.learn(reports: i % 2 == 0 ? 2 : 3) }
        XCTAssertFalse(cadence.readsEveryReport)
        // The newest count weighs 1, the one before 0.95, ...: threes weigh 1 / 1.95 of both.
        let three = 1 / 1.95
        // (The counts are single precision: chances to 1e-6.)
        XCTAssertEqual(cadence.stillReading(afterHeld: 1), 1, accuracy: 1e-6)
        XCTAssertEqual(cadence.stillReading(afterHeld: 2), three, accuracy: 1e-6)
        XCTAssertEqual(cadence.stillReading(afterHeld: 3), 0)
        let age = { (held: Int, horizon: Double) in
            cadence.expectedAge(
                held: Double(held) * 0.005, heldReports: held, reportInterval: 0.005, horizon: horizon)
        }
        XCTAssertEqual(age(0, 0.005), 0, accuracy: 1e-12)
        XCTAssertEqual(age(0, 0.010), (1 - three) * 0.010, accuracy: 1e-8)
        XCTAssertEqual(age(0, 0.015), (1 - three) * 0.010 + three * 0.015, accuracy: 1e-8)
        // Between reports the device's position is the line between them.
        XCTAssertEqual(age(0, 0.0125), (age(0, 0.010) + age(0, 0.015)) / 2, accuracy: 1e-12)
        // Held two reports (10 ms): the next report is surely a reading, 15 ms after the newest one.
        XCTAssertEqual(age(2, 0.005), 0.015, accuracy: 1e-12)
        // Far ahead the age grows with time: one report further is one report older.
        XCTAssertEqual(age(0, 0.200) - age(0, 0.195), 0.005, accuracy: 1e-12)
    }

    /// A slow sensor's cadence is followed when it changes, and a rare miss is forgotten: after 130
    /// readings at every report, one that came two reports late no longer counts.
    func testTheCadenceFollowsTheSensor() {
        var cadence = SensorCadence()
        for _ in 0..<50 { cadence.learn(reports: 3) }
        XCTAssertEqual(cadence.stillReading(afterHeld: 2), 1, accuracy: 0.1)
        cadence.learn(reports: 1)
        for _ in 0..<200 { cadence.learn(reports: 1) }
        XCTAssertTrue(cadence.readsEveryReport)
        XCTAssertEqual(cadence.stillReading(afterHeld: 1), 0)
        // Counts past 8 reports fall in the last bucket; no reading takes longer than that.
        cadence.learn(reports: 40)
        XCTAssertEqual(cadence.stillReading(afterHeld: 8), 0)
        XCTAssertGreaterThan(cadence.stillReading(afterHeld: 7), 0)
    }
}
