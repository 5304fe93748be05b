import Foundation
@testable import RealtimeSegments
import RealtimeSegmentsTesting
import Synchronization
import XCTest

/// SPEC §10: every setter call publishes exactly one event with the visitor's full new segments.
final class ReportingEventTests: XCTestCase {
    func testEachSetterCallPublishesOneEventWithTheFullSegments() throws {
        let fixture = Fixture()
        let log = EventLog()
        fixture.client.reporting.subscribe { log.append($0) }
        let visitor = try fixture.client.reportingVisitor(visitorId: "v-1")
        visitor.setDefaultSegments(["country": "DE", "campaign": "spring"])
        visitor.setCustomSegments(["vip"])
        fixture.client.reporting.waitForDeliveries()
        XCTAssertEqual(log.all, [
            ReportingSegmentsEvent(visitorId: "v-1", segments: ReportingSegments(country: "DE", campaign: "spring")),
            ReportingSegmentsEvent(
                visitorId: "v-1", segments: ReportingSegments(country: "DE", campaign: "spring", customSegments: ["vip"])),
        ])
    }

    func testACallThatChangesNothingStillPublishesOneEvent() throws {
        let fixture = Fixture()
        let log = EventLog()
        fixture.client.reporting.subscribe { log.append($0) }
        let visitor = try fixture.client.reportingVisitor(visitorId: "v-1")
        visitor.setDefaultSegments(["planet": "mars"])
        visitor.setCustomSegments([])
        fixture.client.reporting.waitForDeliveries()
        XCTAssertEqual(log.all, Array(repeating: ReportingSegmentsEvent(visitorId: "v-1", segments: ReportingSegments()), count: 2))
    }

    func testUnsubscribeStopsEvents() throws {
        let fixture = Fixture()
        let log = EventLog()
        let subscription = fixture.client.reporting.subscribe { log.append($0) }
        let visitor = try fixture.client.reportingVisitor(visitorId: "v-1")
        visitor.setCustomSegments(["a"])
        fixture.client.reporting.waitForDeliveries()
        XCTAssertTrue(fixture.client.reporting.unsubscribe(subscription))
        visitor.setCustomSegments(["b"])
        fixture.client.reporting.waitForDeliveries()
        XCTAssertEqual(log.all.map(\.segments.customSegments), [["a"]])
        XCTAssertFalse(fixture.client.reporting.unsubscribe(subscription))
    }

    /// Two clients in one process each number their subscriptions: a token of one client must not
    /// end a subscriber of the other.
    func testATokenOfAnotherClientDoesNotEndThisClientsSubscriber() throws {
        let first = Fixture()
        let second = Fixture()
        let log = EventLog()
        first.client.reporting.subscribe { log.append($0) }
        let foreign = second.client.reporting.subscribe { _ in }
        XCTAssertFalse(first.client.reporting.unsubscribe(foreign), "the token was never subscribed on this client")
        try first.client.reportingVisitor(visitorId: "v-1").setCustomSegments(["a"])
        first.client.reporting.waitForDeliveries()
        XCTAssertEqual(log.all.map(\.segments.customSegments), [["a"]], "this client's subscriber was ended")
    }

    func testWaitUntilIdleCoversEventDeliveries() throws {
        let fixture = Fixture()
        fixture.client.start()
        let log = EventLog()
        let delivering = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        fixture.client.reporting.subscribe { event in
            delivering.signal()
            release.wait()
            log.append(event)
        }
        try fixture.client.reportingVisitor(visitorId: "v-1").setCustomSegments(["a"])
        XCTAssertEqual(delivering.wait(timeout: .now() + 10), .success, "the event was not delivered")
        let settled = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            fixture.settle()
            settled.signal()
        }
        // The delivery is held: a wait that covers it cannot return. (A wait that ignored it would
        // return at once; the bound only limits how long this test looks.)
        let returnedWhileHeld = settled.wait(timeout: .now() + 0.2) == .success
        release.signal()
        XCTAssertFalse(returnedWhileHeld, "waitUntilIdle returned while an event delivery was held")
        if !returnedWhileHeld {
            XCTAssertEqual(settled.wait(timeout: .now() + 10), .success, "waitUntilIdle did not return")
        }
        XCTAssertEqual(log.all.count, 1)
    }

    /// The same through the public reporting API.
    func testAReportingSubscriberDoesNotReceiveAnEventOfAChangeMadeBeforeItSubscribed() throws {
        let fixture = Fixture()
        let reporting = fixture.client.reporting
        let visitor = try fixture.client.reportingVisitor(visitorId: "v-1")
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let blocked = Atomic<Bool>(false)
        reporting.subscribe { _ in
            if !blocked.exchange(true, ordering: .relaxed) {
                entered.signal()
                release.wait()
            }
        }
        visitor.setDefaultSegments(["country": "DE"])
        XCTAssertEqual(entered.wait(timeout: .now() + 10), .success)
        visitor.setDefaultSegments(["country": "FR"])  // before the second subscription
        let late = Locked<[String?]>([])
        reporting.subscribe { event in late.withLock { $0.append(event.segments.country) } }
        visitor.setDefaultSegments(["country": "IT"])
        release.signal()
        reporting.waitForDeliveries()
        XCTAssertEqual(late.withLock { $0 }, ["IT"], "FR was set before the subscription")
    }
}
