import Foundation
import RealtimeSegments
import RealtimeSegmentsHTTP
import XCTest

/// SPEC §7 as a server receives it: the request line and headers `HTTPSegmentsTransport` sends for
/// each endpoint, captured by a canned loopback server.
final class HTTPTransportWireTests: XCTestCase {
    private let event = TrackedEvent(customerIds: ["cookie": "c1"], eventType: "view", timestamp: 1, properties: [:])

    /// Sends one request of every endpoint with `authorization` (the fetch first) and returns what
    /// the server received, in order.
    private func requests(
        authorization: SegmentsAuthorization?, useBatchEndpoint: Bool = true
    ) async throws -> [CannedHTTPServer.Request] {
        // Each endpoint's answer, in the order the requests are sent.
        let server = try CannedHTTPServer(responses: [
            (200, "{}"), (200, "{}"),
            (200, useBatchEndpoint ? #"{"results":[{"success":true}]}"# : #"{"success":true}"#),
            (200, #"{"success":true}"#),
        ])
        defer { server.stop() }
        var configuration = try HTTPTransportConfiguration(baseURL: "http://127.0.0.1:\(server.port)")
        configuration.useBatchEndpoint = useBatchEndpoint
        let transport = HTTPSegmentsTransport(configuration: configuration)
        let context = SegmentsRequestContext(projectToken: "p", authorization: authorization)
        _ = try await transport.fetchSegments(cookie: "c1", context: context)
        try await transport.linkCustomerIds(cookie: "c1", externalIds: ["registered": "jane"], context: context)
        try await transport.trackEvents([event], context: context)
        try await transport.identifyCustomer(CustomerUpdate(customerIds: ["cookie": "c1"], properties: [:]), context: context)
        return server.requests
    }

    func testFetchIsAGetThatAcceptsJSON() async throws {
        let received = try await requests(authorization: .token("k"))
        let fetch = try XCTUnwrap(received.first)
        XCTAssertEqual(fetch.line, "GET /webxp/projects/p/segments?cookie=c1 HTTP/1.1")
        XCTAssertEqual(fetch.values(of: "accept"), ["application/json"])
    }

    func testEveryRequestCarriesTheTokenAuthorization() async throws {
        let received = try await requests(authorization: .token("public-key"))
        XCTAssertEqual(received.map(\.line), [
            "GET /webxp/projects/p/segments?cookie=c1 HTTP/1.1",
            "POST /webxp/projects/p/cookies/c1/link-ids HTTP/1.1",
            "POST /track/v2/projects/p/batch HTTP/1.1",
            "POST /track/v2/projects/p/customers HTTP/1.1",
        ])
        for request in received {
            XCTAssertEqual(request.values(of: "authorization"), ["Token public-key"], request.line)
        }
    }

    func testEveryRequestCarriesTheBearerAuthorization() async throws {
        let received = try await requests(authorization: .bearer("jwt.payload.sig"), useBatchEndpoint: false)
        XCTAssertEqual(received.map(\.line), [
            "GET /webxp/projects/p/segments?cookie=c1 HTTP/1.1",
            "POST /webxp/projects/p/cookies/c1/link-ids HTTP/1.1",
            "POST /track/v2/projects/p/customers/events HTTP/1.1",
            "POST /track/v2/projects/p/customers HTTP/1.1",
        ])
        for request in received {
            XCTAssertEqual(request.values(of: "authorization"), ["Bearer jwt.payload.sig"], request.line)
        }
    }

    func testNoAuthorizationSendsNoAuthorizationHeader() async throws {
        let received = try await requests(authorization: nil)
        XCTAssertEqual(received.count, 4)
        for request in received {
            XCTAssertEqual(request.values(of: "authorization"), [], request.line)
        }
    }

    func testBodiesAreJSONWithTheirContentType() async throws {
        let received = try await requests(authorization: .token("k"))
        XCTAssertEqual(received.first?.values(of: "content-type"), [], "a fetch has no body")
        for request in received.dropFirst() {
            XCTAssertEqual(request.values(of: "content-type"), ["application/json"], request.line)
            XCTAssertNotNil(try? JSONSerialization.jsonObject(with: request.body) as? [String: Any], request.line)
        }
    }
}
