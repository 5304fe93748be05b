import Foundation
@testable import RealtimeSegments
import RealtimeSegmentsTesting
import XCTest

/// SPEC §9: cache-or-fetch, single flight, options, configuration errors.
final class QualifiedFetchTests: XCTestCase {
    func testFetchStoresTheQualifiedSegmentsOfTheUser() async throws {
        let fixture = QualifiedFixture()
        fixture.transport.setQualifiedSegments(["b", "c"], forUser: "jane")
        let jane = fixture.user("jane")
        try await jane.fetchQualifiedSegments()
        XCTAssertEqual(jane.qualifiedSegments, ["b", "c"])
    }

    func testRequestCarriesTheUserKeyTheUserIdTheSegmentsToCheckAndTheApiKey() async throws {
        let fixture = QualifiedFixture()
        try await fixture.user("VUID_42").fetchQualifiedSegments()
        try await fixture.user("jane").fetchQualifiedSegments()
        XCTAssertEqual(fixture.transport.qualifiedQueries, [
            QualifiedSegmentsQuery(userKey: .vuid, userValue: "VUID_42", segmentsToCheck: ["a", "b", "c"]),
            QualifiedSegmentsQuery(userKey: .fsUserId, userValue: "jane", segmentsToCheck: ["a", "b", "c"]),
        ])
        XCTAssertEqual(fixture.transport.qualifiedAPIKeys, [QualifiedFixture.apiKey, QualifiedFixture.apiKey])
    }

    func testSecondFetchForTheSameUserIsServedFromTheCache() async throws {
        let fixture = QualifiedFixture()
        try await fixture.user("jane").fetchQualifiedSegments()
        fixture.transport.defaultQualifiedSegments = ["b"]
        let again = fixture.user("jane")
        try await again.fetchQualifiedSegments()
        XCTAssertEqual(again.qualifiedSegments, ["a"])
        XCTAssertEqual(fixture.transport.qualifiedFetchCount, 1)
    }

    func testAnotherUsersEntryIsNotUsed() async throws {
        let fixture = QualifiedFixture()
        fixture.transport.setQualifiedSegments(["c"], forUser: "joe")
        try await fixture.user("jane").fetchQualifiedSegments()
        let joe = fixture.user("joe")
        try await joe.fetchQualifiedSegments()
        XCTAssertEqual(joe.qualifiedSegments, ["c"])
        XCTAssertEqual(fixture.transport.qualifiedFetchCount, 2)
    }

    func testAnswerIsCachedUnderUserKeyAndUserValue() async throws {
        let fixture = QualifiedFixture()
        try await fixture.user("vuid_7").fetchQualifiedSegments()
        try await fixture.user("jane").fetchQualifiedSegments()
        XCTAssertEqual(fixture.cache.peek("vuid-$-vuid_7"), ["a"])
        XCTAssertEqual(fixture.cache.peek("fs_user_id-$-jane"), ["a"])
    }

    func testCachedAnswerExpiresAfterTheConfiguredTimeout() async throws {
        let fixture = QualifiedFixture(cacheTimeout: .seconds(30))
        try await fixture.user("jane").fetchQualifiedSegments()
        fixture.clock.advance(by: .seconds(30))
        try await fixture.user("jane").fetchQualifiedSegments()
        XCTAssertEqual(fixture.transport.qualifiedFetchCount, 2)
    }

    /// SPEC §9: a timeout of zero means no expiry, through the client as well as in the cache.
    func testZeroCacheTimeoutKeepsTheAnswerForever() async throws {
        let fixture = QualifiedFixture(cacheTimeout: .zero)
        try await fixture.user("jane").fetchQualifiedSegments()
        fixture.clock.advance(by: .seconds(1_000_000_000))
        try await fixture.user("jane").fetchQualifiedSegments()
        XCTAssertEqual(fixture.transport.qualifiedFetchCount, 1)
    }

