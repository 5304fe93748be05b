import AsyncHTTPClient
import Foundation
import NIOCore
import RealtimeSegments
import SegmentsMockServer
import XCTest

/// `POST /v3/graphql` over HTTP: the ODP wire contract (notes A.5) and the server's request errors.
final class GraphQLHTTPTests: XCTestCase {
    func testAnswersQualifiedAndNotQualifiedStatesInTheODPShape() async throws {
        let answer = try await withMockServer(backend: Fixtures.backendWithViewer()) { session in
            try await session.sendGraphQL(qualifiedQueryBody("u1", [Fixtures.viewer.id, Fixtures.buyer.id]))
        }

        XCTAssertEqual(answer.status, 200)
        XCTAssertEqual(answer.headers.first(name: "content-type"), "application/json")
        XCTAssertEqual(
            answer.body,
            #"{"data":{"customer":{"audiences":{"edges":[{"node":{"name":"\#(Fixtures.viewer.id)","state":"qualified"}},"#
                + #"{"node":{"name":"\#(Fixtures.buyer.id)","state":"not_qualified"}}]}}}}"#)
    }

    func testSubsetFiltersAndKeepsRequestOrder() async throws {
        let backend = Fixtures.backendWithViewer()
        backend.setSegments([Fixtures.reader], category: .content, forCookie: "c1")
        let answer = try await withMockServer(backend: backend) { session in
            try await session.sendGraphQL(qualifiedQueryBody("u1", [Fixtures.reader.id, Fixtures.buyer.id, "unknown"]))
        }

        XCTAssertEqual(
            answer.body,
            #"{"data":{"customer":{"audiences":{"edges":[{"node":{"name":"\#(Fixtures.reader.id)","state":"qualified"}},"#
                + #"{"node":{"name":"\#(Fixtures.buyer.id)","state":"not_qualified"}}]}}}}"#)
    }

    func testEmptySubsetListsEveryKnownAudienceInServerOrder() async throws {
        let backend = Fixtures.backendWithViewer()
        backend.addRule(SegmentRule(category: .content, segment: Fixtures.reader, entersAfter: (eventType: "read", count: 1)))
        let answer = try await withMockServer(backend: backend) { session in
            try await session.sendGraphQL(qualifiedQueryBody("u1", []))
        }

        let names = try QualifiedSegmentsWire.decodeResponse(status: 200, body: Data(answer.body.utf8))
        XCTAssertEqual(names, [Fixtures.viewer.id])
        XCTAssertEqual(
            answer.body,
            #"{"data":{"customer":{"audiences":{"edges":[{"node":{"name":"\#(Fixtures.buyer.id)","state":"not_qualified"}},"#
                + #"{"node":{"name":"\#(Fixtures.reader.id)","state":"not_qualified"}},"#
                + #"{"node":{"name":"\#(Fixtures.viewer.id)","state":"qualified"}}]}}}}"#)
    }

    func testDescriptionIsAnsweredWhenAsked() async throws {
        let query = #"{customer(fs_user_id: "u1") {audiences(subset: ["\#(Fixtures.viewer.id)"]) {edges {node {name state description}}}}}"#
        let answer = try await withMockServer(backend: Fixtures.backendWithViewer()) { session in
            try await session.sendGraphQL(graphQLBody(query))
        }

        XCTAssertEqual(
            answer.body,
            #"{"data":{"customer":{"audiences":{"edges":[{"node":{"name":"\#(Fixtures.viewer.id)","state":"qualified","#
                + #""description":"mock audience \#(Fixtures.viewer.id)"}}]}}}}"#)
    }

    func testVuidQueryFindsTheVisitor() async throws {
        let backend = SegmentsBackend()
        backend.identifyQualifiedUser("vuid_123", cookie: "c2")
        backend.setSegments([Fixtures.buyer], category: .discovery, forCookie: "c2")
        let answer = try await withMockServer(backend: backend) { session in
            try await session.sendGraphQL(qualifiedQueryBody("vuid_123", [Fixtures.buyer.id]))
        }

        XCTAssertEqual(try QualifiedSegmentsWire.decodeResponse(status: 200, body: Data(answer.body.utf8)), [Fixtures.buyer.id])
    }

    func testUnknownUserAnswersODPsInvalidIdentifierBodyExactly() async throws {
        let answer = try await withMockServer { session in
            try await session.sendGraphQL(qualifiedQueryBody("asdsdaddddd", ["a"]))
        }

        XCTAssertEqual(answer.status, 200)
        XCTAssertEqual(
            answer.body,
            #"{"errors":[{"message":"Exception while fetching data (/customer) : java.lang.RuntimeException: "#
                + #"could not resolve _fs_user_id = asdsdaddddd","locations":[{"line":1,"column":47}],"path":["customer"],"#
                + #""extensions":{"code":"INVALID_IDENTIFIER_EXCEPTION","classification":"DataFetchingException"}}],"#
                + #""data":{"customer":null}}"#)
    }

    func testUnknownVuidNamesTheVuidKey() async throws {
        let answer = try await withMockServer { session in
            try await session.sendGraphQL(qualifiedQueryBody("vuid_nobody", []))
        }

        let error = try XCTUnwrap((jsonObject(answer.body)?["errors"] as? [NSDictionary])?.first)
        XCTAssertEqual(
            error["message"] as? String,
            "Exception while fetching data (/customer) : java.lang.RuntimeException: could not resolve _vuid = vuid_nobody")
    }

    func testQueryAgainstAnUnknownFieldAnswersValidationErrorsWithoutData() async throws {
        let answer = try await withMockServer(backend: Fixtures.backendWithViewer()) { session in
            try await session.sendGraphQL(graphQLBody(#"{customer(fs_user_id: "u1") {segments}}"#))
        }

        let body = try XCTUnwrap(jsonObject(answer.body))
        let error = try XCTUnwrap((body["errors"] as? [NSDictionary])?.first)
        XCTAssertEqual(answer.status, 200)
        XCTAssertNil(body["data"])
        XCTAssertEqual((error["extensions"] as? NSDictionary)?["classification"] as? String, "ValidationError")
        XCTAssertTrue((error["message"] as? String ?? "").contains("segments"), answer.body)
    }

    func testQueryThatDoesNotParseAnswersInvalidSyntax() async throws {
        let answer = try await withMockServer { session in
            try await session.sendGraphQL(graphQLBody("query { customer("))
        }

        let error = try XCTUnwrap((jsonObject(answer.body)?["errors"] as? [NSDictionary])?.first)
        XCTAssertEqual(answer.status, 200)
        XCTAssertEqual((error["extensions"] as? NSDictionary)?["classification"] as? String, "InvalidSyntax")
    }

    func testVariableOfTheWrongTypeAnswersAValidationError() async throws {
        let body = #"{"query":"\#(QualifiedSegmentsWire.query(for: .fsUserId).replacingOccurrences(of: "\"", with: "\\\""))","variables":{"userId":5}}"#
        let answer = try await withMockServer(backend: Fixtures.backendWithViewer()) { session in
            try await session.sendGraphQL(body)
        }

        XCTAssertEqual(answer.status, 200)
        XCTAssertThrowsError(try QualifiedSegmentsWire.decodeResponse(status: 200, body: Data(answer.body.utf8))) {
            XCTAssertEqual($0 as? SegmentsError, .fetchSegmentsFailed("ValidationError"), answer.body)
        }
    }

    func testMissingApiKeyIs403() async throws {
        let answer = try await withMockServer(backend: Fixtures.backendWithViewer()) { session in
            try await session.sendGraphQL(qualifiedQueryBody("u1", []), apiKey: nil)
        }

        XCTAssertEqual(answer.status, 403)
        XCTAssertNotNil(jsonObject(answer.body)?["error"])
    }

    func testWrongApiKeyIs403() async throws {
        let answer = try await withMockServer(backend: Fixtures.backendWithViewer()) { session in
            try await session.sendGraphQL(qualifiedQueryBody("u1", []), apiKey: "mock-keyx")
        }

        XCTAssertEqual(answer.status, 403)
        XCTAssertNotNil(jsonObject(answer.body)?["error"])
    }

    func testAuthorizationHeaderDoesNotReplaceTheApiKey() async throws {
        let answer = try await withMockServer(backend: Fixtures.backendWithViewer()) { session in
            try await session.send(.POST, "/v3/graphql", body: qualifiedQueryBody("u1", []), authorization: "Token mock-key")
        }

        XCTAssertEqual(answer.status, 403)
    }

    func testGetIs405AllowingPost() async throws {
        let answer = try await withMockServer { session in
            try await session.sendGraphQL(nil, method: .GET)
        }

        XCTAssertEqual(answer.status, 405)
        XCTAssertEqual(answer.headers.first(name: "allow"), "POST")
    }

    func testMalformedJSONIs400() async throws {
        let answer = try await withMockServer(backend: Fixtures.backendWithViewer()) { session in
            try await session.sendGraphQL(#"{"query": "{customer"#)
        }

        XCTAssertEqual(answer.status, 400)
        XCTAssertNotNil(jsonObject(answer.body)?["error"])
    }

    /// A body nested deeper than `JSONDecoder` survives (513 `[`, the last one ending the body: it
    /// traps there) is a 400 like any other malformed JSON, not a crash of the server's process.
    func testBodyNestedTooDeepIs400NotACrash() async throws {
        let answer = try await withMockServer(backend: Fixtures.backendWithViewer()) { session in
            try await session.sendGraphQL(String(repeating: "[", count: 513))
        }

        XCTAssertEqual(answer.status, 400)
    }

    /// GraphQLSwift's parser recurses once per level of a selection set: 20,000 levels in 40 KB
    /// crashed the server process.
    func testAQueryNestedTooDeepIs400AndTheServerAnswersOn() async throws {
        let deep = "{" + String(repeating: "a{", count: 20_000) + "b" + String(repeating: "}", count: 20_001)
        let (refused, next) = try await withMockServer(backend: Fixtures.backendWithViewer()) { session in
            (try await session.sendGraphQL(graphQLBody(deep)), try await session.sendGraphQL(qualifiedQueryBody("u1", [Fixtures.viewer.id])))
        }
        XCTAssertEqual(refused.status, 400)
        XCTAssertEqual(jsonObject(refused.body)?["error"] as? String, "query nested deeper than 32 levels")
        XCTAssertEqual(next.status, 200)
    }

    /// A list literal nested 64 deep in an argument: GraphQLSwift prints it for its validation
    /// message at a cost that doubles with each level, and the request was never answered.
    func testAnArgumentNestedTooDeepIs400AtOnce() async throws {
        let deep = "query { customer(vuid: " + String(repeating: "[", count: 64) + "1" + String(repeating: "]", count: 64)
            + ") { __typename } }"
        let answer = try await withMockServer(backend: Fixtures.backendWithViewer()) { session in
            try await session.sendGraphQL(graphQLBody(deep), timeout: .seconds(10))
        }
        XCTAssertEqual(answer.status, 400)
    }

    func testAQueryOverTheSizeLimitIs400() async throws {
        let long = "query { " + String(repeating: "__typename ", count: 7_000) + "}"
        let answer = try await withMockServer(backend: Fixtures.backendWithViewer()) { session in
            try await session.sendGraphQL(graphQLBody(long))
        }
        XCTAssertEqual(answer.status, 400)
        XCTAssertEqual(jsonObject(answer.body)?["error"] as? String, "query longer than 65536 bytes")
    }

    func testBodyWithoutQueryIs400() async throws {
        let answer = try await withMockServer(backend: Fixtures.backendWithViewer()) { session in
            try await session.sendGraphQL(#"{"variables":{}}"#)
        }

        XCTAssertEqual(answer.status, 400)
        XCTAssertEqual(jsonObject(answer.body)?["error"] as? String, #"missing "query""#)
    }

    func testContentTypeOtherThanJSONIs415() async throws {
        let answer = try await withMockServer(backend: Fixtures.backendWithViewer()) { session in
            try await session.sendGraphQL(qualifiedQueryBody("u1", []), contentType: "text/plain")
        }

        XCTAssertEqual(answer.status, 415)
    }

    func testRuleDrivenChangeIsVisibleOverHTTP() async throws {
        let backend = SegmentsBackend()
        backend.addRule(Fixtures.viewerRule)
        let answers = try await withMockServer(backend: backend) { session in
            let track = #"{"customer_ids":{"cookie":"c7","fs_user_id":"u7"},"event_type":"view_item","timestamp":1}"#
            _ = try await session.send(.POST, "/track/v2/projects/mock-project/customers/events", body: track)
            let before = try await session.sendGraphQL(qualifiedQueryBody("u7", [Fixtures.viewer.id]))
            for _ in 0..<2 {
                _ = try await session.send(.POST, "/track/v2/projects/mock-project/customers/events", body: track)
            }
            return [before, try await session.sendGraphQL(qualifiedQueryBody("u7", [Fixtures.viewer.id]))]
        }

        let decoded = try answers.map { try QualifiedSegmentsWire.decodeResponse(status: 200, body: Data($0.body.utf8)) }
        XCTAssertEqual(decoded, [[], [Fixtures.viewer.id]])
    }

    func testEveryRequestIsCountedOnTheQualifiedSegmentsEndpoint() async throws {
        let backend = Fixtures.backendWithViewer()
        try await withMockServer(backend: backend) { session in
            _ = try await session.sendGraphQL(qualifiedQueryBody("u1", []))
            _ = try await session.sendGraphQL(qualifiedQueryBody("u1", []), apiKey: "wrong")
            _ = try await session.sendGraphQL("not json")
        }

        XCTAssertEqual(backend.requestCount(.qualifiedSegments), 3)
    }
}
