import MultitouchCore
import Prediction
import XCTest

final class TrackPredictorTests: XCTestCase {
    func testPlaceholder() {}
}
