import SegmentsBenchKit
import XCTest

/// The load generator's schedules: how many operations a paced run performs does not depend on how
/// fast the machine is, only on the rate, the duration and the burst size.
final class LoadGeneratorTests: XCTestCase {
    func testBurstsKeepTheRateAndRecordEveryCall() {
        // 20,000/s for 0.1 s in bursts of 100: 20 bursts of 100 per producer.
        let outcome = LoadGenerator.run(producers: 2, seconds: 0.1, ratePerProducer: 20_000, fromScheduledStart: false, burst: 100) { _, _ in }
        XCTAssertEqual(outcome.operations, 4_000)
        XCTAssertEqual(outcome.latency.count, 4_000)
        XCTAssertFalse(outcome.corrected)
    }

    func testBurstsOfOneFollowTheSpinningSchedule() {
        let outcome = LoadGenerator.run(producers: 1, seconds: 0.05, ratePerProducer: 10_000, fromScheduledStart: false) { _, _ in }
        XCTAssertEqual(outcome.operations, 500)
    }
}
