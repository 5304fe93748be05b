import Foundation
@_spi(Benchmarks) @testable import RealtimeSegments
import RealtimeSegmentsTesting
import Synchronization
import XCTest

/// SPEC §6: getSegments — cache, force, single flight, only the requested category.
final class PullTests: XCTestCase {
    /// SPEC §6: served from the cache while younger than the TTL, which is configurable.
    func testTheCacheTTLIsConfigurable() async throws {
        let fixture = Fixture { $0.cacheTTL = .seconds(60) }
        fixture.transport.defaultResponse = response([.discovery: [1]])
        fixture.client.start()
        fixture.settle()
        _ = try await fixture.client.getSegments(category: .discovery)
        fixture.transport.defaultResponse = response([.discovery: [2]])
        fixture.clock.advance(by: .seconds(59))
        let cached = try await fixture.client.getSegments(category: .discovery)
        XCTAssertEqual(cached, [segment(1)], "younger than the 60 s TTL: from the cache")
        fixture.clock.advance(by: .seconds(1))
        let fresh = try await fixture.client.getSegments(category: .discovery)
        XCTAssertEqual(fresh, [segment(2)], "60 s old: fetched again")
    }

    func testFetchesOnAMissAndReturnsOnlyTheRequestedCategory() async throws {
        let fixture = Fixture.started(answering: response([.discovery: [1], .content: [2]]))
        let content = try await fixture.client.getSegments(category: .content)
        XCTAssertEqual(content, [segment(2)])
        XCTAssertEqual(fixture.transport.fetchCount, 1)
    }

    func testACategoryMissingFromTheResponseIsEmpty() async throws {
        let fixture = Fixture.started(answering: response([.discovery: [1]]))
        let merchandising = try await fixture.client.getSegments(category: .merchandise)
        XCTAssertEqual(merchandising, [])
    }

    func testServesFromTheCacheWithinTheTTL() async throws {
        let fixture = Fixture.started(answering: response([.discovery: [1]]))
        _ = try await fixture.client.getSegments(category: .discovery)
        fixture.clock.advance(by: .seconds(4))
        fixture.transport.defaultResponse = response([.discovery: [2]])
        let cached = try await fixture.client.getSegments(category: .discovery)
        XCTAssertEqual(cached, [segment(1)])
        XCTAssertEqual(fixture.transport.fetchCount, 1)
        XCTAssertEqual(fixture.client.statistics.pullCacheHits, 1)
    }

    /// Caches `[1]`, lets `age` pass on the fixture's clock, and asserts that the next
    /// `getSegments` fetched the server's new `[2]`.
    private func assertRefetches(after age: (ManualClock) -> Void, file: StaticString = #filePath, line: UInt = #line) async throws {
        let fixture = Fixture.started(answering: response([.discovery: [1]]))
        _ = try await fixture.client.getSegments(category: .discovery)
        age(fixture.clock)
        fixture.transport.defaultResponse = response([.discovery: [2]])
        let fresh = try await fixture.client.getSegments(category: .discovery)
        XCTAssertEqual(fresh, [segment(2)], file: file, line: line)
        XCTAssertEqual(fixture.transport.fetchCount, 2, file: file, line: line)
    }

    func testRefetchesOnceTheCacheIsOlderThanTheTTL() async throws {
        try await assertRefetches { $0.advance(by: .seconds(5)) }
    }

    /// A cached answer ages while the device sleeps: 5 s asleep and `getSegments` fetches again.
    func testRefetchesOnceTheCacheAgedPastTheTTLWhileTheDeviceSlept() async throws {
        try await assertRefetches { $0.advanceWhileAsleep(by: .seconds(5)) }
    }

    func testForceBypassesTheCache() async throws {
        let fixture = Fixture.started(answering: response([.discovery: [1]]))
        _ = try await fixture.client.getSegments(category: .discovery)
        fixture.transport.defaultResponse = response([.discovery: [2]])
        let forced = try await fixture.client.getSegments(category: .discovery, force: true)
        XCTAssertEqual(forced, [segment(2)])
        XCTAssertEqual(fixture.transport.fetchCount, 2)
    }

