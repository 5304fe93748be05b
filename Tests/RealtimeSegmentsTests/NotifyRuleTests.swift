import Foundation
import RealtimeSegments
import Synchronization
import XCTest

/// SPEC §4: a category is changed iff its set differs; callbacks of changed categories get the full
/// list; first loads are served exactly once.
final class NotifyRuleTests: XCTestCase {
    func testChangedCategoryNotifiesItsCallbacksWithTheFullCurrentList() {
        let fixture = Fixture()
        fixture.transport.defaultResponse = response([.discovery: [1, 2]])
        _ = fixture.register(.discovery, tag: "d")
        fixture.startAndRunInitialCheck()
        XCTAssertEqual(fixture.recorder.segments(tag: "d"), [[segment(1), segment(2)]])

        fixture.transport.defaultResponse = response([.discovery: [1, 2, 3]])
        fixture.client.segmentation.addCallback(callbackData: fixture.recorder.callback(.content, tag: "c"))
        fixture.settle()
        fixture.advance(.seconds(5))
        XCTAssertEqual(fixture.recorder.segments(tag: "d").last, [segment(1), segment(2), segment(3)], "full list, not a delta")
    }

    func testUnchangedCategoryNotifiesNobody() {
        let fixture = Fixture()
        fixture.transport.defaultResponse = response([.discovery: [1]])
        _ = fixture.register(.discovery, tag: "d")
        fixture.startAndRunInitialCheck()
        XCTAssertEqual(fixture.recorder.count, 1)
        _ = fixture.register(.content, tag: "c")
        fixture.advance(.seconds(5))
        XCTAssertEqual(fixture.transport.fetchCount, 2)
        XCTAssertEqual(fixture.recorder.count, 1)
    }

    func testOrderAndDuplicatesDoNotCountAsAChange() {
        let fixture = Fixture()
        fixture.transport.defaultResponse = response([.discovery: [1, 2]])
        _ = fixture.register(.discovery, tag: "d")
        fixture.startAndRunInitialCheck()
        fixture.transport.defaultResponse = response([.discovery: [2, 1, 2]])
        _ = fixture.register(.content)
        fixture.advance(.seconds(5))
        XCTAssertEqual(fixture.recorder.count(tag: "d"), 1)
    }

    func testOnlyTheChangedCategoryIsNotified() {
        let fixture = Fixture()
        fixture.transport.defaultResponse = response([.discovery: [1], .content: [2]])
        _ = fixture.register(.discovery, tag: "d")
        _ = fixture.register(.content, tag: "c")
        fixture.startAndRunInitialCheck()
        fixture.recorder.clear()
        fixture.transport.defaultResponse = response([.discovery: [1], .content: [3]])
        _ = fixture.register(.merchandising, tag: "m")
        fixture.advance(.seconds(5))
        XCTAssertEqual(fixture.recorder.tags, ["c"])
    }

    func testACategoryThatAppearsIsAChange() {
        let fixture = Fixture()
        fixture.transport.defaultResponse = response([.discovery: [1]])
        _ = fixture.register(.discovery)
        _ = fixture.register(.content, tag: "c")
        fixture.startAndRunInitialCheck()
        XCTAssertEqual(fixture.recorder.count(tag: "c"), 0)
        fixture.transport.defaultResponse = response([.discovery: [1], .content: []])
        _ = fixture.register(.merchandising)
        fixture.advance(.seconds(5))
        XCTAssertEqual(fixture.recorder.segments(tag: "c"), [[]])
    }

    func testACategoryThatDisappearsIsAChangeDeliveredAsEmpty() {
        let fixture = Fixture()
        fixture.transport.defaultResponse = response([.discovery: [1], .content: [2]])
        _ = fixture.register(.content, tag: "c")
        fixture.startAndRunInitialCheck()
        fixture.transport.defaultResponse = response([.discovery: [1]])
        _ = fixture.register(.merchandising)
        fixture.advance(.seconds(5))
        XCTAssertEqual(fixture.recorder.segments(tag: "c"), [[segment(2)], []])
    }

    func testANewCustomerMakesEveryResponseCategoryChanged() throws {
        let fixture = Fixture()
        fixture.transport.defaultResponse = response([.discovery: [1]])
        _ = fixture.register(.discovery, tag: "d")
        fixture.startAndRunInitialCheck()
        try fixture.client.identifyCustomer(customerIds: ["registered": "jane"])
        fixture.settle()
        fixture.advance(.seconds(5))
        XCTAssertEqual(fixture.recorder.segments(tag: "d"), [[segment(1)], [segment(1)]], "same data, new customer ids")
    }

    func testEachRegistrationIsNotifiedAtMostOncePerCheck() {
        let fixture = Fixture()
        fixture.transport.defaultResponse = response([.discovery: [1]])
        let callback = fixture.recorder.callback(.discovery, firstLoad: true, tag: "d")
        fixture.client.segmentation.addCallback(callbackData: callback)
        fixture.client.segmentation.addCallback(callbackData: callback)
        fixture.startAndRunInitialCheck()
        XCTAssertEqual(fixture.recorder.count(tag: "d"), 2, "two registrations, each once (changed and first load)")
    }

