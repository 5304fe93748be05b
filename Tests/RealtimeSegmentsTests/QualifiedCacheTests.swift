import Foundation
@testable import RealtimeSegments
import RealtimeSegmentsTesting
import Synchronization
import XCTest

/// SPEC §9: the qualified-segments LRU cache with a TTL on the monotonic clock.
final class QualifiedCacheTests: XCTestCase {
    private let clock = ManualClock()

    private func cache(size: Int = 2, timeout: Duration = .seconds(600)) -> QualifiedSegmentsCache {
        QualifiedSegmentsCache(size: size, timeout: timeout, clock: clock)
    }

    func testDefaultsAreOneHundredUsersAndSixHundredSeconds() {
        let cache = QualifiedSegmentsCache()
        XCTAssertEqual(cache.size, 100)
        XCTAssertEqual(cache.timeout, .seconds(600))
    }

    /// SPEC §9: the cache defaults to 100 users and 600 s: a configuration given neither has them,
    /// and so has the cache of a client built with it.
    func testConfigurationWithoutCacheSettingsHasTheDefaultSizeAndTimeout() {
        let qualified = QualifiedSegmentsConfiguration(apiKey: "odp-key", segmentsToCheck: ["a"])
        XCTAssertEqual(qualified.cacheSize, 100)
        XCTAssertEqual(qualified.cacheTimeout, .seconds(600))
        var configuration = SegmentsConfiguration(projectToken: "token", transport: InMemorySegmentsTransport())
        configuration.clock = clock
        configuration.qualifiedSegments = qualified
        let client = SegmentsClient(configuration: configuration)
        XCTAssertEqual(client.qualifiedSegmentsCache.size, 100)
        XCTAssertEqual(client.qualifiedSegmentsCache.timeout, .seconds(600))
    }

    /// SPEC §9: "use a monotonic clock". The wall clock set a day forward or back neither expires
    /// an entry nor keeps one alive; 600 s of monotonic time does expire it.
    func testEntriesLiveByTheMonotonicClockNotTheWallClock() {
        let cache = cache()
        cache.save("a", ["s1"])
        let wall = clock.wallClockSeconds()
        clock.setWallClock(secondsSince1970: wall + 86_400)
        XCTAssertEqual(cache.lookup("a"), ["s1"], "the wall clock a day ahead")
        clock.setWallClock(secondsSince1970: wall - 86_400)
        XCTAssertEqual(cache.lookup("a"), ["s1"], "the wall clock a day back")
        clock.advance(by: .seconds(600))
        XCTAssertNil(cache.lookup("a"), "600 s of monotonic time")
    }

    /// An entry ages while the device sleeps: after 600 s asleep it has expired, though the
    /// engine's timers stood still.
    func testEntriesAgeWhileTheDeviceSleeps() {
        let cache = cache()
        cache.save("a", ["s1"])
        clock.advanceWhileAsleep(by: .seconds(599))
        XCTAssertEqual(cache.lookup("a"), ["s1"])
        clock.advanceWhileAsleep(by: .seconds(1))
        XCTAssertNil(cache.lookup("a"), "600 s asleep")
    }

    func testCacheKeyJoinsUserKeyAndUserValue() {
        XCTAssertEqual(QualifiedSegmentsCache.key(userKey: .vuid, userValue: "test-user"), "vuid-$-test-user")
        XCTAssertEqual(QualifiedSegmentsCache.key(userKey: .fsUserId, userValue: "jane"), "fs_user_id-$-jane")
    }

    func testSavedValueIsFound() {
        let cache = cache()
        cache.save("a", ["s1", "s2"])
        XCTAssertEqual(cache.lookup("a"), ["s1", "s2"])
    }

    func testSaveBeyondTheSizeEvictsTheLeastRecentlyUsed() {
        let cache = cache()
        cache.save("a", ["1"])
        cache.save("b", ["2"])
        cache.save("c", ["3"])
        XCTAssertNil(cache.lookup("a"))
        XCTAssertEqual(cache.lookup("b"), ["2"])
        XCTAssertEqual(cache.lookup("c"), ["3"])
        XCTAssertEqual(cache.count, 2)
    }

