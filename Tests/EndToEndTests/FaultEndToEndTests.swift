import Foundation
import RealtimeSegments
import RealtimeSegmentsHTTP
import SegmentsMockServer
import XCTest

/// Each fault mode of the mock server, seen through the HTTP transport: the right typed error and
/// `Segments:` line, and no tracked event lost.
final class FaultEndToEndTests: XCTestCase {
    private func fetchError(
        _ profile: FaultProfile, requestTimeout: Duration = .seconds(10), file: StaticString = #filePath, line: UInt = #line
    ) throws -> (SegmentsError?, EndToEndFixture) {
        let e2e = try EndToEndFixture(
            faults: FaultPlan(seed: 7, profiles: [.fetchSegments: profile]), requestTimeout: requestTimeout)
        e2e.client.start()
        do {
            _ = try runBlocking { try await e2e.client.getSegments(category: .discovery) }
            return (nil, e2e)
        } catch {
            return (error as? SegmentsError, e2e)
        }
    }

    func testAServerErrorStatusIsAServerError() throws {
        let (error, e2e) = try fetchError(FaultProfile(errorRate: 1, errorStatuses: [503]))
        XCTAssertEqual(error, .serverError(status: 503))
        XCTAssertEqual(e2e.logs.count(prefix: "Segments: Fetch of segments failed: server error (HTTP 503)"), 1)
    }

    func testTooManyRequestsIsRateLimited() throws {
        let (error, _) = try fetchError(FaultProfile(errorRate: 1, errorStatuses: [429]))
        XCTAssertEqual(error, .rateLimited())
    }

    func testAMalformedBodyIsAParseErrorWithTheFetchFailedLine() throws {
        let (error, e2e) = try fetchError(FaultProfile(malformedRate: 1))
        guard case .malformedResponse = error else { return XCTFail("expected malformedResponse, got \(String(describing: error))") }
        XCTAssertEqual(e2e.logs.count(prefix: "Segments: Fetch of segments failed: malformed response"), 1)
    }

    func testATruncatedBodyIsAnErrorNotEmptyData() throws {
        let (error, e2e) = try fetchError(FaultProfile(truncatedRate: 1))
        guard case .malformedResponse(let reason) = error else { return XCTFail("expected malformedResponse, got \(String(describing: error))") }
        XCTAssertTrue(reason.hasPrefix("truncated body"), reason)
        XCTAssertEqual(e2e.logs.count(prefix: "Segments: Fetch of segments failed:"), 1)
    }

    func testAHangEndsInATimeoutAtTheRequestDeadline() throws {
        let (error, e2e) = try fetchError(
            FaultProfile(hangRate: 1, maxHang: .seconds(30)), requestTimeout: .milliseconds(300))
        XCTAssertEqual(error, .timeout)
        XCTAssertEqual(e2e.logs.count(prefix: "Segments: Fetch of segments failed: request timed out"), 1)
    }

    func testAConnectionResetIsAConnectionFailure() throws {
        let (error, _) = try fetchError(FaultProfile(resetRate: 1))
        guard case .connectionFailed = error else { return XCTFail("expected connectionFailed, got \(String(describing: error))") }
    }

    func testAddedLatencyStillSucceeds() throws {
        let (error, _) = try fetchError(FaultProfile(latency: .fixed(.milliseconds(20))))
        XCTAssertNil(error)
    }

    /// Tracks 100 events through uploads that `profile` makes fail, then retries (a minute of the
    /// manual clock at a time) until the server has them: every event arrives exactly once, in
    /// order, and faults were really injected.
    private func assertEveryEventArrivesOnce(
        whenUploads profile: FaultProfile, seed: UInt64, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let e2e = try EndToEndFixture(faults: FaultPlan(seed: seed, profiles: [.trackBatch: profile]))
        e2e.client.start()
        for index in 0..<100 {
            try e2e.client.trackEvent(eventType: "e\(index)")
            if index % 10 == 0 { e2e.settle() }
        }
        e2e.settle()
        var rounds = 0
        while e2e.backend.eventsAccepted < 100, rounds < 200 {
            e2e.advance(.seconds(60))
            rounds += 1
        }
        let events = e2e.backend.events(forCookie: e2e.cookie, projectToken: EndToEndFixture.project.token)
        XCTAssertEqual(events.map(\.eventType), (0..<100).map { "e\($0)" }, file: file, line: line)
        XCTAssertGreaterThan(e2e.client.statistics.uploadFailures, 0, "faults were injected", file: file, line: line)
        XCTAssertEqual(e2e.client.statistics.eventsUploaded, 100, file: file, line: line)
    }

    /// Tracking through failing uploads: every event arrives exactly once, in order.
    func testNoTrackedEventIsLostWhenUploadsFail() throws {
        try assertEveryEventArrivesOnce(
            whenUploads: FaultProfile(errorRate: 0.5, errorStatuses: [500, 503, 429], resetRate: 0.1), seed: 11)
    }

    /// A 200 whose body is not the API's answer (a proxy's page, another shape) did not deliver
    /// the upload: the mock server answers so without storing the events, and every event still
    /// arrives exactly once, in order.
    func testNoTrackedEventIsLostWhenUploadsAreAnsweredWithMalformedBodies() throws {
        try assertEveryEventArrivesOnce(whenUploads: FaultProfile(malformedRate: 0.5), seed: 13)
    }
}
