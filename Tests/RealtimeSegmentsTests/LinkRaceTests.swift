import Dispatch
import Foundation
@_spi(Benchmarks) @testable import RealtimeSegments
import XCTest

/// SPEC §5, "no callback may ever receive segments fetched for another customer", against a
/// server that resolves the cookie to the customer linked last (issue 30, item 2): a listener
/// check and a `getSegments` pull both link, for different customers, and the older link lands
/// last. The engine must never have two links in flight, and must link again after a stale one.
final class LinkRaceTests: XCTestCase {
    private let alice = LastLinkWinsTransport.response(for: "alice")[.discovery]
    private let bob = LastLinkWinsTransport.response(for: "bob")[.discovery]

    /// Waits until the engine has handled everything posted before (and run the steps of fetches
    /// that started meanwhile on its thread).
    private func barrier(_ fixture: Fixture) {
        let semaphore = DispatchSemaphore(value: 0)
        fixture.client.channels.post(.barrier(semaphore, through: 0))
        semaphore.wait()
    }

    /// If a second link was sent while the first was held, lets the second land first and holds
    /// the fetch behind it until the first link has landed too (the race the server can see); then
    /// lets every link land and every fetch be answered.
    private func landTheNewerLinkFirst(_ server: LastLinkWinsTransport) {
        if server.heldLinkCount == 2 {
            server.releaseNewestHeldLink()
            waitUntil { server.landedLinks.count == 1 && server.heldFetchCount == 1 }
        }
        server.releaseHeldLinks()
        waitUntil { server.landedLinks.count == server.linkCallCount }
        server.releaseHeldFetches()
    }

    private func pull(_ fixture: Fixture) -> () -> [Segment] {
        let done = DispatchSemaphore(value: 0)
        let result = Locked<[Segment]>([])
        fixture.client.getSegments(category: .discovery) { segments in
            result.withLock { $0 = segments }
            done.signal()
        }
        return {
            XCTAssertEqual(done.wait(timeout: .now() + 10), .success, "getSegments completed")
            return result.withLock { $0 }
        }
    }

    func testACheckWhoseLinkLandsLateNeverDeliversThePreviousCustomersSegments() throws {
        let server = LastLinkWinsTransport()
        let fixture = Fixture { $0.transport = server }
        _ = fixture.register(.discovery, tag: "d")
        fixture.client.start()
        try fixture.client.identifyCustomer(customerIds: ["registered": "alice"])
        fixture.settle()
        server.holdLinks()
        server.holdFetches()
        fixture.clock.advance(by: .seconds(5))  // the check for alice: its link is held
        waitUntil { server.heldLinkCount == 1 }

        try fixture.client.identifyCustomer(customerIds: ["registered": "bob"])
        let pulled = pull(fixture)
        barrier(fixture)
        landTheNewerLinkFirst(server)
        XCTAssertEqual(pulled(), bob, "getSegments returns bob's segments")
        fixture.settle()
        for _ in 0..<3 { fixture.advance(.seconds(5)) }

        XCTAssertFalse(fixture.recorder.segments(tag: "d").contains(alice), "no callback got alice's segments after the switch to bob")
        XCTAssertEqual(fixture.recorder.segments(tag: "d").last, bob)
        XCTAssertEqual(server.mostLinksInFlight, 1, "never two links in flight")
        XCTAssertEqual(server.landedLinks.last, "bob", "after alice's stale link, bob is linked again")
    }

    func testAPullWhoseLinkLandsLateNeverReturnsThePreviousCustomersSegments() throws {
        let server = LastLinkWinsTransport()
        let fixture = Fixture { $0.transport = server }
        _ = fixture.register(.discovery, tag: "d")
        fixture.client.start()
        try fixture.client.identifyCustomer(customerIds: ["registered": "alice"])
        fixture.settle()
        server.holdLinks()
        server.holdFetches()
        let pulled = pull(fixture)  // for alice: its link is held
        barrier(fixture)
        XCTAssertEqual(server.heldLinkCount, 1)

        try fixture.client.identifyCustomer(customerIds: ["registered": "bob"])
        barrier(fixture)
        fixture.clock.advance(by: .seconds(5))  // the check for bob
        barrier(fixture)  // the check starts
        barrier(fixture)  // its first step (a link, if it sends one) has run
        landTheNewerLinkFirst(server)
        XCTAssertEqual(pulled(), bob, "the pull refetched for bob, after linking bob again")
        fixture.settle()
        for _ in 0..<3 { fixture.advance(.seconds(5)) }
        try fixture.client.trackEvent(eventType: "view")  // one more check, which must still see bob
        fixture.settle()
        fixture.advance(.seconds(5))

        XCTAssertFalse(fixture.recorder.segments(tag: "d").contains(alice), "no callback got alice's segments")
        XCTAssertEqual(fixture.recorder.segments(tag: "d").last, bob)
        XCTAssertEqual(server.mostLinksInFlight, 1, "never two links in flight")
        XCTAssertEqual(server.landedLinks.last, "bob")
    }
}