    func testLookupHitMakesTheEntryMostRecentlyUsed() {
        let cache = cache()
        cache.save("a", ["1"])
        cache.save("b", ["2"])
        XCTAssertEqual(cache.lookup("a"), ["1"])
        cache.save("c", ["3"])
        XCTAssertNil(cache.peek("b"))
        XCTAssertEqual(cache.keysByRecency, ["a", "c"])
    }

    func testResavingMakesTheEntryMostRecentlyUsed() {
        let cache = cache()
        cache.save("a", ["1"])
        cache.save("b", ["2"])
        cache.save("a", ["1b"])
        cache.save("c", ["3"])
        XCTAssertNil(cache.peek("b"))
        XCTAssertEqual(cache.lookup("a"), ["1b"])
        XCTAssertEqual(cache.count, 2)
    }

    func testPeekDoesNotChangeRecency() {
        let cache = cache()
        cache.save("a", ["1"])
        cache.save("b", ["2"])
        XCTAssertEqual(cache.peek("a"), ["1"])
        cache.save("c", ["3"])
        XCTAssertNil(cache.peek("a"))
        XCTAssertEqual(cache.keysByRecency, ["b", "c"])
    }

    func testEntryIsValidOnlyWhileStrictlyYoungerThanTheTimeout() {
        let cache = cache(timeout: .seconds(600))
        cache.save("a", ["1"])
        clock.advance(by: .seconds(600) - .nanoseconds(1))
        XCTAssertEqual(cache.lookup("a"), ["1"])
        clock.advance(by: .nanoseconds(1))
        XCTAssertNil(cache.lookup("a"))
    }

    func testLookupHitDoesNotExtendTheTimeout() {
        let cache = cache(timeout: .seconds(10))
        cache.save("a", ["1"])
        clock.advance(by: .seconds(9))
        XCTAssertEqual(cache.lookup("a"), ["1"])
        clock.advance(by: .seconds(1))
        XCTAssertNil(cache.lookup("a"))
    }

    func testResavingRestartsTheTimeout() {
        let cache = cache(timeout: .seconds(10))
        cache.save("a", ["1"])
        clock.advance(by: .seconds(9))
        cache.save("a", ["2"])
        clock.advance(by: .seconds(9))
        XCTAssertEqual(cache.lookup("a"), ["2"])
    }

    func testLookupRemovesAnExpiredEntry() {
        let cache = cache(timeout: .seconds(10))
        cache.save("a", ["1"])
        clock.advance(by: .seconds(10))
        XCTAssertEqual(cache.count, 1)
        XCTAssertNil(cache.lookup("a"))
        XCTAssertEqual(cache.count, 0)
    }

    func testPeekNeverReturnsAnExpiredEntry() {
        let cache = cache(timeout: .seconds(10))
        cache.save("a", ["1"])
        clock.advance(by: .seconds(10))
        XCTAssertNil(cache.peek("a"))
    }

    func testSaveSweepsExpiredEntriesBeforeEvictingLiveOnes() {
        let cache = cache(size: 2, timeout: .seconds(10))
        cache.save("old", ["1"])
        clock.advance(by: .seconds(5))
        cache.save("live", ["2"])
        XCTAssertEqual(cache.lookup("old"), ["1"])  // "old" is now the most recently used
        clock.advance(by: .seconds(5))  // "old" expires, "live" has 5 s left
        cache.save("new", ["3"])
        XCTAssertEqual(cache.lookup("live"), ["2"])
        XCTAssertEqual(cache.lookup("new"), ["3"])
        XCTAssertEqual(cache.keysByRecency, ["live", "new"])
    }

    func testZeroTimeoutNeverExpires() {
        let cache = cache(timeout: .zero)
        cache.save("a", ["1"])
        clock.advance(by: .seconds(100_000_000))
        XCTAssertEqual(cache.lookup("a"), ["1"])
    }

    func testZeroSizeDisablesTheCache() {
        let cache = cache(size: 0)
        cache.save("a", ["1"])
        XCTAssertNil(cache.lookup("a"))
        XCTAssertNil(cache.peek("a"))
        XCTAssertEqual(cache.count, 0)
        cache.remove("a")
        cache.reset()
    }