    func testFirstLoadCallbackIsNotifiedOnceEvenWhenDataIsUnchanged() {
        let fixture = Fixture()
        fixture.transport.defaultResponse = response([.discovery: [1]])
        _ = fixture.register(.discovery, tag: "old")
        fixture.startAndRunInitialCheck()
        _ = fixture.register(.discovery, firstLoad: true, tag: "new")
        fixture.advance(.seconds(5))
        XCTAssertEqual(fixture.recorder.segments(tag: "new"), [[segment(1)]])
        XCTAssertEqual(fixture.recorder.count(tag: "old"), 1, "unchanged data for a first load does not notify others")
        _ = fixture.register(.content)
        fixture.advance(.seconds(5))
        XCTAssertEqual(fixture.recorder.count(tag: "new"), 1, "only once")
    }

    func testFirstLoadOfACategoryMissingFromTheResponseIsEmpty() {
        let fixture = Fixture()
        fixture.transport.defaultResponse = response([.discovery: [1]])
        _ = fixture.register(.other("custom_future_category"), firstLoad: true, tag: "f")
        fixture.startAndRunInitialCheck()
        XCTAssertEqual(fixture.recorder.segments(tag: "f"), [[]])
    }

    func testFirstLoadOfAnEmptyCategoryIsDelivered() {
        let fixture = Fixture()
        fixture.transport.defaultResponse = response([.content: []])
        _ = fixture.register(.content, firstLoad: true, tag: "c")
        fixture.startAndRunInitialCheck()
        XCTAssertEqual(fixture.recorder.segments(tag: "c"), [[]])
    }

    func testFirstLoadStaysPendingAcrossAFailedCheck() {
        let fixture = Fixture()
        fixture.transport.defaultResponse = response([.discovery: [1]])
        _ = fixture.register(.discovery, tag: "plain")
        fixture.startAndRunInitialCheck()
        // The data is known and will not change: only a pending first load can bring it to "d".
        fixture.transport.failNext(.fetchSegments, with: .serverError(status: 503))
        _ = fixture.register(.discovery, firstLoad: true, tag: "d")
        fixture.settle()
        fixture.advance(.seconds(5))
        XCTAssertEqual(fixture.transport.fetchCount, 2, "the second check ran, and failed")
        XCTAssertEqual(fixture.recorder.count(tag: "d"), 0)
        _ = fixture.register(.content)
        fixture.settle()
        fixture.advance(.seconds(5))
        XCTAssertEqual(fixture.recorder.segments(tag: "d"), [[segment(1)]])
        XCTAssertEqual(fixture.recorder.count(tag: "plain"), 1, "unchanged: nobody else notified")
    }

    func testFirstLoadStaysPendingAcrossACheckCancelledByACustomerChange() throws {
        let fixture = Fixture()
        fixture.transport.defaultResponse = response([.discovery: [1]])
        // On a category the response leaves out: for the new customer it is not "changed", so
        // only a first load still pending brings it `[]`.
        _ = fixture.register(.content, firstLoad: true, tag: "c")
        fixture.client.start()
        fixture.settle()
        fixture.holdTheNextCheck()
        try fixture.client.identifyCustomer(customerIds: ["registered": "jane"])
        fixture.transport.releaseHeldFetches()
        fixture.settle()
        XCTAssertEqual(fixture.recorder.count, 0, "the result for the previous ids is dropped")
        fixture.advance(.seconds(5))
        XCTAssertEqual(fixture.recorder.segments(tag: "c"), [[]], "served by the next check")
    }

    /// SPEC §4, §5: a delivery cut short by a switch (a new hard id) leaves the first loads it did
    /// not reach pending, and the next check serves them, for the new customer.
    func testFirstLoadsCutShortByASwitchMidDeliveryAreServedByTheNextCheck() throws {
        let fixture = Fixture()
        // On a category the responses leave out: for the new customer it is not "changed", so only
        // a first load still pending brings it `[]`.
        fixture.transport.defaultResponse = response([.discovery: [1]])
        let entered = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let blocked = Atomic<Bool>(false)
        fixture.client.segmentation.addCallback(callbackData: SegmentCallbackData(category: .content, isIncludeFirstLoad: true) { segments in
            fixture.recorder.record(tag: "first", segments)
            guard !blocked.exchange(true, ordering: .relaxed) else { return }
            entered.signal()
            proceed.wait()
        })
        _ = fixture.register(.content, firstLoad: true, tag: "cut")
        _ = fixture.register(.content, firstLoad: true, tag: "cut")
        fixture.client.start()
        fixture.settle()
        fixture.clock.advance(by: .seconds(5))  // the initial check; its delivery blocks in the first callback
        XCTAssertEqual(entered.wait(timeout: .now() + 10), .success, "the delivery started")
        try fixture.client.identifyCustomer(customerIds: ["registered": "jane"])
        proceed.signal()
        fixture.settle()
        XCTAssertEqual(fixture.recorder.count(tag: "cut"), 0, "the switch stopped the delivery before them")
        fixture.advance(.seconds(5))
        XCTAssertEqual(fixture.recorder.segments(tag: "cut"), [[], []], "served by the next check")
        XCTAssertEqual(fixture.recorder.segments(tag: "first"), [[]], "a first load is served once")
        XCTAssertEqual(fixture.transport.fetchedCookies.count, 2)
    }
}
