import Foundation
@testable import RealtimeSegments
import RealtimeSegmentsTesting
import XCTest

/// Issue 32: `segmentChanges(for:includeFirstLoad:bufferingPolicy:)`, the `AsyncSequence` form of a
/// callback: the same lists by the same notify rule (SPEC §4), and it unregisters when it ends.
final class SegmentChangesTests: XCTestCase {
    func testYieldsTheFirstLoadAndThenEachChangeOfItsCategory() async {
        let fixture = Fixture()
        fixture.transport.defaultResponse = response([.discovery: [1], .content: [9]])
        let changes = fixture.client.segmentChanges(for: .discovery, includeFirstLoad: true)
        fixture.startAndRunInitialCheck()
        fixture.transport.defaultResponse = response([.discovery: [1, 2], .content: [9]])
        _ = fixture.register(.merchandising)
        fixture.advance(.seconds(5))
        var iterator = changes.makeAsyncIterator()
        let first = await iterator.next()
        let second = await iterator.next()
        XCTAssertEqual(first, [segment(1)])
        XCTAssertEqual(second, [segment(1), segment(2)], "the full list, not a delta")
    }

    /// A sequence and a callback registered at the same moment with the same options, through
    /// first load, a change, an unchanged check and a switch: the same lists in the same order. The
    /// sequence is read only before the switch and at the end, so its consumer was as slow as a
    /// consumer can be whose lists are still current, and delivery (and `settle()`) never waited
    /// for it.
    func testYieldsExactlyWhatACallbackRegisteredAtTheSameMomentReceives() async {
        for firstLoad in [true, false] {
            let fixture = Fixture()
            fixture.transport.defaultResponse = response([.discovery: [1]])
            _ = fixture.register(.content)
            fixture.startAndRunInitialCheck()
            // Registered while discovery [1] is the last known state: only a first load delivers it.
            let changes = fixture.client.segmentChanges(for: .discovery, includeFirstLoad: firstLoad)
            _ = fixture.register(.discovery, firstLoad: firstLoad, tag: "callback")
            fixture.advance(.seconds(5))
            fixture.transport.defaultResponse = response([.discovery: [2]])
            _ = fixture.register(.merchandising)
            fixture.advance(.seconds(5))
            _ = fixture.register(.merchandising)
            fixture.advance(.seconds(5))
            var iterator = changes.makeAsyncIterator()
            var received = await take(fixture.recorder.count(tag: "callback"), from: &iterator)
            fixture.transport.defaultResponse = response([.discovery: [3, 4]])
            try? fixture.client.identifyCustomer(customerIds: ["registered": "jane"])
            fixture.settle()
            fixture.advance(.seconds(5))
            received += await take(fixture.recorder.count(tag: "callback") - received.count, from: &iterator)
            let expected = fixture.recorder.segments(tag: "callback")
            XCTAssertEqual(received, expected, "firstLoad \(firstLoad)")
            XCTAssertEqual(expected, (firstLoad ? [[segment(1)]] : []) + [[segment(2)], [segment(3), segment(4)]])
        }
    }

    func testASwitchDeliversEmptyToTheSequenceAsToTheCallback() async {
        let fixture = Fixture()
        fixture.transport.defaultResponse = response([.content: [3]])
        fixture.transport.setSegments(response([.discovery: [1], .content: [2]]), forCookie: fixture.cookie)
        let changes = fixture.client.segmentChanges(for: .discovery)
        _ = fixture.register(.discovery, tag: "d")
        fixture.startAndRunInitialCheck()
        var iterator = changes.makeAsyncIterator()
        var received = await take(1, from: &iterator)
        fixture.client.anonymize()
        fixture.settle()
        fixture.advance(.seconds(5))
        received += await take(1, from: &iterator)
        XCTAssertEqual(received, [[segment(1)], []])
        XCTAssertEqual(received, fixture.recorder.segments(tag: "d"))
    }

