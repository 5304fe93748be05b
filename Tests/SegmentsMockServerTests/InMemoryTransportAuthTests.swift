import RealtimeSegments
import SegmentsMockServer
import XCTest

final class InMemoryTransportAuthTests: XCTestCase {
    func testWrongKeyIsUnauthorizedAndStoresNothing() async {
        let backend = SegmentsBackend()
        let transport = MockSegmentsTransport(backend: backend)
        let context = SegmentsRequestContext(projectToken: "mock-project", authorization: .token("wrong"))

        await assertThrows(.unauthorized(status: 401)) {
            try await transport.trackEvents([Fixtures.event("a", cookie: "c1")], context: context)
        }
        XCTAssertEqual(backend.eventsAccepted, 0)
    }

    /// Only the whole key or key pair is accepted: one that is the start of the real one, or
    /// extends it, is refused as any wrong one is.
    func testAKeyOrSecretThatOnlySharesABeginningWithTheRealOneIsUnauthorized() async {
        let backend = SegmentsBackend(projects: [
            MockProject(token: "mock-project", apiKey: "mock-key", keyPair: MockKeyPair(id: "key-id", secret: "s3cret")),
        ])
        let transport = MockSegmentsTransport(backend: backend)
        let wrong: [SegmentsAuthorization] = [
            .token("mock-ke"), .token(""), .token("mock-key2"), .bearer("mock"), .bearer(""),
            .basic(keyId: "key-id", secret: "s3cre"), .basic(keyId: "key-id", secret: ""), .basic(keyId: "key", secret: "s3cret"),
        ]
        for authorization in wrong {
            let context = SegmentsRequestContext(projectToken: "mock-project", authorization: authorization)
            await assertThrows(.unauthorized(status: 401)) {
                try await transport.trackEvents([Fixtures.event("a", cookie: "c1")], context: context)
            }
        }
        XCTAssertEqual(backend.eventsAccepted, 0)
    }

    func testMissingAuthorizationIsUnauthorized() async {
        let transport = MockSegmentsTransport(backend: SegmentsBackend())
        let context = SegmentsRequestContext(projectToken: "mock-project", authorization: nil)

        await assertThrows(.unauthorized(status: 401)) {
            _ = try await transport.fetchSegments(cookie: "c1", context: context)
        }
    }

    func testUnknownProjectIsNotFound() async {
        let transport = MockSegmentsTransport(backend: SegmentsBackend())
        let context = SegmentsRequestContext(projectToken: "other-project", authorization: .token("mock-key"))

        await assertThrows(.notFound) {
            _ = try await transport.fetchSegments(cookie: "c1", context: context)
        }
    }

    /// As over HTTP, where a fetch without a cookie is a 400: never an empty answer.
    func testAFetchWithAnEmptyCookieIsRefusedAsOverHTTP() async {
        let transport = MockSegmentsTransport(backend: SegmentsBackend())
        await assertThrows(.unexpectedStatus(400)) {
            _ = try await transport.fetchSegments(cookie: "", context: Fixtures.context)
        }
    }

    func testBearerAuthorizationWithTheProjectKeyIsAccepted() async throws {
        let backend = SegmentsBackend()
        let transport = MockSegmentsTransport(backend: backend)
        let context = SegmentsRequestContext(projectToken: "mock-project", authorization: .bearer("mock-key"))

        try await transport.linkCustomerIds(cookie: "c1", externalIds: ["registered": "jane"], context: context)

        XCTAssertEqual(backend.linkCalls, 1)
    }

    func testEveryMethodReachesTheModel() async throws {
        let backend = SegmentsBackend()
        backend.setSegments([Fixtures.reader], category: .content, forCookie: "c1")
        let transport = MockSegmentsTransport(backend: backend)

        try await transport.trackEvents([Fixtures.event("a", cookie: "c1")], context: Fixtures.context)
        try await transport.trackEvents(
            [Fixtures.event("b", cookie: "c1"), Fixtures.event("c", cookie: "c1")], context: Fixtures.context)
        try await transport.identifyCustomer(
            CustomerUpdate(customerIds: ["cookie": "c1"], properties: ["tier": "gold"]), context: Fixtures.context)
        try await transport.linkCustomerIds(cookie: "c1", externalIds: ["registered": "jane"], context: Fixtures.context)
        let response = try await transport.fetchSegments(cookie: "c1", context: Fixtures.context)

        XCTAssertEqual(response[.content], [Fixtures.reader])
        XCTAssertEqual(backend.customer(externalIdName: "registered", value: "jane")?.eventCount, 3)
        XCTAssertEqual(backend.customer(forCookie: "c1")?.properties, ["tier": "gold"])
        XCTAssertEqual(
            backend.requestCounts, [.trackEvent: 1, .trackBatch: 1, .trackCustomer: 1, .linkIds: 1, .fetchSegments: 1])
    }
}