    func testZeroCacheSizeFetchesEveryTime() async throws {
        let fixture = QualifiedFixture(cacheSize: 0)
        try await fixture.user("jane").fetchQualifiedSegments()
        try await fixture.user("jane").fetchQualifiedSegments()
        XCTAssertEqual(fixture.transport.qualifiedFetchCount, 2)
    }

    /// A size below zero disables the cache as zero does (with the guard gone, eviction indexed
    /// slot -1 and trapped).
    func testANegativeCacheSizeFetchesEveryTimeAsZeroDoes() async throws {
        let fixture = QualifiedFixture(cacheSize: -1)
        try await fixture.user("jane").fetchQualifiedSegments()
        try await fixture.user("jane").fetchQualifiedSegments()
        XCTAssertEqual(fixture.transport.qualifiedFetchCount, 2)
    }

    // MARK: Single flight

    func testFiftyConcurrentMissesForOneUserSendOneRequest() {
        let fixture = QualifiedFixture()
        fixture.transport.holdQualifiedFetches()
        let outcomes = Locked<[SegmentsError?]>([])
        let users = (0..<50).map { _ in fixture.user("jane") }
        let expectations = Locked<[XCTestExpectation]>([])
        DispatchQueue.concurrentPerform(iterations: 50) { index in
            let done = fixture.startFetch(users[index], outcome: outcomes)
            expectations.withLock { $0.append(done) }
        }
        waitUntil(timeout: 30) { fixture.transport.heldQualifiedFetchCount >= 1 }
        XCTAssertEqual(fixture.transport.qualifiedFetchCount, 1)
        fixture.transport.releaseHeldQualifiedFetches()
        wait(for: expectations.withLock { $0 }, timeout: 30)
        XCTAssertEqual(fixture.transport.qualifiedFetchCount, 1)
        XCTAssertEqual(outcomes.withLock { $0.count }, 50)
        XCTAssertTrue(outcomes.withLock { $0 }.allSatisfy { $0 == nil })
        XCTAssertTrue(users.allSatisfy { $0.qualifiedSegments == ["a"] })
    }

    func testFiftyConcurrentAsyncFetchesForOneUserSendOneRequest() async throws {
        let fixture = QualifiedFixture()
        fixture.transport.holdQualifiedFetches()
        let transport = fixture.transport
        let fetcher = fixture.client.qualifiedFetcher
        let jane = QualifiedSegmentsFetcher.User(id: "jane")
        // The request is held until all 50 callers wait for it: none can be served by the cache.
        Thread.detachNewThread {
            waitUntil(timeout: 30) { fetcher.waiterCount(for: jane) == 50 }
            transport.releaseHeldQualifiedFetches()
        }
        try await withThrowingTaskGroup(of: [String]?.self) { group in
            for _ in 0..<50 {
                group.addTask {
                    let user = fixture.user("jane")
                    try await user.fetchQualifiedSegments()
                    return user.qualifiedSegments
                }
            }
            for try await segments in group { XCTAssertEqual(segments, ["a"]) }
        }
        XCTAssertEqual(fixture.transport.qualifiedFetchCount, 1)
    }

    func testConcurrentMissesForDifferentUsersSendOneRequestEach() {
        let fixture = QualifiedFixture()
        fixture.transport.holdQualifiedFetches()
        let fetches = ["jane", "joe", "jane", "vuid_1", "joe"].map { fixture.startFetch(fixture.user($0)) }
        waitUntil(timeout: 30) { fixture.transport.heldQualifiedFetchCount >= 3 }
        fixture.transport.releaseHeldQualifiedFetches()
        wait(for: fetches, timeout: 30)
        XCTAssertEqual(fixture.transport.qualifiedFetchCount, 3)
        XCTAssertEqual(Set(fixture.transport.qualifiedQueries.map(\.userValue)), ["jane", "joe", "vuid_1"])
    }

