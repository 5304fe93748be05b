import RealtimeSegments
import SegmentsMockServer
import XCTest

final class InMemoryFaultTests: XCTestCase {
    private func transport(_ profile: FaultProfile, on endpoint: MockEndpoint) -> (SegmentsBackend, MockSegmentsTransport) {
        let backend = SegmentsBackend()
        return (backend, MockSegmentsTransport(backend: backend, faults: FaultPlan(seed: 1, profiles: [endpoint: profile])))
    }

    func testErrorStatusesRotateAndMapToTheHTTPTransportsErrors() async {
        let (backend, transport) = transport(
            FaultProfile(errorRate: 1, errorStatuses: [500, 503, 429, 401, 403, 404, 418]), on: .trackEvent)
        let expected: [SegmentsError] = [
            .serverError(status: 500), .serverError(status: 503), .rateLimited(), .unauthorized(status: 401),
            .unauthorized(status: 403), .notFound, .unexpectedStatus(418),
        ]

        for error in expected {
            await assertThrows(error) {
                try await transport.trackEvents([Fixtures.event("a", cookie: "c1")], context: Fixtures.context)
            }
        }
        XCTAssertEqual(backend.eventsAccepted, 0, "a failed track stores nothing")
        XCTAssertEqual(transport.faultCounts[.trackEvent, .error], expected.count)
        XCTAssertEqual(backend.requestCount(.trackEvent), expected.count)
    }

    func testMalformedBodyIsAMalformedResponseAndDoesNotChangeTheModel() async {
        let (backend, transport) = transport(FaultProfile(malformedRate: 1), on: .trackCustomer)

        await assertMalformed {
            try await transport.identifyCustomer(
                CustomerUpdate(customerIds: ["cookie": "c1"], properties: ["a": 1]), context: Fixtures.context)
        }
        XCTAssertNil(backend.customer(forCookie: "c1"))
        XCTAssertEqual(transport.faultCounts[.trackCustomer, .malformed], 1)
    }

    func testTruncatedBodyIsAMalformedResponse() async {
        let (_, transport) = transport(FaultProfile(truncatedRate: 1), on: .fetchSegments)

        await assertMalformed {
            _ = try await transport.fetchSegments(cookie: "c1", context: Fixtures.context)
        }
        XCTAssertEqual(transport.faultCounts[.fetchSegments, .truncated], 1)
    }

    func testResetIsAConnectionFailureAndDoesNotLink() async {
        let (backend, transport) = transport(FaultProfile(resetRate: 1), on: .linkIds)

        await assertThrows(.connectionFailed("connection reset")) {
            try await transport.linkCustomerIds(cookie: "c1", externalIds: ["registered": "x"], context: Fixtures.context)
        }
        XCTAssertEqual(backend.linkCalls, 0)
        XCTAssertNil(backend.customer(forCookie: "c1"))
        XCTAssertEqual(transport.faultCounts[.linkIds, .reset], 1)
    }

    func testHangEndsAsATimeoutAfterTheMaxHangWithoutStoringEvents() async {
        let (backend, transport) = transport(FaultProfile(hangRate: 1, maxHang: .milliseconds(20)), on: .trackBatch)

        await assertThrows(.timeout) {
            try await transport.trackEvents(
                [Fixtures.event("a", cookie: "c1"), Fixtures.event("b", cookie: "c1")], context: Fixtures.context)
        }
        XCTAssertEqual(backend.eventsAccepted, 0)
        XCTAssertEqual(transport.faultCounts[.trackBatch, .hang], 1)
    }

    func testCancellingAHangingCallEndsItAsATimeout() async {
        let (_, transport) = transport(FaultProfile(hangRate: 1), on: .fetchSegments)
        let call = Task {
            try await transport.fetchSegments(cookie: "c1", context: Fixtures.context)
        }
        // Cancel only once the call is really hanging, so the test does not depend on timing.
        await waitUntil { transport.faultCounts[.fetchSegments, .hang] == 1 }

        call.cancel()

        await assertThrows(.timeout) { _ = try await call.value }
    }

    func testLatencyDelaysTheAnswerButTheCallSucceeds() async throws {
        let (backend, transport) = transport(FaultProfile(latency: .fixed(.milliseconds(5))), on: .trackEvent)

        try await transport.trackEvents([Fixtures.event("a", cookie: "c1")], context: Fixtures.context)

        XCTAssertEqual(backend.eventsAccepted, 1)
        XCTAssertEqual(transport.faultCounts[.trackEvent, .latency], 1)
        XCTAssertEqual(transport.faultCounts.total, 1)
    }

    func testRequestsTheServerWouldRefuseAs400FailAsUnexpectedStatus400() async {
        let (backend, transport) = transport(.none, on: .fetchSegments)

        await assertThrows(.unexpectedStatus(400)) {
            try await transport.trackEvents([Fixtures.event("", cookie: "c1")], context: Fixtures.context)
        }
        await assertThrows(.unexpectedStatus(400)) {
            try await transport.identifyCustomer(CustomerUpdate(customerIds: [:], properties: [:]), context: Fixtures.context)
        }
        await assertThrows(.unexpectedStatus(400)) {
            try await transport.linkCustomerIds(cookie: "c1", externalIds: ["cookie": "c2"], context: Fixtures.context)
        }
        XCTAssertEqual(backend.customerCount(), 0)
    }

    func testFaultsApplyOnlyToTheirEndpoint() async throws {
        let (backend, transport) = transport(FaultProfile(errorRate: 1), on: .fetchSegments)

        try await transport.trackEvents([Fixtures.event("a", cookie: "c1")], context: Fixtures.context)

        XCTAssertEqual(backend.eventsAccepted, 1)
    }

    func testReplacingThePlanAtRuntimeTakesEffectOnTheNextRequest() async throws {
        let (_, transport) = transport(FaultProfile(resetRate: 1), on: .fetchSegments)

        transport.setFaultPlan(.none)

        _ = try await transport.fetchSegments(cookie: "c1", context: Fixtures.context)
        XCTAssertEqual(transport.faultPlan, .none)
    }

    private func assertMalformed(
        file: StaticString = #filePath, line: UInt = #line, _ body: () async throws -> Void
    ) async {
        do {
            try await body()
            XCTFail("expected a malformed response", file: file, line: line)
        } catch {
            guard case .malformedResponse? = error as? SegmentsError else {
                return XCTFail("expected a malformed response, got \(error)", file: file, line: line)
            }
        }
    }
}
