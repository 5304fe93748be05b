import Foundation
import RealtimeSegments
import SegmentsMockServer
import XCTest

/// The parts of Exponea's tracking API that its own clients use beyond what this SDK sends: HTTP
/// Basic auth with a key pair, `system/time`, and batch answers per command.
final class ExponeaAPITests: XCTestCase {
    private let keyPair = MockKeyPair(id: "key-id", secret: "s3cret:with:colons")

    private func backend(wallClock: @escaping @Sendable () -> Double = { 1_700_000_000.25 }) -> SegmentsBackend {
        SegmentsBackend(
            projects: [MockProject(token: "mock-project", apiKey: "mock-key", keyPair: keyPair)], wallClock: wallClock)
    }

    private func basic(_ credentials: String) -> String {
        "Basic " + Data(credentials.utf8).base64EncodedString()
    }

    private let event = #"{"customer_ids":{"cookie":"c1"},"event_type":"a","timestamp":1}"#

    private func assertExponeaError(
        _ answer: MockServerSession.Answer, _ status: Int, mentioning word: String? = nil, request: String = "",
        file: StaticString = #filePath, line: UInt = #line
    ) {
        let context = "\(request) body: \(answer.body)"
        XCTAssertEqual(answer.status, status, context, file: file, line: line)
        let body = jsonObject(answer.body)
        XCTAssertEqual(body?["success"] as? Bool, false, context, file: file, line: line)
        let errors = body?["errors"] as? [String]
        XCTAssertEqual(errors?.count, 1, context, file: file, line: line)
        if let word {
            XCTAssertTrue(errors?.first?.contains(word) == true, context, file: file, line: line)
        }
    }

    // MARK: Basic auth

    func testBasicAuthWithTheProjectsKeyPairIsAccepted() async throws {
        let backend = backend()
        let answers = try await withMockServer(backend: backend) { session in
            [
                try await session.send(
                    .POST, "/track/v2/projects/mock-project/customers/events", body: event,
                    authorization: basic("key-id:s3cret:with:colons")),
                try await session.send(
                    .GET, "/webxp/projects/mock-project/segments?cookie=c1",
                    authorization: "basic " + Data("key-id:s3cret:with:colons".utf8).base64EncodedString()),
            ]
        }

        XCTAssertEqual(answers.map(\.status), [200, 200])
        XCTAssertEqual(jsonObject(answers[0].body), ["success": true])
        XCTAssertEqual(backend.eventsAccepted, 1)
    }

    func testBasicAuthWithAWrongSecretOrIdIs401AndStoresNothing() async throws {
        let backend = backend()
        let answers = try await withMockServer(backend: backend) { session in
            [
                try await session.send(
                    .POST, "/track/v2/projects/mock-project/customers/events", body: event,
                    authorization: basic("key-id:wrong")),
                try await session.send(
                    .POST, "/track/v2/projects/mock-project/customers/events", body: event,
                    authorization: basic("other-id:s3cret:with:colons")),
                // The API key is not a key pair.
                try await session.send(
                    .POST, "/track/v2/projects/mock-project/customers/events", body: event,
                    authorization: basic("mock-key:")),
            ]
        }

        for answer in answers { assertExponeaError(answer, 401, mentioning: "secret") }
        XCTAssertEqual(backend.eventsAccepted, 0)
    }

    /// Over HTTP too, only the whole key or key pair is accepted: one that is the start of the real
    /// one, or extends it, is a 401 with a JSON error, and nothing is stored.
    func testAKeyOrSecretThatOnlySharesABeginningWithTheRealOneIs401() async throws {
        let backend = backend()
        let headers = [
            "Token mock-ke", "Token mock-key2", "Bearer mock", "Bearer mock-key-and-more",
            basic("key-id:s3cret"), basic("key-id:s3cret:with:colons:and-more"), basic("key:s3cret:with:colons"),
        ]
        let answers = try await withMockServer(backend: backend) { session in
            var answers: [MockServerSession.Answer] = []
            for header in headers {
                answers.append(try await session.send(
                    .POST, "/track/v2/projects/mock-project/customers/events", body: event, authorization: header))
            }
            return answers
        }
        for (header, answer) in zip(headers, answers) { assertExponeaError(answer, 401, request: "authorization: \(header)") }
        XCTAssertEqual(backend.eventsAccepted, 0)
    }

