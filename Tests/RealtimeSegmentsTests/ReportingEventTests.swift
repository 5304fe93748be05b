import Foundation
@testable import RealtimeSegments
import RealtimeSegmentsTesting
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

    func testWaitUntilIdleCoversEventDeliveries() throws {
        let fixture = Fixture()
        fixture.client.start()
        let log = EventLog()
        fixture.client.reporting.subscribe { event in
            Thread.sleep(forTimeInterval: 0.01)
            log.append(event)
        }
        try fixture.client.reportingVisitor(visitorId: "v-1").setCustomSegments(["a"])
        fixture.settle()
        XCTAssertEqual(log.all.count, 1)
    }
}
