import XCTest

@_spi(Benchmarks) @testable import RealtimeSegments

/// Link-ids before a fetch: only when the server is not known to link the cookie to the customer's
/// hard ids, and never two links in flight (the server keeps the link it received last).
final class LinkTrackerTests: XCTestCase {
    private func identity(_ ids: [String: String], generation: UInt64 = 1) -> IdentitySnapshot {
        IdentitySnapshot(customerIds: ids, generation: generation)
    }

    private func outcome(
        for identity: IdentitySnapshot, linked: [String: String]?, attempted: Bool = true
    ) -> FetchOutcome {
        FetchOutcome(
            purpose: .check, identity: identity, linked: linked, linkAttempted: attempted,
            result: .success(SegmentsResponse(wireCategories: [:])), sequence: 1)
    }

    private let alice = ["cookie": "c1", "registered": "alice"]
    private let bob = ["cookie": "c1", "registered": "bob"]

    func testAnAnonymousCustomerFetchesWithoutLinking() {
        var links = LinkTracker(cookie: "c1", linkedIds: [:])
        XCTAssertEqual(links.prepareFetch(.check, for: identity(["cookie": "c1"])), .fetch(link: nil))
        XCTAssertFalse(links.linkingFetchInFlight)
    }

    func testHardIdsAreLinkedBeforeTheFirstFetch() {
        var links = LinkTracker(cookie: "c1", linkedIds: [:])
        XCTAssertEqual(links.prepareFetch(.check, for: identity(alice)), .fetch(link: ["registered": "alice"]))
        XCTAssertTrue(links.linkingFetchInFlight)
    }

    func testALinkAnsweredAsDoneIsNotSentAgain() {
        var links = LinkTracker(cookie: "c1", linkedIds: [:])
        let snapshot = identity(alice)
        _ = links.prepareFetch(.check, for: snapshot)
        XCTAssertTrue(links.record(outcome(for: snapshot, linked: ["registered": "alice"])))
        XCTAssertEqual(links.prepareFetch(.pull, for: snapshot), .fetch(link: nil))
        XCTAssertEqual(links.linkedIds(forCookie: "c1"), ["registered": "alice"])
    }

    func testTheStateFilesLinkCountsAsKnownForItsCookieOnly() {
        var links = LinkTracker(cookie: "c1", linkedIds: ["registered": "alice"])
        XCTAssertEqual(links.prepareFetch(.check, for: identity(alice)), .fetch(link: nil))
        XCTAssertEqual(links.linkedIds(forCookie: "c2"), [:])
        XCTAssertEqual(
            links.prepareFetch(.check, for: identity(["cookie": "c2", "registered": "alice"])),
            .fetch(link: ["registered": "alice"]))
    }

    func testAFailedLinkIsSentAgainByTheNextFetch() {
        var links = LinkTracker(cookie: "c1", linkedIds: [:])
        let snapshot = identity(alice)
        _ = links.prepareFetch(.check, for: snapshot)
        XCTAssertTrue(links.record(outcome(for: snapshot, linked: nil)))
        XCTAssertEqual(links.linkedIds(forCookie: "c1"), [:])
        XCTAssertEqual(links.prepareFetch(.check, for: snapshot), .fetch(link: ["registered": "alice"]))
    }

    func testAFetchThatMustLinkWaitsForTheLinkInFlight() {
        var links = LinkTracker(cookie: "c1", linkedIds: [:])
        let first = identity(alice)
        _ = links.prepareFetch(.check, for: first)
        XCTAssertEqual(links.prepareFetch(.pull, for: identity(bob, generation: 2)), .deferred)
        XCTAssertEqual(links.prepareFetch(.check, for: identity(bob, generation: 2)), .deferred)
        XCTAssertTrue(links.takeDeferred() == (false, false), "nothing resumes while the link is in flight")
        _ = links.record(outcome(for: first, linked: ["registered": "alice"]))
        XCTAssertTrue(links.takeDeferred() == (true, true))
        XCTAssertTrue(links.takeDeferred() == (false, false), "each deferred fetch is handed back once")
        XCTAssertEqual(links.prepareFetch(.check, for: identity(bob, generation: 2)), .fetch(link: ["registered": "bob"]))
    }

    func testAFetchThatNeedsNoLinkDoesNotWaitForTheLinkInFlight() {
        var links = LinkTracker(cookie: "c1", linkedIds: [:])
        _ = links.prepareFetch(.check, for: identity(alice))
        XCTAssertEqual(links.prepareFetch(.pull, for: identity(["cookie": "c2"], generation: 2)), .fetch(link: nil))
    }

    func testAFetchThatSentNoLinkChangesNothing() {
        var links = LinkTracker(cookie: "c1", linkedIds: [:])
        let snapshot = identity(alice)
        _ = links.prepareFetch(.check, for: snapshot)
        XCTAssertFalse(links.record(outcome(for: identity(["cookie": "c1"]), linked: nil, attempted: false)))
        XCTAssertTrue(links.linkingFetchInFlight)
    }
}
