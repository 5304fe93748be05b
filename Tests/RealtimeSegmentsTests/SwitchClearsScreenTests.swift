import Foundation
import RealtimeSegments
import XCTest

/// SPEC §3 trigger 5 and §4 (issue 30, item 8): after `anonymize()` or a switch to another
/// customer, the previous customer's segments never stay on screen.
final class SwitchClearsScreenTests: XCTestCase {
    /// A client whose first customer has discovery [1] and content [2], and every later customer
    /// content [3] only; both callbacks have been given the first customer's segments.
    private func fixtureShowingTheFirstCustomer() -> Fixture {
        let fixture = Fixture()
        fixture.transport.defaultResponse = response([.content: [3]])
        fixture.transport.setSegments(response([.discovery: [1], .content: [2]]), forCookie: fixture.cookie)
        _ = fixture.register(.discovery, tag: "d")
        _ = fixture.register(.content, tag: "c")
        fixture.startAndRunInitialCheck()
        XCTAssertEqual(fixture.recorder.segments(tag: "d"), [[segment(1)]])
        return fixture
    }

    func testAnonymizeRequestsACheckWithinOneDebounceWindow() {
        let fixture = fixtureShowingTheFirstCustomer()
        let started = fixture.client.statistics.checksStarted
        fixture.client.anonymize()
        fixture.settle()
        fixture.advance(.seconds(5))
        XCTAssertEqual(fixture.client.statistics.checksStarted, started + 1)
        XCTAssertEqual(fixture.transport.fetchedCookies.last, fixture.cookie, "fetched for the new anonymous customer")
    }

    func testAfterAnonymizeACategoryTheNewCustomerLacksIsDeliveredAsEmpty() {
        let fixture = fixtureShowingTheFirstCustomer()
        fixture.client.anonymize()
        fixture.settle()
        fixture.advance(.seconds(5))
        XCTAssertEqual(fixture.recorder.segments(tag: "d"), [[segment(1)], []])
        XCTAssertEqual(fixture.recorder.segments(tag: "c"), [[segment(2)], [segment(3)]])
    }

    func testAfterASwitchToAnotherCustomerACategoryItLacksIsDeliveredAsEmpty() throws {
        let fixture = fixtureShowingTheFirstCustomer()
        fixture.transport.setResponder { _ in response([.content: [3]]) }
        try fixture.client.identifyCustomer(customerIds: ["registered": "jane"])
        fixture.settle()
        fixture.advance(.seconds(5))
        XCTAssertEqual(fixture.recorder.segments(tag: "d"), [[segment(1)], []])
    }

    func testACategoryAlreadyShownEmptyIsNotDeliveredAgainAfterASwitch() {
        let fixture = fixtureShowingTheFirstCustomer()
        fixture.client.anonymize()
        fixture.settle()
        fixture.advance(.seconds(5))
        fixture.client.anonymize()
        fixture.settle()
        fixture.advance(.seconds(5))
        XCTAssertEqual(fixture.recorder.segments(tag: "d"), [[segment(1)], []], "[] once, not at every switch")
    }

    func testAfterARestartACategoryShownBeforeItIsDeliveredAsEmptyWhenTheNewCustomerLacksIt() {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = Fixture(stateDirectory: directory)
        first.transport.setSegments(response([.discovery: [1], .content: [2]]), forCookie: first.cookie)
        _ = first.register(.discovery, tag: "d")
        first.startAndRunInitialCheck()
        XCTAssertEqual(first.recorder.segments(tag: "d"), [[segment(1)]])
        let cookie = first.cookie
        first.client.stop()

        // The restarted app shows the persisted state again through a first load; the data is
        // unchanged, so no check of this process has found discovery changed.
        let second = Fixture(stateDirectory: directory)
        second.transport.defaultResponse = response([.content: [3]])
        second.transport.setSegments(response([.discovery: [1], .content: [2]]), forCookie: cookie)
        _ = second.register(.discovery, firstLoad: true, tag: "d")
        second.startAndRunInitialCheck()
        XCTAssertEqual(second.recorder.segments(tag: "d"), [[segment(1)]])
        second.client.anonymize()
        second.settle()
        second.advance(.seconds(5))
        XCTAssertEqual(second.recorder.segments(tag: "d"), [[segment(1)], []], "the previous customer's segments stayed on screen")
    }
}