    func testTheCacheOfAnotherCustomerIsNotUsed() async throws {
        let fixture = Fixture.started(answering: response([.discovery: [1]]))
        _ = try await fixture.client.getSegments(category: .discovery)
        try fixture.client.identifyCustomer(customerIds: ["registered": "jane"])
        _ = try await fixture.client.getSegments(category: .discovery)
        XCTAssertEqual(fixture.transport.fetchCount, 2)
        fixture.client.anonymize()
        _ = try await fixture.client.getSegments(category: .discovery)
        XCTAssertEqual(fixture.transport.fetchCount, 3)
    }

    /// Single flight: the fetch is held until every caller has joined it (their requests are
    /// handled in order, before the barrier posted after them), then released once.
    func testConcurrentCallersShareOneFetch() {
        let fixture = Fixture.started(answering: response([.discovery: [1], .content: [2]]))
        fixture.transport.holdFetches()
        let results = Locked<[Int: [Segment]]>([:])
        let requests: [(category: SegmentCategory, force: Bool)] = [(.discovery, false), (.content, false), (.discovery, true)]
        for (index, request) in requests.enumerated() {
            fixture.client.getSegments(category: request.category, force: request.force) { segments in
                results.withLock { $0[index] = segments }
            }
        }
        let joined = DispatchSemaphore(value: 0)
        fixture.client.channels.post(.barrier(joined, through: 0))
        XCTAssertEqual(joined.wait(timeout: .now() + 10), .success, "every caller has joined")
        waitUntil { fixture.transport.heldFetchCount == 1 }
        XCTAssertEqual(fixture.transport.fetchCount, 1, "the callers wait for the one held fetch")
        fixture.transport.releaseHeldFetches()
        fixture.settle()
        XCTAssertEqual(results.withLock { $0 }, [0: [segment(1)], 1: [segment(2)], 2: [segment(1)]])
        XCTAssertEqual(fixture.transport.fetchCount, 1)
    }

    func testAFailedFetchThrowsInTheAsyncFormAndLogsTheLine() async {
        let fixture = Fixture.started(answering: response([.discovery: [1]]))
        fixture.transport.failNext(.fetchSegments, with: .serverError(status: 500))
        do {
            _ = try await fixture.client.getSegments(category: .discovery)
            XCTFail("expected an error")
        } catch {
            XCTAssertEqual(error, .serverError(status: 500))
        }
        XCTAssertTrue(fixture.logs.contains("Segments: Fetch of segments failed: server error (HTTP 500)"))
    }

    func testAFailedFetchReturnsEmptyInTheCompletionFormAndTheNextCallFetchesAgain() {
        let fixture = Fixture.started(answering: response([.discovery: [1]]))
        fixture.transport.failNext(.fetchSegments, with: .timeout)
        let results = Locked<[[Segment]]>([])
        fixture.client.getSegments(category: .discovery) { segments in results.withLock { $0.append(segments) } }
        fixture.settle()
        fixture.client.getSegments(category: .discovery) { segments in results.withLock { $0.append(segments) } }
        fixture.settle()
        XCTAssertEqual(results.withLock { $0 }, [[], [segment(1)]], "the in-flight flag is released after a failure")
    }

    func testTheCompletionRunsOnABackgroundThread() {
        let fixture = Fixture.started(answering: response([.discovery: [1]]))
        let onMain = Locked<Bool?>(nil)
        fixture.client.getSegments(category: .discovery) { _ in onMain.withLock { $0 = Thread.isMainThread } }
        fixture.settle()
        XCTAssertEqual(onMain.withLock { $0 }, false)
    }

