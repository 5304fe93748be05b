import AsyncHTTPClient
import Foundation
import RealtimeSegments
import SegmentsMockServer
import XCTest

final class HTTPErrorTests: XCTestCase {
    private func assertJSONError(
        _ answer: MockServerSession.Answer, _ status: Int, file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertEqual(answer.status, status, file: file, line: line)
        XCTAssertEqual(answer.headers.first(name: "content-type"), "application/json", file: file, line: line)
        let body = jsonObject(answer.body)
        XCTAssertNotNil(body?["error"] as? String, "body: \(answer.body)", file: file, line: line)
        XCTAssertEqual(body?["success"] as? Bool, false, "body: \(answer.body)", file: file, line: line)
        XCTAssertEqual((body?["errors"] as? [String])?.count, 1, "body: \(answer.body)", file: file, line: line)
    }

    func testWrongKeyIs401WithAJSONError() async throws {
        let backend = SegmentsBackend()
        let answer = try await withMockServer(backend: backend) { session in
            try await session.send(
                .POST, "/track/v2/projects/mock-project/customers/events",
                body: #"{"customer_ids":{"cookie":"c1"},"event_type":"a","timestamp":1}"#, authorization: "Token wrong")
        }

        assertJSONError(answer, 401)
        XCTAssertEqual(backend.eventsAccepted, 0)
    }

    func testMissingAuthorizationIs401() async throws {
        let answer = try await withMockServer { session in
            try await session.send(.GET, "/webxp/projects/mock-project/segments?cookie=c1", authorization: nil)
        }

        assertJSONError(answer, 401)
    }

    func testUnknownProjectTokenIs404() async throws {
        let answer = try await withMockServer { session in
            try await session.send(.GET, "/webxp/projects/other/segments?cookie=c1")
        }

        assertJSONError(answer, 404)
    }

    func testUnknownRouteIs404() async throws {
        let answer = try await withMockServer { session in
            try await session.send(.GET, "/webxp/projects/mock-project/unknown")
        }

        assertJSONError(answer, 404)
    }

    func testWrongMethodIs405WithAllow() async throws {
        let answer = try await withMockServer { session in
            try await session.send(.GET, "/track/v2/projects/mock-project/customers/events")
        }

        assertJSONError(answer, 405)
        XCTAssertEqual(answer.headers.first(name: "allow"), "POST")
    }

    func testBodyThatIsNotJSONIs400() async throws {
        let answer = try await withMockServer { session in
            try await session.send(.POST, "/track/v2/projects/mock-project/customers/events", body: "{not json")
        }

        assertJSONError(answer, 400)
    }

    /// A body nested deeper than `JSONDecoder` survives (513 `[`, the last one ending the body: it
    /// traps there) is a 400 like any other invalid JSON, not a crash of the server's process.
    func testBodyNestedTooDeepIs400NotACrash() async throws {
        let deep = String(repeating: "[", count: 513)
        let answers = try await withMockServer { session in
            [
                try await session.send(.POST, "/track/v2/projects/mock-project/customers/events", body: deep),
                try await session.send(.POST, "/track/v2/projects/mock-project/customers", body: deep),
                try await session.send(.POST, "/track/v2/projects/mock-project/batch", body: deep),
                try await session.send(.POST, "/webxp/projects/mock-project/cookies/c1/link-ids", body: deep),
            ]
        }

        for answer in answers { assertJSONError(answer, 400) }
    }

    func testBodyOfTheWrongShapeIs400AndStoresNothing() async throws {
        let backend = SegmentsBackend()
        let answers = try await withMockServer(backend: backend) { session in
            [
                try await session.send(
                    .POST, "/track/v2/projects/mock-project/customers/events",
                    body: #"{"customer_ids":{"cookie":42},"event_type":"a","timestamp":1}"#),
                try await session.send(
                    .POST, "/track/v2/projects/mock-project/batch",
                    body: #"{"commands":{"name":"customers/events","data":{"customer_ids":{"cookie":"c1"},"event_type":"a"}}}"#),
                try await session.send(
                    .POST, "/webxp/projects/mock-project/cookies/c1/link-ids", body: #"{"external_ids":["x"]}"#),
                try await session.send(
                    .POST, "/webxp/projects/mock-project/cookies/c1/link-ids", body: #"{"external_ids":{"cookie":"c2"}}"#),
                try await session.send(
                    .POST, "/track/v2/projects/mock-project/customers/events",
                    body: #"{"customer_ids":{"cookie":"c1"},"event_type":"","timestamp":1}"#),
            ]
        }

        for answer in answers { assertJSONError(answer, 400) }
        XCTAssertEqual(backend.eventsAccepted, 0, "a batch whose envelope is wrong is not applied at all")
        XCTAssertEqual(backend.linkCalls, 0)
    }

    func testFetchWithoutCookieIs400() async throws {
        let answer = try await withMockServer { session in
            try await session.send(.GET, "/webxp/projects/mock-project/segments")
        }

        assertJSONError(answer, 400)
    }

    func testOversizedBodyIs413AndTheConnectionCloses() async throws {
        let server = try await SegmentsMockHTTPServer.startLocal(backend: SegmentsBackend())
        let connection = try RawHTTPConnection(port: server.port)
        // Only the head is sent: the server must refuse on the announced length, without reading it.
        try connection.send(
            "POST /track/v2/projects/mock-project/customers/events HTTP/1.1\r\nhost: x\r\n"
                + "authorization: Token mock-key\r\ncontent-length: \(SegmentsMockHTTPServer.maxRequestBodyBytes + 1)\r\n\r\n")

        let responses = RawHTTPResponse.parseAll(connection.readUntilClosed())
        try await server.stop()

        XCTAssertEqual(responses.map(\.status), [413])
        XCTAssertEqual(responses.first?.headers["content-type"], "application/json")
        XCTAssertEqual(responses.first?.headers["connection"], "close")
    }

    func testRequestThatIsNotHTTPIs400WithAJSONError() async throws {
        let server = try await SegmentsMockHTTPServer.startLocal(backend: SegmentsBackend())
        let connection = try RawHTTPConnection(port: server.port)
        try connection.send("this is not http\r\n\r\n")

        let responses = RawHTTPResponse.parseAll(connection.readUntilClosed())
        try await server.stop()

        XCTAssertEqual(responses.map(\.status), [400])
        XCTAssertNotNil(jsonObject(String(decoding: responses.first?.body ?? [], as: UTF8.self))?["error"])
    }
}