    func testJoinersGetTheSameErrorAsTheRequest() {
        let fixture = QualifiedFixture()
        fixture.transport.holdQualifiedFetches()
        fixture.transport.failNext(.fetchQualifiedSegments, with: .fetchSegmentsFailed("500"))
        let outcomes = Locked<[SegmentsError?]>([])
        let fetches = (0..<3).map { _ in fixture.startFetch(fixture.user("jane"), outcome: outcomes) }
        waitUntil(timeout: 30) { fixture.transport.heldQualifiedFetchCount >= 1 }
        fixture.transport.releaseHeldQualifiedFetches()
        wait(for: fetches, timeout: 30)
        XCTAssertEqual(outcomes.withLock { $0 }, [.fetchSegmentsFailed("500"), .fetchSegmentsFailed("500"), .fetchSegmentsFailed("500")])
        XCTAssertEqual(fixture.transport.qualifiedFetchCount, 1)
    }

    func testErrorsAreNotCached() async throws {
        let fixture = QualifiedFixture()
        fixture.transport.failNext(.fetchQualifiedSegments, with: .invalidSegmentIdentifier)
        let jane = fixture.user("jane")
        do {
            try await jane.fetchQualifiedSegments()
            XCTFail("expected the scripted failure")
        } catch {
            XCTAssertEqual(error, .invalidSegmentIdentifier)
        }
        XCTAssertNil(fixture.cache.peek("fs_user_id-$-jane"))
        try await jane.fetchQualifiedSegments()
        XCTAssertEqual(jane.qualifiedSegments, ["a"])
        XCTAssertEqual(fixture.transport.qualifiedFetchCount, 2)
    }

    // MARK: Options

    func testIgnoreCacheSkipsTheLookup() async throws {
        let fixture = QualifiedFixture()
        try await fixture.user("jane").fetchQualifiedSegments()
        fixture.transport.defaultQualifiedSegments = ["b"]
        let jane = fixture.user("jane")
        try await jane.fetchQualifiedSegments(options: [.ignoreCache])
        XCTAssertEqual(jane.qualifiedSegments, ["b"])
        XCTAssertEqual(fixture.transport.qualifiedFetchCount, 2)
    }

    func testIgnoreCacheDoesNotSave() async throws {
        let fixture = QualifiedFixture()
        try await fixture.user("jane").fetchQualifiedSegments(options: [.ignoreCache])
        XCTAssertEqual(fixture.cache.count, 0)
        try await fixture.user("jane").fetchQualifiedSegments()
        XCTAssertEqual(fixture.transport.qualifiedFetchCount, 2)
    }

    func testIgnoreCacheKeepsAnEarlierCachedAnswer() async throws {
        let fixture = QualifiedFixture()
        try await fixture.user("jane").fetchQualifiedSegments()
        fixture.transport.defaultQualifiedSegments = ["b"]
        try await fixture.user("jane").fetchQualifiedSegments(options: [.ignoreCache])
        XCTAssertEqual(fixture.cache.peek("fs_user_id-$-jane"), ["a"])
    }

    func testIgnoreCacheCallDoesNotJoinARequestInFlight() {
        let fixture = QualifiedFixture()
        fixture.transport.holdQualifiedFetches()
        let plain = fixture.startFetch(fixture.user("jane"))
        let fresh = fixture.startFetch(fixture.user("jane"), options: [.ignoreCache])
        waitUntil(timeout: 30) { fixture.transport.heldQualifiedFetchCount >= 2 }
        fixture.transport.releaseHeldQualifiedFetches()
        wait(for: [plain, fresh], timeout: 30)
        XCTAssertEqual(fixture.transport.qualifiedFetchCount, 2)
    }

