import MultitouchCore
import Prediction
import XCTest

/// Android's resampling rules (InputTransport.cpp) on paths whose position at any time is known.
final class FrameResamplerTests: XCTestCase {
    /// x = 0.1 mm per ms, a sample every `gap` µs from 0.
    private func line(_ count: Int, gap: Int64) -> [TrackSample] {
        (0..<count).map {
            TrackSample(time: Int64($0) * gap, millimeters: Point(x: Double(Int64($0) * gap) / 10_000, y: 3))
        }
    }

    func testInterpolatesAtFrameTimeMinusTheLatency() throws {
        let samples = line(10, gap: 8_000)
        let r = try XCTUnwrap(FrameResampler.position(samples: samples, frameTime: 40_000))
        XCTAssertEqual(r.time, 35_000)
        XCTAssertEqual(r.millimeters.x, 3.5, accuracy: 1e-12)
        XCTAssertEqual(r.millimeters.y, 3)
    }

    func testExtrapolatesAtMostHalfTheGapAndEightMilliseconds() throws {
        // Newest sample at 72 ms; the frame asks for 95 - 5 = 90 ms: capped at 72 + min(8/2, 8) = 76 ms.
        let samples = line(10, gap: 8_000)
        let r = try XCTUnwrap(FrameResampler.position(samples: samples, frameTime: 95_000))
        XCTAssertEqual(r.time, 76_000)
        XCTAssertEqual(r.millimeters.x, 7.6, accuracy: 1e-12)
        // 18 ms gaps: half is 9 ms, the 8 ms cap applies.
        let sparse = line(4, gap: 18_000)
        let s = try XCTUnwrap(FrameResampler.position(samples: sparse, frameTime: 100_000))
        XCTAssertEqual(s.time, 54_000 + 8_000)
    }

    func testNoExtrapolationOverLongOrTinyGaps() throws {
        let long = line(3, gap: 25_000)
        let r = try XCTUnwrap(FrameResampler.position(samples: long, frameTime: 70_000))
        XCTAssertEqual(r.time, 50_000, "gap over 20 ms: the newest sample as it is")
        let tiny = line(3, gap: 1_000)
        let t = try XCTUnwrap(FrameResampler.position(samples: tiny, frameTime: 20_000))
        XCTAssertEqual(t.time, 2_000, "gap under 2 ms: the newest sample as it is")
    }

    func testNeverBeforeWhatWasDelivered() throws {
        let samples = line(10, gap: 8_000)
        // The previous frame delivered 38 ms; a frame asking for 35 ms gets 38 ms again, not an earlier point.
        let r = try XCTUnwrap(FrameResampler.position(samples: samples, frameTime: 40_000, notBefore: 38_000))
        XCTAssertEqual(r.time, 38_000)
        XCTAssertEqual(r.millimeters.x, 3.8, accuracy: 1e-12)
    }

    func testNothingBeforeTheFirstSample() {
        XCTAssertNil(FrameResampler.position(samples: line(3, gap: 8_000), frameTime: 4_000))
    }
}
