import Foundation
import RealtimeSegments
import RealtimeSegmentsHTTP
import SegmentsMockServer
import XCTest

/// Qualified segments (SPEC §9) from a user context through the HTTP transport to the mock server's
/// GraphQL endpoint and back, answered from the same membership model as the segments endpoint.
final class QualifiedSegmentsEndToEndTests: XCTestCase {
    private let vip = Segment(id: "66140257f4cb337324209871", segmentationId: "66140215fb50effc8a7218b4")
    private let churn = "66140257f4cb337324209872"

    private func fixture(apiKey: String = EndToEndFixture.project.apiKey) throws -> EndToEndFixture {
        let e2e = try EndToEndFixture(qualifiedSegments: QualifiedSegmentsConfiguration(apiKey: apiKey, segmentsToCheck: [vip.id, churn]))
        XCTAssertTrue(e2e.backend.setAudiences([vip.id, churn], projectToken: EndToEndFixture.project.token))
        return e2e
    }

    func testAUserIsQualifiedForTheSegmentsItsCustomerIsIn() throws {
        let e2e = try fixture()
        XCTAssertTrue(e2e.backend.identifyQualifiedUser("user-1", cookie: "cookie-1", projectToken: EndToEndFixture.project.token))
        e2e.backend.setSegments([vip], category: .discovery, forCookie: "cookie-1", projectToken: EndToEndFixture.project.token)
        let user = try e2e.client.createUserContext(userId: "user-1")

        try user.fetchQualifiedSegmentsAndWait()

        XCTAssertEqual(user.qualifiedSegments, [vip.id])
        XCTAssertTrue(user.isQualifiedFor(segment: vip.id))
        XCTAssertFalse(user.isQualifiedFor(segment: churn))
    }

    func testAMembershipChangeOnTheServerShowsOnTheNextFetchThatBypassesTheCache() throws {
        let e2e = try fixture()
        XCTAssertTrue(e2e.backend.identifyQualifiedUser("user-2", cookie: "cookie-2", projectToken: EndToEndFixture.project.token))
        let user = try e2e.client.createUserContext(userId: "user-2")
        try user.fetchQualifiedSegmentsAndWait()
        XCTAssertEqual(user.qualifiedSegments, [])

        e2e.backend.setSegments([vip], category: .content, forCookie: "cookie-2", projectToken: EndToEndFixture.project.token)
        try user.fetchQualifiedSegmentsAndWait()
        XCTAssertEqual(user.qualifiedSegments, [], "served from the cache")
        try user.fetchQualifiedSegmentsAndWait(options: [.ignoreCache])
        XCTAssertEqual(user.qualifiedSegments, [vip.id])
    }

    func testAnUnknownUserIsAnInvalidSegmentIdentifier() throws {
        let e2e = try fixture()
        let user = try e2e.client.createUserContext(userId: "nobody")
        XCTAssertThrowsError(try user.fetchQualifiedSegmentsAndWait()) { error in
            XCTAssertEqual(error as? SegmentsError, .invalidSegmentIdentifier)
        }
        XCTAssertNil(user.qualifiedSegments)
        XCTAssertEqual(e2e.logs.count(prefix: "Segments: Fetch of qualified segments"), 1)
    }

    func testAWrongApiKeyFailsWithTheStatus() throws {
        let e2e = try fixture(apiKey: "wrong-key")
        XCTAssertTrue(e2e.backend.identifyQualifiedUser("user-3", cookie: "cookie-3", projectToken: EndToEndFixture.project.token))
        let user = try e2e.client.createUserContext(userId: "user-3")
        XCTAssertThrowsError(try user.fetchQualifiedSegmentsAndWait()) { error in
            XCTAssertEqual(error as? SegmentsError, .fetchSegmentsFailed("403"))
        }
    }

    func testConcurrentFetchesForOneUserMakeOneRequestOverHTTP() throws {
        let e2e = try fixture()
        XCTAssertTrue(e2e.backend.identifyQualifiedUser("user-4", cookie: "cookie-4", projectToken: EndToEndFixture.project.token))
        e2e.backend.setSegments([vip], category: .discovery, forCookie: "cookie-4", projectToken: EndToEndFixture.project.token)
        let contexts = try (0..<20).map { _ in try e2e.client.createUserContext(userId: "user-4") }
        let failures = LockBox<[String]>([])
        DispatchQueue.concurrentPerform(iterations: contexts.count) { index in
            do { try contexts[index].fetchQualifiedSegmentsAndWait() } catch { failures.append("\(error)") }
        }
        XCTAssertEqual(failures.value, [])
        XCTAssertEqual(contexts.map(\.qualifiedSegments), Array(repeating: [vip.id], count: 20))
        XCTAssertEqual(e2e.backend.requestCount(.qualifiedSegments), 1)
    }
}
