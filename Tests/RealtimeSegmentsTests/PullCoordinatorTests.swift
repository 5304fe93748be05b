import XCTest

@testable import RealtimeSegments

/// SPEC §6: `getSegments` calls that miss the cache share one fetch, and a customer change while it
/// runs refetches for the current customer a bounded number of times.
final class PullCoordinatorTests: XCTestCase {
    private let ignore: PullCompletion = { _ in }

    func testTheFirstWaiterStartsAFetch() {
        var pulls = PullCoordinator(maxRefetches: 3)
        XCTAssertTrue(pulls.enqueue(.discovery, ignore))
        XCTAssertTrue(pulls.isFetching)
        XCTAssertEqual(pulls.attempts, 1)
    }

    func testWaitersArrivingDuringTheFetchShareIt() {
        var pulls = PullCoordinator(maxRefetches: 3)
        XCTAssertTrue(pulls.enqueue(.discovery, ignore))
        XCTAssertFalse(pulls.enqueue(.merchandising, ignore))
        XCTAssertFalse(pulls.enqueue(.discovery, ignore))
        XCTAssertEqual(pulls.waiters.map(\.category), [.discovery, .merchandising, .discovery])
    }

    func testACurrentResultIsDeliveredToEveryWaiterOnce() {
        var pulls = PullCoordinator(maxRefetches: 3)
        _ = pulls.enqueue(.discovery, ignore)
        _ = pulls.enqueue(.merchandising, ignore)
        XCTAssertEqual(pulls.fetchEnded(isCurrent: true), .deliver)
        XCTAssertFalse(pulls.isFetching)
        XCTAssertEqual(pulls.takeWaiters().map(\.category), [.discovery, .merchandising])
        XCTAssertTrue(pulls.takeWaiters().isEmpty)
    }

    func testAStaleResultRefetchesAndKeepsTheWaiters() {
        var pulls = PullCoordinator(maxRefetches: 3)
        _ = pulls.enqueue(.discovery, ignore)
        XCTAssertEqual(pulls.fetchEnded(isCurrent: false), .refetch)
        XCTAssertTrue(pulls.isFetching)
        XCTAssertEqual(pulls.attempts, 2)
        XCTAssertFalse(pulls.enqueue(.merchandising, ignore), "a refetch in flight is shared too")
        XCTAssertEqual(pulls.waiters.count, 2)
    }

    func testRefetchesStopAfterTheLimitAndTheWaitersGiveUp() {
        var pulls = PullCoordinator(maxRefetches: 2)
        _ = pulls.enqueue(.discovery, ignore)
        XCTAssertEqual(pulls.fetchEnded(isCurrent: false), .refetch)
        XCTAssertEqual(pulls.fetchEnded(isCurrent: false), .refetch)
        XCTAssertEqual(pulls.fetchEnded(isCurrent: false), .gaveUp(attempts: 3))
        XCTAssertFalse(pulls.isFetching)
        XCTAssertEqual(pulls.takeWaiters().count, 1)
    }

    func testWithoutRefetchesAStaleResultGivesUpAtOnce() {
        var pulls = PullCoordinator(maxRefetches: 0)
        _ = pulls.enqueue(.discovery, ignore)
        XCTAssertEqual(pulls.fetchEnded(isCurrent: false), .gaveUp(attempts: 1))
    }

    func testTheNextCallAfterAResultStartsAFreshFetch() {
        var pulls = PullCoordinator(maxRefetches: 3)
        _ = pulls.enqueue(.discovery, ignore)
        _ = pulls.fetchEnded(isCurrent: false)
        _ = pulls.fetchEnded(isCurrent: true)
        _ = pulls.takeWaiters()
        XCTAssertTrue(pulls.enqueue(.discovery, ignore))
        XCTAssertEqual(pulls.attempts, 1, "attempts count per fetch, not per client")
    }

    func testAnAbandonedFetchLetsTheNextCallStartOne() {
        var pulls = PullCoordinator(maxRefetches: 3)
        _ = pulls.enqueue(.discovery, ignore)
        pulls.fetchAbandoned()
        XCTAssertFalse(pulls.isFetching)
        XCTAssertEqual(pulls.takeWaiters().count, 1)
        XCTAssertTrue(pulls.enqueue(.discovery, ignore))
    }
}
