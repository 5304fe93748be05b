import Foundation
import RealtimeSegments
import RealtimeSegmentsHTTP
import XCTest
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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

/// A loopback TCP socket that listens but never accepts: connections complete in the backlog and
/// requests get no answer.
private final class SilentListener: Sendable {
    let descriptor: Int32
    let port: Int

    init() throws {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 16) == 0 else { throw POSIXError(.EADDRINUSE) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        descriptor = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    func close() {
        #if canImport(Glibc)
        _ = Glibc.close(descriptor)
        #else
        _ = Darwin.close(descriptor)
        #endif
    }
}

/// A one-connection-at-a-time HTTP/1.1 server on a blocking socket thread: answers each request
/// with the next scripted response (the last one repeats) and records what it received.
private final class CannedHTTPServer: Sendable {
    struct Request: Sendable {
        var line: String
        var headers: [String: String]
        var body: Data
    }

    private struct State {
        var responses: [(status: Int, body: String)]
        var requests: [Request] = []
        var connections = 0
        var stopped = false
    }

    private let listener: SilentListener
    private let state: LockBox<State>
    var port: Int { listener.port }

    init(responses: [(Int, String)]) throws {
        listener = try SilentListener()
        state = LockBox(State(responses: responses.map { (status: $0.0, body: $0.1) }))
        let listener = listener
        let state = state
        Thread.detachNewThread {
            while true {
                let connection = accept(listener.descriptor, nil, nil)
                if connection < 0 || state.withLock({ $0.stopped }) { return }
                state.withLock { $0.connections += 1 }
                Self.serve(connection, state: state)
                _ = Self.closeDescriptor(connection)
            }
        }
    }

    var requests: [Request] { state.withLock { $0.requests } }
    var connectionCount: Int { state.withLock { $0.connections } }

    func stop() {
        state.withLock { $0.stopped = true }
        _ = shutdown(listener.descriptor, Int32(SHUT_RDWR))
        listener.close()
    }

    private static func serve(_ connection: Int32, state: LockBox<State>) {
        var buffer = Data()
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            // Read a head, then Content-Length bytes of body.
            while buffer.range(of: Data("\r\n\r\n".utf8)) == nil {
                let count = recv(connection, &chunk, chunk.count, 0)
                if count <= 0 { return }
                buffer.append(contentsOf: chunk[0..<count])
            }
            let headEnd = buffer.range(of: Data("\r\n\r\n".utf8))!
            let head = String(decoding: buffer[buffer.startIndex..<headEnd.lowerBound], as: UTF8.self)
            var lines = head.components(separatedBy: "\r\n")
            let requestLine = lines.removeFirst()
            var headers: [String: String] = [:]
            for line in lines {
                guard let colon = line.firstIndex(of: ":") else { continue }
                headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
            let length = Int(headers["content-length"] ?? "0") ?? 0
            buffer = Data(buffer[headEnd.upperBound...])
            while buffer.count < length {
                let count = recv(connection, &chunk, chunk.count, 0)
                if count <= 0 { return }
                buffer.append(contentsOf: chunk[0..<count])
            }
            let body = Data(buffer.prefix(length))
            buffer = Data(buffer.dropFirst(length))
            let response = state.withLock { state in
                state.requests.append(Request(line: requestLine, headers: headers, body: body))
                return state.responses.count > 1 ? state.responses.removeFirst() : state.responses[0]
            }
            let payload = Data(response.body.utf8)
            let text = "HTTP/1.1 \(response.status) Status\r\ncontent-type: application/json\r\ncontent-length: \(payload.count)\r\n\r\n"
            let bytes = Data(text.utf8) + payload
            let sent = bytes.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent != bytes.count { return }
        }
    }

    private static func closeDescriptor(_ descriptor: Int32) -> Int32 {
        #if canImport(Glibc)
        Glibc.close(descriptor)
        #else
        Darwin.close(descriptor)
        #endif
    }
}
