@testable import SegmentsBenchKit
import XCTest

/// `change-to-callback` times every change, including one the server replaced before a fetch
/// carried it: timing only the change a callback saw left out the oldest, longest-waiting ones
/// and understated the tail.
final class FleetChangeTimingTests: XCTestCase {
    func testAChangeReplacedBeforeItsDeliveryIsTimedToTheDeliveryOfTheOneThatReplacedIt() {
        var state = FleetDeviceState(cookie: "c")
        state.willScript(0, categoryIndex: 0)
        state.willScript(60, categoryIndex: 0)  // replaces the first on the server
        state.willScript(70, categoryIndex: 1)
        XCTAssertEqual(state.sawChange(60, categoryIndex: 0, at: 180), [180, 120])
        XCTAssertEqual(state.sawChange(60, categoryIndex: 0, at: 200), [], "a repeat times nothing again")
        XCTAssertEqual(state.sawChange(70, categoryIndex: 1, at: 200), [130], "categories are timed apart")
    }

    func testAChangeScriptedAfterTheOneSeenWaitsForItsOwnDelivery() {
        var state = FleetDeviceState(cookie: "c")
        state.willScript(10, categoryIndex: 2)
        state.willScript(50, categoryIndex: 2)
        XCTAssertEqual(state.sawChange(10, categoryIndex: 2, at: 40), [30])
        XCTAssertEqual(state.sawChange(50, categoryIndex: 2, at: 90), [40])
    }

    func testChangesOfACookieSwitchedAwayFromAreNotTimed() {
        var state = FleetDeviceState(cookie: "c")
        state.willScript(10, categoryIndex: 0)
        state.forgetUnseenChanges()
        state.willScript(20, categoryIndex: 0)
        XCTAssertEqual(state.sawChange(20, categoryIndex: 0, at: 50), [30])
    }
}
