import XCTest

@testable import SegmentsBenchKit

/// The crash child tracks at the rate the report records, whatever the rate and the flush period.
final class PeriodQuotaTests: XCTestCase {
    private func events(rate: Double, period: Double, periods: Int) -> [Int] {
        var quota = PeriodQuota(rate: rate, period: period)
        return (0..<periods).map { _ in quota.next() }
    }

    func testOverASecondItTracksTheRateWhenAPeriodHoldsAFractionOfAnEvent() {
        XCTAssertEqual(events(rate: 10, period: 0.01, periods: 100).reduce(0, +), 10, "10 a second, not one per 10 ms")
        XCTAssertEqual(events(rate: 150, period: 0.01, periods: 100).reduce(0, +), 150, "150 a second, not 2 per 10 ms")
        XCTAssertEqual(events(rate: 2_000, period: 0.01, periods: 100).reduce(0, +), 2_000)
    }

    func testEventsAreSpreadEvenlyOverThePeriods() {
        XCTAssertEqual(events(rate: 150, period: 0.01, periods: 4), [1, 2, 1, 2])
        XCTAssertEqual(events(rate: 10, period: 0.01, periods: 10), [0, 0, 0, 0, 0, 0, 0, 0, 0, 1])
    }
}
