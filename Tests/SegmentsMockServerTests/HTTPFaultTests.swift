import AsyncHTTPClient
import Foundation
import NIOCore
import RealtimeSegments
import SegmentsMockServer
import XCTest

final class HTTPFaultTests: XCTestCase {
    private let fetchPath = "/webxp/projects/mock-project/segments?cookie=c1"
    private let trackPath = "/track/v2/projects/mock-project/customers/events"
    private let trackBody = #"{"customer_ids":{"cookie":"c1"},"event_type":"a","timestamp":1}"#

    private func plan(_ profile: FaultProfile, on endpoint: MockEndpoint, seed: UInt64 = 1) -> FaultPlan {
        FaultPlan(seed: seed, profiles: [endpoint: profile])
    }

    func testErrorFaultAnswersTheStatusWithAJSONErrorAndStoresNothing() async throws {
        let backend = SegmentsBackend()
        let answers = try await withMockServer(
            backend: backend, faults: plan(FaultProfile(errorRate: 1, errorStatuses: [503, 429]), on: .trackEvent)
        ) { session in
            [
                try await session.send(.POST, trackPath, body: trackBody),
                try await session.send(.POST, trackPath, body: trackBody),
            ]
        }

        XCTAssertEqual(answers.map(\.status), [503, 429])
        XCTAssertNotNil(jsonObject(answers[0].body)?["error"])
        XCTAssertEqual(backend.eventsAccepted, 0)
    }

    func testMalformedFetchBodyIsRejectedByTheEnginesDecoder() async throws {
        let bodies = try await withMockServer(faults: plan(FaultProfile(malformedRate: 1), on: .fetchSegments)) { session in
            var bodies: [String] = []
            for _ in 0..<6 { bodies.append(try await session.send(.GET, fetchPath).body) }
            return bodies
        }

        for body in bodies {
            XCTAssertThrowsError(try SegmentsResponseDecoder.decode(Data(body.utf8)), body) { error in
                guard case .malformedResponse? = error as? SegmentsError else {
                    return XCTFail("expected malformedResponse, got \(error)")
                }
            }
        }
    }

    func testTruncatedBodyPromisesTheFullLengthAndSendsHalf() async throws {
        let backend = SegmentsBackend()
        backend.setSegments([Fixtures.viewer, Fixtures.buyer], category: .discovery, forCookie: "c1")
        let server = try await SegmentsMockHTTPServer.startLocal(
            backend: backend, faults: plan(FaultProfile(truncatedRate: 1), on: .fetchSegments))
        let connection = try RawHTTPConnection(port: server.port)
        try connection.send("GET \(fetchPath) HTTP/1.1\r\nhost: x\r\nauthorization: Token mock-key\r\n\r\n")

        let responses = RawHTTPResponse.parseAll(connection.readUntilClosed())
        try await server.stop()

        let response = try XCTUnwrap(responses.first)
        let promised = try XCTUnwrap(response.headers["content-length"].flatMap(Int.init))
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.body.count, promised / 2)
    }

    func testTruncatedBodyIsAnErrorForTheClient() async throws {
        let backend = SegmentsBackend()
        backend.setSegments([Fixtures.viewer], category: .discovery, forCookie: "c1")
        try await withMockServer(backend: backend, faults: plan(FaultProfile(truncatedRate: 1), on: .fetchSegments)) {
            session in
            do {
                let answer = try await session.send(.GET, fetchPath)
                XCTFail("a truncated body was delivered whole: \(answer.body)")
            } catch {
                // The client must notice the body ended early (the exact error is the client's business).
            }
            XCTAssertEqual(session.server.faultCounts[.fetchSegments, .truncated], 1)
        }
    }

    func testResetIsAnErrorForTheClientAndStoresNothing() async throws {
        let backend = SegmentsBackend()
        try await withMockServer(backend: backend, faults: plan(FaultProfile(resetRate: 1), on: .trackEvent)) { session in
            do {
                _ = try await session.send(.POST, trackPath, body: trackBody)
                XCTFail("a reset connection produced an answer")
            } catch {
                // Any connection error will do: there is no answer to report.
            }
            XCTAssertEqual(session.server.faultCounts[.trackEvent, .reset], 1)
        }
        XCTAssertEqual(backend.eventsAccepted, 0)
    }

    func testHangIsObservedAsAClientTimeout() async throws {
        let faults = plan(FaultProfile(hangRate: 1, maxHang: .seconds(30)), on: .fetchSegments)
        // A timeout long enough for the request to reach the handler on a slow (sanitized) run.
        try await withMockServer(faults: faults) { session in
            do {
                _ = try await session.send(.GET, fetchPath, timeout: .seconds(2))
                XCTFail("a hanging request was answered")
            } catch let error as HTTPClientError {
                XCTAssertEqual(error, .deadlineExceeded)
            }
            XCTAssertEqual(session.server.faultCounts[.fetchSegments, .hang], 1)
        }
    }

    func testStoppingTheServerEndsAHangingRequest() async throws {
        let server = try await SegmentsMockHTTPServer.startLocal(
            backend: SegmentsBackend(), faults: plan(FaultProfile(hangRate: 1), on: .fetchSegments))
        let connection = try RawHTTPConnection(port: server.port, receiveTimeoutSeconds: 30)
        try connection.send("GET \(fetchPath) HTTP/1.1\r\nhost: x\r\nauthorization: Token mock-key\r\n\r\n")
        // Stop only once the request is hanging, so the test does not depend on timing.
        await waitUntil { server.faultCounts[.fetchSegments, .hang] == 1 }

        try await server.stop()

        XCTAssertEqual(connection.readUntilClosed(), [], "closed without an answer, long before the 60 s max hang")
    }

    func testLatencyDelaysButDoesNotFailTheAnswer() async throws {
        let backend = SegmentsBackend()
        let faults = plan(FaultProfile(latency: .uniform(.milliseconds(1), .milliseconds(10))), on: .trackEvent)
        let answer = try await withMockServer(backend: backend, faults: faults) { session in
            let answer = try await session.send(.POST, trackPath, body: trackBody)
            XCTAssertEqual(session.server.faultCounts[.trackEvent, .latency], 1)
            return answer
        }

        XCTAssertEqual(answer.status, 200)
        XCTAssertEqual(backend.eventsAccepted, 1)
    }

    func testSameSeedGivesTheSameStatusSequenceOverHTTP() async throws {
        func statuses(seed: UInt64) async throws -> [Int] {
            let faults = plan(FaultProfile(errorRate: 0.5, errorStatuses: [500, 503]), on: .fetchSegments, seed: seed)
            return try await withMockServer(faults: faults) { session in
                var statuses: [Int] = []
                for _ in 0..<40 { statuses.append(try await session.send(.GET, fetchPath).status) }
                return statuses
            }
        }

        let first = try await statuses(seed: 3)
        let second = try await statuses(seed: 3)
        let other = try await statuses(seed: 4)

        XCTAssertEqual(first, second)
        XCTAssertNotEqual(first, other)
        XCTAssertTrue(first.contains(200) && first.contains(500))
    }

    func testFaultPlanCanBeReplacedWhileRunning() async throws {
        let answers = try await withMockServer(faults: plan(FaultProfile(errorRate: 1), on: .fetchSegments)) { session in
            let failed = try await session.send(.GET, fetchPath)
            session.server.setFaultPlan(.none)
            return [failed, try await session.send(.GET, fetchPath)]
        }

        XCTAssertEqual(answers.map(\.status), [500, 200])
    }
}
