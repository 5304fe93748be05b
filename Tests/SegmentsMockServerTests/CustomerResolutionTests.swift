import RealtimeSegments
import SegmentsMockServer
import XCTest

final class CustomerResolutionTests: XCTestCase {
    func testEventsOfOneCookieBelongToOneCustomer() throws {
        let backend = SegmentsBackend()

        backend.trackEvents([Fixtures.event("a", cookie: "c1"), Fixtures.event("b", cookie: "c1"),
            Fixtures.event("a", cookie: "c2")], projectToken: "mock-project")

        XCTAssertEqual(backend.customerCount(), 2)
        XCTAssertEqual(backend.eventCount(forCookie: "c1"), 2)
        XCTAssertEqual(try XCTUnwrap(backend.customer(forCookie: "c1")).eventCountsByType, ["a": 1, "b": 1])
        XCTAssertEqual(backend.events(forCookie: "c1").map(\.eventType), ["a", "b"])
        XCTAssertEqual(backend.eventsAccepted, 3)
    }

    /// A harness that numbers its events counts each number once, however many copies arrive.
    func testDistinctEventsAreCountedByTheirNumberProperty() {
        let backend = SegmentsBackend()
        func numbered(_ number: Double) -> TrackedEvent {
            TrackedEvent(customerIds: ["cookie": "c1"], eventType: "e", timestamp: 1, properties: ["seq": .number(number)])
        }
        backend.trackEvents([numbered(1)], projectToken: "mock-project")  // before counting: not counted
        backend.countDistinctEvents(byNumberProperty: "seq")
        backend.trackEvents([numbered(1), numbered(2), numbered(2), Fixtures.event("a", cookie: "c1")], projectToken: "mock-project")
        XCTAssertEqual(backend.eventsAccepted, 5)
        XCTAssertEqual(backend.distinctEventsAccepted, 2)
    }

    func testAHardIdFindsItsCustomerBeforeTheCookie() throws {
        let backend = SegmentsBackend()
        backend.trackEvents([Fixtures.event("a", ["cookie": "c1", "registered": "jane"])], projectToken: "mock-project")
        backend.trackEvents([Fixtures.event("a", cookie: "c2")], projectToken: "mock-project")

        backend.trackEvents([Fixtures.event("b", ["cookie": "c2", "registered": "jane"])], projectToken: "mock-project")

        let jane = try XCTUnwrap(backend.customer(externalIdName: "registered", value: "jane"))
        XCTAssertEqual(jane.cookies, ["c1", "c2"], "the cookie moved into jane")
        XCTAssertEqual(jane.eventCount, 2)
        XCTAssertEqual(backend.customer(forCookie: "c2")?.customerKey, jane.customerKey)
    }

    func testLinkingACookieToAnotherCustomersIdsMovesTheCookieIntoThatCustomer() throws {
        let backend = SegmentsBackend()
        backend.identify(CustomerUpdate(customerIds: ["cookie": "c1", "registered": "jane"], properties: [:]),
            projectToken: "mock-project")
        backend.trackEvents([Fixtures.event("view_item", cookie: "anon")], projectToken: "mock-project")
        let anonymousKey = try XCTUnwrap(backend.customer(forCookie: "anon")).customerKey

        XCTAssertTrue(backend.linkIds(cookie: "anon", externalIds: ["registered": "jane"], projectToken: "mock-project"))

        let jane = try XCTUnwrap(backend.customer(forCookie: "anon"))
        XCTAssertNotEqual(jane.customerKey, anonymousKey)
        XCTAssertEqual(jane.cookies, ["c1", "anon"])
        XCTAssertEqual(jane.externalIds, ["registered": "jane"])
        XCTAssertEqual(backend.linkCalls, 1)
    }

    func testLinkingNewIdsToAKnownCookieAddsThemToItsCustomer() throws {
        let backend = SegmentsBackend()
        backend.trackEvents([Fixtures.event("view_item", cookie: "anon")], projectToken: "mock-project")
        let key = try XCTUnwrap(backend.customer(forCookie: "anon")).customerKey

        backend.linkIds(cookie: "anon", externalIds: ["registered": "joe", "email": "joe@example.com"],
            projectToken: "mock-project")

        let joe = try XCTUnwrap(backend.customer(externalIdName: "email", value: "joe@example.com"))
        XCTAssertEqual(joe.customerKey, key)
        XCTAssertEqual(joe.externalIds, ["registered": "joe", "email": "joe@example.com"])
        XCTAssertEqual(joe.eventCount, 1)
    }

    func testAHardIdBelongsToOneCustomerOnly() throws {
        let backend = SegmentsBackend()
        backend.identify(CustomerUpdate(customerIds: ["cookie": "c1", "email": "x@example.com"], properties: [:]),
            projectToken: "mock-project")
        backend.identify(CustomerUpdate(customerIds: ["cookie": "c2", "registered": "ann"], properties: [:]),
            projectToken: "mock-project")

        // Both ids are known; the first by id name ("email") picks the customer, and "registered"
        // moves to it from the other customer.
        backend.identify(CustomerUpdate(customerIds: ["registered": "ann", "email": "x@example.com"], properties: [:]),
            projectToken: "mock-project")

        XCTAssertEqual(backend.customer(forCookie: "c1")?.externalIds, ["registered": "ann", "email": "x@example.com"])
        XCTAssertEqual(backend.customer(forCookie: "c2")?.externalIds, [:])
        XCTAssertEqual(backend.customer(externalIdName: "registered", value: "ann")?.cookies, ["c1"])
    }

    func testCustomerUpdatesMergeProperties() throws {
        let backend = SegmentsBackend()
        backend.identify(CustomerUpdate(customerIds: ["cookie": "c1"], properties: ["a": 1, "b": "x"]),
            projectToken: "mock-project")

        backend.identify(CustomerUpdate(customerIds: ["cookie": "c1"], properties: ["b": "y"]), projectToken: "mock-project")

        XCTAssertEqual(backend.customer(forCookie: "c1")?.properties, ["a": 1, "b": "y"])
    }

    func testOnlyTheLastThousandEventsOfACustomerAreKeptButAllAreCounted() {
        let backend = SegmentsBackend()
        let events = (0..<1_500).map { Fixtures.event("e\($0)", cookie: "c1") }

        backend.trackEvents(events, projectToken: "mock-project")

        XCTAssertEqual(backend.eventCount(forCookie: "c1"), 1_500)
        XCTAssertEqual(backend.events(forCookie: "c1").map(\.eventType), (500..<1_500).map { "e\($0)" })
    }

    func testCustomersOfDifferentProjectsAreSeparate() {
        let backend = SegmentsBackend(projects: [
            MockProject(token: "p1", apiKey: "k1"), MockProject(token: "p2", apiKey: "k2"),
        ])

        backend.trackEvents([Fixtures.event("a", cookie: "c1")], projectToken: "p2")

        XCTAssertEqual(backend.eventCount(forCookie: "c1"), 0, "the default project is p1")
        XCTAssertEqual(backend.eventCount(forCookie: "c1", projectToken: "p2"), 1)
    }

    func testUnknownProjectTokenStoresNothing() {
        let backend = SegmentsBackend()

        XCTAssertFalse(backend.trackEvents([Fixtures.event("a", cookie: "c1")], projectToken: "nope"))
        XCTAssertFalse(backend.linkIds(cookie: "c1", externalIds: ["registered": "x"], projectToken: "nope"))

        XCTAssertEqual(backend.eventsAccepted, 0)
        XCTAssertEqual(backend.linkCalls, 0)
    }
}