    func testBasicAuthIsRefusedWhenTheProjectHasNoKeyPair() async throws {
        let answer = try await withMockServer { session in
            try await session.send(
                .GET, "/webxp/projects/mock-project/segments?cookie=c1", authorization: basic("mock-key:mock-key"))
        }

        assertExponeaError(answer, 401)
    }

    func testMalformedAuthorizationHeadersAreAClear401() async throws {
        let notUTF8 = "Basic " + Data([0xFF, 0xFE, 0x3A, 0x61]).base64EncodedString()
        let headers: [(String, String)] = [
            ("Basic", "no credentials"),
            ("Basic    ", "no credentials"),
            ("Basic !!!not-base64!!!", "not base64"),
            ("Basic " + Data("no-colon".utf8).base64EncodedString(), "<key id>:<secret>"),
            (notUTF8, "UTF-8"),
            ("Digest username=\"key-id\"", "scheme"),
            ("mock-key", "scheme"),
        ]
        let answers = try await withMockServer(backend: backend()) { session in
            var answers: [MockServerSession.Answer] = []
            for (header, _) in headers {
                answers.append(
                    try await session.send(
                        .POST, "/track/v2/projects/mock-project/customers/events", body: event, authorization: header))
            }
            // The server is still there after all of them.
            answers.append(
                try await session.send(
                    .POST, "/track/v2/projects/mock-project/customers/events", body: event,
                    authorization: basic("key-id:s3cret:with:colons")))
            return answers
        }

        for ((header, reason), answer) in zip(headers, answers) {
            assertExponeaError(answer, 401, mentioning: reason, request: "authorization: \(header)")
        }
        XCTAssertEqual(answers.last?.status, 200)
    }

    // MARK: system/time

    func testSystemTimeAnswersTheBackendsClock() async throws {
        let answer = try await withMockServer(backend: backend()) { session in
            try await session.send(
                .GET, "/track/v2/projects/mock-project/system/time", authorization: basic("key-id:s3cret:with:colons"))
        }

        XCTAssertEqual(answer.status, 200)
        XCTAssertEqual(answer.headers.first(name: "content-type"), "application/json")
        XCTAssertEqual(jsonObject(answer.body), ["success": true, "time": 1_700_000_000.25])
    }

    func testSystemTimeNeedsCredentialsAndAGet() async throws {
        let answers = try await withMockServer(backend: backend()) { session in
            [
                try await session.send(.GET, "/track/v2/projects/mock-project/system/time", authorization: nil),
                try await session.send(.POST, "/track/v2/projects/mock-project/system/time", body: "{}"),
                try await session.send(.GET, "/track/v2/projects/other/system/time"),
            ]
        }

        XCTAssertEqual(answers.map(\.status), [401, 405, 404])
    }

