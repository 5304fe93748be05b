import Foundation
import RealtimeSegments
import RealtimeSegmentsHTTP
import RealtimeSegmentsTesting
import XCTest

/// "Nothing is lost, nothing is doubled" with one request per event (`useBatchEndpoint = false`):
/// the engine and the HTTP transport together, against a canned loopback server.
final class PerEventUploadTests: XCTestCase {
    /// Issue 30, item 5: a failure in the middle of an upload does not send the events the server
    /// had already accepted a second time.
    func testAFailureHalfwayThroughAnUploadDoesNotResendTheAcceptedEvents() throws {
        let accepted = #"{"success":true}"#
        let server = try CannedHTTPServer(scripted: [
            .init(status: 200, body: accepted), .init(status: 503, body: "{}"), .init(status: 200, body: accepted),
        ])
        defer { server.stop() }
        var transportConfiguration = try HTTPTransportConfiguration(baseURL: "http://127.0.0.1:\(server.port)")
        transportConfiguration.useBatchEndpoint = false
        let clock = ManualClock()
        var configuration = SegmentsConfiguration(
            projectToken: "p", authorization: .token("k"),
            transport: HTTPSegmentsTransport(configuration: transportConfiguration))
        configuration.clock = clock
        configuration.flushingMode = .periodic(.seconds(10))
        configuration.uploadRetry = RetryPolicy(initial: .seconds(1), maximum: .seconds(1), jitter: 0)
        let client = SegmentsClient(configuration: configuration)
        defer { client.stop() }
        client.start()
        for type in ["a", "b", "c"] { try client.trackEvent(eventType: type) }
        XCTAssertTrue(client.waitUntilIdle())
        clock.advance(by: .seconds(10))  // the periodic flush: a accepted, b meets the 503
        XCTAssertTrue(client.waitUntilIdle())
        clock.advance(by: .seconds(1))  // the retry
        XCTAssertTrue(client.waitUntilIdle())

        let sent = server.requests.map { request -> String in
            let event = try? JSONSerialization.jsonObject(with: request.body) as? [String: Any]
            return event?["event_type"] as? String ?? "?"
        }
        XCTAssertEqual(sent, ["a", "b", "b", "c"])
        XCTAssertEqual(client.statistics.eventsUploaded, 3)
    }
}
