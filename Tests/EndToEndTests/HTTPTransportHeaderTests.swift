import Foundation
import RealtimeSegments
import RealtimeSegmentsHTTP
import XCTest

/// What `HTTPSegmentsTransport` puts in a request's headers and its logs: answers asked for
/// uncompressed, credentials no header can carry refused before anything is sent and never
/// echoed, and no customer named in a log line.
final class HTTPTransportHeaderTests: XCTestCase {
    private let event = TrackedEvent(customerIds: ["cookie": "c1"], eventType: "view", timestamp: 1, properties: [:])

    private func transport(_ server: CannedHTTPServer, logs: LogLines = LogLines()) throws -> HTTPSegmentsTransport {
        HTTPSegmentsTransport(
            configuration: try HTTPTransportConfiguration(baseURL: "http://127.0.0.1:\(server.port)"), logger: logs.logger)
    }

    /// A compressed answer would be inflated by AsyncHTTPClient under a ratio limit that a
    /// well-compressed batch answer exceeds: the upload, accepted by the server, would fail.
    func testEveryRequestAsksForAnUncompressedAnswer() async throws {
        let server = try CannedHTTPServer(responses: [
            (200, "{}"), (200, "{}"), (200, #"{"results":[{"success":true}]}"#), (200, #"{"success":true}"#),
        ])
        defer { server.stop() }
        let transport = try transport(server)
        let context = SegmentsRequestContext(projectToken: "p", authorization: .token("k"))
        _ = try await transport.fetchSegments(cookie: "c1", context: context)
        try await transport.linkCustomerIds(cookie: "c1", externalIds: ["registered": "jane"], context: context)
        try await transport.trackEvents([event], context: context)
        try await transport.identifyCustomer(CustomerUpdate(customerIds: ["cookie": "c1"], properties: [:]), context: context)
        XCTAssertEqual(server.requests.count, 4)
        for request in server.requests {
            XCTAssertEqual(request.values(of: "accept-encoding"), ["identity"], request.line)
        }
    }

    /// A key read from a file or the environment with its line break: not a network failure to
    /// retry for ever, and not a line that prints the secret.
    func testCredentialsWithAControlCharacterAreRefusedUnsentAndUnechoed() async throws {
        let server = try CannedHTTPServer(responses: [(200, "{}"), (200, "{}")])
        defer { server.stop() }
        let logs = LogLines()
        let transport = try transport(server, logs: logs)
        // (HTTP Basic sends its pair base64-encoded: any secret fits in the header.)
        for authorization in [SegmentsAuthorization.token("secret\n"), .bearer("sec\u{7F}ret"), .token("secret\r")] {
            do {
                _ = try await transport.fetchSegments(cookie: "c1", context: SegmentsRequestContext(projectToken: "p", authorization: authorization))
                XCTFail("\(authorization) was sent")
            } catch {
                XCTAssertEqual(error, .invalidCredentials("the authorization holds a control character (a line break read with the key?)"))
                XCTAssertFalse(error.isTransient)
                XCTAssertFalse(error.description.contains("secret"), error.description)
            }
        }
        do {
            _ = try await transport.fetchQualifiedSegments(
                QualifiedSegmentsQuery(userKey: .fsUserId, userValue: "jane", segmentsToCheck: ["a"]), apiKey: "secret\n")
            XCTFail("the api key was sent")
        } catch {
            XCTAssertEqual(error, .invalidCredentials("the api key holds a control character (a line break read with the key?)"))
        }
        XCTAssertEqual(server.requests.count, 0)
        XCTAssertFalse(logs.all.contains { $0.contains("secret") }, "\(logs.all)")
        XCTAssertEqual(logs.count(prefix: "Segments: "), 4, "\(logs.all)")
    }

    func testFailureLogsDoNotNameTheCustomer() async throws {
        let server = try CannedHTTPServer(responses: [(503, "{}")])
        defer { server.stop() }
        let logs = LogLines()
        let transport = try transport(server, logs: logs)
        let context = SegmentsRequestContext(projectToken: "p", authorization: .token("k"))
        _ = try? await transport.fetchSegments(cookie: "cust-123", context: context)
        XCTAssertFalse(logs.all.isEmpty)
        XCTAssertFalse(logs.all.contains { $0.contains("cust-123") }, "\(logs.all)")
    }

    /// The link-ids request names the cookie in its path: neither its log lines (a failure, a
    /// redirect) nor its errors' text (which the engine logs) repeat it.
    func testLinkLogsAndErrorsDoNotNameTheCustomer() async throws {
        let server = try CannedHTTPServer(scripted: [
            .init(status: 503, body: "{}"),
            .init(status: 302, body: "", headers: ["location": "/elsewhere"]),
            .init(status: 200, body: "<html>"),
            .init(status: 200, body: #"{"success":false,"errors":"no"}"#),
        ])
        defer { server.stop() }
        let logs = LogLines()
        let transport = try transport(server, logs: logs)
        let context = SegmentsRequestContext(projectToken: "p", authorization: .token("k"))
        var errors: [String] = []
        for _ in 0..<4 {
            do throws(SegmentsError) {
                try await transport.linkCustomerIds(cookie: "cust-123", externalIds: ["registered": "r-1"], context: context)
            } catch {
                errors.append("\(error)")
            }
        }
        XCTAssertEqual(errors.count, 4)
        XCTAssertFalse(logs.all.isEmpty)
        XCTAssertFalse((logs.all + errors).contains { $0.contains("cust-123") }, "\(logs.all) \(errors)")
    }

    /// A redirect that keeps the path and query (an upgrade to https, a moved host) names the
    /// cookie in its location; the line that reports the redirect does not repeat it, and a
    /// location of any length is cut short.
    func testARedirectsLocationIsLoggedWithoutTheCustomerAndCutShort() async throws {
        let server = try CannedHTTPServer(scripted: [
            .init(status: 302, body: "", headers: ["location": "https://other.example/webxp/projects/p/segments?cookie=cust-123"]),
            .init(status: 301, body: "", headers: ["location": "https://other.example/webxp/projects/p/cookies/cust-123/link-ids"]),
            .init(status: 307, body: "", headers: ["location": "https://other.example/" + String(repeating: "a", count: 20_000)]),
        ])
        defer { server.stop() }
        let logs = LogLines()
        let transport = try transport(server, logs: logs)
        let context = SegmentsRequestContext(projectToken: "p", authorization: .token("k"))
        _ = try? await transport.fetchSegments(cookie: "cust-123", context: context)
        try? await transport.linkCustomerIds(cookie: "cust-123", externalIds: ["registered": "r-1"], context: context)
        _ = try? await transport.fetchSegments(cookie: "cust-123", context: context)
        let redirects = logs.all.filter { $0.contains("was redirected") }
        XCTAssertEqual(redirects.count, 3, "\(logs.all)")
        XCTAssertFalse(redirects.contains { $0.contains("cust-123") }, "\(redirects)")
        XCTAssertTrue(redirects[0].contains("https://other.example/webxp/projects/p/segments"), redirects[0])
        XCTAssertTrue(redirects[1].contains("https://other.example/webxp/projects/p/cookies/{cookie}/link-ids"), redirects[1])
        XCTAssertLessThan(redirects[2].count, 1_000, "a 20,000-character location")
    }
}

/// A call whose task is cancelled ends as `SegmentsError.cancelled`, not as a network failure or
/// a malformed body.
final class HTTPTransportCancellationTests: XCTestCase {
    /// A fetch to `port`, cancelled once `reached` returns true (it waits for the call to get
    /// that far; false fails the test).
    private func cancelledFetch(port: Int, once reached: @escaping @Sendable () -> Bool) async throws -> SegmentsError? {
        let transport = HTTPSegmentsTransport(configuration: try HTTPTransportConfiguration(baseURL: "http://127.0.0.1:\(port)"))
        let task = Task { () async -> SegmentsError? in
            do throws(SegmentsError) {
                _ = try await transport.fetchSegments(cookie: "c1", context: SegmentsRequestContext(projectToken: "p", authorization: nil))
                return nil
            } catch {
                return error
            }
        }
        let got = await Task.detached { reached() }.value
        XCTAssertTrue(got, "the call never got that far")
        task.cancel()
        return await task.value
    }

    func testACallCancelledBeforeTheAnswerArrivesIsCancelled() async throws {
        let listener = try SilentListener()
        defer { listener.close() }
        let error = try await cancelledFetch(port: listener.port) { listener.awaitRequest() }
        XCTAssertEqual(error, .cancelled)
    }

    func testACallCancelledWhileItsBodyArrivesIsCancelled() async throws {
        let server = try CannedHTTPServer(scripted: [.init(status: 200, body: #"{"discovery":[]}"#, delivery: .stalled)])
        defer { server.stop() }
        let error = try await cancelledFetch(port: server.port) {
            // The response's first half is sent; the rest never comes.
            let deadline = DispatchTime.now() + 10
            while server.stalledResponseCount == 0 {
                if DispatchTime.now() > deadline { return false }
                usleep(1_000)
            }
            return true
        }
        XCTAssertEqual(error, .cancelled)
    }
}