    func testAnEventWithANullTimestampTakesTheServersTime() async throws {
        let backend = backend()
        let answer = try await withMockServer(backend: backend) { session in
            try await session.send(
                .POST, "/track/v2/projects/mock-project/customers/events",
                body: #"{"customer_ids":{"cookie":"c1"},"event_type":"a","timestamp":null,"properties":null}"#)
        }

        XCTAssertEqual(answer.status, 200)
        XCTAssertEqual(
            backend.events(forCookie: "c1"),
            [TrackedEvent(customerIds: ["cookie": "c1"], eventType: "a", timestamp: 1_700_000_000.25, properties: [:])])
    }

    // MARK: Batch

    func testABatchCommandThatIsUnknownOrInvalidFailsAloneAndTheBatchSucceeds() async throws {
        let backend = backend()
        backend.addRule(Fixtures.viewerRule)
        let view = #"{"name":"customers/events","data":{"customer_ids":{"cookie":"c1"},"event_type":"view_item","timestamp":1}}"#
        let commands = [
            view,
            #"{"name":"nope","data":{}}"#,
            view,
            #"{"name":"customers/events","data":{"customer_ids":{"cookie":42},"event_type":"a"}}"#,
            #"{"name":"customers/events","data":{"customer_ids":{"cookie":"c1"},"event_type":""}}"#,
            #"{"name":"customers","data":{"customer_ids":{"cookie":"c1"},"properties":{"tier":"gold"}}}"#,
            #"{"data":{}}"#,
            "42",
            "null",
            #"{"name":"system/time"}"#,
            view,
        ]

        let answer = try await withMockServer(backend: backend) { session in
            try await session.send(
                .POST, "/track/v2/projects/mock-project/batch", body: #"{"commands":[\#(commands.joined(separator: ","))]}"#)
        }

        XCTAssertEqual(answer.status, 200, "body: \(answer.body)")
        let body = try XCTUnwrap(jsonObject(answer.body))
        XCTAssertEqual(body["success"] as? Bool, true)
        let results = try XCTUnwrap(body["results"] as? [NSDictionary])
        XCTAssertEqual(results.map { $0["success"] as? Bool }, [true, false, true, false, false, true, false, false, false, true, true])
        for index in [1, 3, 4, 6, 7, 8] {
            XCTAssertEqual((results[index]["errors"] as? [String])?.count, 1, "result \(index): \(results[index])")
        }
        XCTAssertEqual(results[1]["errors"] as? [String], [#"unknown command "nope""#])
        XCTAssertEqual(results[9], ["success": true, "time": 1_700_000_000.25])
        XCTAssertEqual(backend.eventCount(forCookie: "c1"), 3, "the three valid events, and only them")
        XCTAssertEqual(backend.segments(forCookie: "c1", projectToken: "mock-project")?[.discovery], [Fixtures.viewer])
        XCTAssertEqual(backend.customer(forCookie: "c1")?.properties, ["tier": "gold"])
        XCTAssertEqual(backend.requestCounts, [.trackBatch: 1])
    }

    func testABatchOfOnlyInvalidCommandsStillSucceedsAndStoresNothing() async throws {
        let backend = backend()
        let answer = try await withMockServer(backend: backend) { session in
            try await session.send(
                .POST, "/track/v2/projects/mock-project/batch", body: #"{"commands":[{"name":"customers/remove"}]}"#)
        }

        XCTAssertEqual(answer.status, 200)
        XCTAssertEqual(
            jsonObject(answer.body),
            ["results": [["success": false, "errors": [#"unknown command "customers/remove""#]]], "success": true])
        XCTAssertEqual(backend.customerCount(), 0)
    }

    func testABatchWhoseEnvelopeIsWrongIs400() async throws {
        let backend = backend()
        let answers = try await withMockServer(backend: backend) { session in
            [
                try await session.send(.POST, "/track/v2/projects/mock-project/batch", body: "{not json"),
                try await session.send(.POST, "/track/v2/projects/mock-project/batch", body: #"{"commands":"x"}"#),
                try await session.send(.POST, "/track/v2/projects/mock-project/batch", body: #"[]"#),
                try await session.send(.POST, "/track/v2/projects/mock-project/batch", body: #"{}"#),
            ]
        }

        for answer in answers { assertExponeaError(answer, 400) }
        XCTAssertEqual(backend.customerCount(), 0)
    }

    // MARK: In memory

    func testTheInMemoryBatchRefusesOnlyItsInvalidEventsAsTheServerDoes() async throws {
        let backend = SegmentsBackend()
        let transport = MockSegmentsTransport(backend: backend)
        let events = [
            Fixtures.event("a", cookie: "c1"), Fixtures.event("", cookie: "c1"), Fixtures.event("b", ["cookie": ""]),
            Fixtures.event("c", cookie: "c1"),
        ]

        do {
            try await transport.trackEvents(events, context: Fixtures.context)
            XCTFail("expected a partial upload")
        } catch {
            guard case .partialUpload(let answered, let refused, let then) = error else {
                return XCTFail("expected a partial upload, got \(error)")
            }
            XCTAssertEqual(answered, 4)
            XCTAssertEqual(refused.map(\.index), [1, 2])
            XCTAssertNil(then)
        }
        XCTAssertEqual(backend.events(forCookie: "c1").map(\.eventType), ["a", "c"])
    }
}
