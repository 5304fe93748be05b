import Foundation
import RealtimeSegments
import RealtimeSegmentsHTTP
import XCTest

/// SPEC §9 over HTTP: configuration errors and network failures of the qualified-segments request.
/// (The request and response shapes are pinned by `QualifiedWireTests`; the round trip through the
/// mock server's GraphQL endpoint is in `QualifiedSegmentsEndToEndTests`.)
final class QualifiedHTTPTransportTests: XCTestCase {
    private let query = QualifiedSegmentsQuery(userKey: .fsUserId, userValue: "jane", segmentsToCheck: ["a"])

    func testQualifiedHostDefaultsToTheBaseURL() throws {
        let configuration = try HTTPTransportConfiguration(baseURL: "https://api.example.com")
        XCTAssertNil(configuration.qualifiedSegmentsHost)
        XCTAssertEqual(configuration.qualifiedSegmentsTimeout, .seconds(10))
    }

    func testBadQualifiedHostIsAConfigurationError() throws {
        var configuration = try HTTPTransportConfiguration(baseURL: "https://api.example.com")
        for bad in ["ftp://odp.example.com", "odp.example.com", "https://"] {
            XCTAssertThrowsError(try configuration.setQualifiedSegmentsHost(URL(string: bad))) { error in
                guard case .invalidArgument = error as? SegmentsError else { return XCTFail("\(error)") }
            }
        }
        XCTAssertNil(configuration.qualifiedSegmentsHost)
        XCTAssertThrowsError(
            try HTTPTransportConfiguration(
                baseURL: URL(string: "https://api.example.com")!, qualifiedSegmentsHost: URL(string: "mailto:x")))
    }

    /// Asserts that a qualified fetch through `transport` fails as a network error.
    private func assertNetworkError(
        _ transport: HTTPSegmentsTransport, file: StaticString = #filePath, line: UInt = #line
    ) async {
        do {
            _ = try await transport.fetchQualifiedSegments(query, apiKey: "key")
            XCTFail("expected a failure", file: file, line: line)
        } catch {
            XCTAssertEqual(error, .fetchSegmentsFailed("network error"), file: file, line: line)
        }
    }

    func testRefusedConnectionIsANetworkError() async throws {
        let port = try Self.closedPort()
        var configuration = try HTTPTransportConfiguration(baseURL: "http://127.0.0.1:\(port)")
        // AsyncHTTPClient's pool retries a refused connection until the deadline, so keep it short.
        configuration.qualifiedSegmentsTimeout = .seconds(1)
        let transport = HTTPSegmentsTransport(configuration: configuration)
        await assertNetworkError(transport)
    }

    func testServerThatNeverAnswersIsANetworkErrorAtTheDeadline() async throws {
        let listener = try SilentListener()
        defer { listener.close() }
        var configuration = try HTTPTransportConfiguration(baseURL: "http://127.0.0.1:\(listener.port)")
        configuration.qualifiedSegmentsTimeout = .milliseconds(300)
        let transport = HTTPSegmentsTransport(configuration: configuration)
        await assertNetworkError(transport)
    }

