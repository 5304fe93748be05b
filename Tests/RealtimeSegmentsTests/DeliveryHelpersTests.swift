import Foundation
@testable import RealtimeSegments
import Synchronization
import XCTest

/// The helper threads of parallel delivery: they join while the calling thread works, `run`
/// returns only after every helper that joined is done, and a delivery that finds them busy runs
/// alone. These also run under `swift test --sanitize=thread` in CI.
final class DeliveryHelpersTests: XCTestCase {
    private var iterations: Int {
        ProcessInfo.processInfo.environment["RS_STRESS_ITERATIONS"].flatMap(Int.init) ?? 3_000
    }

    func testWithoutHelpersRunDoesNothingAndSaysSo() {
        let helpers = DeliveryHelpers(count: 0)
        let ran = Atomic<Int>(0)
        XCTAssertFalse(helpers.run { ran.add(1, ordering: .relaxed) })
        XCTAssertEqual(ran.load(ordering: .relaxed), 0)
    }

    /// The calling thread's own run waits until a helper has taken part: helpers are threads of
    /// their own that join a delivery while the calling thread is busy in it.
    func testAHelperJoinsWhileTheCallingThreadIsBusy() {
        XCTAssertTrue(callerSeesAHelper(DeliveryHelpers(count: 1)), "a helper thread ran the work while the caller waited in it")
    }

    /// A helper that ``DeliveryHelpers/prepare()`` started spins until a delivery opens and joins
    /// it by watching for it: a spin that never saw the delivery would hold the helper for 60 s,
    /// past the 10 s the calling thread waits for it. (Whether it joined without a signal is not
    /// observable here; `run` sends none to a helper that is not parked.)
    func testAPreparedHelperJoinsTheDeliveryItSpinsFor() {
        let helpers = DeliveryHelpers(count: 1, spinLimit: .seconds(60))
        helpers.prepare()
        XCTAssertTrue(callerSeesAHelper(helpers), "the spinning helper joined the delivery")
    }

    /// A woken helper whose spin ends before a delivery opens parks again, and the next
    /// ``DeliveryHelpers/prepare()`` or ``DeliveryHelpers/run(_:)`` wakes it.
    func testAHelperParksAfterItsSpinAndIsWokenAgain() {
        let helpers = DeliveryHelpers(count: 1, spinLimit: .zero)
        helpers.prepare()
        XCTAssertTrue(waitUntil { helpers.parkedCount == 1 }, "the helper parked once its spin was over")
        XCTAssertTrue(callerSeesAHelper(helpers), "run woke the parked helper")
        XCTAssertTrue(waitUntil { helpers.parkedCount == 1 }, "the helper parked after the delivery")
        let wakes = helpers.wakes
        helpers.prepare()
        XCTAssertTrue(waitUntil { helpers.wakes > wakes && helpers.parkedCount == 1 }, "prepare woke the parked helper, and it parked again")
        XCTAssertTrue(callerSeesAHelper(helpers), "and run woke it once more")
    }

