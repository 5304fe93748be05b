import RealtimeSegments
import XCTest

/// The reference SDKs' own test cases (Exponea iOS `SegmentationSpec`, Android
/// `SegmentsManagerImplTest`), restated against this engine. See shared/notes/exponea-behavior.md §11.
final class ReferenceSDKCaseTests: XCTestCase {
    /// iOS "union segments": categories of the response, of the stored state and of first loads are
    /// all considered; one only in the stored state is delivered as empty.
    func testUnionOfResponseAndStoredCategories() {
        let fixture = Fixture()
        fixture.transport.defaultResponse = response([.content: [5], .merchandising: [6, 7, 8]])
        _ = fixture.register(.discovery, tag: "d")
        _ = fixture.register(.content, tag: "c")
        _ = fixture.register(.merchandising, tag: "m")
        fixture.startAndRunInitialCheck()
        fixture.recorder.clear()
        fixture.transport.defaultResponse = response([.discovery: [1, 2, 3], .content: [4]])
        _ = fixture.register(.other("x"))
        fixture.advance(.seconds(5))
        XCTAssertEqual(fixture.recorder.segments(tag: "d"), [[segment(1), segment(2), segment(3)]])
        XCTAssertEqual(fixture.recorder.segments(tag: "c"), [[segment(4)]])
        XCTAssertEqual(fixture.recorder.segments(tag: "m"), [[]])
    }

    /// iOS "callbacks": four discovery callbacks, two with first load; new data reaches each once.
    func testFourCallbacksTwoWithFirstLoadEachNotifiedOnce() {
        let fixture = Fixture()
        fixture.transport.defaultResponse = response([.discovery: [1]])
        for index in 0..<4 { _ = fixture.register(.discovery, firstLoad: index < 2, tag: "\(index)") }
        fixture.startAndRunInitialCheck()
        XCTAssertEqual(fixture.recorder.tags, ["0", "1", "2", "3"])
    }

    /// iOS "remove and anonymize".
    func testRemoveAndAnonymize() {
        let fixture = Fixture()
        let manager = fixture.client.segmentation
        let first = fixture.recorder.callback(.discovery, firstLoad: false, tag: "1")
        let second = fixture.recorder.callback(.discovery, firstLoad: true, tag: "2")
        manager.addCallback(callbackData: first)
        for _ in 0..<3 { manager.addCallback(callbackData: second) }
        manager.removeCallback(callbackData: first)
        XCTAssertEqual(manager.callbackCount, 3)
        manager.removeCallback(callbackData: second)
        XCTAssertEqual(manager.callbackCount, 0)
        manager.addCallback(callbackData: first)
        manager.addCallback(callbackData: second)
        fixture.client.start()
        fixture.client.anonymize()
        fixture.settle()
        XCTAssertEqual(manager.callbackCount, 2, "listeners are kept")
        fixture.transport.defaultResponse = response([.content: [1]])
        _ = fixture.register(.content)
        fixture.advance(.seconds(5))
        XCTAssertEqual(fixture.recorder.count(tag: "2"), 0, "its first load was cleared by anonymize")
    }

