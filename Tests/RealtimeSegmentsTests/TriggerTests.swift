import Foundation
@_spi(Benchmarks) @testable import RealtimeSegments
import XCTest

/// SPEC §3: what requests a check, and how requests coalesce.
final class TriggerTests: XCTestCase {
    func testStartWithACallbackRequestsACheck() {
        let fixture = Fixture()
        _ = fixture.register(.discovery)
        fixture.client.start()
        fixture.settle()
        XCTAssertEqual(fixture.transport.fetchCount, 0, "debounced")
        fixture.advance(.seconds(5))
        XCTAssertEqual(fixture.transport.fetchCount, 1)
    }

    /// SPEC §3: the debounce is configurable. With 2 s, the check starts exactly 2 s after the
    /// request: not at 1.999 s, and only once.
    func testTheDebounceIsConfigurable() {
        let fixture = Fixture { $0.debounce = .seconds(2) }
        _ = fixture.register(.discovery)
        fixture.client.start()
        fixture.settle()
        fixture.advance(.milliseconds(1_999))
        XCTAssertEqual(fixture.transport.fetchCount, 0, "t = 1.999 s")
        fixture.advance(.milliseconds(1))
        XCTAssertEqual(fixture.transport.fetchCount, 1, "t = 2 s")
        fixture.advance(.seconds(60))
        XCTAssertEqual(fixture.transport.fetchCount, 1, "exactly one")
    }

    func testRegisteringWhileStartedRequestsACheck() {
        let fixture = Fixture()
        fixture.client.start()
        fixture.settle()
        _ = fixture.register(.discovery)
        fixture.advance(.seconds(5))
        XCTAssertEqual(fixture.transport.fetchCount, 1)
    }

    func testRegisteringBeforeStartDoesNotFetchUntilStart() {
        let fixture = Fixture()
        _ = fixture.register(.discovery)
        fixture.clock.advance(by: .seconds(60))
        XCTAssertEqual(fixture.transport.fetchCount, 0, "nothing is fetched before start")
        fixture.client.start()
        fixture.settle()
        XCTAssertEqual(fixture.transport.fetchCount, 0, "the start's check is debounced")
        fixture.advance(.seconds(5))
        XCTAssertEqual(fixture.transport.fetchCount, 1, "trigger 2: the start fetches for the callback registered before it")
    }

    func testIdentifyWithAHardIdRequestsACheck() throws {
        let fixture = Fixture()
        _ = fixture.register(.discovery)
        fixture.startAndRunInitialCheck()
        try fixture.client.identifyCustomer(customerIds: ["registered": "jane"])
        fixture.settle()
        fixture.advance(.seconds(5))
        XCTAssertEqual(fixture.transport.fetchCount, 2)
    }

    func testIdentifyNamingTheSameHardIdAgainStillRequestsACheck() throws {
        let fixture = Fixture()
        _ = fixture.register(.discovery)
        fixture.client.start()
        try fixture.client.identifyCustomer(customerIds: ["registered": "jane"])
        fixture.settle()
        fixture.advance(.seconds(5))
        XCTAssertEqual(fixture.transport.fetchCount, 1)
        try fixture.client.identifyCustomer(customerIds: ["registered": "jane"])
        fixture.settle()
        fixture.advance(.seconds(5))
        XCTAssertEqual(fixture.transport.fetchCount, 2, "trigger 3 is naming a hard id, changed or not")
    }

    func testIdentifyWithPropertiesOnlyDoesNotRequestACheck() throws {
        let fixture = Fixture { $0.flushingMode = .manual }
        _ = fixture.register(.discovery)
        fixture.startAndRunInitialCheck()
        try fixture.client.identifyCustomer(properties: ["name": "Jane"])
        fixture.settle()
        fixture.advance(.seconds(5))
        XCTAssertEqual(fixture.transport.fetchCount, 1)
    }

    /// SPEC §3 lists the triggers: an uploaded customer update is not trigger 4 (a tracked event).
    func testAnUploadedCustomerUpdateRequestsNoCheck() throws {
        let fixture = Fixture()
        _ = fixture.register(.discovery)
        fixture.startAndRunInitialCheck()
        try fixture.client.identifyCustomer(properties: ["name": "Jane"])
        fixture.settle()
        XCTAssertEqual(fixture.transport.customerUpdates.count, 1, "uploaded")
        fixture.advance(.seconds(5))
        XCTAssertEqual(fixture.transport.fetchCount, 1, "no check after the update's upload")
    }

    /// SPEC §8: the engine's own lines (fetch started, diff result, notify counts) are at trace or
    /// debug, so they stay out of an app's default log.
    func testFetchDiffAndNotifyLinesAreLoggedAtTraceOrDebug() {
        let fixture = Fixture()
        fixture.transport.defaultResponse = response([.discovery: [1]])
        _ = fixture.register(.discovery)
        fixture.startAndRunInitialCheck()
        for prefix in ["Segments: Fetching segments for customer", "Segments: Check done, changed categories: [discovery]",
                       "Segments: Notified 1 callbacks of category discovery"] {
            let lines = fixture.logs.all.filter { $0.message.hasPrefix(prefix) }
            XCTAssertEqual(lines.count, 1, prefix)
            XCTAssertTrue(lines.allSatisfy { $0.level <= .debug }, prefix)
        }
    }