    func testABodyStillArrivingAtTheDeadlineIsANetworkErrorAtTheDeadline() async throws {
        let body = #"{"data":{"customer":{"audiences":{"edges":[]}}}}"#
        let server = try CannedHTTPServer(scripted: [.init(status: 200, body: body, delivery: .stalled)])
        defer { server.stop() }
        var configuration = try HTTPTransportConfiguration(baseURL: "http://127.0.0.1:\(server.port)")
        configuration.qualifiedSegmentsTimeout = .milliseconds(300)
        let started = ContinuousClock.now
        await assertNetworkError(HTTPSegmentsTransport(configuration: configuration))
        // The deadline covers the body too, not only the head: without it the read would wait for
        // the shared client's 90 s read timeout.
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(10))
    }

    // MARK: Round trips against a canned loopback server

    func testRequestIsAPostToV3GraphqlWithTheApiKeyTheContentTypeAndTheWireBody() async throws {
        let server = try CannedHTTPServer(responses: [(200, #"{"data":{"customer":{"audiences":{"edges":[]}}}}"#)])
        defer { server.stop() }
        let transport = HTTPSegmentsTransport(configuration: try HTTPTransportConfiguration(baseURL: "http://127.0.0.1:\(server.port)/"))
        _ = try await transport.fetchQualifiedSegments(query, apiKey: "the-key")
        let request = try XCTUnwrap(server.requests.first)
        XCTAssertEqual(request.line, "POST /v3/graphql HTTP/1.1")
        XCTAssertEqual(request.headers["x-api-key"], "the-key")
        XCTAssertEqual(request.headers["content-type"], "application/json")
        XCTAssertEqual(request.body, QualifiedSegmentsWire.requestBody(for: query))
    }

    func testQualifiedHostReplacesTheBaseURL() async throws {
        let server = try CannedHTTPServer(responses: [(200, #"{"data":{"customer":{"audiences":{"edges":[{"node":{"name":"a","state":"qualified"}}]}}}}"#)])
        defer { server.stop() }
        let configuration = try HTTPTransportConfiguration(
            baseURL: URL(string: "http://127.0.0.1:\(try Self.closedPort())")!,
            qualifiedSegmentsHost: URL(string: "http://127.0.0.1:\(server.port)"))
        let segments = try await HTTPSegmentsTransport(configuration: configuration).fetchQualifiedSegments(query, apiKey: "k")
        XCTAssertEqual(segments, ["a"])
    }

    func testResponsesAreMappedByTheWireTable() async throws {
        let server = try CannedHTTPServer(responses: [
            (200, #"{"data":{"customer":{"audiences":{"edges":[{"node":{"name":"a","state":"qualified"}},{"node":{"name":"b","state":"not_qualified"}}]}}}}"#),
            (403, #"{"title":"Forbidden"}"#),
            (200, #"{"errors":[{"extensions":{"code":"INVALID_IDENTIFIER_EXCEPTION","classification":"DataFetchingException"}}],"data":{"customer":null}}"#),
            (200, #"{"data":{}}"#),
        ])
        defer { server.stop() }
        let transport = HTTPSegmentsTransport(configuration: try HTTPTransportConfiguration(baseURL: "http://127.0.0.1:\(server.port)"))
        var outcomes: [Result<[String], SegmentsError>] = []
        for _ in 0..<4 {
            do { outcomes.append(.success(try await transport.fetchQualifiedSegments(query, apiKey: "k"))) } catch {
                outcomes.append(.failure(error))
            }
        }
        XCTAssertEqual(outcomes, [
            .success(["a"]), .failure(.fetchSegmentsFailed("403")), .failure(.invalidSegmentIdentifier),
            .failure(.fetchSegmentsFailed("decode error")),
        ])
    }

    func testANonSuccessStatusWhoseBodyIsCutShortFailsWithTheStatus() async throws {
        let body = #"{"data":{"customer":{"audiences":{"edges":[{"node":{"name":"a","state":"qualified"}}]}}}}"#
        let server = try CannedHTTPServer(scripted: [
            .init(status: 300, body: body, delivery: .truncated),
            .init(status: 503, body: body, delivery: .truncated),
            .init(status: 200, body: body, delivery: .truncated),
        ])
        defer { server.stop() }
        let transport = HTTPSegmentsTransport(configuration: try HTTPTransportConfiguration(baseURL: "http://127.0.0.1:\(server.port)"))
        var outcomes: [Result<[String], SegmentsError>] = []
        for _ in 0..<3 {
            do { outcomes.append(.success(try await transport.fetchQualifiedSegments(query, apiKey: "k"))) } catch {
                outcomes.append(.failure(error))
            }
        }
        XCTAssertEqual(outcomes, [
            .failure(.fetchSegmentsFailed("300")), .failure(.fetchSegmentsFailed("503")),
            .failure(.fetchSegmentsFailed("network error")),
        ])
    }

    /// A successful answer larger than `maxResponseBytes` is not of the documented shape as far as
    /// the client can take it: `decode error`, as for a malformed body (SPEC §9), not a network
    /// error; a larger non-2xx answer still fails with its status.
    func testAnAnswerOverTheResponseLimitIsADecodeError() async throws {
        let body = #"{"data":{"customer":{"audiences":{"edges":[{"node":{"name":"a","state":"qualified"}}]}}}}"#
        let server = try CannedHTTPServer(responses: [(200, body), (503, body), (200, body)])
        defer { server.stop() }
        var configuration = try HTTPTransportConfiguration(baseURL: "http://127.0.0.1:\(server.port)")
        configuration.maxResponseBytes = 16
        let limited = HTTPSegmentsTransport(configuration: configuration)
        var outcomes: [Result<[String], SegmentsError>] = []
        for _ in 0..<2 {
            do { outcomes.append(.success(try await limited.fetchQualifiedSegments(query, apiKey: "k"))) } catch {
                outcomes.append(.failure(error))
            }
        }
        XCTAssertEqual(outcomes, [.failure(.fetchSegmentsFailed("decode error")), .failure(.fetchSegmentsFailed("503"))])
        let unlimited = HTTPSegmentsTransport(
            configuration: try HTTPTransportConfiguration(baseURL: "http://127.0.0.1:\(server.port)"))
        let segments = try await unlimited.fetchQualifiedSegments(query, apiKey: "k")
        XCTAssertEqual(segments, ["a"], "the same body within the limit is read")
    }

    func testSequentialFetchesReuseOneKeepAliveConnection() async throws {
        let server = try CannedHTTPServer(responses: [(200, #"{"data":{"customer":{"audiences":{"edges":[]}}}}"#)])
        defer { server.stop() }
        let transport = HTTPSegmentsTransport(configuration: try HTTPTransportConfiguration(baseURL: "http://127.0.0.1:\(server.port)"))
        for _ in 0..<3 { _ = try await transport.fetchQualifiedSegments(query, apiKey: "k") }
        XCTAssertEqual(server.requests.count, 3)
        XCTAssertEqual(server.connectionCount, 1)
    }

    /// A loopback port nothing listens on (bound, then closed).
    private static func closedPort() throws -> Int {
        let listener = try SilentListener()
        let port = listener.port
        listener.close()
        return port
    }
}
