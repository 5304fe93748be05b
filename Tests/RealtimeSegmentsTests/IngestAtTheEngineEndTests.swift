import Dispatch
import Foundation
import Synchronization
import XCTest

@_spi(Benchmarks) @testable import RealtimeSegments
import RealtimeSegmentsTesting

/// SPEC: a call still running when the engine ended is dropped with a `Segments:` error. The end
/// frees the ring, wakes every producer parked on it and reports what it took out, on a client's
/// own thread and on a group's; no producer and no engine waits forever.
final class IngestAtTheEngineEndTests: XCTestCase {
    private let dropped = " events or customer changes tracked while stop() ran were dropped"

    /// A call parked on the full ring before the engine ended: the end frees its slot, wakes it,
    /// and reports its event with the others; neither side hangs.
    func testAProducerParkedWhenTheEngineEndsIsWokenAndReported() {
        let channels = EngineChannels(ringCapacity: 2)
        let logs = LogCapture()
        for _ in 0..<2 { channels.ingest(.event(eventType: "e", properties: [:], timestamp: 1)) }
        let returned = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            channels.ingestEvent(eventType: "parked", properties: [:], timestamp: 1)
            returned.signal()
        }
        waitUntil { channels.ring.parkedPositions == [2] }
        let closed = DispatchSemaphore(value: 0)
        let logger = logs.makeLogger()
        Thread.detachNewThread {
            channels.closeRing(logger: logger)
            closed.signal()
        }
        XCTAssertEqual(closed.wait(timeout: .now() + 10), .success, "the end spun on a parked producer")
        XCTAssertEqual(returned.wait(timeout: .now() + 10), .success, "the parked call never returned")
        XCTAssertTrue(channels.ring.isEmpty)
        XCTAssertEqual(logs.messages, ["Segments: 3" + dropped])
    }

    /// A call that claims after the end, on a ring still full of late items published but not yet
    /// taken, parks; the call that takes those items out wakes it.
    func testAProducerParkedAfterTheEndIsWokenByTheCallThatTakesTheItemsAhead() {
        let channels = EngineChannels(ringCapacity: 2)
        channels.closeRing(logger: LogCapture().makeLogger())
        // Two calls that have published but not yet looked at the engine's state.
        for _ in 0..<2 {
            let (claimed, isFree) = channels.ring.claimWithoutWaiting()
            XCTAssertTrue(isFree)
            IngestItem.initializeEvent(at: claimed.element, eventType: "late", properties: [:], timestamp: 1)
            channels.ring.publish(claimed)
        }
        let returned = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            channels.ingestEvent(eventType: "parked", properties: [:], timestamp: 1)
            returned.signal()
        }
        waitUntil { channels.ring.parkedPositions == [2] }
        // One of the two calls now looks, sees the end, and takes the late items out.
        channels.requestReload()
        XCTAssertEqual(returned.wait(timeout: .now() + 10), .success, "the parked call never returned")
        XCTAssertTrue(channels.ring.isEmpty)
    }

    /// A grouped client's call that passed its "started" check before stop() and reaches the ring
    /// after the engine ended: its item is taken out and reported, not left in a ring nobody reads.
    func testAGroupedCallStillRunningWhenTheEngineEndsIsReported() {
        let gate = DispatchSemaphore(value: 0)
        let arrived = DispatchSemaphore(value: 0)
        let armed = Atomic<Bool>(true)
        let group = SegmentsEngineGroup(threadCount: 1, clock: SystemClock())
        let fixture = Fixture {
            $0.clock = SystemClock()
            $0.engineGroup = group
            $0.identityPublishedForTesting = {
                guard armed.exchange(false, ordering: .relaxed) else { return }
                arrived.signal()
                gate.wait()
            }
        }
        fixture.client.start()
        let done = DispatchSemaphore(value: 0)
        let client = fixture.client
        Thread.detachNewThread {
            try? client.identifyCustomer(customerIds: ["registered": "late@example.com"])
            done.signal()
        }
        XCTAssertEqual(arrived.wait(timeout: .now() + 10), .success)
        client.stop()  // the engine ends while the call is held before the ring
        gate.signal()
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        XCTAssertTrue(client.channels.ring.isEmpty, "the late item was left in a ring nobody reads")
        XCTAssertTrue(fixture.logs.messages.contains("Segments: 1" + dropped), "\(fixture.logs.messages)")
    }
}
