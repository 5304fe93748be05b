import RealtimeSegments
import SegmentsMockServer
import XCTest

final class SegmentRuleTests: XCTestCase {
    func testCustomerEntersTheSegmentAfterTheKthEvent() {
        let backend = SegmentsBackend()
        backend.addRule(Fixtures.viewerRule)

        backend.trackEvents([Fixtures.event("view_item", cookie: "c1"), Fixtures.event("view_item", cookie: "c1")],
            projectToken: "mock-project")
        XCTAssertEqual(backend.segments(forCookie: "c1", projectToken: "mock-project")?[.discovery], [])

        backend.trackEvents([Fixtures.event("view_item", cookie: "c1")], projectToken: "mock-project")
        XCTAssertEqual(backend.segments(forCookie: "c1", projectToken: "mock-project")?[.discovery], [Fixtures.viewer])
    }

    func testOtherEventTypesDoNotCountTowardsEntering() {
        let backend = SegmentsBackend()
        backend.addRule(Fixtures.viewerRule)

        backend.trackEvents(
            [Fixtures.event("view_item", cookie: "c1"), Fixtures.event("add_to_cart", cookie: "c1"),
             Fixtures.event("view_item", cookie: "c1")],
            projectToken: "mock-project")

        XCTAssertEqual(backend.segments(forCookie: "c1", projectToken: "mock-project")?[.discovery], [])
    }

    func testCustomerLeavesOnTheLeaveEventAndNeedsKMoreEventsToReenter() {
        let backend = SegmentsBackend()
        backend.addRule(Fixtures.viewerRule)
        let views = Array(repeating: Fixtures.event("view_item", cookie: "c1"), count: 3)
        backend.trackEvents(views + [Fixtures.event("purchase", cookie: "c1")], projectToken: "mock-project")
        XCTAssertEqual(backend.segments(forCookie: "c1", projectToken: "mock-project")?[.discovery], [])

        backend.trackEvents(Array(views.prefix(2)), projectToken: "mock-project")
        XCTAssertEqual(backend.segments(forCookie: "c1", projectToken: "mock-project")?[.discovery], [])

        backend.trackEvents([views[0]], projectToken: "mock-project")
        XCTAssertEqual(backend.segments(forCookie: "c1", projectToken: "mock-project")?[.discovery], [Fixtures.viewer])
    }

    func testRulesAreEvaluatedInEventOrderWithinOneBatch() {
        let backend = SegmentsBackend()
        backend.addRule(Fixtures.viewerRule)
        let views = Array(repeating: Fixtures.event("view_item", cookie: "c1"), count: 3)

        backend.trackEvents(views + [Fixtures.event("purchase", cookie: "c1")], projectToken: "mock-project")

        let changes = backend.changes(since: 0)
        XCTAssertEqual(changes.map(\.segments), [[Fixtures.viewer], []], "entered at the 3rd event, left at the 4th")
    }

    func testRulesOfOneCategoryListTheirSegmentsInRuleOrder() {
        let backend = SegmentsBackend()
        backend.addRule(SegmentRule(
            category: .discovery, segment: Fixtures.buyer, entersAfter: (eventType: "purchase", count: 1)))
        backend.addRule(SegmentRule(
            category: .discovery, segment: Fixtures.viewer, entersAfter: (eventType: "view_item", count: 1)))

        backend.trackEvents([Fixtures.event("view_item", cookie: "c1"), Fixtures.event("purchase", cookie: "c1")],
            projectToken: "mock-project")

        XCTAssertEqual(
            backend.segments(forCookie: "c1", projectToken: "mock-project")?[.discovery], [Fixtures.buyer, Fixtures.viewer])
    }

    func testARuleCountsOnlyEventsTrackedAfterItWasAdded() {
        let backend = SegmentsBackend()
        backend.trackEvents(Array(repeating: Fixtures.event("view_item", cookie: "c1"), count: 3),
            projectToken: "mock-project")

        backend.addRule(Fixtures.viewerRule)
        backend.trackEvents([Fixtures.event("view_item", cookie: "c1")], projectToken: "mock-project")

        XCTAssertEqual(backend.segments(forCookie: "c1", projectToken: "mock-project")?[.discovery], [])
    }

    func testRemovingAllRulesRemovesTheirSegmentsAsAStampedChange() {
        let backend = SegmentsBackend()
        backend.addRule(SegmentRule(
            category: .content, segment: Fixtures.reader, entersAfter: (eventType: "read", count: 1)))
        backend.trackEvents([Fixtures.event("read", cookie: "c1")], projectToken: "mock-project")
        let entered = backend.currentVersion

        backend.removeAllRules()

        XCTAssertEqual(backend.segments(forCookie: "c1", projectToken: "mock-project")?.categories, [.content: []])
        XCTAssertEqual(backend.changes(since: entered).map(\.segments), [[]])
        XCTAssertTrue(backend.rules.isEmpty)
    }
}
