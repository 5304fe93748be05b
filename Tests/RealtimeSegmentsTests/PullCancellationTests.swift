import Foundation
@testable import RealtimeSegments
import Synchronization
import XCTest

/// Issue 32: the `async` `getSegments` returns `SegmentsError.cancelled` as soon as its task is
/// cancelled, even while the engine's fetch is in flight (held by the transport), and the engine
/// goes on undisturbed.
final class PullCancellationTests: XCTestCase {
    func testACancelledCallReturnsCancelledWhileTheFetchIsHeld() async {
        let fixture = Fixture.started(answering: response([.discovery: [1]]))
        fixture.transport.holdFetches()
        let client = fixture.client
        let call = Task { try await client.getSegments(category: .discovery) }
        waitUntil { fixture.transport.heldFetchCount == 1 }
        call.cancel()
        let outcome = await resultOrRelease(call, fixture)
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
        let fixture = Fixture.started(answering: response([.discovery: [1]]))
        fixture.transport.holdFetches()
        let client = fixture.client
        let call = Task { try await client.getSegments(category: .discovery) }
        waitUntil { fixture.transport.heldFetchCount == 1 }
        let shared = Locked<[Segment]?>(nil)
        client.getSegments(category: .discovery) { segments in shared.withLock { $0 = segments } }
        call.cancel()
        _ = await resultOrRelease(call, fixture)
        fixture.transport.releaseHeldFetches()
        fixture.settle()
        XCTAssertEqual(shared.withLock { $0 }, [segment(1)])
        XCTAssertEqual(fixture.transport.fetchCount, 1, "one fetch for both")
    }

    func testATaskCancelledBeforeTheCallStartsNoFetch() async {
        let fixture = Fixture.started(answering: response([.discovery: [1]]))
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
        let fixture = Fixture.started(answering: response([.discovery: [1]]))
        let client = fixture.client
        let call = Task { try await client.getSegments(category: .discovery) }
        let segments = try? await call.value
        call.cancel()
        XCTAssertEqual(segments, [segment(1)])
    }
}

/// `task`'s result. A call that ignored its cancellation would wait for the held fetch forever:
/// after 10 s the fetch is released, so the test ends and its assertions fail instead of hanging.
private func resultOrRelease(_ task: Task<[Segment], any Error>, _ fixture: Fixture) async -> Result<[Segment], any Error> {
    let transport = fixture.transport
    let watchdog = Task {
        try? await Task.sleep(for: .seconds(10))
        if !Task.isCancelled { transport.releaseHeldFetches() }
    }
    defer { watchdog.cancel() }
    return await task.result
}

extension Result {
    /// The error, or `nil` for a success.
    var failureValue: Failure? {
        if case .failure(let error) = self { error } else { nil }
    }
}
