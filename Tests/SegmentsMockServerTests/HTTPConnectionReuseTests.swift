import Foundation
import SegmentsMockServer
import XCTest

/// Answers that leave a kept-alive connection usable: no body after a `HEAD` (the client reads
/// none, so it would be taken for the next answer), and a connection that asked to be upgraded,
/// after which NIO's parser reads nothing more, is closed rather than left to hang.
final class HTTPConnectionReuseTests: XCTestCase {
    private let fetch = "GET /webxp/projects/mock-project/segments?cookie=c1 HTTP/1.1\r\nhost: x\r\nauthorization: Token mock-key\r\n"

    func testAnAnswerToHeadCarriesNoBody() async throws {
        let server = try await SegmentsMockHTTPServer.startLocal(backend: SegmentsBackend())
        let connection = try RawHTTPConnection(port: server.port, receiveTimeoutSeconds: 3)
        try connection.send("HEAD /track/v2/projects/mock-project/system/time HTTP/1.1\r\nhost: x\r\n\r\n" + fetch + "connection: close\r\n\r\n")
        let bytes = connection.readUntilClosed()
        try await server.stop()
        let text = String(decoding: bytes, as: UTF8.self)
        let firstHeadEnd = try XCTUnwrap(text.range(of: "\r\n\r\n"))
        XCTAssertTrue(text[firstHeadEnd.upperBound...].hasPrefix("HTTP/1.1 "), text)
    }

    func testAnUpgradeRequestIsAnsweredAndItsConnectionClosed() async throws {
        let server = try await SegmentsMockHTTPServer.startLocal(backend: SegmentsBackend())
        let connection = try RawHTTPConnection(port: server.port, receiveTimeoutSeconds: 3)
        try connection.send(fetch + "connection: Upgrade, HTTP2-Settings\r\nupgrade: h2c\r\nhttp2-settings: AAMAAABkAAQAAP__\r\n\r\n")
        let responses = RawHTTPResponse.parseAll(connection.readUntilClosed())
        try await server.stop()
        XCTAssertEqual(responses.map(\.status), [200])
        XCTAssertEqual(responses.first?.headers["connection"], "close")
    }
}
