import Foundation
@testable import RealtimeSegments
import RealtimeSegmentsTesting
import XCTest

/// Where the engine's transport calls run. A transport that declares `neverBlocks` has its fetches
/// and links run on the engine thread (a task executor of the engine's own), including the steps
/// after a suspension, so a response reaches the diff without waking another thread first; its
/// uploads, and every call of a transport that does not declare it, run on Swift's pool. (Once the
/// engine has ended, a call that resumes late runs on a background thread: `CustomerSwitchTests`'
/// `testAResultArrivingAfterStopReachesNoCallback`.)
final class TransportExecutorTests: XCTestCase {
    func testFetchesAndLinksOfANonBlockingTransportRunOnTheEngineThread() throws {
        let (fixture, transport, inner) = try exerciseEveryCall(neverBlocks: true)
        XCTAssertGreaterThanOrEqual(fixture.client.statistics.checksSucceeded, 2)
        let calls = transport.calls
        XCTAssertEqual(
            Set(calls.map(\.call)),
            ["identifyCustomer", "trackEvents", "linkCustomerIds", "fetchSegments", "fetchSegments resumed"], "\(calls)")
        XCTAssertGreaterThanOrEqual(calls.filter { $0.call == "fetchSegments" }.count, 3, "initial check, tracked-event check, pull")
        for call in calls {
            if ["fetchSegments", "fetchSegments resumed", "linkCustomerIds"].contains(call.call) {
                XCTAssertEqual(call.thread, "Segments.engine", "\(call)")
            } else {
                XCTAssertNotEqual(call.thread, "Segments.engine", "uploads stay off the engine: \(call)")
            }
        }
        XCTAssertEqual(inner.heldFetchCount, 0)
    }

    func testATransportThatMayBlockRunsOffTheEngineThread() throws {
        let (fixture, transport, _) = try exerciseEveryCall(neverBlocks: false)
        XCTAssertGreaterThanOrEqual(fixture.client.statistics.checksSucceeded, 2)
        let calls = transport.calls
        XCTAssertEqual(Set(calls.map(\.call)).count, 5, "\(calls)")
        for call in calls {
            XCTAssertNotEqual(call.thread, "Segments.engine", "\(call)")
        }
    }

    /// `stop()` racing the release of a fetch held in the transport: the fetch's next step reaches
    /// the engine's inbox before it closes (run there, or refused with the inbox's leftovers) or
    /// after (refused at once); either way it runs, the task ends, and nothing stays outstanding.
    func testStopRacingAResumingFetchLeavesNothingOutstanding() {
        let rounds = max(20, (ProcessInfo.processInfo.environment["RS_STRESS_ITERATIONS"].flatMap(Int.init) ?? 3_000) / 25)
        for round in 0..<rounds {
            let fixture = Fixture()
            fixture.transport.defaultResponse = response([.discovery: [round]])
            _ = fixture.register(.discovery, firstLoad: true)
            fixture.client.start()
            fixture.settle()
            fixture.holdTheNextCheck()
            let released = DispatchSemaphore(value: 0)
            let transport = fixture.transport
            DispatchQueue.global().async {
                transport.releaseHeldFetches()
                released.signal()
            }
            fixture.client.stop()
            XCTAssertEqual(released.wait(timeout: .now() + 10), .success, "round \(round)")
            guard fixture.client.waitUntilIdle(timeout: .seconds(10)) else {
                return XCTFail("round \(round): the fetch's task did not end")
            }
        }
    }

    /// Makes every kind of call: the customer update and the tracked events (uploads), the link,
    /// the listener checks' fetches, and a forced `getSegments` fetch held in the transport and
    /// released from this thread, so that its second step runs where a resumed call runs.
    /// Synchronous: a test thread that blocks while waiting must not be one of Swift's pool threads,
    /// which the calls of a transport that may block need.
    private func exerciseEveryCall(neverBlocks: Bool) throws
        -> (Fixture, ThreadRecordingTransport, InMemorySegmentsTransport)
    {
        let inner = InMemorySegmentsTransport(expectedProjectToken: Fixture.token)
        inner.defaultResponse = response([.discovery: [1]])
        let transport = ThreadRecordingTransport(inner, neverBlocks: neverBlocks)
        let fixture = Fixture { $0.transport = transport }
        _ = fixture.register(.discovery, firstLoad: true)
        fixture.startAndRunInitialCheck()
        try fixture.client.identifyCustomer(customerIds: ["registered": "jane"])
        fixture.settle()
        try fixture.client.trackEvent(eventType: "view_item")
        fixture.settle()
        fixture.advance(.seconds(5))
        inner.holdFetches()
        let pulled = DispatchSemaphore(value: 0)
        fixture.client.getSegments(category: .discovery, force: true) { _ in pulled.signal() }
        waitUntil { inner.heldFetchCount == 1 }
        inner.releaseHeldFetches()
        XCTAssertEqual(pulled.wait(timeout: .now() + 10), .success, "the pull was answered")
        fixture.settle()
        return (fixture, transport, inner)
    }
}

/// Forwards to an in-memory transport and records, per call, the name of the thread it ran on.
private final class ThreadRecordingTransport: SegmentsTransport {
    struct Call: Sendable, CustomStringConvertible {
        var call: String
        var thread: String
        var description: String { "\(call) on \(thread)" }
    }

    private let inner: InMemorySegmentsTransport
    private let recorded = Locked<[Call]>([])
    let neverBlocks: Bool

    init(_ inner: InMemorySegmentsTransport, neverBlocks: Bool) {
        self.inner = inner
        self.neverBlocks = neverBlocks
    }

    var calls: [Call] { recorded.withLock { $0 } }

    /// Records `call` with the calling thread's name as the system knows it (the engine names its
    /// thread through pthreads, which `Thread.current.name` does not read back on Linux).
    private func record(_ call: String) {
        let thread = systemThreadName() ?? "?"
        recorded.withLock { $0.append(Call(call: call, thread: thread)) }
    }

    func trackEvents(_ events: [TrackedEvent], context: SegmentsRequestContext) async throws(SegmentsError) {
        record("trackEvents")
        try await inner.trackEvents(events, context: context)
    }

    func identifyCustomer(_ update: CustomerUpdate, context: SegmentsRequestContext) async throws(SegmentsError) {
        record("identifyCustomer")
        try await inner.identifyCustomer(update, context: context)
    }

    func linkCustomerIds(cookie: String, externalIds: [String: String], context: SegmentsRequestContext)
        async throws(SegmentsError)
    {
        record("linkCustomerIds")
        try await inner.linkCustomerIds(cookie: cookie, externalIds: externalIds, context: context)
    }

    func fetchSegments(cookie: String, context: SegmentsRequestContext) async throws(SegmentsError) -> SegmentsResponse {
        record("fetchSegments")
        let response = try await inner.fetchSegments(cookie: cookie, context: context)
        record("fetchSegments resumed")
        return response
    }
}