    func testPlainCallJoinsAnIgnoreCacheRequestAndCachesItsAnswer() {
        let fixture = QualifiedFixture()
        fixture.transport.holdQualifiedFetches()
        let fresh = fixture.startFetch(fixture.user("jane"), options: [.ignoreCache])
        let plain = fixture.startFetch(fixture.user("jane"))
        waitUntil(timeout: 30) { fixture.transport.heldQualifiedFetchCount >= 1 }
        fixture.transport.releaseHeldQualifiedFetches()
        wait(for: [fresh, plain], timeout: 30)
        XCTAssertEqual(fixture.transport.qualifiedFetchCount, 1)
        XCTAssertEqual(fixture.cache.peek("fs_user_id-$-jane"), ["a"])
    }

    func testResetCacheEmptiesEveryUsersEntryFirst() async throws {
        let fixture = QualifiedFixture()
        for user in ["u1", "u2", "u3"] { try await fixture.user(user).fetchQualifiedSegments() }
        XCTAssertEqual(fixture.cache.count, 3)
        try await fixture.user("u4").fetchQualifiedSegments(options: [.resetCache])
        XCTAssertEqual(fixture.cache.keysByRecency, ["fs_user_id-$-u4"])
    }

    /// Both options at once, as the reference SDK's sample passes them: the cache is emptied, the
    /// request is sent, and its answer is not saved.
    func testIgnoreCacheWithResetCacheEmptiesTheCacheAndSavesNothing() async throws {
        let fixture = QualifiedFixture()
        for user in ["u1", "u2", "u3"] { try await fixture.user(user).fetchQualifiedSegments() }
        let u1 = fixture.user("u1")
        try await u1.fetchQualifiedSegments(options: [.ignoreCache, .resetCache])
        XCTAssertEqual(fixture.transport.qualifiedFetchCount, 4, "u1 was fetched again, not served from the cache")
        XCTAssertEqual(fixture.cache.count, 0, "emptied first, and the answer not saved")
        XCTAssertEqual(u1.qualifiedSegments, ["a"])
    }

    func testResetCacheRefetchesACachedUser() async throws {
        let fixture = QualifiedFixture()
        try await fixture.user("jane").fetchQualifiedSegments()
        try await fixture.user("jane").fetchQualifiedSegments(options: [.resetCache])
        XCTAssertEqual(fixture.transport.qualifiedFetchCount, 2)
        XCTAssertEqual(fixture.cache.count, 1)
    }

    func testRequestInFlightAtAResetIsNotJoinedAfterIt() {
        let fixture = QualifiedFixture()
        fixture.transport.holdQualifiedFetches()
        let before = fixture.startFetch(fixture.user("jane"))
        waitUntil(timeout: 30) { fixture.transport.heldQualifiedFetchCount >= 1 }
        let reset = fixture.startFetch(fixture.user("joe"), options: [.resetCache])
        let after = fixture.startFetch(fixture.user("jane"))
        waitUntil(timeout: 30) { fixture.transport.heldQualifiedFetchCount >= 3 }
        fixture.transport.releaseHeldQualifiedFetches()
        wait(for: [before, reset, after], timeout: 30)
        XCTAssertEqual(fixture.transport.qualifiedFetchCount, 3)
    }

    // MARK: Configuration

    func testEmptySegmentsToCheckSucceedsWithNoSegmentsNoRequestAndNoCacheWrite() async throws {
        let fixture = QualifiedFixture(segmentsToCheck: [])
        let jane = fixture.user("jane")
        try await jane.fetchQualifiedSegments()
        XCTAssertEqual(jane.qualifiedSegments, [])
        XCTAssertEqual(fixture.transport.qualifiedFetchCount, 0)
        XCTAssertEqual(fixture.cache.count, 0)
    }

