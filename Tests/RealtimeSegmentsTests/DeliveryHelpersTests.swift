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
        let helpers = DeliveryHelpers(count: 1)
        let caller = pthread_self()
        let helperRan = DispatchSemaphore(value: 0)
        let callerSawHelper = Atomic<Bool>(false)
        let ran = helpers.run {
            if pthread_equal(pthread_self(), caller) != 0 {
                // Bounded, so a helper that never comes fails the assertion instead of hanging.
                callerSawHelper.store(helperRan.wait(timeout: .now() + 10) == .success, ordering: .relaxed)
            } else {
                helperRan.signal()
            }
        }
        XCTAssertTrue(ran)
        XCTAssertTrue(callerSawHelper.load(ordering: .relaxed), "a helper thread ran the work while the caller waited in it")
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
        let helpers = DeliveryHelpers(count: max(1, ProcessInfo.processInfo.activeProcessorCount - 1))
        let items = 64
        let inside = Atomic<Int>(0)
        var helped = 0
        for _ in 0..<iterations {
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
