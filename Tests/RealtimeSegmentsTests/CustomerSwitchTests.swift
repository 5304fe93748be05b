import Foundation
import RealtimeSegments
import XCTest

/// SPEC §5: generations make customer switches safe; anonymize resets the customer.
final class CustomerSwitchTests: XCTestCase {
    func testAResponseFetchedForThePreviousCustomerNeverReachesACallback() throws {
        let fixture = Fixture()
        fixture.transport.setResponder { cookieOrId in response([.discovery: [cookieOrId.hashValue & 0xFFFF]]) }
        _ = fixture.register(.discovery, firstLoad: true, tag: "d")
        fixture.client.start()
        fixture.settle()
        fixture.holdTheNextCheck()
        let previousCookie = fixture.cookie
        fixture.client.anonymize()
        fixture.transport.releaseHeldFetches()
        fixture.settle()
        XCTAssertEqual(fixture.recorder.count, 0)
        XCTAssertEqual(fixture.client.statistics.staleResultsDropped, 1)
        XCTAssertTrue(fixture.logs.contains("Segments: Check process was canceled because customer has changed"))
        XCTAssertTrue(fixture.logs.contains("Segments: New data are ignored because were loaded for different customer"))
        XCTAssertNotEqual(fixture.cookie, previousCookie)
    }

    /// The other half of the security property: data already being delivered when the customer
    /// switches. The switch lands while the first callback runs; the callbacks after it in the
    /// same delivery must not receive the previous customer's segments.
    func testASwitchDuringADeliveryStopsItBeforeTheNextCallback() {
        for switchCustomer in [SwitchKind.anonymize, .identify, .stop] {
            let fixture = Fixture()
            fixture.transport.defaultResponse = response([.discovery: [1]])
            let entered = DispatchSemaphore(value: 0)
            let proceed = DispatchSemaphore(value: 0)
            fixture.client.segmentation.addCallback(callbackData: SegmentCallbackData(category: .discovery, isIncludeFirstLoad: false) { _ in
                entered.signal()
                proceed.wait()
            })
            _ = fixture.register(.discovery, tag: "after")
            _ = fixture.register(.discovery, tag: "after")
            fixture.client.start()
            fixture.settle()
            fixture.clock.advance(by: .seconds(5))  // the initial check's debounce; it then blocks in the first callback
            XCTAssertEqual(entered.wait(timeout: .now() + 10), .success, "\(switchCustomer): the delivery started")
            switch switchCustomer {
            case .anonymize: fixture.client.anonymize()
            case .identify: XCTAssertNoThrow(try fixture.client.identifyCustomer(customerIds: ["registered": "jane"]))
            case .stop: fixture.client.stop()
            }
            proceed.signal()
            fixture.settle()
            XCTAssertEqual(fixture.recorder.count(tag: "after"), 0, "\(switchCustomer): no callback after the switch got the previous customer's data")
            XCTAssertEqual(fixture.client.statistics.staleDeliveriesDropped, 1, "\(switchCustomer)")
        }
    }

    private enum SwitchKind { case anonymize, identify, stop }

    func testIdentifyWithNewHardIdsDropsTheInFlightResultAndRefetchesForTheNewCustomer() throws {
        let fixture = Fixture()
        fixture.transport.defaultResponse = response([.discovery: [1]])
        _ = fixture.register(.discovery, tag: "d")
        fixture.client.start()
        fixture.settle()
        fixture.holdTheNextCheck()
        try fixture.client.identifyCustomer(customerIds: ["registered": "jane"])
        fixture.transport.releaseHeldFetches()
        fixture.settle()
        XCTAssertEqual(fixture.recorder.count, 0)
        fixture.advance(.seconds(5))
        XCTAssertEqual(fixture.recorder.segments(tag: "d"), [[segment(1)]])
        XCTAssertEqual(fixture.transport.linkCalls.last?.externalIds, ["registered": "jane"])
    }

    func testIdentifyWithTheSameHardIdsKeepsTheCustomer() throws {
        let fixture = Fixture()
        fixture.transport.defaultResponse = response([.discovery: [1]])
        _ = fixture.register(.discovery, tag: "d")
        fixture.client.start()
        try fixture.client.identifyCustomer(customerIds: ["registered": "jane"])
        fixture.settle()
        fixture.advance(.seconds(5))
        XCTAssertEqual(fixture.recorder.count, 1)
        fixture.transport.holdFetches()
        try fixture.client.trackEvent(eventType: "view")
        fixture.settle()
        fixture.clock.advance(by: .seconds(5))
        waitUntil { fixture.transport.heldFetchCount == 1 }
        fixture.transport.defaultResponse = response([.discovery: [2]])
        try fixture.client.identifyCustomer(customerIds: ["registered": "jane"], properties: ["plan": "gold"])
        fixture.transport.releaseHeldFetches()
        fixture.settle()
        XCTAssertEqual(fixture.recorder.segments(tag: "d").last, [segment(2)], "same customer: the result is applied")
    }

    func testAnonymizeCancelsThePendingCheckAndRequestsOneForTheNewCustomer() {
        let fixture = Fixture()
        _ = fixture.register(.discovery)
        fixture.client.start()
        fixture.settle()
        fixture.advance(.seconds(3))
        fixture.client.anonymize()
        fixture.settle()
        XCTAssertTrue(fixture.logs.contains("Segments: Segments change check has been cancelled meanwhile"))
        fixture.advance(.seconds(2))
        XCTAssertEqual(fixture.transport.fetchCount, 0, "the previous customer's pending check was cancelled")
        fixture.advance(.seconds(3))
        XCTAssertEqual(fixture.transport.fetchedCookies, [fixture.cookie], "one check, for the new customer")
    }

