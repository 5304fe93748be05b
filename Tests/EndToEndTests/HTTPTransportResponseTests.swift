import Foundation
import Logging
import RealtimeSegments
import RealtimeSegmentsHTTP
import XCTest

/// How `HTTPSegmentsTransport` maps what a server answers to a ``SegmentsError``, against a canned
/// loopback server: the status decides first, even when the body never arrives whole.
final class HTTPTransportResponseTests: XCTestCase {
    private let context = SegmentsRequestContext(projectToken: "p", authorization: .token("k"))
    private let errorBody = #"{"error":"a body long enough to be cut in half before it ends"}"#

    private func transport(
        _ server: CannedHTTPServer, requestTimeout: Duration = .seconds(10), useBatchEndpoint: Bool = true,
        logger: Logger = Logger(label: "RealtimeSegments.HTTP")
    ) throws -> HTTPSegmentsTransport {
        var configuration = try HTTPTransportConfiguration(baseURL: "http://127.0.0.1:\(server.port)")
        configuration.requestTimeout = requestTimeout
        configuration.useBatchEndpoint = useBatchEndpoint
        return HTTPSegmentsTransport(configuration: configuration, logger: logger)
    }

    /// The outcome of one fetch through `transport`.
    private func fetch(_ transport: HTTPSegmentsTransport) async -> Result<SegmentsResponse, SegmentsError> {
        do { return .success(try await transport.fetchSegments(cookie: "c1", context: context)) } catch {
            return .failure(error)
        }
    }

    func testAnErrorStatusWhoseBodyIsCutShortIsMappedByItsStatus() async throws {
        let server = try CannedHTTPServer(scripted: [
            .init(status: 401, body: errorBody, delivery: .truncated),
            .init(status: 503, body: errorBody, delivery: .truncated),
            .init(status: 404, body: errorBody, delivery: .truncated),
        ])
        defer { server.stop() }
        let transport = try transport(server)
        var outcomes: [Result<SegmentsResponse, SegmentsError>] = []
        for _ in 0..<3 { outcomes.append(await fetch(transport)) }
        XCTAssertEqual(outcomes, [.failure(.unauthorized(status: 401)), .failure(.serverError(status: 503)), .failure(.notFound)])
    }