    #if os(Linux)
    /// Helpers run user callbacks, so they use the default scheduling even when a `SCHED_BATCH`
    /// thread (the engine thread, by default) starts them: on Linux a new thread inherits its
    /// creator's policy.
    func testHelpersStartedFromABatchThreadUseTheDefaultScheduling() {
        let helpers = DeliveryHelpers(count: 1, spinLimit: .seconds(60))
        let started = DispatchSemaphore(value: 0)
        let starterPolicy = Atomic<Int32>(-1)
        let starter = Thread {
            var parameters = sched_param()
            _ = sched_setscheduler(0, Self.schedBatch, &parameters)
            starterPolicy.store(sched_getscheduler(0), ordering: .relaxed)
            helpers.prepare()
            started.signal()
        }
        starter.start()
        XCTAssertEqual(started.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(starterPolicy.load(ordering: .relaxed), Self.schedBatch, "the starting thread runs under SCHED_BATCH")
        let helperPolicy = Atomic<Int32>(-1)
        XCTAssertTrue(callerSeesAHelper(helpers) { helperPolicy.store(sched_getscheduler(0), ordering: .relaxed) })
        XCTAssertEqual(helperPolicy.load(ordering: .relaxed), Int32(SCHED_OTHER), "the helper runs under the default policy")
    }

    /// `SCHED_BATCH` from `<sched.h>` (declared behind `_GNU_SOURCE`, so Swift does not import it).
    private static let schedBatch: Int32 = 3
    #endif

    /// Runs one delivery whose calling thread waits for a helper to take part (running `onHelper`
    /// there); `true` if one did. The wait is bounded (10 s), so a helper that never comes fails
    /// the test instead of hanging.
    private func callerSeesAHelper(_ helpers: DeliveryHelpers, onHelper: @escaping @Sendable () -> Void = {}) -> Bool {
        let caller = pthread_self()
        let helperRan = DispatchSemaphore(value: 0)
        let callerSawHelper = Atomic<Bool>(false)
        let ran = helpers.run {
            if pthread_equal(pthread_self(), caller) != 0 {
                callerSawHelper.store(helperRan.wait(timeout: .now() + 10) == .success, ordering: .relaxed)
            } else {
                onHelper()
                helperRan.signal()
            }
        }
        return ran && callerSawHelper.load(ordering: .relaxed)
    }

    /// Polls `condition` (yielding between looks) for up to 10 s: a state another thread reaches.
    private func waitUntil(_ condition: () -> Bool) -> Bool {
        let deadline = DispatchTime.now() + 10
        while !condition() {
            guard DispatchTime.now() < deadline else { return false }
            sched_yield()
        }
        return true
    }

    /// While one delivery holds the helpers, another returns `false` at once without running its
    /// work (the caller then runs it alone), and the helpers are free again once the first returns.
    func testASecondDeliveryFindsTheHelpersBusyAndDoesNotWait() {
        let helpers = DeliveryHelpers(count: 1)
        let inside = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let firstDone = DispatchSemaphore(value: 0)
        // The first delivery, on a thread of its own, stays inside its work until released.
        let first = Thread {
            let me = pthread_self()
            _ = helpers.run {
                guard pthread_equal(pthread_self(), me) != 0 else { return }
                inside.signal()
                _ = release.wait(timeout: .now() + 10)
            }
            firstDone.signal()
        }
        first.start()
        XCTAssertEqual(inside.wait(timeout: .now() + 10), .success)
        let secondWork = Atomic<Int>(0)
        XCTAssertFalse(helpers.run { secondWork.add(1, ordering: .relaxed) }, "the helpers are held by the first delivery")
        XCTAssertEqual(secondWork.load(ordering: .relaxed), 0, "run does not run the work when it returns false")
        release.signal()
        XCTAssertEqual(firstDone.wait(timeout: .now() + 10), .success)
        XCTAssertTrue(helpers.run {}, "free again once the first delivery returned")
    }

    /// Many deliveries in a row, each sharing out items from a counter: every item is taken
    /// exactly once, and when `run` returns no thread is still inside the work.
    func testEveryItemIsTakenOnceAndNoHelperOutlivesItsDelivery() {
        // A short spin, and `prepare` before every other delivery: helpers join both spinning and
        // signalled, and park in between.
        let helpers = DeliveryHelpers(count: max(1, ProcessInfo.processInfo.activeProcessorCount - 1), spinLimit: .microseconds(20))
        let items = 64
        let inside = Atomic<Int>(0)
        var helped = 0
        for iteration in 0..<iterations {
            if iteration % 2 == 0 { helpers.prepare() }
            let next = Atomic<Int>(0)
            let taken = Locked([Int](repeating: 0, count: items))
            let callerThread = pthread_self()
            let byHelpers = Atomic<Int>(0)
            XCTAssertTrue(helpers.run {
                inside.add(1, ordering: .relaxed)
                defer { inside.subtract(1, ordering: .relaxed) }
                while true {
                    let item = next.add(1, ordering: .relaxed).oldValue
                    guard item < items else { break }
                    taken.withLock { $0[item] += 1 }
                    if pthread_equal(pthread_self(), callerThread) == 0 { byHelpers.add(1, ordering: .relaxed) }
                }
            })
            XCTAssertEqual(inside.load(ordering: .relaxed), 0, "a thread was still inside the work after run returned")
            XCTAssertTrue(taken.withLock { $0.allSatisfy { $0 == 1 } }, "every item taken exactly once")
            if byHelpers.load(ordering: .relaxed) > 0 { helped += 1 }
        }
        // Not asserted (it depends on scheduling): how often a helper got there in time.
        print("DeliveryHelpersTests: a helper took items in \(helped) of \(iterations) deliveries")
    }
}