    /// SPEC §5 for a consumer slower than delivery: once a switch returned, the sequence hands out
    /// no list of the previous customer, even one buffered before the switch and not taken yet.
    func testAListBufferedBeforeASwitchIsNotHandedOutAfterIt() async throws {
        for switchCustomer in ["anonymize", "identify"] {
            let fixture = Fixture()
            fixture.transport.setSegments(response([.discovery: [1]]), forCookie: fixture.cookie)
            fixture.transport.defaultResponse = response([.discovery: [2]])
            let changes = fixture.client.segmentChanges(for: .discovery, includeFirstLoad: true)
            _ = fixture.register(.discovery, firstLoad: true, tag: "callback")
            fixture.startAndRunInitialCheck()  // [1] for the first customer, buffered
            XCTAssertEqual(fixture.recorder.segments(tag: "callback"), [[segment(1)]], switchCustomer)
            // Whoever the customer is next, the server has [2] for them (identify keeps the cookie).
            fixture.transport.setSegments(response([.discovery: [2]]), forCookie: fixture.cookie)
            if switchCustomer == "anonymize" {
                fixture.client.anonymize()
            } else {
                try fixture.client.identifyCustomer(customerIds: ["registered": "jane"])
            }
            fixture.settle()
            fixture.advance(.seconds(5))  // the new customer's check: [2]
            XCTAssertEqual(fixture.recorder.segments(tag: "callback").last, [segment(2)], "\(switchCustomer): delivered")
            // Reads until the new customer's list; a watchdog ends the sequence if it never comes.
            let consumer = Task {
                var iterator = changes.makeAsyncIterator()
                var handedOut: [[Segment]] = []
                while handedOut.last != [segment(2)], let next = await iterator.next() { handedOut.append(next) }
                return handedOut
            }
            let watchdog = Task {
                try await Task.sleep(for: .seconds(10))
                consumer.cancel()
            }
            let handedOut = await consumer.value
            watchdog.cancel()
            XCTAssertFalse(handedOut.contains([segment(1)]), "\(switchCustomer): the previous customer's list after the switch: \(handedOut)")
            XCTAssertEqual(handedOut.last, [segment(2)], switchCustomer)
        }
    }

    /// A list of the previous customer is handed out as `[]`, not dropped: a first load `[]` not
    /// taken before a switch, for a category the new customer's answer leaves out too (so nothing
    /// is delivered after the switch), still reaches the consumer, which would otherwise wait for
    /// a list that never comes.
    func testAListTakenAfterASwitchIsHandedOutCleared() async throws {
        let fixture = Fixture()
        fixture.transport.defaultResponse = response([.content: [3]])  // no discovery for anyone
        let changes = fixture.client.segmentChanges(for: .discovery, includeFirstLoad: true)
        _ = fixture.register(.discovery, firstLoad: true, tag: "callback")
        fixture.startAndRunInitialCheck()  // the first load: [] for discovery, buffered
        try fixture.client.identifyCustomer(customerIds: ["registered": "jane"])
        fixture.settle()
        fixture.advance(.seconds(5))
        XCTAssertEqual(fixture.recorder.segments(tag: "callback"), [[]], "the callback's only list")
        let consumer = Task {
            var iterator = changes.makeAsyncIterator()
            return await iterator.next()
        }
        let watchdog = Task {
            try await Task.sleep(for: .seconds(10))
            consumer.cancel()
        }
        let first = await consumer.value
        watchdog.cancel()
        XCTAssertEqual(first, [], "the first load was lost: the consumer would wait forever")
    }

    /// A stopped client's sequence ends: lists buffered before `stop()` are not handed out after it.
    func testListsBufferedBeforeStopAreNotHandedOutAfterIt() async {
        let fixture = Fixture()
        fixture.transport.defaultResponse = response([.discovery: [1]])
        let changes = fixture.client.segmentChanges(for: .discovery, includeFirstLoad: true)
        fixture.startAndRunInitialCheck()
        fixture.client.stop()
        let received = await collect(changes)
        XCTAssertEqual(received, [], "handed out after stop()")
    }

    func testCancellingTheConsumingTaskEndsItAndRemovesTheRegistration() async {
        let fixture = Fixture()
        fixture.client.start()
        let changes = fixture.client.segmentChanges(for: .discovery)
        XCTAssertEqual(fixture.client.segmentation.callbackCount(for: .discovery), 1)
        XCTAssertEqual(fixture.client.openChanges.count, 1)
        let consumer = Task { await collect(changes) }
        consumer.cancel()
        let received = await consumer.value
        XCTAssertEqual(received, [], "the loop ended without an element")
        XCTAssertEqual(fixture.client.segmentation.callbackCount, 0)
        XCTAssertEqual(fixture.client.openChanges.count, 0)
    }

    /// The sequence is still held by the test: leaving the loop (discarding the iterator) is what
    /// ends it.
    func testLeavingTheLoopRemovesTheRegistration() async {
        let fixture = Fixture()
        fixture.transport.defaultResponse = response([.discovery: [1]])
        let changes = fixture.client.segmentChanges(for: .discovery, includeFirstLoad: true)
        fixture.startAndRunInitialCheck()
        var first: [Segment]?
        for await segments in changes {
            first = segments
            break
        }
        XCTAssertEqual(first, [segment(1)])
        XCTAssertEqual(fixture.client.segmentation.callbackCount, 0)
        XCTAssertEqual(fixture.client.openChanges.count, 0)
        var again = changes.makeAsyncIterator()
        let next = await again.next()
        XCTAssertNil(next, "an ended sequence stays ended")
    }