    #if os(Linux)
    /// The thread that `call` runs on (a thread of its own, which stays alive until the answer is
    /// in, so an inline answer would show as the same thread) and the thread its answer came on.
    private func threads(
        _ label: String, of call: @escaping @Sendable (_ answer: @escaping @Sendable () -> Void) -> Void
    ) -> (caller: pthread_t, completion: pthread_t, name: String)? {
        let seen = Locked<(caller: pthread_t, completion: pthread_t, name: String)?>(nil)
        let answered = DispatchSemaphore(value: 0)
        let callerMayEnd = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let caller = pthread_self()
            call {
                let name = systemThreadName() ?? ""
                seen.withLock { $0 = (caller, pthread_self(), name) }
                answered.signal()
            }
            _ = callerMayEnd.wait(timeout: .now() + 10)
        }
        XCTAssertEqual(answered.wait(timeout: .now() + 10), .success, label)
        callerMayEnd.signal()
        return seen.withLock { $0 }
    }

    private func assertAnsweredOffTheCallersThread(_ label: String,
                                                   _ call: @escaping @Sendable (_ answer: @escaping @Sendable () -> Void) -> Void) {
        let observed = threads(label, of: call)
        XCTAssertNotNil(observed, label)
        if let observed {
            XCTAssertNotEqual(observed.caller, observed.completion, "\(label): not on the caller's thread")
            XCTAssertNotEqual(observed.name, "Segments.engine", "\(label): not on the engine thread")
        }
    }

    /// On a miss and on a cache hit alike: never inline on the calling thread, never on the engine
    /// thread.
    func testTheCompletionRunsNeitherOnTheCallersThreadNorOnTheEngineThread() {
        let fixture = Fixture.started(answering: response([.discovery: [1]]))
        let client = fixture.client
        for attempt in ["miss", "cache hit"] {
            assertAnsweredOffTheCallersThread(attempt) { answer in client.getSegments(category: .discovery) { _ in answer() } }
        }
        XCTAssertEqual(fixture.client.statistics.pullCacheHits, 1)
    }

    /// SPEC §6: the completion form answers on a background thread, a call refused at once too (a
    /// client not started or stopped, a category without a name), in both forms.
    func testARefusedCallIsAnsweredOffTheCallersThreadToo() {
        let notStarted = Fixture()
        let stopped = Fixture.started(answering: response([.discovery: [1]]))
        stopped.client.stop()
        let running = Fixture.started(answering: response([.discovery: [1]]))
        for (label, client, category) in [
            ("not started", notStarted.client, SegmentCategory.discovery), ("stopped", stopped.client, .discovery),
            ("unnamed category", running.client, .other("")),
        ] {
            assertAnsweredOffTheCallersThread("\(label), Result form") { answer in
                client.getSegments(category: category, completion: { _ in answer() })
            }
            assertAnsweredOffTheCallersThread("\(label), [Segment] form") { answer in
                client.getSegments(category: category, result: { _ in answer() })
            }
        }
    }
    #endif

    func testALinkFailureFailsTheCallWithTheMergeLineAndSkipsTheFetch() async throws {
        let fixture = Fixture.started(answering: response([.discovery: [1]]))
        try fixture.client.identifyCustomer(customerIds: ["registered": "jane"])
        fixture.settle()
        fixture.transport.failNext(.linkCustomerIds, with: .serverError(status: 502))
        do {
            _ = try await fixture.client.getSegments(category: .discovery)
            XCTFail("a failed link fails the call")
        } catch {
            XCTAssertEqual(error, .serverError(status: 502))
        }
        XCTAssertEqual(fixture.transport.fetchCount, 0, "no fetch before the ids are linked")
        XCTAssertEqual(
            fixture.logs.count(prefix: "Segments: Customer IDs {cookie=\(fixture.cookie), registered=jane} merge failed, unable to fetch segments"),
            1)
        let segments = try await fixture.client.getSegments(category: .discovery)
        XCTAssertEqual(segments, [segment(1)], "the next call links and fetches")
        XCTAssertEqual(fixture.transport.linkCalls.count, 2)
    }

    func testACustomerChangeMidFlightRefetchesForTheCurrentCustomer() async throws {
        let fixture = Fixture.started(answering: response([:]))
        fixture.transport.setResponder { cookie in
            SegmentsResponse(categories: [.discovery: [Segment(id: cookie, segmentationId: "s")]])
        }
        fixture.transport.holdFetches()
        let client = fixture.client
        async let result = client.getSegments(category: .discovery)
        waitUntil { fixture.transport.heldFetchCount == 1 }
        client.anonymize()
        let newCookie = fixture.cookie
        fixture.transport.releaseHeldFetches()
        let segments = try await result
        XCTAssertEqual(segments.map(\.id), [newCookie])
        XCTAssertEqual(fixture.transport.fetchedCookies.last, newCookie)
    }

    func testRefetchingAfterCustomerChangesIsBounded() async {
        let fixture = Fixture { $0.maxPullRefetches = 2 }
        fixture.client.start()
        let client = fixture.client
        let transport = fixture.transport
        // Every fetch switches the customer while it is in flight.
        transport.holdFetches()
        async let result = client.getSegments(category: .discovery)
        for attempt in 1...3 {
            waitUntil { transport.heldFetchCount == 1 }
            client.anonymize()
            transport.releaseHeldFetches(keepHolding: attempt < 3)
        }
        do {
            _ = try await result
            XCTFail("expected customerChanged")
        } catch {
            XCTAssertEqual(error as? SegmentsError, .customerChanged)
        }
        XCTAssertEqual(transport.fetchCount, 3)
    }

    /// A result given up on because the customer changed is not kept in the cache: the next call
    /// fetches the current customer's segments instead of being served the previous customer's.
    func testAResultGivenUpOnIsNotServedToTheNextCustomerFromTheCache() async throws {
        let fixture = Fixture { $0.maxPullRefetches = 0 }
        fixture.client.start()
        let numbers = Locked<[String: Int]>([:])  // each customer's cookie → its own segment
        fixture.transport.setResponder { cookie in
            let number = numbers.withLock { numbers in
                if let known = numbers[cookie] { return known }
                numbers[cookie] = numbers.count + 1
                return numbers.count
            }
            return response([.discovery: [number]])
        }
        fixture.transport.holdFetches()
        async let first = fixture.client.getSegments(category: .discovery)
        waitUntil { fixture.transport.heldFetchCount == 1 }
        fixture.client.anonymize()
        fixture.transport.releaseHeldFetches()
        do {
            _ = try await first
            XCTFail("expected customerChanged")
        } catch {
            XCTAssertEqual(error as? SegmentsError, .customerChanged)
        }
        let segments = try await fixture.client.getSegments(category: .discovery)
        XCTAssertEqual(fixture.transport.fetchCount, 2, "fetched again for the current customer")
        let current = try XCTUnwrap(fixture.transport.fetchedCookies.last)
        XCTAssertNotEqual(current, fixture.transport.fetchedCookies.first)
        XCTAssertEqual(segments, [segment(try XCTUnwrap(numbers.withLock { $0[current] }))])
    }

    /// The cache keeps the answer to the latest request: a check sent before a forced pull but
    /// answered after it does not put its older answer in place of the pull's.
    func testAnOlderChecksAnswerDoesNotReplaceANewerPullsInTheCache() async throws {
        let transport = CallTimeAnswersTransport(server: response([.discovery: [1]]))
        let fixture = Fixture { $0.transport = transport }
        _ = fixture.register(.discovery, tag: "d")
        fixture.client.start()
        fixture.settle()
        fixture.clock.advance(by: .seconds(5))  // the initial check: fetch 0
        waitUntil { transport.callCount == 1 }
        transport.release(0)
        fixture.settle()
        try fixture.client.trackEvent(eventType: "view")
        fixture.settle()
        fixture.clock.advance(by: .seconds(5))  // a check: fetch 1, sent while the server has [1]
        waitUntil { transport.callCount == 2 }
        transport.setServer(response([.discovery: [2]]))
        let pulled = Locked<Result<[Segment], SegmentsError>?>(nil)
        fixture.client.getSegments(category: .discovery, force: true) { result in pulled.withLock { $0 = result } }
        waitUntil { transport.callCount == 3 }  // the pull: fetch 2, sent after the change
        transport.release(2)
        waitUntil { pulled.withLock { $0 } != nil }
        XCTAssertEqual(try pulled.withLock { $0 }?.get(), [segment(2)])
        transport.release(1)  // the check's older answer arrives last
        fixture.settle()
        let cached = try await fixture.client.getSegments(category: .discovery)
        XCTAssertEqual(transport.callCount, 3, "served from the cache")
        XCTAssertEqual(cached, [segment(2)], "the cache went back to the older answer")
    }

    func testGetSegmentsBeforeStartThrowsNotStarted() async {
        let fixture = Fixture()
        do {
            _ = try await fixture.client.getSegments(category: .discovery)
            XCTFail("expected notStarted")
        } catch {
            XCTAssertEqual(error, .notStarted)
        }
    }

    /// Hits spell the cached lists once and share them: concurrent callers get the same strings.
    func testCacheHitsShareOneSpelledList() {
        let fixture = Fixture.started(answering: response([.discovery: [1, 2], .content: [3]]))
        @Sendable func pull() -> [Segment] {
            let done = DispatchSemaphore(value: 0)
            let list = Locked<[Segment]>([])
            fixture.client.getSegments(category: .discovery) { segments in
                list.withLock { $0 = segments }
                done.signal()
            }
            XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
            return list.withLock { $0 }
        }
        let first = pull()
        let hits = Locked<[[Segment]]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            let list = pull()
            hits.withLock { $0.append(list) }
        }
        let lists = hits.withLock { $0 }
        XCTAssertEqual(fixture.transport.fetchCount, 1)
        XCTAssertEqual(fixture.client.statistics.pullCacheHits, 8)
        XCTAssertEqual(lists, Array(repeating: first, count: 8))
        XCTAssertEqual(Set(lists.map(idStorages(of:))).count, 1, "every hit hands out the same spelled strings")
    }

    /// An entry a listener check stored has not been spelled when the first hits arrive together:
    /// each may spell it, and all of them hand out the strings of one.
    func testConcurrentFirstHitsShareOneSpelledList() {
        let fixture = Fixture()
        fixture.transport.defaultResponse = response([.discovery: [1, 2], .content: [3]])
        _ = fixture.register(.discovery)
        fixture.startAndRunInitialCheck()
        let hits = Locked<[[Segment]]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            let done = DispatchSemaphore(value: 0)
            fixture.client.getSegments(category: .discovery) { segments in
                hits.withLock { $0.append(segments) }
                done.signal()
            }
            XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        }
        let lists = hits.withLock { $0 }
        XCTAssertEqual(fixture.transport.fetchCount, 1, "the listener check's fetch only")
        XCTAssertEqual(fixture.client.statistics.pullCacheHits, 8)
        XCTAssertEqual(lists.count, 8)
        XCTAssertEqual(Set(lists.map { $0.map(\.id) }), [["000000000000000000000001", "000000000000000000000002"]])
        XCTAssertEqual(Set(lists.map(idStorages(of:))).count, 1, "every hit hands out the same spelled strings")
    }

    func testAListenerCheckAlsoRefreshesTheCache() async throws {
        let fixture = Fixture()
        fixture.transport.defaultResponse = response([.discovery: [1]])
        _ = fixture.register(.discovery)
        fixture.startAndRunInitialCheck()
        _ = try await fixture.client.getSegments(category: .discovery)
        XCTAssertEqual(fixture.transport.fetchCount, 1)
    }
}