    func testAnUploadedEventRequestsACheck() throws {
        let fixture = Fixture()
        _ = fixture.register(.discovery)
        fixture.startAndRunInitialCheck()
        try fixture.client.trackEvent(eventType: "purchase")
        fixture.settle()
        XCTAssertEqual(fixture.transport.trackedEvents.count, 1)
        fixture.advance(.seconds(5))
        XCTAssertEqual(fixture.transport.fetchCount, 2)
    }

    func testWithManualFlushingTheTriggerComesWhenTheBatchUploads() throws {
        let fixture = Fixture { $0.flushingMode = .manual }
        _ = fixture.register(.discovery)
        fixture.startAndRunInitialCheck()
        try fixture.client.trackEvent(eventType: "purchase")
        fixture.settle()
        fixture.advance(.seconds(10))
        XCTAssertEqual(fixture.transport.trackedEvents.count, 0)
        XCTAssertEqual(fixture.transport.fetchCount, 1)
        fixture.client.flush()
        fixture.settle()
        XCTAssertEqual(fixture.transport.trackedEvents.count, 1)
        fixture.advance(.seconds(5))
        XCTAssertEqual(fixture.transport.fetchCount, 2)
    }

    /// SPEC §3, trigger 4: with periodic flushing, the check follows the batch's upload, not the
    /// tracked event.
    func testWithPeriodicFlushingTheTriggerComesWhenTheBatchUploads() throws {
        let fixture = Fixture { $0.flushingMode = .periodic(.seconds(60)) }
        _ = fixture.register(.discovery)
        fixture.startAndRunInitialCheck()
        try fixture.client.trackEvent(eventType: "purchase")
        fixture.settle()
        var waited = 0
        while fixture.transport.trackedEvents.isEmpty, waited < 120 {
            XCTAssertEqual(fixture.transport.fetchCount, 1, "a check before the batch uploaded, \(waited) s after the event")
            fixture.advance(.seconds(1))
            waited += 1
        }
        XCTAssertEqual(fixture.transport.trackedEvents.count, 1, "the periodic flush uploads the event")
        XCTAssertGreaterThan(waited, 10, "the event waited for the periodic flush")
        fixture.advance(.seconds(5))
        XCTAssertEqual(fixture.transport.fetchCount, 2, "the upload's check, a debounce after it")
    }

    func testWithPeriodicFlushingEventsUploadEveryInterval() throws {
        let fixture = Fixture { $0.flushingMode = .periodic(.seconds(10)) }
        fixture.client.start()
        fixture.settle()
        for index in 0..<3 { try fixture.client.trackEvent(eventType: "e\(index)") }
        fixture.advance(.seconds(9))
        XCTAssertEqual(fixture.transport.trackedEvents.count, 0)
        fixture.advance(.seconds(1))
        XCTAssertEqual(fixture.transport.trackedEvents.count, 3)
        XCTAssertEqual(fixture.transport.trackBatchCount, 1)
    }

    func testABurstOfRequestsYieldsExactlyOneFetchAfterTheLastRequest() throws {
        let fixture = Fixture()
        _ = fixture.register(.discovery)
        fixture.startAndRunInitialCheck()
        // 20 requests one second apart: within the 30 s max-wait, so only the debounce applies.
        for _ in 0..<20 {
            try fixture.trackThenAdvance(.seconds(1))
        }
        XCTAssertEqual(fixture.transport.fetchCount, 1, "the burst keeps postponing the check")
        fixture.advance(.seconds(3))
        XCTAssertEqual(fixture.transport.fetchCount, 1)
        fixture.advance(.seconds(1))
        XCTAssertEqual(fixture.transport.fetchCount, 2, "one fetch, 5 s after the last request")
    }

    func testAFailedUploadRequestsNoCheck() throws {
        let fixture = Fixture()
        _ = fixture.register(.discovery)
        fixture.startAndRunInitialCheck()
        XCTAssertEqual(fixture.transport.fetchCount, 1)
        fixture.transport.failNext(.trackEvents, with: .serverError(status: 503), count: 1_000)
        try fixture.client.trackEvent(eventType: "view")
        fixture.settle()
        for _ in 0..<6 { fixture.advance(.seconds(5)) }  // retries keep failing
        XCTAssertTrue(fixture.transport.trackedEvents.isEmpty)
        XCTAssertEqual(fixture.transport.fetchCount, 1, "trigger 4 is a successful upload")
    }

