import Foundation
import RealtimeSegments
import RealtimeSegmentsTesting
import XCTest

/// Bad input gets a typed error or a `Segments:` line, never a crash or silent loss.
final class ValidationTests: XCTestCase {
    func testTrackingBeforeStartThrowsNotStarted() {
        let fixture = Fixture()
        XCTAssertThrowsError(try fixture.client.trackEvent(eventType: "view")) { error in
            XCTAssertEqual(error as? SegmentsError, .notStarted)
        }
    }

    func testTrackingAfterStopThrowsStopped() {
        let fixture = Fixture()
        fixture.client.start()
        fixture.client.stop()
        XCTAssertThrowsError(try fixture.client.trackEvent(eventType: "view")) { error in
            XCTAssertEqual(error as? SegmentsError, .stopped)
        }
    }

    /// A callback registered on a stopped client is never called: a warning says so, where only
    /// a trace line used to.
    func testACallbackAddedAfterStopIsReported() {
        let fixture = Fixture()
        fixture.client.start()
        fixture.client.stop()
        fixture.client.segmentation.addCallback(callbackData: SegmentCallbackData(category: .discovery, isIncludeFirstLoad: true) { _ in })
        let warnings = fixture.logs.all.filter { $0.level >= .warning && $0.message.hasPrefix("Segments: Callback registered on a stopped client") }
        XCTAssertEqual(warnings.count, 1, "\(fixture.logs.messages)")
    }

    func testAnEmptyEventTypeIsRejected() {
        let fixture = Fixture()
        fixture.client.start()
        XCTAssertThrowsError(try fixture.client.trackEvent(eventType: "")) { error in
            XCTAssertEqual(error as? SegmentsError, .invalidArgument("eventType is empty"))
        }
    }

    func testATimestampThatIsNotFiniteIsRejectedAndNothingIsTracked() throws {
        let fixture = Fixture()
        fixture.client.start()
        for (timestamp, shown) in [(Double.nan, "nan"), (.infinity, "inf"), (-.infinity, "-inf")] {
            XCTAssertThrowsError(try fixture.client.trackEvent(eventType: "view", timestamp: timestamp)) { error in
                XCTAssertEqual(error as? SegmentsError, .invalidArgument("timestamp \(shown) is not a finite number of seconds"))
            }
        }
        try fixture.client.trackEvent(eventType: "kept", timestamp: 1_700_000_000.5)
        fixture.settle()
        XCTAssertEqual(fixture.transport.trackedEvents.map(\.eventType), ["kept"])
        XCTAssertEqual(fixture.transport.trackedEvents.first?.timestamp, 1_700_000_000.5)
    }

    func testAnInvalidEventIsReportedAsInvalidBeforeAndAfterTheClientRuns() {
        let fixture = Fixture()
        // Before start and after stop, a call that is wrong in itself says so, not that the client
        // is not running: the caller's bug is the one to fix first.
        XCTAssertThrowsError(try fixture.client.trackEvent(eventType: "")) { error in
            XCTAssertEqual(error as? SegmentsError, .invalidArgument("eventType is empty"))
        }
        fixture.client.start()
        fixture.client.stop()
        XCTAssertThrowsError(try fixture.client.trackEvent(eventType: "view", timestamp: .nan)) { error in
            XCTAssertEqual(error as? SegmentsError, .invalidArgument("timestamp nan is not a finite number of seconds"))
        }
    }

    func testNumbersJSONCannotCarryEncodeAsNullAndTheEncoderLearnsWhere() throws {
        let event = TrackedEvent(
            customerIds: ["cookie": "c"], eventType: "view", timestamp: 1,
            properties: ["price": .number(.nan), "sizes": [1, .number(.infinity)], "cart": ["total": .number(-.infinity)], "ok": 1])
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let replaced = NonFiniteNumbers()
        encoder.userInfo[JSONValue.nonFiniteNumbersKey] = replaced
        let data = try encoder.encode([event])
        let decoded = try JSONDecoder().decode([TrackedEvent].self, from: data)
        XCTAssertEqual(decoded.first?.properties, ["price": nil, "sizes": [1, nil], "cart": ["total": nil], "ok": 1])
        XCTAssertEqual(replaced.recorded.sorted(), ["[0].properties.cart.total (-inf)", "[0].properties.price (nan)", "[0].properties.sizes[1] (inf)"])
        XCTAssertNoThrow(try JSONEncoder().encode(event), "without a collector too")
    }

