import AsyncHTTPClient
import Foundation
import NIOCore
import RealtimeSegments
import SegmentsMockServer
import XCTest

/// The seeded faults of the qualified-segments endpoint over HTTP.
final class GraphQLHTTPFaultTests: XCTestCase {
    private let body = qualifiedQueryBody("u1", [Fixtures.viewer.id])

    private func plan(_ profile: FaultProfile, seed: UInt64 = 1) -> FaultPlan {
        FaultPlan(seed: seed, profiles: [.qualifiedSegments: profile])
    }

    func testErrorFaultAnswersTheStatusesInRotation() async throws {
        let faults = plan(FaultProfile(errorRate: 1, errorStatuses: [503, 429]))
        let answers = try await withMockServer(backend: Fixtures.backendWithViewer(), faults: faults) { session in
            [try await session.sendGraphQL(body), try await session.sendGraphQL(body)]
        }

        XCTAssertEqual(answers.map(\.status), [503, 429])
        XCTAssertNotNil(jsonObject(answers[0].body)?["error"])
    }

    func testMalformedBodiesAreDecodeErrorsForTheSDK() async throws {
        let bodies = try await withMockServer(backend: Fixtures.backendWithViewer(), faults: plan(FaultProfile(malformedRate: 1))) {
            session in
            var bodies: [String] = []
            for _ in 0..<6 { bodies.append(try await session.sendGraphQL(body).body) }
            return bodies
        }

        XCTAssertGreaterThan(Set(bodies).count, 1, "several malformed variants")
        for malformed in bodies {
            XCTAssertThrowsError(try QualifiedSegmentsWire.decodeResponse(status: 200, body: Data(malformed.utf8))) {
                XCTAssertEqual($0 as? SegmentsError, .fetchSegmentsFailed("decode error"), malformed)
            }
        }
    }

    func testTruncatedBodyPromisesTheFullLengthAndSendsHalf() async throws {
        let server = try await SegmentsMockHTTPServer.startLocal(
            backend: Fixtures.backendWithViewer(), faults: plan(FaultProfile(truncatedRate: 1)))
        let connection = try RawHTTPConnection(port: server.port)
        try connection.send(
            "POST /v3/graphql HTTP/1.1\r\nhost: x\r\nx-api-key: mock-key\r\ncontent-type: application/json\r\n"
                + "content-length: \(body.utf8.count)\r\n\r\n\(body)")

        let responses = RawHTTPResponse.parseAll(connection.readUntilClosed())
        try await server.stop()

        let response = try XCTUnwrap(responses.first)
        let promised = try XCTUnwrap(response.headers["content-length"].flatMap(Int.init))
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.body.count, promised / 2)
        XCTAssertEqual(server.faultCounts[.qualifiedSegments, .truncated], 1)
    }

    func testResetIsAConnectionErrorForTheClient() async throws {
        try await withMockServer(backend: Fixtures.backendWithViewer(), faults: plan(FaultProfile(resetRate: 1))) { session in
            do {
                let answer = try await session.sendGraphQL(body)
                XCTFail("a reset connection produced an answer: \(answer.status)")
            } catch {
                // Any connection error will do: there is no answer to report.
            }
            XCTAssertEqual(session.server.faultCounts[.qualifiedSegments, .reset], 1)
        }
    }

    func testHangIsObservedAsAClientTimeout() async throws {
        let faults = plan(FaultProfile(hangRate: 1, maxHang: .seconds(30)))
        // A timeout long enough for the request to reach the handler on a slow (sanitized) run.
        try await withMockServer(backend: Fixtures.backendWithViewer(), faults: faults) { session in
            do {
                _ = try await session.sendGraphQL(body, timeout: .seconds(2))
                XCTFail("a hanging request was answered")
            } catch let error as HTTPClientError {
                XCTAssertEqual(error, .deadlineExceeded)
            }
            XCTAssertEqual(session.server.faultCounts[.qualifiedSegments, .hang], 1)
        }
    }

    func testLatencyDelaysButDoesNotFailTheAnswer() async throws {
        let faults = plan(FaultProfile(latency: .fixed(.milliseconds(5))))
        let answer = try await withMockServer(backend: Fixtures.backendWithViewer(), faults: faults) { session in
            let answer = try await session.sendGraphQL(body)
            XCTAssertEqual(session.server.faultCounts[.qualifiedSegments, .latency], 1)
            return answer
        }

        XCTAssertEqual(try QualifiedSegmentsWire.decodeResponse(status: 200, body: Data(answer.body.utf8)), [Fixtures.viewer.id])
    }

    func testFaultsOnOtherEndpointsLeaveGraphQLAlone() async throws {
        let faults = FaultPlan(seed: 1, profiles: [.fetchSegments: FaultProfile(errorRate: 1)])
        let answer = try await withMockServer(backend: Fixtures.backendWithViewer(), faults: faults) { session in
            try await session.sendGraphQL(body)
        }

        XCTAssertEqual(answer.status, 200)
    }
}
