import Dispatch
@testable import RealtimeSegments
import XCTest

/// ``Broadcaster``, behind the reporting events: who receives a publish.
final class BroadcasterTests: XCTestCase {
    /// `Broadcaster.subscribe`: "It receives publishes made after this returns" (and
    /// `ReportingSegmentsManager.subscribe`: "every event published after this returns"). An event
    /// published before the subscription, still queued behind a slow handler, must not reach it.
    func testABroadcasterSubscriberDoesNotReceiveAnEventPublishedBeforeItSubscribed() {
        let broadcaster = Broadcaster<Int>(label: "review.broadcaster")
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        _ = broadcaster.subscribe { value in
            if value == 1 {
                entered.signal()
                release.wait()
            }
        }
        broadcaster.publish(1)
        XCTAssertEqual(entered.wait(timeout: .now() + 10), .success)
        broadcaster.publish(2)  // published now, delivered after 1
        let late = Locked<[Int]>([])
        _ = broadcaster.subscribe { value in late.withLock { $0.append(value) } }
        release.signal()
        broadcaster.publish(3)
        broadcaster.waitForDeliveries()
        XCTAssertEqual(late.withLock { $0 }, [3], "only what was published after subscribe returned")
    }
}