    /// Trigger 4 is an upload that the server took: events it refused (set aside) tell it nothing.
    func testAnUploadWhoseEventsWereAllRefusedRequestsNoCheck() throws {
        let fixture = Fixture()
        _ = fixture.register(.discovery)
        fixture.startAndRunInitialCheck()
        XCTAssertEqual(fixture.transport.fetchCount, 1)
        fixture.transport.failNext(.trackEvents, with: .unexpectedStatus(400), count: 1_000)
        try fixture.client.trackEvent(eventType: "view")
        fixture.settle()
        for _ in 0..<6 { fixture.advance(.seconds(5)) }
        XCTAssertEqual(fixture.logs.count(prefix: "Segments: The server refused"), 1, "\(fixture.logs.messages)")
        XCTAssertEqual(fixture.transport.fetchCount, 1, "trigger 4 is an upload the server took")
    }

    func testTheDefaultMaxWaitIsThirtySeconds() throws {
        let fixture = Fixture()
        _ = fixture.register(.discovery)
        fixture.startAndRunInitialCheck()
        // A request every 4 s keeps the 5 s debounce from ever ending.
        for _ in 0..<7 {
            try fixture.trackThenAdvance(.seconds(4))
        }
        // First request of the stream at t = 0; now t = 28.
        XCTAssertEqual(fixture.transport.fetchCount, 1)
        try fixture.trackThenAdvance(.seconds(1))
        XCTAssertEqual(fixture.transport.fetchCount, 1, "t = 29")
        fixture.advance(.seconds(1))
        XCTAssertEqual(fixture.transport.fetchCount, 2, "t = 30: the max-wait")
    }

    func testMaxWaitStopsASteadyStreamFromPostponingTheCheckForever() throws {
        let fixture = Fixture { $0.maxWait = .seconds(12) }
        _ = fixture.register(.discovery)
        fixture.startAndRunInitialCheck()
        for _ in 0..<11 {
            try fixture.trackThenAdvance(.seconds(1))
        }
        XCTAssertEqual(fixture.transport.fetchCount, 1)
        try fixture.trackThenAdvance(.seconds(1))
        XCTAssertEqual(fixture.transport.fetchCount, 2, "12 s after the first request of the stream")
    }

    /// SPEC §3: at most one listener check is in flight; requests during it schedule one more.
    func testOnlyOneCheckIsInFlightAndARequestDuringItSchedulesOneMore() throws {
        let fixture = Fixture()
        _ = fixture.register(.discovery)
        fixture.client.start()
        fixture.settle()
        fixture.holdTheNextCheck()
        for _ in 0..<5 {
            try fixture.client.trackEvent(eventType: "view")
        }
        // The engine counts each upload where it handles it, which is where it requests a check.
        waitUntil { fixture.client.statistics.eventsUploaded == 5 }
        fixture.clock.advance(by: .seconds(60))
        // Past the barrier the engine has evaluated its timers at +60 s: a second check would have
        // started, and been counted, by then.
        fixture.passBarrier()
        XCTAssertEqual(fixture.client.statistics.checksStarted, 1, "no second check while one is in flight")
        XCTAssertEqual(fixture.transport.fetchCount, 1)
        fixture.transport.releaseHeldFetches()
        fixture.settle()
        fixture.advance(.seconds(5))
        XCTAssertEqual(fixture.transport.fetchCount, 2)
        fixture.advance(.seconds(60))
        XCTAssertEqual(fixture.transport.fetchCount, 2, "exactly one more")
    }

    func testWithNoCallbackRegisteredNothingIsFetchedAndTheLinesAreLogged() throws {
        let fixture = Fixture()
        fixture.client.start()
        fixture.settle()
        XCTAssertTrue(fixture.logs.contains("Segments: Skipping initial segments update process for no callback"))
        try fixture.client.trackEvent(eventType: "view")
        fixture.settle()
        XCTAssertTrue(fixture.logs.contains(
            "Segments: Skipping segments update process after tracked event due to no callback registered"))
        fixture.advance(.seconds(60))
        XCTAssertEqual(fixture.transport.fetchCount, 0)
    }

    func testCallbacksRemovedDuringTheDebounceMeanNoFetch() {
        let fixture = Fixture()
        let callback = fixture.register(.discovery)
        fixture.client.start()
        fixture.settle()
        fixture.client.segmentation.removeCallback(callbackData: callback)
        fixture.advance(.seconds(5))
        XCTAssertEqual(fixture.transport.fetchCount, 0)
        XCTAssertTrue(fixture.logs.contains("Segments: Skipping segments reload process for no callback"))
    }

    func testACheckWithoutPendingFirstLoadsLogsThatTheInitialUpdateIsNotRequired() {
        let fixture = Fixture()
        _ = fixture.register(.discovery, firstLoad: false)
        fixture.startAndRunInitialCheck()
        XCTAssertTrue(fixture.logs.contains("Segments: Skipping initial segments update process as is not required"))
        XCTAssertEqual(fixture.transport.fetchCount, 1, "the check itself still runs")
    }
}

private extension Fixture {
    /// Tracks an event (its successful upload is reload trigger 4), lets the engine take it and the
    /// upload, then moves the clock by `duration`.
    func trackThenAdvance(_ duration: Duration, file: StaticString = #filePath, line: UInt = #line) throws {
        try client.trackEvent(eventType: "view")
        settle(file: file, line: line)
        advance(duration, file: file, line: line)
    }
}
