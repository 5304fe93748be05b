import RealtimeSegments
import SegmentsMockServer
import XCTest

/// What the qualified-segments endpoint answers, from the backend's membership model (in memory:
/// the same execution as `POST /v3/graphql`).
final class GraphQLAudienceTests: XCTestCase {
    private func query(_ userId: String, _ audiences: [String]) -> QualifiedSegmentsQuery {
        QualifiedSegmentsQuery(userKey: .key(for: userId), userValue: userId, segmentsToCheck: audiences)
    }

    func testSegmentTheUserIsInIsQualifiedAndOthersAreNot() async throws {
        let transport = MockSegmentsTransport(backend: Fixtures.backendWithViewer())

        let qualified = try await transport.fetchQualifiedSegments(
            query("u1", [Fixtures.viewer.id, Fixtures.buyer.id]), apiKey: "mock-key")

        XCTAssertEqual(qualified, [Fixtures.viewer.id])
    }

    func testSubsetKeepsRequestOrderAndLeavesOutUnrequestedAudiences() async throws {
        let backend = Fixtures.backendWithViewer()
        backend.setSegments([Fixtures.reader, Fixtures.viewer], category: .content, forCookie: "c1")
        let transport = MockSegmentsTransport(backend: backend)

        let qualified = try await transport.fetchQualifiedSegments(
            query("u1", [Fixtures.viewer.id, Fixtures.reader.id]), apiKey: "mock-key")
        let onlyReader = try await transport.fetchQualifiedSegments(query("u1", [Fixtures.reader.id]), apiKey: "mock-key")

        XCTAssertEqual(qualified, [Fixtures.viewer.id, Fixtures.reader.id])
        XCTAssertEqual(onlyReader, [Fixtures.reader.id])
    }

    func testEmptySubsetAnswersEveryQualifiedAudience() async throws {
        let transport = MockSegmentsTransport(backend: Fixtures.backendWithViewer())

        let qualified = try await transport.fetchQualifiedSegments(query("u1", []), apiKey: "mock-key")

        XCTAssertEqual(qualified, [Fixtures.viewer.id])
    }

    func testVuidFindsTheCustomerWithThatVisitorId() async throws {
        let backend = SegmentsBackend()
        backend.identifyQualifiedUser("vuid_abc", cookie: "c2")
        backend.setSegments([Fixtures.buyer], category: .discovery, forCookie: "c2")
        let transport = MockSegmentsTransport(backend: backend)

        let qualified = try await transport.fetchQualifiedSegments(query("vuid_abc", [Fixtures.buyer.id]), apiKey: "mock-key")

        XCTAssertEqual(backend.customer(forCookie: "c2")?.externalIds, ["vuid": "vuid_abc"])
        XCTAssertEqual(qualified, [Fixtures.buyer.id])
    }

    func testFsUserIdDoesNotMatchAVuidOfTheSameValue() async {
        let backend = SegmentsBackend()
        backend.identifyQualifiedUser("shared", key: .vuid, cookie: "c3")
        let transport = MockSegmentsTransport(backend: backend)

        await assertThrows(.invalidSegmentIdentifier) {
            try await transport.fetchQualifiedSegments(query("shared", []), apiKey: "mock-key")
        }
    }

    func testUserIdSetByTrackingIsFound() async throws {
        let backend = SegmentsBackend()
        backend.addRule(Fixtures.viewerRule)
        let transport = MockSegmentsTransport(backend: backend)
        for _ in 0..<3 {
            try await transport.trackEvents(
                [Fixtures.event("view_item", ["cookie": "c4", "fs_user_id": "u4"])], context: Fixtures.context)
        }

        let qualified = try await transport.fetchQualifiedSegments(query("u4", [Fixtures.viewer.id]), apiKey: "mock-key")

        XCTAssertEqual(qualified, [Fixtures.viewer.id])
    }

    func testRuleDrivenEntryAndExitShowUpInTheAnswers() async throws {
        let backend = SegmentsBackend()
        backend.addRule(Fixtures.viewerRule)
        backend.identifyQualifiedUser("u5", cookie: "c5")
        let transport = MockSegmentsTransport(backend: backend)
        let ask = query("u5", [Fixtures.viewer.id])

        let before = try await transport.fetchQualifiedSegments(ask, apiKey: "mock-key")
        backend.trackEvents((0..<3).map { _ in Fixtures.event("view_item", cookie: "c5") }, projectToken: "mock-project")
        let entered = try await transport.fetchQualifiedSegments(ask, apiKey: "mock-key")
        backend.trackEvents([Fixtures.event("purchase", cookie: "c5")], projectToken: "mock-project")
        let left = try await transport.fetchQualifiedSegments(ask, apiKey: "mock-key")

        XCTAssertEqual(before, [])
        XCTAssertEqual(entered, [Fixtures.viewer.id])
        XCTAssertEqual(left, [])
    }

    func testUnknownUserIsAnInvalidIdentifier() async {
        let transport = MockSegmentsTransport(backend: SegmentsBackend())

        await assertThrows(.invalidSegmentIdentifier) {
            try await transport.fetchQualifiedSegments(query("nobody", ["a"]), apiKey: "mock-key")
        }
    }

    func testWrongApiKeyFailsWith403() async {
        let transport = MockSegmentsTransport(backend: Fixtures.backendWithViewer())

        await assertThrows(.fetchSegmentsFailed("403")) {
            try await transport.fetchQualifiedSegments(query("u1", []), apiKey: "wrong")
        }
    }

    func testApiKeySelectsItsProject() async throws {
        let backend = SegmentsBackend(projects: [Fixtures.project, MockProject(token: "other", apiKey: "other-key")])
        backend.identifyQualifiedUser("u6", cookie: "c6", projectToken: "other")
        backend.setSegments([Fixtures.viewer], category: .discovery, forCookie: "c6", projectToken: "other")
        let transport = MockSegmentsTransport(backend: backend)

        let inOther = try await transport.fetchQualifiedSegments(query("u6", [Fixtures.viewer.id]), apiKey: "other-key")

        XCTAssertEqual(inOther, [Fixtures.viewer.id])
        await assertThrows(.invalidSegmentIdentifier) {
            try await transport.fetchQualifiedSegments(query("u6", []), apiKey: "mock-key")
        }
    }

    func testEachCallIsCountedOnTheQualifiedSegmentsEndpoint() async throws {
        let backend = Fixtures.backendWithViewer()
        let transport = MockSegmentsTransport(backend: backend)

        _ = try await transport.fetchQualifiedSegments(query("u1", []), apiKey: "mock-key")
        _ = try? await transport.fetchQualifiedSegments(query("nobody", []), apiKey: "mock-key")
        _ = try? await transport.fetchQualifiedSegments(query("u1", []), apiKey: "wrong")

        XCTAssertEqual(backend.requestCount(.qualifiedSegments), 3)
        XCTAssertEqual(backend.requestCount(.fetchSegments), 0)
    }
}
