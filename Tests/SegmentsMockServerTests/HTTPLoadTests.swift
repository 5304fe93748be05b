import AsyncHTTPClient
import NIOCore
import RealtimeSegments
import SegmentsMockServer
import XCTest

final class HTTPLoadTests: XCTestCase {
    /// 10,000 requests from 8 concurrent clients over loopback, half fetches and half tracked
    /// events: every one succeeds and the server still answers afterwards. Bounded by count, and
    /// each request by a deadline, so the test always ends.
    func testTenThousandMixedRequestsFromEightClientsAllSucceed() async throws {
        let clients = 8
        let requestsPerClient = 1_250
        let backend = SegmentsBackend()
        backend.addRule(SegmentRule(
            category: .discovery, segment: Fixtures.viewer, entersAfter: (eventType: "view_item", count: 10)))

        try await withMockServer(backend: backend) { session in
            let failures = try await withThrowingTaskGroup(of: [String].self) { group in
                for client in 0..<clients {
                    group.addTask {
                        var failures: [String] = []
                        for index in 0..<requestsPerClient {
                            let cookie = "client-\(client)-\(index % 25)"
                            let answer: MockServerSession.Answer
                            if index.isMultiple(of: 2) {
                                answer = try await session.send(
                                    .GET, "/webxp/projects/mock-project/segments?cookie=\(cookie)", timeout: .seconds(60))
                            } else {
                                let body = #"{"customer_ids":{"cookie":"\#(cookie)"},"event_type":"view_item","timestamp":1}"#
                                answer = try await session.send(
                                    .POST, "/track/v2/projects/mock-project/customers/events", body: body,
                                    timeout: .seconds(60))
                            }
                            if answer.status != 200 { failures.append("\(answer.status) \(answer.body)") }
                        }
                        return failures
                    }
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }

            XCTAssertEqual(failures, [])
            XCTAssertEqual(backend.requestCount(.fetchSegments), clients * requestsPerClient / 2)
            XCTAssertEqual(backend.eventsAccepted, clients * requestsPerClient / 2)
            XCTAssertEqual(backend.customerCount(), clients * 25)
            XCTAssertEqual(backend.currentVersion, UInt64(clients * 25), "each customer entered the segment once")

            let after = try await session.send(.GET, "/webxp/projects/mock-project/segments?cookie=client-0-0")
            XCTAssertEqual(after.status, 200)
            XCTAssertEqual(try SegmentsResponseDecoder.decode(Data(after.body.utf8))[.discovery], [Fixtures.viewer])
        }
    }
}
