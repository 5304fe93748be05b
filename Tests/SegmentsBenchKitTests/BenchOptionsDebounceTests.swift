@testable import SegmentsBenchKit
import XCTest

final class BenchOptionsDebounceTests: XCTestCase {
    /// `--debounce` is seconds, taken to the nanosecond: half a millisecond is not zero.
    func testTheDebounceKeepsItsFractionOfAMillisecond() {
        var options = BenchOptions()
        XCTAssertEqual(options.debounce(default: 0.1), .milliseconds(100), "the scenario's default without the option")
        options.debounce = 0.0005
        XCTAssertEqual(options.debounce(default: 0.1), .microseconds(500))
        options.debounce = 1.25
        XCTAssertEqual(options.debounce(default: 0.1), .milliseconds(1_250))
        options.debounce = 0
        XCTAssertEqual(options.debounce(default: 0.1), .zero)
    }
}
