import Foundation
@testable import RealtimeSegments
import RealtimeSegmentsTesting
import Synchronization
import XCTest

/// SPEC §2: registration identity, removal, and where and how callbacks run.
final class ListenerTests: XCTestCase {
    func testRegisteringTheSameValueTwiceCreatesTwoRegistrations() {
        let fixture = Fixture()
        let callback = fixture.recorder.callback(.discovery)
        fixture.client.segmentation.addCallback(callbackData: callback)
        fixture.client.segmentation.addCallback(callbackData: callback)
        XCTAssertEqual(fixture.client.segmentation.callbackCount(for: .discovery), 2)
    }

    func testRemoveCallbackRemovesEveryRegistrationWithThatIdentity() {
        let fixture = Fixture()
        let callback = fixture.recorder.callback(.discovery)
        let other = fixture.recorder.callback(.discovery)
        for _ in 0..<3 { fixture.client.segmentation.addCallback(callbackData: callback) }
        fixture.client.segmentation.addCallback(callbackData: other)
        fixture.client.segmentation.removeCallback(callbackData: callback)
        XCTAssertEqual(fixture.client.segmentation.callbackCount, 1)
    }

    func testRemovingAValueBuiltAgainWithTheSameClosureRemovesNothing() {
        let fixture = Fixture()
        let handler: @Sendable ([Segment]) -> Void = { _ in }
        fixture.client.segmentation.addCallback(
            callbackData: SegmentCallbackData(category: .content, isIncludeFirstLoad: false, onNewData: handler))
        fixture.client.segmentation.removeCallback(
            callbackData: SegmentCallbackData(category: .content, isIncludeFirstLoad: false, onNewData: handler))
        XCTAssertEqual(fixture.client.segmentation.callbackCount, 1)
    }

    func testRemovedCallbackIsNotNotifiedAndItsFirstLoadIsDropped() {
        let fixture = Fixture()
        fixture.transport.defaultResponse = response([.discovery: [1]])
        let removed = fixture.register(.discovery, firstLoad: true, tag: "removed")
        _ = fixture.register(.discovery, tag: "kept")
        fixture.client.segmentation.removeCallback(callbackData: removed)
        fixture.startAndRunInitialCheck()
        XCTAssertEqual(fixture.recorder.tags, ["kept"])
        // Its first load went with it: the initial check found none pending.
        XCTAssertEqual(fixture.logs.count("Segments: Skipping initial segments update process as is not required"), 1)
    }

    func testRemovingACallbackFromInsideItsOwnOnNewDataStopsFurtherNotifications() {
        let fixture = Fixture()
        let calls = Atomic<Int>(0)
        let box = Locked<SegmentCallbackData?>(nil)
        let manager = fixture.client.segmentation
        let callback = SegmentCallbackData(category: .discovery, isIncludeFirstLoad: false) { _ in
            calls.add(1, ordering: .relaxed)
            if let me = box.withLock({ $0 }) { manager.removeCallback(callbackData: me) }
        }
        box.withLock { $0 = callback }
        manager.addCallback(callbackData: callback)
        fixture.transport.defaultResponse = response([.discovery: [1]])
        fixture.startAndRunInitialCheck()
        fixture.transport.defaultResponse = response([.discovery: [2]])
        _ = fixture.register(.content)
        fixture.advance(.seconds(5))
        XCTAssertEqual(calls.load(ordering: .relaxed), 1)
        XCTAssertEqual(manager.callbackCount(for: .discovery), 0)
    }

    func testRemovingAnotherCallbackFromInsideACallbackPreventsItsPendingInvocation() {
        let fixture = Fixture()
        let manager = fixture.client.segmentation
        let victim = fixture.recorder.callback(.discovery, tag: "victim")
        let remover = SegmentCallbackData(category: .discovery, isIncludeFirstLoad: false) { _ in
            manager.removeCallback(callbackData: victim)
        }
        manager.addCallback(callbackData: remover)
        manager.addCallback(callbackData: victim)
        fixture.transport.defaultResponse = response([.discovery: [1]])
        fixture.startAndRunInitialCheck()
        XCTAssertEqual(fixture.recorder.count(tag: "victim"), 0)
    }