    func testDiscardingTheSequenceWithoutIteratingRemovesTheRegistration() {
        let fixture = Fixture()
        _ = fixture.client.segmentChanges(for: .content, includeFirstLoad: true)
        XCTAssertEqual(fixture.client.segmentation.callbackCount, 0)
        XCTAssertEqual(fixture.client.segmentation.registry.pendingFirstLoads, 0, "its pending first load went with it")
        XCTAssertEqual(fixture.client.openChanges.count, 0)
    }

    func testStoppingTheClientEndsTheSequenceAndRemovesTheRegistration() async {
        let fixture = Fixture()
        fixture.client.start()
        let changes = fixture.client.segmentChanges(for: .discovery)
        let consumer = Task { await collect(changes) }
        fixture.client.stop()
        let received = await consumer.value
        XCTAssertEqual(received, [])
        XCTAssertEqual(fixture.client.segmentation.callbackCount, 0)
    }

    func testOnAStoppedClientTheSequenceHasAlreadyEnded() async {
        let fixture = Fixture()
        fixture.client.start()
        fixture.client.stop()
        let received = await collect(fixture.client.segmentChanges(for: .discovery, includeFirstLoad: true))
        XCTAssertEqual(received, [])
        XCTAssertEqual(fixture.client.segmentation.callbackCount, 0)
    }

    func testAnEmptyCategoryEndsAtOnceWithTheLogLine() async {
        let fixture = Fixture()
        fixture.client.start()
        let received = await collect(fixture.client.segmentChanges(for: .other(" ")))
        XCTAssertEqual(received, [])
        XCTAssertEqual(fixture.client.segmentation.callbackCount, 0)
        XCTAssertTrue(fixture.logs.contains("Segments: Callback ignored: the category name is empty"))
    }

    func testTheLatestPolicyKeepsOnlyTheNewestUnconsumedList() async {
        let fixture = Fixture()
        fixture.transport.defaultResponse = response([.discovery: [1]])
        let changes = fixture.client.segmentChanges(for: .discovery, includeFirstLoad: true, bufferingPolicy: .latest)
        _ = fixture.register(.discovery, firstLoad: true, tag: "callback")
        fixture.startAndRunInitialCheck()
        fixture.transport.defaultResponse = response([.discovery: [2]])
        _ = fixture.register(.content)
        fixture.advance(.seconds(5))
        XCTAssertEqual(fixture.recorder.segments(tag: "callback"), [[segment(1)], [segment(2)]])
        var iterator = changes.makeAsyncIterator()
        let received = await take(1, from: &iterator)
        XCTAssertEqual(received, [[segment(2)]])
        fixture.client.stop()
        let rest = await iterator.next()
        XCTAssertNil(rest, "only the newest list was kept")
    }

    /// A client dropped (deinit, no stop) while a completion-form pull waits on a held fetch, and
    /// while a `segmentChanges` consumer waits: the pull fails `.stopped`, the loop ends.
    func testDeinitWhileAPullAndASequenceWait() async {
        let transport = InMemorySegmentsTransport(expectedProjectToken: Fixture.token)
        transport.defaultResponse = response([.discovery: [1]])
        let clock = ManualClock()
        var client: SegmentsClient? = {
            var configuration = SegmentsConfiguration(projectToken: Fixture.token, authorization: .token("secret"), transport: transport)
            configuration.clock = clock
            return SegmentsClient(configuration: configuration)
        }()
        client!.start()
        transport.holdFetches()
        let outcome = Locked<Result<[Segment], SegmentsError>?>(nil)
        let pulled = DispatchSemaphore(value: 0)
        client!.getSegments(category: .discovery, force: true, completion: { result in
            outcome.withLock { $0 = result }
            pulled.signal()
        })
        let changes = client!.segmentChanges(for: .content)
        let consumer = Task { () -> Int in
            var count = 0
            for await _ in changes { count += 1 }
            return count
        }
        waitUntil { transport.heldFetchCount == 1 }
        weak let weakClient = client
        client = nil
        XCTAssertNil(weakClient, "the client was deinitialised")
        XCTAssertEqual(pulled.wait(timeout: .now() + 10), .success)
        let result = outcome.withLock { $0 }
        guard case .failure(let error)? = result else { return XCTFail("\(String(describing: result))") }
        XCTAssertEqual(error, .stopped)
        let count = await consumer.value
        XCTAssertEqual(count, 0)
        transport.releaseHeldFetches()
    }
}

/// Every element of `changes` until it ends (after the client stops).
/// The next `count` lists of `iterator` (fewer if the sequence ends first).
private func take(_ count: Int, from iterator: inout SegmentChanges.AsyncIterator) async -> [[Segment]] {
    var lists: [[Segment]] = []
    while lists.count < count, let next = await iterator.next() { lists.append(next) }
    return lists
}

private func collect(_ changes: SegmentChanges) async -> [[Segment]] {
    var all: [[Segment]] = []
    for await segments in changes { all.append(segments) }
    return all
}
