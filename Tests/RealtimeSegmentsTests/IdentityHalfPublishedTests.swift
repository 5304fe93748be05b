import Dispatch
import Foundation
@testable import RealtimeSegments
import XCTest

/// An identity change publishes two things: the generation that results and deliveries are
/// checked against, and the snapshot `customerIds` reads. Once an app can see the new customer,
/// no result fetched for the previous one may reach a callback.
final class IdentityHalfPublishedTests: XCTestCase {
    func testNoCallbackGetsThePreviousCustomersSegmentsOnceCustomerIdsShowsTheNewOne() throws {
        let gate = HeldHook(armed: false)
        let fixture = Fixture { $0.identityHalfPublishedForTesting = { gate.hold() } }
        fixture.transport.defaultResponse = response([.discovery: [1]])
        _ = fixture.register(.discovery, firstLoad: true, tag: "d")
        fixture.client.start()
        fixture.settle()
        fixture.holdTheNextCheck()  // the anonymous customer's check, in flight
        let anonymous = fixture.client.customerIds

        gate.arm()
        let client = fixture.client
        let returned = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            try? client.identifyCustomer(customerIds: ["registered": "jane"])
            returned.signal()
        }
        XCTAssertEqual(gate.waitUntilHeld(timeout: .now() + 10), .success, "identifyCustomer reached its halfway point")
        let seenMeanwhile = fixture.client.customerIds
        fixture.transport.releaseHeldFetches()
        waitUntil { fixture.transport.heldFetchCount == 0 && fixture.client.statistics.checksSucceeded + fixture.client.statistics.staleResultsDropped >= 1 }
        fixture.settle()
        let delivered = fixture.recorder.count(tag: "d")
        gate.release()
        XCTAssertEqual(returned.wait(timeout: .now() + 10), .success)
        fixture.settle()

        // Whichever of the two an app could see halfway, the result fetched for the customer left
        // is dropped: seen before, the new customer was already showing.
        XCTAssertEqual(
            delivered, 0,
            "customerIds showed \(seenMeanwhile) while a callback got the segments fetched for \(anonymous)")
        XCTAssertEqual(fixture.client.customerIds["registered"], "jane")
    }
}
