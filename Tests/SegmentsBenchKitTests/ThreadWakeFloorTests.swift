@testable import SegmentsBenchKit
import XCTest

final class ThreadWakeFloorTests: XCTestCase {
    /// Every measured round is one wake-up of the parked thread that it waited for (the first,
    /// which wakes a thread that never ran, is left out), and both threads end with the
    /// measurement: the call returns only after they have.
    func testEachRoundRecordsOneWakeUpAndTheSignalThatCausedIt() throws {
        #if os(Linux)
        let measurement = try XCTUnwrap(ThreadWakeFloor.measure(rounds: 5, idle: .microseconds(100), placement: .sameCPU))
        XCTAssertEqual(measurement.wakeToRun.count, 5)
        XCTAssertEqual(measurement.signal.count, 5)
        XCTAssertGreaterThan(measurement.wakeToRun.summary("", definition: "").p50, 0, "the woken thread runs after the signal began")
        #else
        throw XCTSkip("threads are pinned on Linux only")
        #endif
    }

    /// The other-CPU measurement needs a second CPU the process may use; with one, it says so
    /// (`nil`) instead of measuring the same CPU under another name.
    func testTheOtherCPUIsMeasuredOnlyWhereThereIsOne() {
        let cpus = CPUAffinity.allowedCPUs()
        let measurement = ThreadWakeFloor.measure(rounds: 3, idle: .microseconds(100), placement: .otherCPU)
        #if os(Linux)
        XCTAssertEqual(measurement == nil, cpus.count < 2, "allowed CPUs: \(cpus)")
        if let measurement { XCTAssertEqual(measurement.wakeToRun.count, 3) }
        #else
        XCTAssertNil(measurement)
        #endif
    }
}