    /// SPEC §2: callbacks run on a background thread, never the caller's and never the engine's.
    /// The engine names its thread at the system level (`pthread_setname_np`), which
    /// `Thread.current.name` does not see on Linux: the callback's thread is compared by the name
    /// the system gives it.
    func testCallbacksRunOnABackgroundThreadThatIsNeitherTheCallersNorTheEngines() {
        let fixture = Fixture()
        fixture.transport.defaultResponse = response([.discovery: [1]])
        let calls = Locked<[(isMainThread: Bool, threadName: String?)]>([])
        fixture.client.segmentation.addCallback(
            callbackData: SegmentCallbackData(category: .discovery, isIncludeFirstLoad: false) { _ in
                let call = (isMainThread: Thread.isMainThread, threadName: systemThreadName())
                calls.withLock { $0.append(call) }
            })
        fixture.startAndRunInitialCheck()
        let seen = calls.withLock { $0 }
        XCTAssertEqual(seen.count, 1)
        guard let call = seen.first else { return }
        XCTAssertFalse(call.isMainThread, "not on the caller's thread (the test's main thread)")
        #if os(Linux)
        XCTAssertNotNil(call.threadName, "the system names every thread")
        #endif
        XCTAssertNotEqual(call.threadName, EngineThread.name, "not on the engine thread")
    }

    func testCallbacksCanCallBackIntoTheEngineBecauseNoLockIsHeld() {
        let fixture = Fixture()
        let client = fixture.client
        let reentered = Atomic<Int>(0)
        client.segmentation.addCallback(
            callbackData: SegmentCallbackData(category: .discovery, isIncludeFirstLoad: true) { _ in
                client.segmentation.addCallback(callbackData: SegmentCallbackData(category: .content, isIncludeFirstLoad: false) { _ in })
                try? client.trackEvent(eventType: "from_callback")
                _ = client.customerIds
                client.getSegments(category: .content) { _ in reentered.add(1, ordering: .relaxed) }
            })
        fixture.startAndRunInitialCheck()
        fixture.settle()
        XCTAssertEqual(reentered.load(ordering: .relaxed), 1)
        XCTAssertEqual(client.segmentation.callbackCount(for: .content), 1)
    }

    func testASlowCallbackDoesNotStallOtherCategoriesIngestionOrFetching() throws {
        let fixture = Fixture()
        // Categories are scheduled in name order: the blocked one ("content") comes first, so a
        // delivery that waited for it would hold back "discovery".
        let release = DispatchSemaphore(value: 0)
        fixture.client.segmentation.addCallback(
            callbackData: SegmentCallbackData(category: .content, isIncludeFirstLoad: true) { _ in release.wait() })
        let discoveryDelivered = DispatchSemaphore(value: 0)
        fixture.client.segmentation.addCallback(
            callbackData: SegmentCallbackData(category: .discovery, isIncludeFirstLoad: true) { _ in discoveryDelivered.signal() })
        fixture.client.start()
        XCTAssertTrue(fixture.client.waitUntilIdle())
        fixture.clock.advance(by: .seconds(5))
        XCTAssertEqual(discoveryDelivered.wait(timeout: .now() + 10), .success, "discovery delivered while content is blocked")
        for index in 0..<100 { try fixture.client.trackEvent(eventType: "e\(index)") }
        waitUntil { fixture.transport.trackedEvents.count == 100 }
        XCTAssertEqual(fixture.transport.fetchCount, 1)
        // The check the uploads requested. The engine stamps that request when it handles an
        // upload's completion, which this thread cannot wait for (a delivery is blocked, so the
        // client never idles): the clock moves on until the check has run.
        waitUntil {
            fixture.clock.advance(by: .seconds(1))
            return fixture.transport.fetchCount == 2
        }
        release.signal()
        fixture.settle()
    }

