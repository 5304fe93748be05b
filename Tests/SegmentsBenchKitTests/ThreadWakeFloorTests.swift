@testable import SegmentsBenchKit
import XCTest

final class ThreadWakeFloorTests: XCTestCase {
    /// Every measured round is one wake-up of the parked thread that it waited for (the first,
    /// which wakes a thread that never ran, is left out), and the parked thread ends with the
    /// measurement: the call returns only after it has.
    func testEachRoundRecordsOneWakeUpAndTheSignalThatCausedIt() {
        let measurement = ThreadWakeFloor.measure(rounds: 5, idle: .microseconds(100))
        XCTAssertEqual(measurement.wakeToRun.count, 5)
        XCTAssertEqual(measurement.signal.count, 5)
        let wake = measurement.wakeToRun.summary("", definition: "")
        XCTAssertGreaterThan(wake.p50, 0, "the woken thread runs after the signal began")
    }
}
