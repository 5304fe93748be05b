import Foundation
@testable import RealtimeSegments
import Synchronization
import XCTest

/// Issue 32: the `async` `getSegments` returns `SegmentsError.cancelled` as soon as its task is
/// cancelled, even while the engine's fetch is in flight (held by the transport), and the engine
/// goes on undisturbed.
final class PullCancellationTests: XCTestCase {
    private func startedFixture() -> Fixture {
        let fixture = Fixture()
        fixture.transport.defaultResponse = response([.discovery: [1]])
        fixture.client.start()
        fixture.settle()
        return fixture
    }

    func testACancelledCallReturnsCancelledWhileTheFetchIsHeld() async {
        let fixture = startedFixture()
        fixture.transport.holdFetches()
        let client = fixture.client
        let call = Task { try await client.getSegments(category: .discovery) }
        waitUntil { fixture.transport.heldFetchCount == 1 }
        call.cancel()
        let outcome = await call.result
        XCTAssertEqual(outcome.failureValue as? SegmentsError, .cancelled)
        XCTAssertEqual(fixture.transport.heldFetchCount, 1, "returned while the fetch is still held")

        fixture.transport.releaseHeldFetches()
        fixture.settle()
        let later = try? await client.getSegments(category: .discovery)
        XCTAssertEqual(later, [segment(1)], "served from the cache the released fetch filled")
        XCTAssertEqual(fixture.transport.fetchCount, 1)
        let forced = try? await client.getSegments(category: .discovery, force: true)
        XCTAssertEqual(forced, [segment(1)], "the engine still fetches")
        XCTAssertEqual(fixture.transport.fetchCount, 2)
    }

    func testACallerSharingTheCancelledCallersFetchStillGetsItsResult() async {
        let fixture = startedFixture()
        fixture.transport.holdFetches()
        let client = fixture.client
        let call = Task { try await client.getSegments(category: .discovery) }
        waitUntil { fixture.transport.heldFetchCount == 1 }
        let shared = Locked<[Segment]?>(nil)
        client.getSegments(category: .discovery) { segments in shared.withLock { $0 = segments } }
        call.cancel()
        _ = await call.result
        fixture.transport.releaseHeldFetches()
        fixture.settle()
        XCTAssertEqual(shared.withLock { $0 }, [segment(1)])
        XCTAssertEqual(fixture.transport.fetchCount, 1, "one fetch for both")
    }

    func testATaskCancelledBeforeTheCallStartsNoFetch() async {
        let fixture = startedFixture()
        let client = fixture.client
        let call = Task { () async throws -> [Segment] in
            withUnsafeCurrentTask { $0?.cancel() }
            return try await client.getSegments(category: .discovery, force: true)
        }
        let outcome = await call.result
        XCTAssertEqual(outcome.failureValue as? SegmentsError, .cancelled)
        fixture.settle()
        XCTAssertEqual(fixture.transport.fetchCount, 0)
    }

    func testACompletedCallIsNotAffectedByALaterCancellation() async {
        let fixture = startedFixture()
        let client = fixture.client
        let call = Task { try await client.getSegments(category: .discovery) }
        let segments = try? await call.value
        call.cancel()
        XCTAssertEqual(segments, [segment(1)])
    }
}

extension Result {
    /// The error, or `nil` for a success.
    var failureValue: Failure? {
        if case .failure(let error) = self { error } else { nil }
    }
}