    func testASuccessWhoseBodyIsCutShortIsMalformed() async throws {
        let server = try CannedHTTPServer(scripted: [
            .init(status: 200, body: #"{"discovery":[],"content":[],"merchandising":[]}"#, delivery: .truncated),
        ])
        defer { server.stop() }
        let outcome = await fetch(try transport(server))
        guard case .failure(.malformedResponse) = outcome else {
            return XCTFail("a 2xx body cut short must be a malformed response")
        }
    }

    func testAnErrorStatusWhoseBodyIsStillArrivingAtTheDeadlineIsMappedByItsStatus() async throws {
        let server = try CannedHTTPServer(scripted: [.init(status: 503, body: errorBody, delivery: .stalled)])
        defer { server.stop() }
        // The deadline must leave room for the status line to arrive on a slow (sanitized) run;
        // the body stalls until the client gives up either way.
        let outcome = await fetch(try transport(server, requestTimeout: .seconds(2)))
        XCTAssertEqual(outcome, .failure(.serverError(status: 503)))
    }

    func testASuccessWhoseBodyIsStillArrivingAtTheDeadlineIsATimeout() async throws {
        let server = try CannedHTTPServer(scripted: [
            .init(status: 200, body: #"{"discovery":[],"content":[],"merchandising":[]}"#, delivery: .stalled),
        ])
        defer { server.stop() }
        let started = ContinuousClock.now
        let outcome = await fetch(try transport(server, requestTimeout: .milliseconds(300)))
        XCTAssertEqual(outcome, .failure(.timeout))
        // The deadline covers the body too, not only the head: without it the read would wait for
        // the shared client's 90 s read timeout.
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(10))
    }

    func testANegativeMaxResponseBytesIsClampedToZeroWithAWarning() async throws {
        let server = try CannedHTTPServer(responses: [(200, "{}")])
        defer { server.stop() }
        var configuration = try HTTPTransportConfiguration(baseURL: "http://127.0.0.1:\(server.port)")
        configuration.maxResponseBytes = -1
        let logs = LogLines()
        let transport = HTTPSegmentsTransport(configuration: configuration, logger: logs.logger)
        XCTAssertEqual(transport.configuration.maxResponseBytes, 0)
        XCTAssertEqual(logs.count(prefix: "Segments: HTTPTransportConfiguration.maxResponseBytes is -1, below 0; using 0"), 1)
        guard transport.configuration.maxResponseBytes >= 0 else {
            return XCTFail("a negative limit reaches NIO's collect(upTo:), which traps")
        }
        let outcome = await fetch(transport)
        XCTAssertEqual(outcome, .failure(.malformedResponse("response body too large")))
    }

    // MARK: Upload and link answers

    private let events = [
        TrackedEvent(customerIds: ["cookie": "c1"], eventType: "view", timestamp: 1, properties: [:]),
        TrackedEvent(customerIds: ["cookie": "c1"], eventType: "purchase", timestamp: 2, properties: [:]),
    ]

    /// A transport on a server that answers `answers` in turn (with status 200), and its log.
    private func transport(
        answering answers: [String], useBatchEndpoint: Bool = true
    ) throws -> (HTTPSegmentsTransport, CannedHTTPServer, LogLines) {
        let server = try CannedHTTPServer(responses: answers.map { (200, $0) })
        let logs = LogLines()
        return (try transport(server, useBatchEndpoint: useBatchEndpoint, logger: logs.logger), server, logs)
    }

    /// The outcome of one call.
    private func failure(of call: () async throws(SegmentsError) -> Void) async -> SegmentsError? {
        do { try await call() } catch { return error }
        return nil
    }

    private func assertMalformed(_ error: SegmentsError?, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        guard case .malformedResponse = error else {
            return XCTFail("\(what) must be a malformed response, got \(String(describing: error))", file: file, line: line)
        }
    }

    /// SPEC §7 and "nothing is lost": a 2xx upload counts as delivered only if its body says so.
    /// A page from a proxy, a body of another shape or a result per command missing is a
    /// malformed response, which the engine keeps and retries, never a silent success.
    func testABatchUploadIsDeliveredOnlyIfItsAnswerSaysSo() async throws {
        let wrong = [
            #""ok""#, "<html><body>OK</body></html>", "{}", #"{"success":true}"#,
            #"{"results":[{"success":true}]}"#, #"{"results":[{"success":1},{"success":true}]}"#,
            #"{"results":[{"success":"yes"},{"success":true}]}"#, #"{"results":[true,true]}"#,
        ]
        let right = #"{"results":[{"success":true},{"success":true}],"success":true}"#
        let (transport, server, _) = try transport(answering: wrong + [right])
        defer { server.stop() }
        for answer in wrong {
            assertMalformed(await failure { () async throws(SegmentsError) in try await transport.trackEvents(events, context: context) },
                            "a batch answered \(answer)")
        }
        let error = await failure { () async throws(SegmentsError) in try await transport.trackEvents(events, context: context) }
        XCTAssertNil(error)
    }

    /// A 2xx body nested deeper than `JSONDecoder` survives (513 `[`, the last one ending the body:
    /// it traps there) is a malformed response like any other page, not a crash of the app.
    func testAnAnswerNestedTooDeepIsMalformedNotACrash() async throws {
        let deep = String(repeating: "[", count: 513)
        let server = try CannedHTTPServer(responses: Array(repeating: (200, deep), count: 3))
        defer { server.stop() }
        let batch = try transport(server, useBatchEndpoint: true)
        let single = try transport(server, useBatchEndpoint: false)
        assertMalformed(await failure { () async throws(SegmentsError) in try await batch.trackEvents(events, context: context) },
                        "a batch upload answered 513 [")
        assertMalformed(await failure { () async throws(SegmentsError) in try await single.trackEvents(events, context: context) },
                        "an event upload answered 513 [")
        assertMalformed(await failure { () async throws(SegmentsError) in
            try await batch.linkCustomerIds(cookie: "c1", externalIds: ["registered": "r"], context: context)
        }, "a link answered 513 [")
    }

    /// Commands the server refused (`"success": false`) were delivered and answered: reported as a
    /// partial upload naming them (sent again, they would be refused again), so the engine sets
    /// them aside and does not send the accepted ones again.
    func testRefusedEventsAreReportedAsAPartialUpload() async throws {
        let (transport, server, _) = try transport(answering: [
            #"{"results":[{"success":true},{"success":false,"errors":["property is too long"]}]}"#,
        ])
        defer { server.stop() }
        let error = await failure { () async throws(SegmentsError) in try await transport.trackEvents(events, context: context) }
        XCTAssertEqual(error, .partialUpload(
            answered: 2, refused: [CommandRefusal(index: 1, reason: #"["property is too long"]"#)], then: nil))
    }

    /// The same rules one event at a time (`useBatchEndpoint = false`): `{"success": true}` per
    /// event, a refusal reported, any other body malformed.
    func testSingleEventUploadsAreJudgedByTheirAnswers() async throws {
        let wrong = [#""ok""#, "{}", #"{"success":"yes"}"#]
        let (transport, server, _) = try transport(
            answering: [#"{"success":true}"#, #"{"success":true}"#, #"{"success":true}"#, #"{"success":false,"error":"invalid"}"#] + wrong,
            useBatchEndpoint: false)
        defer { server.stop() }
        let upload = { () async throws(SegmentsError) in try await transport.trackEvents(self.events, context: self.context) }
        let accepted = await failure(of: upload)
        XCTAssertNil(accepted)
        let refused = await failure(of: upload)
        XCTAssertEqual(refused, .partialUpload(answered: 2, refused: [CommandRefusal(index: 1, reason: "invalid")], then: nil))
        for answer in wrong {
            assertMalformed(await failure(of: upload), "an event answered \(answer)")
        }
    }

    /// Issue 30, item 5: one event at a time, a failure after the first event was accepted reports
    /// how many were answered, so the accepted one is not sent again; a 4xx refuses that event
    /// alone and the next one still goes.
    func testASingleEventUploadFailingHalfwayReportsWhatWasAnswered() async throws {
        let three = events + [TrackedEvent(customerIds: ["cookie": "c1"], eventType: "share", timestamp: 3, properties: [:])]
        let server = try CannedHTTPServer(scripted: [
            .init(status: 200, body: #"{"success":true}"#), .init(status: 503, body: "{}", headers: ["retry-after": "7"]),
            .init(status: 200, body: #"{"success":true}"#), .init(status: 400, body: #"{"error":"bad"}"#),
            .init(status: 200, body: #"{"success":true}"#),
        ])
        defer { server.stop() }
        let transport = try transport(server, useBatchEndpoint: false)
        let first = await failure { () async throws(SegmentsError) in try await transport.trackEvents(three, context: self.context) }
        XCTAssertEqual(first, .partialUpload(answered: 1, refused: [], then: .serverError(status: 503, retryAfter: .seconds(7))))
        let second = await failure { () async throws(SegmentsError) in try await transport.trackEvents(Array(three.dropFirst()), context: self.context) }
        XCTAssertEqual(second, .partialUpload(
            answered: 2, refused: [CommandRefusal(index: 1, reason: "unexpected HTTP status 400")], then: nil))
        XCTAssertEqual(server.requests.count, 4, "each event was sent once, the one that met the 503 twice")
    }

    /// A customer update: accepted by `{"success": true}`, refused as a partial upload naming it,
    /// malformed otherwise.
    func testACustomerUpdateIsJudgedByItsAnswer() async throws {
        let update = CustomerUpdate(customerIds: ["cookie": "c1"], properties: [:])
        let (transport, server, _) = try transport(answering: [#"{"success":true}"#, #"{"success":false}"#, "{}", "<html></html>"])
        defer { server.stop() }
        let identify = { () async throws(SegmentsError) in try await transport.identifyCustomer(update, context: self.context) }
        let accepted = await failure(of: identify)
        XCTAssertNil(accepted)
        let refused = await failure(of: identify)
        XCTAssertEqual(refused, .partialUpload(answered: 1, refused: [CommandRefusal(index: 0, reason: "no reason given")], then: nil))
        assertMalformed(await failure(of: identify), "a customer update answered {}")
        assertMalformed(await failure(of: identify), "a customer update answered with HTML")
    }

    /// SPEC §7: 408, 429 and 5xx are transient and carry the server's `Retry-After`,
    /// given in seconds or as an HTTP date in any of the three forms RFC 9110 §5.6.7 has a
    /// recipient accept (IMF-fixdate, RFC 850's, asctime's).
    func testRetryAfterIsReadFromSecondsOrADateAnd408IsTransient() async throws {
        let server = try CannedHTTPServer(scripted: [
            .init(status: 429, body: "{}", headers: ["retry-after": "120"]),
            .init(status: 503, body: "{}", headers: ["retry-after": "Fri, 31 Dec 2100 23:59:59 GMT"]),
            .init(status: 503, body: "{}", headers: ["retry-after": "Friday, 31-Dec-60 23:59:59 GMT"]),
            .init(status: 503, body: "{}", headers: ["retry-after": "Sat Nov  6 08:49:37 2100"]),
            .init(status: 503, body: "{}", headers: ["retry-after": "soon"]),
            .init(status: 408, body: "{}"),
            .init(status: 408, body: "{}", headers: ["retry-after": "120"]),
        ])
        defer { server.stop() }
        let transport = try transport(server)
        var outcomes: [Result<SegmentsResponse, SegmentsError>] = []
        for _ in 0..<6 { outcomes.append(await fetch(transport)) }
        // SPEC §7 honours Retry-After on a 408 as on 429 and 5xx.
        let timedOut = await fetch(transport)
        guard case .failure(let error) = timedOut else { return XCTFail("\(timedOut)") }
        XCTAssertEqual(error.retryAfter, .seconds(120), "\(error)")
        XCTAssertTrue(error.isTransient)
        let aDay = SegmentsError.serverError(status: 503, retryAfter: .seconds(86_400))
        XCTAssertEqual(outcomes, [
            .failure(.rateLimited(retryAfter: .seconds(120))), .failure(aDay), .failure(aDay), .failure(aDay),
            .failure(.serverError(status: 503)), .failure(.requestTimeout()),
        ])
    }

    /// A redirect is not followed. AsyncHTTPClient's shared client follows one as a browser does:
    /// a POST comes back as a GET without its body on 301, 302 and 303, so a redirected upload
    /// would be refused and its events set aside. The redirect is an error of its own status.
    func testARedirectIsNotFollowed() async throws {
        for status in [301, 302, 303, 307, 308] {
            let server = try CannedHTTPServer(scripted: [
                .init(status: status, body: "", headers: ["location": "/elsewhere"]),
                .init(status: 200, body: #"{"success":true,"results":[{"success":true}]}"#),
            ])
            defer { server.stop() }
            let logs = LogLines()
            let transport = try transport(server, logger: logs.logger)
            let error = await failure { () async throws(SegmentsError) in
                try await transport.trackEvents([TrackedEvent(customerIds: ["cookie": "c1"], eventType: "view", timestamp: 1, properties: [:])], context: self.context)
            }
            XCTAssertEqual(error, .unexpectedStatus(status))
            XCTAssertEqual(server.requests.count, 1, "HTTP \(status) was followed")
            XCTAssertTrue(logs.all.contains { $0.contains("Segments: POST") && $0.contains("redirected (HTTP \(status)) to /elsewhere") },
                          "\(logs.all)")
        }
    }

    /// A client passed in that follows redirects did: the answer is not to the request sent, so it
    /// is reported as the redirect.
    func testARedirectFollowedByAClientPassedInIsReportedAsTheRedirect() async throws {
        let server = try CannedHTTPServer(scripted: [
            .init(status: 302, body: "", headers: ["location": "/elsewhere"]),
            .init(status: 200, body: #"{"success":true,"results":[{"success":true}]}"#),
        ])
        defer { server.stop() }
        let configuration = try HTTPTransportConfiguration(baseURL: "http://127.0.0.1:\(server.port)")
        let transport = HTTPSegmentsTransport(configuration: configuration, httpClient: .shared)
        let error = await failure { () async throws(SegmentsError) in
            try await transport.trackEvents([TrackedEvent(customerIds: ["cookie": "c1"], eventType: "view", timestamp: 1, properties: [:])], context: self.context)
        }
        XCTAssertEqual(error, .unexpectedStatus(302))
    }

    /// A request timeout of 0 or less would time every request out at once, and be retried forever:
    /// the transport takes the default instead and says so.
    /// A timeout under a nanosecond is a deadline of now for NIO, whose time is whole nanoseconds.
    func testARequestTimeoutUnderANanosecondIsReplacedByTheDefaultWithAWarning() throws {
        for timeout in [Duration.zero, .seconds(-1), .nanoseconds(0.5)] {
            var configuration = try HTTPTransportConfiguration(baseURL: "http://127.0.0.1:1")
            configuration.requestTimeout = timeout
            configuration.qualifiedSegmentsTimeout = timeout
            let logs = LogLines()
            let transport = HTTPSegmentsTransport(configuration: configuration, logger: logs.logger)
            XCTAssertEqual(transport.configuration.requestTimeout, .seconds(10))
            XCTAssertEqual(transport.configuration.qualifiedSegmentsTimeout, .seconds(10))
            XCTAssertEqual(logs.count(prefix: "Segments: HTTPTransportConfiguration.requestTimeout is"), 1, "\(logs.all)")
            XCTAssertEqual(logs.count(prefix: "Segments: HTTPTransportConfiguration.qualifiedSegmentsTimeout is"), 1, "\(logs.all)")
        }
    }

    /// What a server writes is quoted on one log line: control characters in a refusal's reason or a
    /// malformed body's excerpt are written as escapes.
    func testServerTextInErrorsKeepsToOneLine() async throws {
        let (transport, server, _) = try transport(
            answering: [#"{"success":true,"results":[{"success":false,"errors":"bad\nSegments: forged line"}]}"#, "<html>\n\u{1B}[31m"])
        defer { server.stop() }
        let event = [TrackedEvent(customerIds: ["cookie": "c1"], eventType: "view", timestamp: 1, properties: [:])]
        let upload = { () async throws(SegmentsError) in try await transport.trackEvents(event, context: self.context) }
        let refused = await failure(of: upload)
        XCTAssertEqual(refused, .partialUpload(answered: 1, refused: [CommandRefusal(index: 0, reason: #"bad\nSegments: forged line"#)], then: nil))
        let answer = await failure(of: upload)
        let malformed = try XCTUnwrap(answer)
        XCTAssertFalse(malformed.description.contains("\n"), malformed.description)
        XCTAssertFalse(malformed.description.contains("\u{1B}"), malformed.description)
        XCTAssertTrue(malformed.description.contains(#"<html>\n\u{1B}[31m"#), malformed.description)
    }

    /// A request timeout too long for NIO's clock is as good as none: it does not wrap into the past.
    func testARequestTimeoutBeyondNIOsClockDoesNotWrap() async throws {
        let server = try CannedHTTPServer(responses: [(200, #"{"success":true,"results":[{"success":true}]}"#)])
        defer { server.stop() }
        let transport = try transport(server, requestTimeout: .seconds(9_223_372_036) + .milliseconds(900))
        let error = await failure { () async throws(SegmentsError) in
            try await transport.trackEvents(
                [TrackedEvent(customerIds: ["cookie": "c1"], eventType: "view", timestamp: 1, properties: [:])], context: self.context)
        }
        XCTAssertNil(error)
    }

    /// A link counts as done only if its answer is a JSON object that does not refuse it, or no
    /// body at all (the reference SDK ignores the body): counted as done, a refused link would
    /// never be made again.
    func testALinkIsDoneOnlyIfItsAnswerSaysSo() async throws {
        let answers = [("{}", true), (#"{"success":true}"#, true), ("", true), (" \r\n", true),
                       (#"{"success":false}"#, false), (#""ok""#, false),
                       (#"{"success":"yes"}"#, false), ("<html></html>", false)]
        let (transport, server, _) = try transport(answering: answers.map(\.0))
        defer { server.stop() }
        for (answer, linked) in answers {
            let error = await failure { () async throws(SegmentsError) in
                try await transport.linkCustomerIds(cookie: "c1", externalIds: ["registered": "jane"], context: self.context)
            }
            if linked { XCTAssertNil(error, answer) } else { assertMalformed(error, "a link answered \(answer)") }
        }
    }

    /// 204 No Content is a success: a link answered so is done, and the fetch goes on.
    func testALinkAnsweredNoContentIsDone() async throws {
        let server = try CannedHTTPServer(scripted: [.init(status: 204, body: "")])
        defer { server.stop() }
        let transport = try transport(server)
        let error = await failure { () async throws(SegmentsError) in
            try await transport.linkCustomerIds(cookie: "c1", externalIds: ["registered": "jane"], context: self.context)
        }
        XCTAssertNil(error, "a link answered 204 No Content")
    }

    /// The transport asks for answers uncompressed (`accept-encoding: identity`); a server or proxy
    /// that compresses anyway with gzip is still read. An upload the server stored and answered
    /// so, taken for a malformed answer, would be sent again after every backoff.
    func testAnswersCompressedWithGzipAnywayAreRead() async throws {
        let batchAnswer = Data([
            0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x03, 0xab, 0x56, 0x2a, 0x2e, 0x4d, 0x4e, 0x4e, 0x2d, 0x2e,
            0x56, 0xb2, 0x2a, 0x29, 0x2a, 0x4d, 0xd5, 0x51, 0x2a, 0x4a, 0x2d, 0x2e, 0xcd, 0x29, 0x01, 0x72, 0xa3, 0xab, 0x51,
            0xa5, 0x6a, 0x63, 0x6b, 0x01, 0xca, 0x88, 0x3e, 0x75, 0x2d, 0x00, 0x00, 0x00,
        ])  // {"success":true,"results":[{"success":true}]}
        let segments = Data([
            0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x03, 0x4d, 0xca, 0x4b, 0x0a, 0x80, 0x20, 0x14, 0x00, 0xc0,
            0xbb, 0xbc, 0x75, 0x0b, 0xff, 0x9a, 0x57, 0x89, 0x08, 0x3f, 0xcf, 0x70, 0x91, 0x42, 0x4a, 0x10, 0xe2, 0xdd, 0xdb,
            0x36, 0xeb, 0x19, 0x10, 0x73, 0x0b, 0xf5, 0xc1, 0xfb, 0x05, 0xbb, 0x0d, 0xc8, 0x11, 0x2c, 0x28, 0x45, 0x05, 0x61,
            0x52, 0x27, 0x11, 0x3c, 0xe7, 0x9a, 0x33, 0xc1, 0xc8, 0x6a, 0x34, 0x85, 0x05, 0x1a, 0x9e, 0x17, 0x96, 0xee, 0x7a,
            0xae, 0xe5, 0xf8, 0x65, 0x2a, 0x93, 0x97, 0x04, 0x53, 0x0a, 0xc6, 0x69, 0x46, 0x8d, 0x17, 0x30, 0xf7, 0xf9, 0x01,
            0x37, 0xf7, 0xe7, 0x40, 0x5e, 0x00, 0x00, 0x00,
        ])  // {"discovery":[{"id":"66140257f4cb337324209871","segmentation_id":"66140215fb50effc8a7218b4"}]}
        let server = try CannedHTTPServer(scripted: [
            .init(status: 200, body: "", headers: ["content-encoding": "gzip"], rawBody: batchAnswer),
            .init(status: 200, body: "", headers: ["content-encoding": "gzip"], rawBody: segments),
        ])
        defer { server.stop() }
        let transport = try transport(server)
        let upload = await failure { () async throws(SegmentsError) in
            try await transport.trackEvents(Array(self.events.prefix(1)), context: self.context)
        }
        XCTAssertNil(upload, "an upload answered with a gzip body")
        let fetched = await fetch(transport)
        XCTAssertEqual(try fetched.get()[.discovery].map(\.id), ["66140257f4cb337324209871"])
    }

    /// An encoding the transport cannot read is named in the error, not reported as bad JSON.
    func testAnAnswerInAnEncodingTheTransportCannotReadSaysSo() async throws {
        let server = try CannedHTTPServer(scripted: [
            .init(status: 200, body: "", headers: ["content-encoding": "br"], rawBody: Data([0x8b, 0x02, 0x80, 0x7b, 0x7d, 0x03])),
        ])
        defer { server.stop() }
        let outcome = await fetch(try transport(server))
        guard case .failure(.malformedResponse(let reason)) = outcome, reason.contains("content-encoding br") else {
            return XCTFail("got \(outcome)")
        }
    }

    /// A project token that names no path segment (empty, `.` or `..`, which a proxy normalizes
    /// away: `/projects/../segments` reaches `/segments`) is refused before anything is sent, as a
    /// configuration error, so uploads stop and keep their events.
    func testAProjectTokenThatIsNoPathSegmentIsRefusedBeforeSending() async throws {
        let server = try CannedHTTPServer(responses: [(200, "{}")])
        defer { server.stop() }
        let transport = try transport(server)
        for token in ["", ".", ".."] {
            let context = SegmentsRequestContext(projectToken: token, authorization: .token("k"))
            let fetched: SegmentsError?
            do { _ = try await transport.fetchSegments(cookie: "c1", context: context); fetched = nil } catch { fetched = error }
            let uploaded = await failure { () async throws(SegmentsError) in
                try await transport.trackEvents(Array(self.events.prefix(1)), context: context)
            }
            for error in [fetched, uploaded] {
                guard case .invalidCredentials = error else { return XCTFail("token \"\(token)\": got \(String(describing: error))") }
            }
        }
        XCTAssertEqual(server.requests.count, 0, "\(server.requests.map(\.line))")
    }
}