    func testResetEmptiesTheCacheWhichKeepsWorking() {
        let cache = cache(size: 3)
        cache.save("a", ["1"])
        cache.save("b", ["2"])
        cache.reset()
        XCTAssertEqual(cache.count, 0)
        XCTAssertNil(cache.lookup("a"))
        cache.save("c", ["3"])
        cache.save("d", ["4"])
        XCTAssertEqual(cache.keysByRecency, ["c", "d"])
    }

    func testRemoveDeletesOnlyThatKeyAndIgnoresMissingKeys() {
        let cache = cache(size: 3)
        cache.save("a", ["1"])
        cache.save("b", ["2"])
        cache.remove("a")
        cache.remove("missing")
        XCTAssertNil(cache.peek("a"))
        XCTAssertNil(cache.lookup("a"))
        XCTAssertEqual(cache.lookup("b"), ["2"])
        XCTAssertEqual(cache.count, 1)
    }

    func testFreedSlotsAreReusedWithoutLosingOrder() {
        let cache = cache(size: 3)
        for round in 0..<50 {
            cache.save("k\(round % 5)", ["\(round)"])
        }
        XCTAssertEqual(cache.keysByRecency, ["k2", "k3", "k4"])
        XCTAssertEqual(cache.lookup("k4"), ["49"])
    }

    func testConcurrentSavesLookupsAndRemovesKeepTheSizeBound() {
        let cache = cache(size: 3, timeout: .seconds(1))
        let clock = clock
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for step in 0..<1_000 {
                let key = "k\((worker + step) % 7)"
                cache.save(key, [key])
                if let value = cache.lookup(key) { XCTAssertEqual(value, [key]) }
                if step % 10 == 0 { cache.remove(key) }
                if step % 97 == 0 { clock.advance(by: .milliseconds(300)) }
            }
        }
        XCTAssertLessThanOrEqual(cache.count, 3)
    }

    /// Two saves race: the one that read the clock first takes the cache's lock second. Entries
    /// still age in the order they were stored, so a later save sweeps every expired entry
    /// before it evicts a live one (an age list out of order stopped the sweep at a live entry).
    func testSavesThatReadTheClockOutOfOrderStillSweepEveryExpiredEntry() {
        let clock = GatedClock()
        let cache = QualifiedSegmentsCache(size: 2, timeout: .seconds(10), clock: clock)
        clock.holdNextRead()
        let firstSaved = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            cache.save("read-first", ["1"])
            firstSaved.signal()
        }
        XCTAssertEqual(clock.hasRead.wait(timeout: .now() + 10), .success, "the first save read the clock")
        clock.base.advance(by: .seconds(1))
        cache.save("stored-first", ["2"])
        clock.proceed.signal()
        XCTAssertEqual(firstSaved.wait(timeout: .now() + 10), .success)
        clock.base.advance(by: .seconds(9))
        cache.save("third", ["3"])
        XCTAssertEqual(cache.count, 2)
        for key in cache.keysByRecency {
            XCTAssertNotNil(cache.peek(key), "\(key): a save swept the expired entries, so none is left")
        }
    }
}

/// A manual clock whose next `now()`, once armed, reads the time and then waits at a gate: a
/// caller preempted between reading the clock and using what it read.
private final class GatedClock: SteppedClock {
    let base = ManualClock()
    /// Signalled when the held read has read the time.
    let hasRead = DispatchSemaphore(value: 0)
    /// Lets the held read return.
    let proceed = DispatchSemaphore(value: 0)
    private let armed = Atomic<Bool>(false)

    func holdNextRead() { armed.store(true, ordering: .releasing) }

    func now() -> SegmentsInstant {
        let now = base.now()
        if armed.exchange(false, ordering: .acquiringAndReleasing) {
            hasRead.signal()
            proceed.wait()
        }
        return now
    }

    func wallClockSeconds() -> Double { base.wallClockSeconds() }

    func sleep(until deadline: SegmentsInstant?, wakeup: EngineWakeup) { base.sleep(until: deadline, wakeup: wakeup) }
}