    func testAnonymizeClearsFirstLoadsAndTheLastKnownStateButKeepsCallbacks() {
        let fixture = Fixture()
        fixture.transport.defaultResponse = response([.discovery: [1]])
        _ = fixture.register(.discovery, tag: "plain")
        fixture.startAndRunInitialCheck()
        _ = fixture.register(.content, firstLoad: true, tag: "first")
        fixture.client.anonymize()
        fixture.settle()
        XCTAssertEqual(fixture.client.segmentation.callbackCount, 2)
        _ = fixture.register(.merchandising)
        fixture.advance(.seconds(5))
        XCTAssertEqual(fixture.recorder.count(tag: "first"), 0, "the pending first load was cleared")
        XCTAssertEqual(fixture.recorder.segments(tag: "plain"), [[segment(1)], [segment(1)]], "state cleared: all changed")
    }

    /// SPEC §5 and §1: anonymize mints a new cookie and drops the hard ids; the initial cookie and
    /// the new one are both UUIDs minted by the engine.
    func testAnonymizeMintsANewCookieAndDropsHardIds() throws {
        let fixture = Fixture()
        fixture.client.start()
        try fixture.client.identifyCustomer(customerIds: ["registered": "jane"])
        let before = fixture.client.customerIds
        fixture.client.anonymize()
        let after = fixture.client.customerIds
        XCTAssertEqual(Set(after.keys), ["cookie"])
        XCTAssertNotEqual(after["cookie"], before["cookie"])
        XCTAssertFalse(after["cookie"]?.isEmpty ?? true)
        XCTAssertNotNil(before["cookie"].flatMap { UUID(uuidString: $0) }, "the initial cookie \(before["cookie"] ?? "nil") is a UUID")
        XCTAssertNotNil(after["cookie"].flatMap { UUID(uuidString: $0) }, "the new cookie \(after["cookie"] ?? "nil") is a UUID")
    }

    func testEventsAreStampedWithTheCustomerCurrentWhenTheyWereTracked() throws {
        let fixture = Fixture()
        fixture.client.start()
        let anonymousCookie = fixture.cookie
        try fixture.client.trackEvent(eventType: "before")
        try fixture.client.identifyCustomer(customerIds: ["registered": "jane"])
        try fixture.client.trackEvent(eventType: "after")
        fixture.client.anonymize()
        try fixture.client.trackEvent(eventType: "anonymous")
        fixture.settle()
        let events = fixture.transport.trackedEvents
        XCTAssertEqual(events.map(\.eventType), ["before", "after", "anonymous"])
        XCTAssertEqual(events[0].customerIds, ["cookie": anonymousCookie])
        XCTAssertEqual(events[1].customerIds, ["cookie": anonymousCookie, "registered": "jane"])
        XCTAssertNotEqual(events[2].customerIds["cookie"], anonymousCookie)
        XCTAssertEqual(fixture.transport.customerUpdates.map(\.customerIds), [["cookie": anonymousCookie, "registered": "jane"]])
    }

    /// The same rule across threads the app ordered: an event tracked on one thread before a switch
    /// made on another belongs to the customer before it, one tracked after it to the customer after.
    func testEventsOfOtherThreadsAreStampedInTheOrderTheAppMadeWithASwitch() throws {
        let fixture = Fixture()
        fixture.client.start()
        fixture.settle()
        let anonymousCookie = fixture.cookie
        let client = fixture.client
        onAnotherThread { try? client.trackEvent(eventType: "before, on thread 1") }
        onAnotherThread { try? client.identifyCustomer(customerIds: ["registered": "jane"]) }
        onAnotherThread { try? client.trackEvent(eventType: "after, on thread 3") }
        fixture.settle()
        let events = Dictionary(uniqueKeysWithValues: fixture.transport.trackedEvents.map { ($0.eventType, $0.customerIds) })
        XCTAssertEqual(events["before, on thread 1"], ["cookie": anonymousCookie])
        XCTAssertEqual(events["after, on thread 3"], ["cookie": anonymousCookie, "registered": "jane"])
    }

    /// What remains after `stop()`: a fetch that completes later is refused (the engine has
    /// ended) and reaches no callback, and waiting for idle ends. The fetch's task resumes on the
    /// engine's executor, which can no longer run it on the engine thread: its step runs on a
    /// background thread instead, or the task would stay suspended and idle would never come.
    /// The fetch-time generation check itself is exercised by the switch tests above; `stop()`
    /// returns only once the engine ended.
    func testAResultArrivingAfterStopReachesNoCallback() {
        let fixture = Fixture()
        _ = fixture.register(.discovery, firstLoad: true)
        fixture.client.start()
        fixture.settle()
        fixture.holdTheNextCheck()
        fixture.client.stop()
        fixture.transport.releaseHeldFetches()
        // After stop, settling waits for the released fetch's task: its result is refused.
        fixture.settle()
        XCTAssertEqual(fixture.recorder.count, 0)
        XCTAssertEqual(fixture.client.statistics.checksSucceeded, 0, "never handled")
    }
}