    func testACustomerPropertyJSONCannotCarryIsRejected() {
        let fixture = Fixture()
        fixture.client.start()
        XCTAssertThrowsError(try fixture.client.identifyCustomer(properties: ["profile": ["score": .number(.nan)]])) { error in
            XCTAssertEqual(
                error as? SegmentsError,
                .invalidArgument("customer property profile.score (nan) is not a finite number, which JSON cannot carry"))
        }
        fixture.settle()
        XCTAssertTrue(fixture.transport.customerUpdates.isEmpty)
    }

    func testEmptyCustomerIdsAreRejected() {
        let fixture = Fixture()
        fixture.client.start()
        XCTAssertThrowsError(try fixture.client.identifyCustomer(customerIds: [:]))
        XCTAssertThrowsError(try fixture.client.identifyCustomer(customerIds: ["registered": ""]))
        XCTAssertThrowsError(try fixture.client.identifyCustomer(customerIds: ["": "jane"]))
        XCTAssertEqual(Set(fixture.client.customerIds.keys), ["cookie"], "nothing changed")
    }

    func testTheCookieCannotBeSetThroughIdentify() {
        let fixture = Fixture()
        fixture.client.start()
        let cookie = fixture.cookie
        XCTAssertThrowsError(try fixture.client.identifyCustomer(customerIds: ["cookie": "mine"]))
        XCTAssertEqual(fixture.cookie, cookie)
    }

    func testGetSegmentsForAnEmptyCategoryIsRejected() async {
        let fixture = Fixture()
        fixture.client.start()
        do {
            _ = try await fixture.client.getSegments(category: .other(""))
            XCTFail("expected invalidArgument")
        } catch {
            guard case .invalidArgument = error else { return XCTFail("\(error)") }
        }
    }

    func testFlushBeforeStartIsLoggedNotIgnoredSilently() {
        let fixture = Fixture()
        fixture.client.flush()
        XCTAssertTrue(fixture.logs.contains("Segments: flush() ignored: the client is not running"))
    }

    func testAnonymizeBeforeStartIsLoggedNotIgnoredSilently() {
        let fixture = Fixture()
        let cookie = fixture.cookie
        fixture.client.anonymize()
        XCTAssertEqual(fixture.cookie, cookie)
        XCTAssertTrue(fixture.logs.contains("Segments: anonymize() ignored: the client is not running"))
    }

    func testGetSegmentsCompletionBeforeStartReturnsEmptyAndLogsWhy() {
        let fixture = Fixture()
        let done = DispatchSemaphore(value: 0)
        fixture.client.getSegments(category: .discovery) { segments in
            XCTAssertEqual(segments, [])
            done.signal()
        }
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(fixture.logs.count(prefix: "Segments: getSegments(discovery) returns [] because"), 1)
    }
}

/// Lifecycle edges.
final class LifecycleTests: XCTestCase {
    func testAClientDroppedWithoutStopEndsItsEngineThread() throws {
        let transport = InMemorySegmentsTransport()
        var client: SegmentsClient? = SegmentsClient(
            configuration: .init(projectToken: "t", transport: transport))
        weak let weakClient = client
        client?.start()
        try client?.trackEvent(eventType: "last")
        client = nil
        XCTAssertNil(weakClient)
        waitUntil { transport.trackedEvents.count == 1 }
    }

    func testStartingTwiceIsHarmless() {
        let fixture = Fixture()
        fixture.client.start()
        fixture.client.start()
        fixture.settle()
        XCTAssertEqual(fixture.logs.count("Segments: start() ignored: the client was already started or stopped"), 1)
    }
}
