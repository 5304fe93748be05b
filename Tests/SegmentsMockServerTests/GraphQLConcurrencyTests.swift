import RealtimeSegments
import SegmentsMockServer
import XCTest

/// Many concurrent qualified-segments clients while the model changes underneath.
final class GraphQLConcurrencyTests: XCTestCase {
    private let clients = 8

    /// A backend with one user per client, each in `viewer` by rule after 1 `view_item` (left on
    /// `purchase`).
    private func backendWithUsers() -> SegmentsBackend {
        let backend = SegmentsBackend()
        backend.addRule(SegmentRule(category: .discovery, segment: Fixtures.viewer, entersAfter: (eventType: "view_item", count: 1),
            leavesOn: "purchase"))
        backend.setAudiences([Fixtures.buyer.id])
        for client in 0..<clients {
            backend.identifyQualifiedUser("user-\(client)", cookie: "cookie-\(client)")
            backend.trackEvents([Fixtures.event("view_item", cookie: "cookie-\(client)")], projectToken: "mock-project")
        }
        return backend
    }

    func testEightHTTPClientsGetEveryAnswerRight() async throws {
        let requestsPerClient = 60
        let backend = backendWithUsers()
        try await withMockServer(backend: backend) { session in
            let failures = try await withThrowingTaskGroup(of: [String].self) { group in
                for client in 0..<clients {
                    group.addTask {
                        var failures: [String] = []
                        for _ in 0..<requestsPerClient {
                            let answer = try await session.sendGraphQL(
                                qualifiedQueryBody("user-\(client)", [Fixtures.buyer.id, Fixtures.viewer.id]),
                                timeout: .seconds(60))
                            let qualified = try? QualifiedSegmentsWire.decodeResponse(status: 200, body: Data(answer.body.utf8))
                            if answer.status != 200 || qualified != [Fixtures.viewer.id] {
                                failures.append("\(answer.status) \(answer.body)")
                            }
                        }
                        return failures
                    }
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }

            XCTAssertEqual(failures.count, 0, "first failures: \(failures.prefix(5))")
        }
        XCTAssertEqual(backend.requestCount(.qualifiedSegments), clients * requestsPerClient)
    }

    func testEightInMemoryClientsRacingMembershipChangesNeverFail() async throws {
        let requestsPerClient = 200
        let backend = backendWithUsers()
        let transport = MockSegmentsTransport(backend: backend)
        let failures = await withTaskGroup(of: [String].self) { group in
            for client in 0..<clients {
                group.addTask {
                    var failures: [String] = []
                    for index in 0..<requestsPerClient {
                        // Leave and re-enter while others query: answers flip, but never fail.
                        let type = index.isMultiple(of: 2) ? "purchase" : "view_item"
                        backend.trackEvents([Fixtures.event(type, cookie: "cookie-\(client)")], projectToken: "mock-project")
                        let query = QualifiedSegmentsQuery(
                            userKey: .fsUserId, userValue: "user-\(client)", segmentsToCheck: [Fixtures.viewer.id])
                        do {
                            let qualified = try await transport.fetchQualifiedSegments(query, apiKey: "mock-key")
                            let expected = type == "view_item" ? [Fixtures.viewer.id] : []
                            if qualified != expected { failures.append("\(index): \(qualified)") }
                        } catch {
                            failures.append("\(index): \(error)")
                        }
                    }
                    return failures
                }
            }
            return await group.reduce(into: []) { $0 += $1 }
        }

        XCTAssertEqual(failures.count, 0, "first failures: \(failures.prefix(5))")
        XCTAssertEqual(backend.requestCount(.qualifiedSegments), clients * requestsPerClient)
    }
}