    func testMissingApiKeyFailsWithoutARequest() async {
        for apiKey in [nil, ""] as [String?] {
            let fixture = QualifiedFixture(apiKey: apiKey)
            do {
                try await fixture.user("jane").fetchQualifiedSegments()
                XCTFail("expected a failure")
            } catch {
                XCTAssertEqual(error, .fetchSegmentsFailed("apiKey/apiHost not defined"))
            }
            XCTAssertEqual(fixture.transport.qualifiedFetchCount, 0)
            XCTAssertEqual(fixture.logs.count(prefix: "Segments: Fetch of qualified segments failed"), 1)
        }
    }

    func testNoQualifiedConfigurationFailsLikeAMissingApiKey() async {
        let client = SegmentsClient(configuration: SegmentsConfiguration(projectToken: "t", transport: InMemorySegmentsTransport()))
        do {
            try await client.createUserContext(userId: "jane").fetchQualifiedSegments()
            XCTFail("expected a failure")
        } catch {
            XCTAssertEqual(error, .fetchSegmentsFailed("apiKey/apiHost not defined"))
        }
    }

    func testTransportWithoutQualifiedSupportFailsAndLogs() async {
        let fixture = QualifiedFixture(transport: SegmentsOnlyTransport())
        do {
            try await fixture.user("jane").fetchQualifiedSegments()
            XCTFail("expected a failure")
        } catch {
            XCTAssertEqual(error, .fetchSegmentsFailed("transport does not support qualified segments"))
        }
        XCTAssertEqual(
            fixture.logs.count(prefix: "Segments: Fetch of qualified segments failed: Audience segments fetch failed (transport does not support qualified segments)."),
            1)
    }

    func testTransportFailureIsLogged() async {
        let fixture = QualifiedFixture()
        fixture.transport.failNext(.fetchQualifiedSegments, with: .fetchSegmentsFailed("network error"))
        try? await fixture.user("jane").fetchQualifiedSegments()
        XCTAssertTrue(fixture.logs.contains(
            "Segments: Fetch of qualified segments of fs_user_id-$-jane failed: Audience segments fetch failed (network error)."))
    }

    /// A cancelled caller of the async `fetchQualifiedSegments` returns `SegmentsError.cancelled`
    /// at once, as `getSegments` does; the request (here: held) goes on for the others.
    func testACancelledFetchReturnsWhileTheRequestIsHeld() async {
        let fixture = QualifiedFixture()
        fixture.transport.holdQualifiedFetches()
        let user = fixture.user("jane")
        let call = Task { try await user.fetchQualifiedSegments() }
        waitUntil { fixture.transport.heldQualifiedFetchCount == 1 }
        call.cancel()
        let transport = fixture.transport
        // Watchdog: after 5 s the request is released, so the test ends instead of hanging.
        let released = Locked(false)
        let watchdog = Task.detached {
            try? await Task.sleep(for: .seconds(5))
            if !Task.isCancelled {
                released.withLock { $0 = true }
                transport.releaseHeldQualifiedFetches()
            }
        }
        let outcome = await call.result
        watchdog.cancel()
        XCTAssertFalse(released.withLock { $0 }, "the cancelled caller stayed suspended until the request was released (5 s watchdog)")
        guard case .failure(let error) = outcome else { return XCTFail("a cancelled caller got no error: \(outcome)") }
        XCTAssertEqual(error as? SegmentsError, .cancelled)
        transport.releaseHeldQualifiedFetches()
    }

    /// A transport that may block (`neverBlocks == false`) and blocks on one user's request holds
    /// up no other user's request: each of its requests runs off the shared qualified thread.
    func testABlockingRequestForOneUserDoesNotHoldUpAnotherUsersRequest() {
        let transport = BlockingQualifiedTransport()
        let fixture = QualifiedFixture(transport: transport)
        let slow = fixture.startFetch(fixture.user("slow"))
        XCTAssertEqual(transport.slowEntered.wait(timeout: .now() + 10), .success)
        let fast = fixture.startFetch(fixture.user("fast"))
        let result = XCTWaiter.wait(for: [fast], timeout: 5)
        XCTAssertEqual(result, .completed, "the request for \"fast\" waited behind the blocked one for \"slow\"")
        transport.release.signal()
        wait(for: [slow], timeout: 10)
    }