    /// SPEC §1, §4: a category the server returns beyond the three known ones is kept as
    /// `.other`, and its callbacks get its data like any other category's: the first load, then
    /// every change.
    func testACallbackOfAnOtherCategoryReceivesItsData() throws {
        let fixture = Fixture()
        let recommendations = SegmentCategory.other("recommendations")
        fixture.transport.defaultResponse = SegmentsResponse(wireCategories: ["recommendations": [segment(7)], "discovery": [segment(1)]])
        _ = fixture.register(recommendations, firstLoad: true, tag: "r")
        fixture.startAndRunInitialCheck()
        XCTAssertEqual(fixture.recorder.segments(tag: "r"), [[segment(7)]])
        fixture.transport.defaultResponse = SegmentsResponse(wireCategories: ["Recommendations": [segment(7), segment(8)]])
        try fixture.client.identifyCustomer(customerIds: ["registered": "jane"])
        fixture.settle()
        fixture.advance(.seconds(5))
        XCTAssertEqual(fixture.recorder.segments(tag: "r"), [[segment(7)], [segment(7), segment(8)]], "the change, under any spelling of the name")
    }

    /// SPEC §2 in parallel delivery: a callback that blocks holds back neither another category's
    /// delivery (split over the helpers too) nor ingestion and fetching.
    func testASlowCallbackInParallelDeliveryDoesNotStallOtherCategoriesIngestionOrFetching() throws {
        let fixture = Fixture { $0.deliveryMode = .parallel }
        // Enough callbacks in each category that both deliveries are shared out over the helpers.
        let callbacks = 2 * DeliveryExecutor.parallelShare
        let release = DispatchSemaphore(value: 0)
        let discoveryNotified = Atomic<Int>(0)
        let discoveryDelivered = DispatchSemaphore(value: 0)
        var registrations: [SegmentCallbackData] = []
        for index in 0..<callbacks {
            // "content" is scheduled first (name order); its first callback blocks.
            registrations.append(SegmentCallbackData(category: .content, isIncludeFirstLoad: true) { _ in
                if index == 0 { release.wait() }
            })
        }
        for _ in 0..<callbacks {
            registrations.append(SegmentCallbackData(category: .discovery, isIncludeFirstLoad: true) { _ in
                if discoveryNotified.add(1, ordering: .relaxed).newValue == callbacks { discoveryDelivered.signal() }
            })
        }
        fixture.client.segmentation.addCallbacks(registrations)
        fixture.client.start()
        XCTAssertTrue(fixture.client.waitUntilIdle())
        fixture.clock.advance(by: .seconds(5))
        XCTAssertEqual(discoveryDelivered.wait(timeout: .now() + 10), .success, "every discovery callback ran while content is blocked")
        for index in 0..<100 { try fixture.client.trackEvent(eventType: "e\(index)") }
        waitUntil { fixture.transport.trackedEvents.count == 100 }
        XCTAssertEqual(fixture.transport.fetchCount, 1)
        // The check the uploads requested (see the ordered-mode test for why the clock moves on
        // until it has run).
        waitUntil {
            fixture.clock.advance(by: .seconds(1))
            return fixture.transport.fetchCount == 2
        }
        release.signal()
        fixture.settle()
    }

    func testCallbacksOfOneCategoryRunInRegistrationOrder() {
        let fixture = Fixture()
        fixture.transport.defaultResponse = response([.discovery: [1]])
        for index in 0..<50 { _ = fixture.register(.discovery, tag: "\(index)") }
        fixture.startAndRunInitialCheck()
        XCTAssertEqual(fixture.recorder.tags, (0..<50).map { "\($0)" })
    }

    func testParallelDeliveryNotifiesEveryCallbackExactlyOnce() {
        let fixture = Fixture { $0.deliveryMode = .parallel }
        fixture.transport.defaultResponse = response([.discovery: [1]])
        for index in 0..<1_000 { fixture.client.segmentation.addCallback(callbackData: fixture.recorder.callback(.discovery, tag: "\(index)")) }
        fixture.startAndRunInitialCheck()
        XCTAssertEqual(fixture.recorder.count, 1_000)
        XCTAssertEqual(Set(fixture.recorder.tags).count, 1_000)
    }

