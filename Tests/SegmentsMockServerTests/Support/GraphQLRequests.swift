import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import RealtimeSegments
import SegmentsMockServer
import XCTest

/// The SDK's request body for `userId` and `audiences` (``QualifiedSegmentsWire/requestBody(for:)``).
func qualifiedQueryBody(_ userId: String, _ audiences: [String], key: QualifiedUserKey? = nil) -> String {
    let query = QualifiedSegmentsQuery(userKey: key ?? .key(for: userId), userValue: userId, segmentsToCheck: audiences)
    return String(decoding: QualifiedSegmentsWire.requestBody(for: query), as: UTF8.self)
}

/// A GraphQL request body with `query` and no variables.
func graphQLBody(_ query: String) -> String {
    String(decoding: try! JSONSerialization.data(withJSONObject: ["query": query]), as: UTF8.self)
}

extension MockServerSession {
    /// Sends `body` to `/v3/graphql` with the SDK's headers (each replaceable, `nil` to omit).
    func sendGraphQL(
        _ body: String?, method: HTTPMethod = .POST, apiKey: String? = "mock-key",
        contentType: String? = "application/json", timeout: TimeAmount = .seconds(30)
    ) async throws -> Answer {
        var request = HTTPClientRequest(url: server.baseURL.absoluteString + "/v3/graphql")
        request.method = method
        if let apiKey { request.headers.add(name: "x-api-key", value: apiKey) }
        if let contentType { request.headers.add(name: "content-type", value: contentType) }
        if let body { request.body = .bytes(ByteBuffer(string: body)) }
        let response = try await client.execute(request, timeout: timeout)
        let bytes = try await response.body.collect(upTo: 16 << 20)
        return Answer(status: Int(response.status.code), headers: response.headers, body: String(buffer: bytes))
    }
}
