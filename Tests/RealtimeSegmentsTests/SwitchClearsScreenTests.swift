import Foundation
@testable import RealtimeSegments
import Synchronization
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

    /// The first check for the new customer fails (offline): the previous customer's segments
    /// are cleared all the same, within the debounce window, and the new customer's arrive with
    /// the first check that succeeds.
    func testWhenTheFirstCheckAfterASwitchFailsThePreviousCustomersSegmentsAreClearedAnyway() throws {
        for switchKind in ["anonymize", "identify"] {
            let fixture = fixtureShowingTheFirstCustomer()
            fixture.transport.setResponder { _ in response([.content: [3]]) }  // every later customer's
            fixture.transport.failNext(.fetchSegments, with: .timeout, count: 2)
            if switchKind == "anonymize" {
                fixture.client.anonymize()
            } else {
                try fixture.client.identifyCustomer(customerIds: ["registered": "jane"])
            }
            fixture.settle()
            fixture.advance(.seconds(5))
            XCTAssertEqual(fixture.client.statistics.checksFailed, 1, switchKind)
            XCTAssertEqual(fixture.recorder.segments(tag: "d"), [[segment(1)], []], "\(switchKind): discovery cleared")
            XCTAssertEqual(fixture.recorder.segments(tag: "c"), [[segment(2)], []], "\(switchKind): content cleared")

            try fixture.client.trackEvent(eventType: "view")  // another check; it fails too
            fixture.settle()
            fixture.advance(.seconds(5))
            XCTAssertEqual(fixture.recorder.segments(tag: "c"), [[segment(2)], []], "\(switchKind): cleared once")
            try fixture.client.trackEvent(eventType: "view")
            fixture.settle()
            fixture.advance(.seconds(5))
            XCTAssertEqual(fixture.recorder.segments(tag: "c"), [[segment(2)], [], [segment(3)]], "\(switchKind): the new customer's")
            XCTAssertEqual(fixture.recorder.segments(tag: "d"), [[segment(1)], []], "\(switchKind)")
        }
    }

    /// SPEC §3 trigger 5: the previous customer's segments stay on screen no longer than one
    /// debounce window, also when a check of the previous customer is still in flight, which keeps
    /// the new customer's check from starting until it returns (a slow network, a timeout).
    func testASwitchWhileTheLastCustomersCheckIsInFlightClearsItsSegmentsWithinOneDebounceWindow() throws {
        for switchKind in ["anonymize", "identify"] {
            let fixture = fixtureShowingTheFirstCustomer()
            try fixture.client.trackEvent(eventType: "view")  // its upload requests a check
            fixture.settle()
            fixture.holdTheNextCheck()  // the first customer's check, in flight
            fixture.transport.setResponder { _ in response([.content: [3]]) }  // every later customer's
            let trigger: String
            if switchKind == "anonymize" {
                fixture.client.anonymize()
                trigger = "customerSwitch"
            } else {
                try fixture.client.identifyCustomer(customerIds: ["registered": "jane"])
                trigger = "identify"
            }
            // The engine cannot settle while a fetch is held: its log says it took the switch, and
            // a barrier behind it that it has read the clock for the window too.
            waitUntil { fixture.logs.contains("Segments: Reload requested (\(trigger))") }
            fixture.passBarrier()
            fixture.clock.advance(by: .seconds(5))
            // Each category is cleared on its own delivery queue: wait for both.
            waitUntil { fixture.recorder.segments(tag: "c").count == 2 && fixture.recorder.segments(tag: "d").count == 2 }
            XCTAssertEqual(fixture.recorder.segments(tag: "d"), [[segment(1)], []], "\(switchKind): discovery cleared while the check is held")
            XCTAssertEqual(fixture.recorder.segments(tag: "c"), [[segment(2)], []], "\(switchKind): content cleared while the check is held")

            fixture.transport.releaseHeldFetches()
            fixture.settle()
            fixture.advance(.seconds(5))
            XCTAssertEqual(fixture.recorder.segments(tag: "d"), [[segment(1)], []], "\(switchKind): the held result was dropped")
            XCTAssertEqual(fixture.recorder.segments(tag: "c"), [[segment(2)], [], [segment(3)]], "\(switchKind): the new customer's")
        }
    }

    /// A check for the same customer in flight when nothing switched clears nothing.
    func testACheckHeldForTheCustomerOnScreenClearsNothing() throws {
        let fixture = fixtureShowingTheFirstCustomer()
        try fixture.client.trackEvent(eventType: "view")
        fixture.settle()
        fixture.holdTheNextCheck()
        try fixture.client.identifyCustomer(properties: ["plan": "gold"])  // not a switch
        try fixture.client.trackEvent(eventType: "view")
        waitUntil { fixture.transport.customerUpdates.count == 1 }
        fixture.clock.advance(by: .seconds(10))
        fixture.transport.releaseHeldFetches()
        fixture.settle()
        XCTAssertEqual(fixture.recorder.segments(tag: "d"), [[segment(1)]], "nothing cleared, nothing delivered again")
        XCTAssertEqual(fixture.recorder.segments(tag: "c"), [[segment(2)]])
    }

    /// A failed check for the customer whose segments are on screen changes nothing: offline, the
    /// app keeps showing its own customer's segments.
    func testAFailedCheckForTheSameCustomerLeavesItsSegmentsOnScreen() throws {
        let fixture = fixtureShowingTheFirstCustomer()
        fixture.transport.failNext(.fetchSegments, with: .timeout)
        try fixture.client.trackEvent(eventType: "view")
        fixture.settle()
        fixture.advance(.seconds(5))
        XCTAssertEqual(fixture.client.statistics.checksFailed, 1)
        XCTAssertEqual(fixture.recorder.segments(tag: "d"), [[segment(1)]])
    }

    // MARK: A delivery cut off by a switch

    /// A client whose first customer has discovery [1], shown to `d`, and a discovery callback
    /// registered ahead of `d` that holds the next delivery in its first callback until `proceed`
    /// (signalling `entered`), so a switch can land while that delivery is under way.
    private func fixtureHoldingTheNextDiscoveryDelivery(
        file: StaticString = #filePath, line: UInt = #line
    ) -> (fixture: Fixture, entered: DispatchSemaphore, proceed: DispatchSemaphore) {
        let fixture = Fixture()
        fixture.transport.setSegments(response([.discovery: [1]]), forCookie: fixture.cookie)
        let entered = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let calls = Locked(0)
        fixture.client.segmentation.addCallback(callbackData: SegmentCallbackData(category: .discovery, isIncludeFirstLoad: false) { _ in
            // The first call is the initial check's delivery; the second is the one held.
            if calls.withLock({ $0 += 1; return $0 }) == 2 {
                entered.signal()
                proceed.wait()
            }
        })
        _ = fixture.register(.discovery, tag: "d")
        fixture.startAndRunInitialCheck()
        XCTAssertEqual(fixture.recorder.segments(tag: "d"), [[segment(1)]], file: file, line: line)
        return (fixture, entered, proceed)
    }

    /// The first customer's discovery empties, and a switch cuts that `[]` off before `d` gets it:
    /// `d` still shows [1]. The next customer has no discovery, so only a category whose delivery
    /// was cut off being delivered again clears it.
    func testAnEmptyListCutOffByASwitchIsDeliveredByTheNextCustomersCheck() throws {
        let (fixture, entered, proceed) = fixtureHoldingTheNextDiscoveryDelivery()

        fixture.transport.setSegments(response([.content: [3]]), forCookie: fixture.cookie)
        try fixture.client.trackEvent(eventType: "view")  // its upload requests a check
        fixture.settle()
        fixture.clock.advance(by: .seconds(5))
        XCTAssertEqual(entered.wait(timeout: .now() + 10), .success, "the [] delivery started")
        try fixture.client.identifyCustomer(customerIds: ["registered": "jane"])
        proceed.signal()
        fixture.settle()
        XCTAssertEqual(fixture.recorder.segments(tag: "d"), [[segment(1)]], "the [] was cut off")

        fixture.advance(.seconds(5))  // jane's check: content only
        XCTAssertEqual(fixture.recorder.segments(tag: "d").last, [], "the previous customer's [1] stayed on screen")
    }

    /// jane's delivery is cut off by a switch to bob, and the app switches back to jane before
    /// any check: jane's next check finds her data unchanged against the state last fetched for
    /// her, which her callbacks never received.
    /// Jane's delivery of discovery [2] held at its first callback while the customer switches to
    /// bob and back to jane, then let go: cut off, so `d` still shows the first customer's [1].
    private func janesDeliveryCutOffBySwitchesAwayAndBack(file: StaticString = #filePath, line: UInt = #line) throws -> Fixture {
        let (fixture, entered, proceed) = fixtureHoldingTheNextDiscoveryDelivery(file: file, line: line)
        fixture.transport.setSegments(response([.discovery: [2]]), forCookie: fixture.cookie)
        try fixture.client.identifyCustomer(customerIds: ["registered": "jane"])
        fixture.settle()
        fixture.clock.advance(by: .seconds(5))
        XCTAssertEqual(entered.wait(timeout: .now() + 10), .success, "jane's delivery started", file: file, line: line)
        try fixture.client.identifyCustomer(customerIds: ["registered": "bob"])
        try fixture.client.identifyCustomer(customerIds: ["registered": "jane"])
        proceed.signal()
        fixture.settle()
        return fixture
    }

    func testACustomersDeliveryCutOffBySwitchesAwayAndBackIsDeliveredByHerNextCheck() throws {
        let fixture = try janesDeliveryCutOffBySwitchesAwayAndBack()
        XCTAssertEqual(fixture.recorder.segments(tag: "d"), [[segment(1)]], "jane's [2] was cut off")

        fixture.advance(.seconds(5))  // jane's check: the same [2]
        XCTAssertEqual(fixture.recorder.segments(tag: "d").last, [segment(2)], "jane's callbacks kept the first customer's [1]")
    }

    /// A category that a failed check cleared (`[]`, SPEC §3 trigger 5) shows the customer's data
    /// again at the next check that succeeds, even where that data equals the state stored before
    /// the failure: clearing forgets the last known state.
    func testACutOffDeliveryClearedByAFailedCheckIsDeliveredByTheNextSuccess() throws {
        let fixture = try janesDeliveryCutOffBySwitchesAwayAndBack()
        fixture.transport.failNext(.fetchSegments, with: .timeout)
        fixture.advance(.seconds(5))
        XCTAssertEqual(fixture.recorder.segments(tag: "d"), [[segment(1)], []], "the failed check cleared [1]")
        try fixture.client.trackEvent(eventType: "view")
        fixture.settle()
        fixture.advance(.seconds(5))
        XCTAssertEqual(fixture.recorder.segments(tag: "d").last, [segment(2)], "jane's [2] is shown again")
    }

    /// SPEC §4: after a switch, a category counts as changed iff the new response has it, or its
    /// callbacks were last given non-empty data. Here the only callback was given `[]` (the
    /// category was empty) and, from inside that call, identifies another customer whose response
    /// lacks the category: the category did not change, so the callback must not be notified
    /// again. Nor was any delivery cut short: every callback of it ran.
    func testASwitchMadeFromTheLastCallbackIsNotTakenForACutOffDelivery() throws {
        let fixture = Fixture()
        fixture.transport.defaultResponse = SegmentsResponse(categories: [.discovery: []])
        let client = fixture.client
        let calls = Locked<[[Segment]]>([])
        client.segmentation.addCallback(callbackData: SegmentCallbackData(category: .discovery, isIncludeFirstLoad: false) { segments in
            let first = calls.withLock { calls -> Bool in
                calls.append(segments)
                return calls.count == 1
            }
            if first { try? client.identifyCustomer(customerIds: ["registered": "jane"]) }
        })
        fixture.startAndRunInitialCheck()
        fixture.settle()
        XCTAssertEqual(calls.withLock { $0 }, [[]])
        // Jane has content only.
        fixture.transport.defaultResponse = response([.content: [3]])
        fixture.advance(.seconds(5))
        XCTAssertEqual(fixture.transport.fetchCount, 2, "the identify's check ran")
        XCTAssertEqual(calls.withLock { $0 }, [[]], "discovery was [] and is absent now: unchanged, not notified again")
        XCTAssertEqual(client.statistics.staleDeliveriesDropped, 0, "no delivery was cut short")
        XCTAssertFalse(
            fixture.logs.contains("Segments: New data are ignored because were loaded for different customer"),
            "nothing was ignored")
    }

    /// The cut-off rule in parallel delivery (the shares path of `DeliveryExecutor`): a switch that
    /// stops a share before its next callback leaves that delivery cut off, and the next check
    /// delivers the category again.
    func testAnEmptyListCutOffByASwitchInParallelDeliveryIsDeliveredByTheNextCheck() throws {
        let fixture = Fixture { $0.deliveryMode = .parallel }
        fixture.transport.setSegments(response([.discovery: [1]]), forCookie: fixture.cookie)
        let entered = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let armed = Atomic<Bool>(false)
        let last = Locked<[Segment]?>(nil)
        var callbacks: [SegmentCallbackData] = []
        for index in 0..<(2 * DeliveryExecutor.parallelShare) {
            callbacks.append(SegmentCallbackData(category: .discovery, isIncludeFirstLoad: false) { segments in
                if index == 0, armed.exchange(false, ordering: .relaxed) {
                    entered.signal()
                    proceed.wait()
                }
                if index == 1 { last.withLock { $0 = segments } }
            })
        }
        fixture.client.segmentation.addCallbacks(callbacks)
        fixture.startAndRunInitialCheck()
        XCTAssertEqual(last.withLock { $0 }, [segment(1)])
        armed.store(true, ordering: .relaxed)
        fixture.transport.setSegments(response([.content: [3]]), forCookie: fixture.cookie)
        try fixture.client.trackEvent(eventType: "view")
        fixture.settle()
        fixture.clock.advance(by: .seconds(5))
        XCTAssertEqual(entered.wait(timeout: .now() + 10), .success)
        try fixture.client.identifyCustomer(customerIds: ["registered": "jane"])
        proceed.signal()
        fixture.settle()
        XCTAssertEqual(last.withLock { $0 }, [segment(1)], "the [] was cut off before callback 1")
        fixture.advance(.seconds(5))
        XCTAssertEqual(last.withLock { $0 }, [], "delivered again by jane's check")
    }
}