    /// iOS "synchronize": same data → nothing; changed → that category; other customer → every
    /// response category. Other customer with an empty response: the reference SDK notifies
    /// nobody, leaving the previous customer's segments on screen; SPEC §4 delivers `[]` to the
    /// categories that were showing segments.
    func testSynchronizeCases() throws {
        let fixture = Fixture()
        _ = fixture.register(.discovery, tag: "d")
        fixture.transport.defaultResponse = response([.discovery: [1]])
        fixture.startAndRunInitialCheck()
        fixture.recorder.clear()

        _ = fixture.register(.other("trigger-1"))
        fixture.advance(.seconds(5))
        XCTAssertEqual(fixture.recorder.count, 0, "same data")

        fixture.transport.defaultResponse = response([.discovery: [2]])
        _ = fixture.register(.other("trigger-2"))
        fixture.advance(.seconds(5))
        XCTAssertEqual(fixture.recorder.segments(tag: "d"), [[segment(2)]], "changed")

        fixture.transport.defaultResponse = response([.discovery: [1, 2, 3]])
        try fixture.client.identifyCustomer(customerIds: ["customer": "oldText"])
        fixture.settle()
        fixture.advance(.seconds(5))
        XCTAssertEqual(fixture.recorder.segments(tag: "d").last, [segment(1), segment(2), segment(3)], "new customer")

        fixture.recorder.clear()
        fixture.transport.defaultResponse = SegmentsResponse()
        try fixture.client.identifyCustomer(customerIds: ["customer": "another"])
        fixture.settle()
        fixture.advance(.seconds(5))
        XCTAssertEqual(fixture.recorder.segments(tag: "d"), [[]], "new customer, empty response: cleared, not left on screen")
    }

    /// iOS "lifetime": the getSegments cache is fresh at creation and expired after 5.5 s.
    func testCacheLifetime() async throws {
        let fixture = Fixture()
        fixture.client.start()
        _ = try await fixture.client.getSegments(category: .discovery)
        _ = try await fixture.client.getSegments(category: .discovery)
        XCTAssertEqual(fixture.transport.fetchCount, 1)
        fixture.clock.advance(by: .milliseconds(5_500))
        _ = try await fixture.client.getSegments(category: .discovery)
        XCTAssertEqual(fixture.transport.fetchCount, 2)
    }

    /// Android "should not fetch segments when stopped even if forced".
    func testNoFetchAfterStopEvenIfForced() async {
        let fixture = Fixture()
        fixture.client.start()
        fixture.client.stop()
        do {
            _ = try await fixture.client.getSegments(category: .discovery, force: true)
            XCTFail("expected stopped")
        } catch {
            XCTAssertEqual(error, .stopped)
        }
        XCTAssertEqual(fixture.transport.fetchCount, 0)
    }

    /// Android "should store data on success even if empty" and "not on error".
    func testStateIsStoredOnSuccessEvenIfEmptyAndNotOnError() {
        let fixture = Fixture()
        _ = fixture.register(.discovery, tag: "d")
        fixture.transport.defaultResponse = response([.discovery: []])
        fixture.startAndRunInitialCheck()
        XCTAssertEqual(fixture.recorder.segments(tag: "d"), [[]])
        fixture.transport.failNext(.fetchSegments, with: .serverError(status: 500))
        _ = fixture.register(.other("t1"))
        fixture.advance(.seconds(5))
        _ = fixture.register(.other("t2"))
        fixture.advance(.seconds(5))
        XCTAssertEqual(fixture.recorder.count(tag: "d"), 1, "empty data was stored; the error changed nothing")
    }

    /// The iOS race: a check is in flight for A; the customer becomes B; an event tracked for B
    /// arrives; A's response must still be dropped, never delivered to B's callbacks.
    func testTheIOSRaceDoesNotDeliverTheFirstCustomersSegmentsToTheSecond() throws {
        let fixture = Fixture()
        fixture.transport.setResponder { cookie in
            SegmentsResponse(categories: [.discovery: [Segment(id: cookie, segmentationId: "s")]])
        }
        _ = fixture.register(.discovery, tag: "d")
        fixture.client.start()
        fixture.settle()
        let customerA = fixture.cookie
        fixture.holdTheNextCheck()
        fixture.client.anonymize()
        let customerB = fixture.cookie
        try fixture.client.trackEvent(eventType: "event_for_b")
        waitUntil { fixture.transport.trackedEvents.count == 1 }
        fixture.transport.releaseHeldFetches()
        fixture.settle()
        fixture.advance(.seconds(5))
        let delivered = fixture.recorder.segments(tag: "d").flatMap { $0.map(\.id) }
        XCTAssertFalse(delivered.contains(customerA))
        XCTAssertEqual(delivered, [customerB])
    }
}