    /// Parallel workers claim shares of the subscribers as they go: a callback that blocks holds
    /// back only the rest of its own share, and the other workers deliver everything else meanwhile.
    /// (Workers given fixed halves fail this test: the blocked worker's half waits.)
    func testParallelDeliveryGoesOnAroundABlockedCallback() throws {
        guard ProcessInfo.processInfo.activeProcessorCount > 1 else {
            throw XCTSkip("parallel delivery needs more than one core")
        }
        let share = DeliveryExecutor.parallelShare
        let callbacks = 8 * share
        let fixture = Fixture { $0.deliveryMode = .parallel }
        fixture.transport.defaultResponse = response([.discovery: [1]])
        let othersDone = DispatchSemaphore(value: 0)
        let outsideTheBlockedShare = Atomic<Int>(0)
        let sawOthersFinish = Atomic<Bool>(false)
        for index in 0..<callbacks {
            let callback = SegmentCallbackData(category: .discovery, isIncludeFirstLoad: false) { segments in
                fixture.recorder.record(tag: "\(index)", segments)
                if index == 0 {
                    // Blocks until every subscriber outside its share has been called; under the
                    // fixture's 10 s settle limit, so a failure reports this, not a stuck engine.
                    sawOthersFinish.store(othersDone.wait(timeout: .now() + 5) == .success, ordering: .relaxed)
                } else if index >= share, outsideTheBlockedShare.add(1, ordering: .relaxed).newValue == callbacks - share {
                    othersDone.signal()
                }
            }
            fixture.client.segmentation.addCallback(callbackData: callback)
        }
        fixture.startAndRunInitialCheck()
        XCTAssertTrue(sawOthersFinish.load(ordering: .relaxed), "the other worker delivered every other share while callback 0 blocked")
        XCTAssertEqual(fixture.recorder.count, callbacks)
        XCTAssertEqual(Set(fixture.recorder.tags).count, callbacks, "every callback exactly once")
    }

    func testEveryCallbackOfACategoryReceivesTheSamePayload() {
        let fixture = Fixture()
        fixture.transport.defaultResponse = response([.content: [3, 1, 2]])
        for index in 0..<5 { _ = fixture.register(.content, tag: "\(index)") }
        fixture.startAndRunInitialCheck()
        XCTAssertEqual(Set(fixture.recorder.all.map(\.segments)), [[segment(3), segment(1), segment(2)]])
    }

    func testACallbackRegisteredUnderAnotherSpellingOfACategoryReceivesItsSegments() {
        let fixture = Fixture()
        fixture.transport.defaultResponse = response([.discovery: [1], .merchandising: [2]])
        _ = fixture.register(.other("Discovery"), tag: "Discovery")
        _ = fixture.register(.other("merchandise"), tag: "merchandise")
        XCTAssertEqual(fixture.client.segmentation.callbackCount(for: .discovery), 1)
        XCTAssertEqual(fixture.client.segmentation.callbackCount(for: .merchandising), 1)
        fixture.startAndRunInitialCheck()
        XCTAssertEqual(fixture.recorder.segments(tag: "Discovery"), [[segment(1)]])
        XCTAssertEqual(fixture.recorder.segments(tag: "merchandise"), [[segment(2)]])
    }

    func testACallbackForAnEmptyCategoryIsRejectedWithALogLine() {
        let fixture = Fixture()
        fixture.client.segmentation.addCallback(callbackData: fixture.recorder.callback(.other("")))
        XCTAssertEqual(fixture.client.segmentation.callbackCount, 0)
        XCTAssertTrue(fixture.logs.contains("Segments: Callback ignored: the category name is empty"))
    }

