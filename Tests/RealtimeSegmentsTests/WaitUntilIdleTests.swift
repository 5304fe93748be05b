import Dispatch
import Foundation
import Synchronization
import XCTest

@_spi(Benchmarks) @testable import RealtimeSegments
import RealtimeSegmentsTesting

/// `waitUntilIdle` returns only once every call made before it has been processed: an event
/// tracked before the call has had its upload started (and, with an in-memory transport,
/// finished), even when the engine takes the event out of the ring in a turn after the one that
/// answered the call's first barrier.
final class WaitUntilIdleTests: XCTestCase {
    func testAnEventTakenFromTheRingAfterTheBarrierWasAnsweredIsWaitedFor() {
        let turnHeld = DispatchSemaphore(value: 0)
        let turnGate = DispatchSemaphore(value: 0)
        let holdTurns = Atomic<Int>(0)
        let lookHeld = DispatchSemaphore(value: 0)
        let lookGate = DispatchSemaphore(value: 0)
        let holdLook = Atomic<Bool>(false)
        let fixture = Fixture {
            $0.turnDrainedForTesting = {
                guard holdTurns.load(ordering: .acquiring) > 0 else { return }
                holdTurns.wrappingSubtract(1, ordering: .acquiringAndReleasing)
                turnHeld.signal()
                turnGate.wait()
            }
            $0.settleBarrierAnsweredForTesting = {
                guard holdLook.exchange(false, ordering: .acquiringAndReleasing) else { return }
                lookHeld.signal()
                lookGate.wait()
            }
        }
        let client = fixture.client
        client.start()
        fixture.settle()
        // A turn that drains nothing is held after its drain.
        holdTurns.store(1, ordering: .releasing)
        client.flush()
        XCTAssertEqual(turnHeld.wait(timeout: .now() + 10), .success)
        // Meanwhile an event is tracked, and then the wait begins: its barrier reaches the inbox.
        try? client.trackEvent(eventType: "tracked-before-the-wait")
        holdLook.store(true, ordering: .releasing)
        let returned = Locked<Bool?>(nil)
        let waited = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let idle = client.waitUntilIdle(timeout: .seconds(30))
            returned.withLock { $0 = idle }
            waited.signal()
        }
        waitUntil { client.channels.pendingMessageCount == 2 }  // the flush and the barrier
        // The held turn goes on and takes the barrier; the next turn drains the event and is held.
        holdTurns.store(1, ordering: .releasing)
        turnGate.signal()
        XCTAssertEqual(turnHeld.wait(timeout: .now() + 10), .success, "the event's turn")
        // The event is out of the ring and its upload not started. A wait whose barrier was
        // answered already looks now.
        if lookHeld.wait(timeout: .now() + 1) == .success {
            lookGate.signal()
            XCTAssertEqual(waited.wait(timeout: .now() + 10), .success)
            XCTAssertEqual(fixture.transport.trackedEvents.map(\.eventType), ["tracked-before-the-wait"],
                           "waitUntilIdle returned \(String(describing: returned.withLock { $0 })) before the event's upload")
            turnGate.signal()
        } else {
            turnGate.signal()
            XCTAssertEqual(lookHeld.wait(timeout: .now() + 10), .success)
            lookGate.signal()
            XCTAssertEqual(waited.wait(timeout: .now() + 10), .success)
            XCTAssertEqual(returned.withLock { $0 }, true)
            XCTAssertEqual(fixture.transport.trackedEvents.map(\.eventType), ["tracked-before-the-wait"])
        }
    }
}
