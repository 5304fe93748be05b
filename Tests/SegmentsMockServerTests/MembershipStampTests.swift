import RealtimeSegments
import SegmentsMockServer
import XCTest

final class MembershipStampTests: XCTestCase {
    func testEveryChangeIsStampedWithTheNextVersionAndTheClock() {
        let clock = FakeNanosecondClock(start: 5_000)
        let backend = SegmentsBackend(clock: clock.now)
        backend.addRule(SegmentRule(
            category: .discovery, segment: Fixtures.viewer, entersAfter: (eventType: "view_item", count: 1),
            leavesOn: "purchase"))
        XCTAssertEqual(backend.currentVersion, 0)

        backend.trackEvents([Fixtures.event("view_item", cookie: "c1")], projectToken: "mock-project")
        clock.advance(by: 250)
        backend.trackEvents([Fixtures.event("purchase", cookie: "c1")], projectToken: "mock-project")

        XCTAssertEqual(backend.changes(since: 0).map(\.version), [1, 2])
        XCTAssertEqual(backend.changes(since: 0).map(\.changedAt), [5_000, 5_250])
        XCTAssertEqual(backend.currentVersion, 2)
    }

    func testAChangeNamesTheCustomerTheCategoryAndTheNewFullList() throws {
        let clock = FakeNanosecondClock(start: 7)
        let backend = SegmentsBackend(clock: clock.now)
        backend.addRule(SegmentRule(
            category: .discovery, segment: Fixtures.viewer, entersAfter: (eventType: "view_item", count: 1)))
        backend.addRule(SegmentRule(
            category: .discovery, segment: Fixtures.buyer, entersAfter: (eventType: "purchase", count: 1)))

        backend.trackEvents([Fixtures.event("view_item", cookie: "c1"), Fixtures.event("purchase", cookie: "c1")],
            projectToken: "mock-project")

        let change = try XCTUnwrap(backend.lastChange(forCookie: "c1", category: .discovery))
        let customer = try XCTUnwrap(backend.customer(forCookie: "c1"))
        XCTAssertEqual(
            change,
            MembershipChange(
                projectToken: "mock-project", cookie: "c1", customerKey: customer.customerKey, category: .discovery,
                segments: [Fixtures.viewer, Fixtures.buyer], version: 2, changedAt: 7))
    }

    func testEventsThatDoNotChangeMembershipAreNotStamped() {
        let backend = SegmentsBackend()
        backend.addRule(SegmentRule(
            category: .discovery, segment: Fixtures.viewer, entersAfter: (eventType: "view_item", count: 1)))

        backend.trackEvents(Array(repeating: Fixtures.event("view_item", cookie: "c1"), count: 5),
            projectToken: "mock-project")

        XCTAssertEqual(backend.currentVersion, 1)
    }

    func testChangesSinceReturnsOnlyNewerChangesInVersionOrder() {
        let backend = SegmentsBackend()
        for cookie in ["a", "b", "c"] {
            backend.setSegments([Fixtures.reader], category: .content, forCookie: cookie)
        }

        XCTAssertEqual(backend.changes(since: 1).map(\.cookie), ["b", "c"])
        XCTAssertEqual(backend.changes(since: 3), [])
    }

    func testScriptedSegmentsOverrideRulesUntilCleared() throws {
        let backend = SegmentsBackend()
        backend.addRule(SegmentRule(
            category: .discovery, segment: Fixtures.viewer, entersAfter: (eventType: "view_item", count: 1)))
        backend.trackEvents([Fixtures.event("view_item", cookie: "c1")], projectToken: "mock-project")

        backend.setSegments([Fixtures.buyer], category: .discovery, forCookie: "c1")
        backend.trackEvents([Fixtures.event("view_item", cookie: "c1")], projectToken: "mock-project")
        XCTAssertEqual(backend.segments(forCookie: "c1", projectToken: "mock-project")?[.discovery], [Fixtures.buyer])

        backend.clearScripted(category: .discovery, forCookie: "c1")
        XCTAssertEqual(backend.segments(forCookie: "c1", projectToken: "mock-project")?[.discovery], [Fixtures.viewer])
        XCTAssertEqual(backend.changes(since: 0).map(\.segments), [[Fixtures.viewer], [Fixtures.buyer], [Fixtures.viewer]])
    }

    func testReorderingTheSameSegmentsIsNotAChange() {
        let backend = SegmentsBackend()
        backend.setSegments([Fixtures.viewer, Fixtures.buyer], category: .discovery, forCookie: "c1")

        backend.setSegments([Fixtures.buyer, Fixtures.viewer, Fixtures.buyer], category: .discovery, forCookie: "c1")

        XCTAssertEqual(backend.currentVersion, 1)
        XCTAssertEqual(
            backend.segments(forCookie: "c1", projectToken: "mock-project")?[.discovery],
            [Fixtures.buyer, Fixtures.viewer, Fixtures.buyer], "a fetch returns the latest list as set")
    }

    func testLastChangeIsFoundThroughAnyOfTheCustomersCookies() throws {
        let backend = SegmentsBackend()
        backend.identify(CustomerUpdate(customerIds: ["cookie": "first", "registered": "jane"], properties: [:]),
            projectToken: "mock-project")
        backend.linkIds(cookie: "second", externalIds: ["registered": "jane"], projectToken: "mock-project")

        backend.setSegments([Fixtures.reader], category: .content, forCookie: "second")

        let change = try XCTUnwrap(backend.lastChange(forCookie: "first", category: .content))
        XCTAssertEqual(change.cookie, "first", "stamped with the primary cookie")
        XCTAssertEqual(backend.lastChange(forCookie: "second", category: .content), change)
        XCTAssertNil(backend.lastChange(forCookie: "first", category: .discovery))
    }
}