    /// stop() from inside a callback returns (no self-deadlock) and later callbacks of that delivery
    /// are not invoked.
    func testStopFromInsideACallbackReturnsAndStopsTheDelivery() {
        let fixture = Fixture()
        fixture.transport.defaultResponse = response([.discovery: [1]])
        let client = fixture.client
        let returned = DispatchSemaphore(value: 0)
        client.segmentation.addCallback(callbackData: SegmentCallbackData(category: .discovery, isIncludeFirstLoad: false) { _ in
            client.stop(timeout: .seconds(20))
            returned.signal()
        })
        _ = fixture.register(.discovery, tag: "after")
        client.start()
        fixture.settle()
        fixture.clock.advance(by: .seconds(5))
        XCTAssertEqual(returned.wait(timeout: .now() + 10), .success, "stop() returned inside the callback")
        fixture.settle()
        XCTAssertEqual(fixture.recorder.count(tag: "after"), 0)
    }

    /// A first-load callback removed by an earlier callback of a first-load-only delivery is not
    /// served, and its first load is released.
    func testRemovingAPendingFirstLoadFromInsideAFirstLoadDeliverySkipsIt() {
        let fixture = Fixture()
        fixture.transport.defaultResponse = response([.discovery: [1]])
        fixture.startAndRunInitialCheck()
        _ = fixture.register(.discovery, tag: "known")
        fixture.advance(.seconds(5))
        let manager = fixture.client.segmentation
        let victim = fixture.recorder.callback(.discovery, firstLoad: true, tag: "victim")
        let remover = SegmentCallbackData(category: .discovery, isIncludeFirstLoad: true) { _ in
            manager.removeCallback(callbackData: victim)
        }
        manager.addCallbacks([remover, victim])
        fixture.settle()
        fixture.advance(.seconds(5))
        XCTAssertEqual(fixture.recorder.count(tag: "victim"), 0)
        XCTAssertEqual(manager.registry.pendingFirstLoads, 0)
    }

    /// getSegments from inside a callback returns what that callback was given.
    func testGetSegmentsInsideACallbackReturnsTheDeliveredList() {
        let fixture = Fixture()
        fixture.transport.defaultResponse = response([.discovery: [1, 2]])
        let client = fixture.client
        let seen = Locked<[[Segment]]>([])
        client.segmentation.addCallback(callbackData: SegmentCallbackData(category: .discovery, isIncludeFirstLoad: true) { given in
            client.getSegments(category: .discovery) { pulled in
                seen.withLock { $0.append(given); $0.append(pulled) }
            }
        })
        fixture.startAndRunInitialCheck()
        fixture.settle()
        let values = seen.withLock { $0 }
        XCTAssertEqual(values.count, 2)
        XCTAssertEqual(values.first, values.last)
        XCTAssertEqual(fixture.transport.fetchCount, 1, "served from the cache")
    }
}

/// Batch registration.
final class BatchRegistrationTests: XCTestCase {
    func testAddCallbacksRegistersEveryValueInOrderAndRequestsOneCheck() {
        let fixture = Fixture()
        fixture.transport.defaultResponse = response([.discovery: [1]])
        fixture.client.start()
        fixture.settle()
        fixture.client.segmentation.addCallbacks((0..<5).map { fixture.recorder.callback(.discovery, firstLoad: $0 == 0, tag: "\($0)") })
        fixture.settle()
        XCTAssertEqual(fixture.client.segmentation.callbackCount, 5)
        fixture.advance(.seconds(5))
        XCTAssertEqual(fixture.transport.fetchCount, 1)
        XCTAssertEqual(fixture.recorder.tags, ["0", "1", "2", "3", "4"])
    }

    func testAddCallbacksRejectsInvalidCategoriesWithALogLine() {
        let fixture = Fixture()
        fixture.client.segmentation.addCallbacks([fixture.recorder.callback(.other("")), fixture.recorder.callback(.content)])
        XCTAssertEqual(fixture.client.segmentation.callbackCount, 1)
        XCTAssertTrue(fixture.logs.contains("Segments: 1 callbacks ignored: the category name is empty"))
    }
}
