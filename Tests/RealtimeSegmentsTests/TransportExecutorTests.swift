import Foundation
@testable import RealtimeSegments
import XCTest

/// Where the engine's transport calls run: on the engine thread (a task executor of its own), so a
/// response reaches the diff without waking another thread first. (Once the engine has ended, a
/// call that resumes late runs on a background thread: `CustomerSwitchTests`'
/// `testAResultArrivingAfterStopReachesNoCallback`.)
final class TransportExecutorTests: XCTestCase {
    /// Every kind of call: the customer update and the tracked events (uploads), the link, the
    /// listener check's fetch and a forced `getSegments` fetch.
    func testTransportCallsRunOnTheEngineThread() async throws {
        let inner = InMemorySegmentsTransport(expectedProjectToken: Fixture.token)
        inner.defaultResponse = response([.discovery: [1]])
        let transport = ThreadRecordingTransport(inner)
        let fixture = Fixture { $0.transport = transport }
        _ = fixture.register(.discovery, firstLoad: true)
        fixture.startAndRunInitialCheck()
        try fixture.client.identifyCustomer(customerIds: ["registered": "jane"])
        fixture.settle()
        try fixture.client.trackEvent(eventType: "view_item")
        fixture.settle()
        fixture.advance(.seconds(5))
        _ = try await fixture.client.getSegments(category: .discovery, force: true)
        fixture.settle()

        let calls = transport.calls
        XCTAssertEqual(Set(calls.map(\.call)), ["identifyCustomer", "trackEvents", "linkCustomerIds", "fetchSegments"], "\(calls)")
        XCTAssertGreaterThanOrEqual(calls.filter { $0.call == "fetchSegments" }.count, 3, "initial check, tracked-event check, forced pull")
        for call in calls {
            XCTAssertEqual(call.thread, "Segments.engine", "\(call.call) ran on \(call.thread)")
        }
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

    init(_ inner: InMemorySegmentsTransport) {
        self.inner = inner
    }

    var calls: [Call] { recorded.withLock { $0 } }

    /// Records `call` with the calling thread's name as the system knows it (the engine names its
    /// thread through pthreads, which `Thread.current.name` does not read back on Linux).
    private func record(_ call: String) {
        #if canImport(Darwin)
        var buffer = [CChar](repeating: 0, count: 64)
        pthread_getname_np(pthread_self(), &buffer, buffer.count)
        let thread = String(cString: buffer)
        #else
        let name = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "?"
        let thread = name.trimmingCharacters(in: .whitespacesAndNewlines)
        #endif
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
        return try await inner.fetchSegments(cookie: cookie, context: context)
    }
}