    /// `remove(_:)` of one user leaves another user's request in flight shared and cached.
    func testRemovingOneUserLeavesAnotherUsersRequestShared() {
        let fixture = QualifiedFixture()
        fixture.transport.holdQualifiedFetches()
        let first = fixture.startFetch(fixture.user("bob"))
        waitUntil { fixture.transport.heldQualifiedFetchCount == 1 }
        fixture.cache.remove(QualifiedSegmentsCache.key(userKey: .fsUserId, userValue: "alice"))
        let second = fixture.startFetch(fixture.user("bob"))
        fixture.transport.releaseHeldQualifiedFetches()
        wait(for: [first, second], timeout: 10)
        XCTAssertEqual(fixture.transport.qualifiedFetchCount, 1, "removing alice cost bob his shared request")
        XCTAssertEqual(fixture.cache.lookup(QualifiedSegmentsCache.key(userKey: .fsUserId, userValue: "bob")), ["a"],
                       "bob's answer is cached")
    }

    /// `remove(_:)` invalidates one user: an answer to a request sent before it is not cached after
    /// it, and a fetch that starts after it does not join that request.
    func testRemoveInvalidatesTheAnswerOfARequestAlreadySent() throws {
        let transport = BlockingQualifiedTransport()
        let fixture = QualifiedFixture(transport: transport)
        let first = fixture.startFetch(fixture.user("slow"))
        XCTAssertEqual(transport.slowEntered.wait(timeout: .now() + 10), .success, "the first request was sent")
        transport.answer.withLock { $0 = ["b"] }  // the server's answer changes…
        fixture.cache.remove(QualifiedSegmentsCache.key(userKey: .fsUserId, userValue: "slow"))  // …and the app invalidates
        let afterRemoval = fixture.user("slow")
        let second = fixture.startFetch(afterRemoval)
        transport.release.signal()
        transport.release.signal()  // the second request's, if it sends one
        wait(for: [first, second], timeout: 10)
        XCTAssertEqual(afterRemoval.qualifiedSegments, ["b"], "a fetch started after remove(_:) joined the request sent before it")
        XCTAssertEqual(fixture.cache.lookup(QualifiedSegmentsCache.key(userKey: .fsUserId, userValue: "slow")), ["b"],
                       "the answer of a request sent before remove(_:) was cached after it")
    }
}

/// A transport that declares it may block (`neverBlocks == false`) and whose qualified request for
/// the user "slow" blocks its thread until released, as a synchronous HTTP client would.
private final class BlockingQualifiedTransport: SegmentsTransport, QualifiedSegmentsTransport {
    let release = DispatchSemaphore(value: 0)
    let slowEntered = DispatchSemaphore(value: 0)
    /// What the server answers, read when a request arrives (as a server reads its state), before
    /// a request for "slow" is held.
    let answer = Locked(["a"])
    var neverBlocks: Bool { false }
    func trackEvents(_ events: [TrackedEvent], context: SegmentsRequestContext) async throws(SegmentsError) {}
    func identifyCustomer(_ update: CustomerUpdate, context: SegmentsRequestContext) async throws(SegmentsError) {}
    func linkCustomerIds(cookie: String, externalIds: [String: String], context: SegmentsRequestContext)
        async throws(SegmentsError) {}
    func fetchSegments(cookie: String, context: SegmentsRequestContext) async throws(SegmentsError) -> SegmentsResponse {
        SegmentsResponse()
    }
    func fetchQualifiedSegments(_ query: QualifiedSegmentsQuery, apiKey: String) async throws(SegmentsError) -> [String] {
        let answer = answer.withLock { $0 }
        if query.userValue == "slow" {
            slowEntered.signal()
            release.wait()
        }
        return answer
    }
}
