import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import SegmentsMockServer

/// A started mock HTTP server and an AsyncHTTPClient pointed at it, for one test.
struct MockServerSession {
    /// An answer, body as text.
    struct Answer {
        var status: Int
        var headers: HTTPHeaders
        var body: String
    }

    let backend: SegmentsBackend
    let server: SegmentsMockHTTPServer
    let client: HTTPClient

    /// Sends one request and collects the whole answer. `timeout` bounds the request so a test can
    /// never wait forever.
    func send(
        _ method: HTTPMethod, _ path: String, body: String? = nil, authorization: String? = "Token mock-key",
        timeout: TimeAmount = .seconds(30)
    ) async throws -> Answer {
        var request = HTTPClientRequest(url: server.baseURL.absoluteString + path)
        request.method = method
        request.headers.add(name: "accept", value: "application/json")
        if let authorization { request.headers.add(name: "authorization", value: authorization) }
        if let body {
            request.headers.add(name: "content-type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: body))
        }
        let response = try await client.execute(request, timeout: timeout)
        let bytes = try await response.body.collect(upTo: 16 << 20)
        return Answer(status: Int(response.status.code), headers: response.headers, body: String(buffer: bytes))
    }
}

/// Runs `body` with a started server and a client, then shuts both down (also when `body` throws).
func withMockServer<Result>(
    backend: SegmentsBackend = SegmentsBackend(), faults: FaultPlan = .none,
    _ body: (MockServerSession) async throws -> Result
) async throws -> Result {
    let server = try await SegmentsMockHTTPServer.startLocal(backend: backend, faults: faults)
    let client = HTTPClient(eventLoopGroupProvider: .singleton)
    let session = MockServerSession(backend: backend, server: server, client: client)
    do {
        let result = try await body(session)
        try await client.shutdown()
        try await server.stop()
        return result
    } catch {
        try? await client.shutdown()
        try? await server.stop()
        throw error
    }
}

/// The JSON object in `text`, for comparing bodies independently of key order.
func jsonObject(_ text: String) -> NSDictionary? {
    (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? NSDictionary
}
