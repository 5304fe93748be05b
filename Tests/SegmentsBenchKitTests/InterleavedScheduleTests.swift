@testable import SegmentsBenchKit
import XCTest

/// The run order of a comparison: ABBA blocks per scenario.
final class InterleavedScheduleTests: XCTestCase {
    func testOneScenarioRunsInABBABlocks() {
        let schedule = InterleavedSchedule(scenarios: ["hot-path"], repetitions: 4)
        XCTAssertEqual(schedule.runs.map(\.side.rawValue).joined(), "ABBAABBA")
        XCTAssertEqual(schedule.runs.map(\.repetition), [0, 0, 1, 1, 2, 2, 3, 3])
    }

    func testEveryScenarioRunsOncePerBuildInEachRepetition() {
        let schedule = InterleavedSchedule(scenarios: ["x", "y"], repetitions: 2)
        XCTAssertEqual(schedule.runs.map { "\($0.scenario)\($0.side.rawValue)" }, ["xA", "xB", "yA", "yB", "xB", "xA", "yB", "yA"])
    }

    func testEachBuildRunsEveryScenarioRepetitionsTimes() {
        let schedule = InterleavedSchedule(scenarios: ["x", "y", "z"], repetitions: 9)
        XCTAssertEqual(schedule.runs.count, 54)
        for side in InterleavedSchedule.Side.allCases {
            XCTAssertEqual(schedule.runs.filter { $0.side == side && $0.scenario == "y" }.count, 9)
        }
    }
}
