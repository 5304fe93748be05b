import AsyncHTTPClient
import Foundation
import RealtimeSegments
import SegmentsMockServer
import XCTest

final class HTTPRouteTests: XCTestCase {
    func testFetchAnswersTheBareSegmentsObject() async throws {
        let backend = SegmentsBackend()
        backend.addRule(Fixtures.viewerRule)
        backend.setSegments([Fixtures.reader], category: .content, forCookie: "c 1")

        let answer = try await withMockServer(backend: backend) { session in
            try await session.send(.GET, "/webxp/projects/mock-project/segments?cookie=c%201")
        }

        XCTAssertEqual(answer.status, 200)
        XCTAssertEqual(answer.headers.first(name: "content-type"), "application/json")
        XCTAssertEqual(
            answer.body,
            #"{"content":[{"id":"66140257f4cb337324209873","segmentation_id":"66140215fb50effc8a7218b6"}],"discovery":[]}"#)
        XCTAssertEqual(
            try SegmentsResponseDecoder.decode(Data(answer.body.utf8)).categories,
            [.content: [Fixtures.reader], .discovery: []])
    }

    func testLinkIdsLinksTheCookieAndAnswersAnEmptyObject() async throws {
        let backend = SegmentsBackend()

        let answer = try await withMockServer(backend: backend) { session in
            try await session.send(
                .POST, "/webxp/projects/mock-project/cookies/c1/link-ids", body: #"{"external_ids":{"registered":"jane"}}"#)
        }

        XCTAssertEqual(answer.status, 200)
        XCTAssertEqual(answer.body, "{}")
        XCTAssertEqual(backend.customer(externalIdName: "registered", value: "jane")?.cookies, ["c1"])
        XCTAssertEqual(backend.linkCalls, 1)
    }

    func testTrackEventStoresTheEventAsSent() async throws {
        let backend = SegmentsBackend()
        let body = #"""
            {"customer_ids":{"cookie":"c1"},"event_type":"view_item","timestamp":1700000000.5,
             "properties":{"sku":"A-1","price":9.99,"gift":true,"tags":["x"],"note":null}}
            """#

        let answer = try await withMockServer(backend: backend) { session in
            try await session.send(.POST, "/track/v2/projects/mock-project/customers/events", body: body)
        }

        XCTAssertEqual(answer.status, 200)
        XCTAssertEqual(jsonObject(answer.body), ["success": true])
        XCTAssertEqual(
            backend.events(forCookie: "c1"),
            [TrackedEvent(
                customerIds: ["cookie": "c1"], eventType: "view_item", timestamp: 1_700_000_000.5,
                properties: ["sku": "A-1", "price": 9.99, "gift": true, "tags": ["x"], "note": nil])])
    }

    func testTrackCustomerMergesTheUpdate() async throws {
        let backend = SegmentsBackend()

        let answer = try await withMockServer(backend: backend) { session in
            try await session.send(
                .POST, "/track/v2/projects/mock-project/customers",
                body: #"{"customer_ids":{"cookie":"c1","registered":"jane"},"properties":{"tier":"gold"}}"#)
        }

        XCTAssertEqual(answer.status, 200)
        XCTAssertEqual(jsonObject(answer.body), ["success": true])
        XCTAssertEqual(backend.customer(forCookie: "c1")?.externalIds, ["registered": "jane"])
        XCTAssertEqual(backend.customer(forCookie: "c1")?.properties, ["tier": "gold"])
    }

    func testBatchAppliesItsCommandsInOrderAndAnswersOneResultEach() async throws {
        let backend = SegmentsBackend()
        backend.addRule(Fixtures.viewerRule)
        let view = #"{"name":"customers/events","data":{"customer_ids":{"cookie":"c1"},"event_type":"view_item","timestamp":1}}"#
        let identify = #"{"name":"customers","data":{"customer_ids":{"cookie":"c1"},"properties":{"a":1}}}"#
        let body = #"{"commands":[\#(view),\#(view),\#(identify),\#(view)]}"#

        let answer = try await withMockServer(backend: backend) { session in
            try await session.send(.POST, "/track/v2/projects/mock-project/batch", body: body)
        }

        XCTAssertEqual(answer.status, 200)
        XCTAssertEqual(
            jsonObject(answer.body),
            ["results": [["success": true], ["success": true], ["success": true], ["success": true]], "success": true])
        XCTAssertEqual(backend.segments(forCookie: "c1", projectToken: "mock-project")?[.discovery], [Fixtures.viewer])
        XCTAssertEqual(backend.customer(forCookie: "c1")?.properties, ["a": 1])
        XCTAssertEqual(backend.requestCounts, [.trackBatch: 1])
    }

    func testBearerAuthorizationIsAccepted() async throws {
        let answer = try await withMockServer { session in
            try await session.send(.GET, "/webxp/projects/mock-project/segments?cookie=c1", authorization: "Bearer mock-key")
        }

        XCTAssertEqual(answer.status, 200)
        XCTAssertEqual(answer.body, "{}")
    }

    func testKeepAliveConnectionAnswersPipelinedRequestsInOrder() async throws {
        let backend = SegmentsBackend()
        backend.setSegments([Fixtures.reader], category: .content, forCookie: "c1")
        let server = try await SegmentsMockHTTPServer.startLocal(backend: backend)
        let connection = try RawHTTPConnection(port: server.port)
        let fetch = "GET /webxp/projects/mock-project/segments?cookie=c1 HTTP/1.1\r\nhost: x\r\nauthorization: Token mock-key\r\n"
        let track = #"{"customer_ids":{"cookie":"c1"},"event_type":"a","timestamp":1}"#
        try connection.send(
            fetch + "\r\n"
                + "POST /track/v2/projects/mock-project/customers/events HTTP/1.1\r\nhost: x\r\n"
                + "authorization: Token mock-key\r\ncontent-length: \(track.utf8.count)\r\n\r\n\(track)"
                + fetch + "connection: close\r\n\r\n")

        let responses = RawHTTPResponse.parseAll(connection.readUntilClosed())
        try await server.stop()

        XCTAssertEqual(responses.map(\.status), [200, 200, 200])
        XCTAssertEqual(responses.map { $0.headers["connection"] }, ["keep-alive", "keep-alive", "close"])
        XCTAssertEqual(String(decoding: responses[1].body, as: UTF8.self), #"{"success":true}"#)
        XCTAssertEqual(responses[0].body, responses[2].body)
    }
}
