import Foundation
import RealtimeSegments
import RealtimeSegmentsHTTP
import XCTest

/// How `HTTPSegmentsTransport` maps what a server answers to a ``SegmentsError``, against a canned
/// loopback server: the status decides first, even when the body never arrives whole.
final class HTTPTransportResponseTests: XCTestCase {
    private let context = SegmentsRequestContext(projectToken: "p", authorization: .token("k"))
    private let errorBody = #"{"error":"a body long enough to be cut in half before it ends"}"#

    private func transport(_ server: CannedHTTPServer, requestTimeout: Duration = .seconds(10)) throws -> HTTPSegmentsTransport {
        var configuration = try HTTPTransportConfiguration(baseURL: "http://127.0.0.1:\(server.port)")
        configuration.requestTimeout = requestTimeout
        return HTTPSegmentsTransport(configuration: configuration)
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
        let outcome = await fetch(try transport(server, requestTimeout: .milliseconds(300)))
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
}
