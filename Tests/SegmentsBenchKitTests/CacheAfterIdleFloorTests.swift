@testable import SegmentsBenchKit
import XCTest

final class CacheAfterIdleFloorTests: XCTestCase {
    /// The walk is one cycle through every line: from any line it comes back only after visiting
    /// all of them, so each walk loads each line once.
    func testTheWalkVisitsEveryLineOnceBeforeComingBack() {
        for lines in [2, 3, 64, 512] {
            let next = CacheAfterIdleFloor.cycle(lines: lines, seed: 1)
            var seen = Set<Int>()
            var line = 0
            repeat {
                XCTAssertTrue(seen.insert(line).inserted, "line \(line) visited twice (\(lines) lines)")
                line = next[line]
            } while line != 0 && seen.count <= lines
            XCTAssertEqual(seen.count, lines, "\(lines) lines")
        }
        XCTAssertEqual(CacheAfterIdleFloor.cycle(lines: 512, seed: 1), CacheAfterIdleFloor.cycle(lines: 512, seed: 1), "seeded: the same walk each run")
        XCTAssertNotEqual(CacheAfterIdleFloor.cycle(lines: 512, seed: 1), Array(1...511) + [0], "shuffled, not in address order")
    }

    /// Each round records one walk of each kind, as time per line.
    func testEachRoundRecordsOneHotWalkAndOneAfterTheIdlePause() {
        let measurement = CacheAfterIdleFloor.measure(rounds: 4, lines: 64, idle: .microseconds(100))
        XCTAssertEqual(measurement.hot.count, 4)
        XCTAssertEqual(measurement.afterIdle.count, 4)
        XCTAssertTrue((measurement.hot + measurement.afterIdle).allSatisfy { $0 > 0 && $0.isFinite })
    }
}
