import Dispatch
import Foundation
import Synchronization
import XCTest

@_spi(Benchmarks) @testable import RealtimeSegments
import RealtimeSegmentsTesting

/// SPEC: nothing is dropped and nothing hangs. App code the engine runs on its own thread (a
/// transport that never blocks, a log handler) may track into a client that thread serves; when
/// the ring is full, the call cannot wait for the engine to empty it, since the engine is the
/// caller. It returns, and its event still goes out in its place in the order.
final class IngestOnTheEngineThreadTests: XCTestCase {
    /// The engine's own thread, in a fetch of its never-blocking transport, tracks more events and
    /// a customer change than its ring holds: each call returns, and they go out in order.
    func testCallsOnTheEngineThreadIntoItsFullRingReturnAndGoOutInOrder() throws {
        let fixture = Fixture { $0.ingestCapacity = 2 }
        let (finished, thread) = Self.trackPastTheRingOnFirstFetch(of: fixture, into: fixture.client)
        fixture.client.segmentation.addCallback(callbackData: fixture.recorder.callback(.discovery, firstLoad: true))
        fixture.client.start()
        fixture.settle()
        fixture.clock.advance(by: .seconds(5))  // the start's check: its fetch runs the responder
        // The transport calls its responder under its lock: a hung call leaves it taken.
        guard finished.wait(timeout: .now() + 10) == .success else {
            return XCTFail("the engine thread waited for room only it can make")
        }
        XCTAssertEqual(thread.withLock { $0 }, EngineThread.name, "the calls ran on the engine's thread")
        fixture.settle()
        Self.assertTrackedPastTheRingInOrder(fixture.transport.trackedEvents)
    }

    /// A group thread, in one client's fetch, tracks into another client of the same thread whose
    /// ring is full: the calls return, and the other client sends them in order.
    func testCallsOnAGroupThreadIntoAFullRingOfAnotherOfItsClientsReturnAndGoOutInOrder() throws {
        let (target, caller, clock) = Self.twoClientsOfOneGroupThread()
        let (finished, thread) = Self.trackPastTheRingOnFirstFetch(of: caller, into: target.client)
        caller.client.segmentation.addCallback(callbackData: caller.recorder.callback(.discovery, firstLoad: true))
        target.client.start()
        caller.client.start()
        target.settle()
        caller.settle()
        clock.advance(by: .seconds(5))
        // The transport calls its responder under its lock: a hung call leaves it taken.
        guard finished.wait(timeout: .now() + 10) == .success else {
            return XCTFail("the group thread waited for room only it can make")
        }
        XCTAssertEqual(thread.withLock { $0 }, EngineThread.groupName, "the calls ran on the group's thread")
        target.settle()
        caller.settle()
        Self.assertTrackedPastTheRingInOrder(target.transport.trackedEvents)
    }

    /// The same, with the other client started in that fetch: it has not joined the group thread
    /// yet when the calls fill its ring, and only that thread will empty it.
    func testCallsOnAGroupThreadIntoAFullRingOfAClientItStartedReturnAndGoOutInOrder() throws {
        let (target, caller, clock) = Self.twoClientsOfOneGroupThread()
        let (finished, thread) = Self.trackPastTheRingOnFirstFetch(of: caller, into: target.client, startingIt: true)
        caller.client.segmentation.addCallback(callbackData: caller.recorder.callback(.discovery, firstLoad: true))
        caller.client.start()
        caller.settle()
        clock.advance(by: .seconds(5))
        guard finished.wait(timeout: .now() + 10) == .success else {
            return XCTFail("the group thread waited for room in the ring of a client it had not taken yet")
        }
        XCTAssertEqual(thread.withLock { $0 }, EngineThread.groupName, "the calls ran on the group's thread")
        target.settle()
        caller.settle()
        Self.assertTrackedPastTheRingInOrder(target.transport.trackedEvents)
    }

    /// Two clients on one group thread and one manual clock: `target`, with a ring of two, and
    /// `caller`, whose first fetch will track into it.
    private static func twoClientsOfOneGroupThread() -> (target: Fixture, caller: Fixture, clock: ManualClock) {
        let clock = ManualClock()
        let group = SegmentsEngineGroup(threadCount: 1, clock: clock)
        let target = Fixture {
            $0.clock = clock
            $0.engineGroup = group
            $0.ingestCapacity = 2
        }
        let caller = Fixture {
            $0.clock = clock
            $0.engineGroup = group
        }
        return (target, caller, clock)
    }

    /// Makes the first fetch of `fixture`'s client, on the thread that runs its engine, track past
    /// the ring of `client` (started there first if `startingIt`); returns the semaphore signalled
    /// when those calls returned, and where the name of the thread they ran on is kept.
    private static func trackPastTheRingOnFirstFetch(
        of fixture: Fixture, into client: SegmentsClient, startingIt: Bool = false
    ) -> (finished: DispatchSemaphore, thread: Locked<String?>) {
        let finished = DispatchSemaphore(value: 0)
        let thread = Locked<String?>(nil)
        let armed = Atomic<Bool>(true)
        fixture.transport.setResponder { [weak client] _ in
            if armed.exchange(false, ordering: .relaxed), let client {
                thread.withLock { $0 = systemThreadName() }
                if startingIt { client.start() }
                trackPastTheRing(into: client)
                finished.signal()
            }
            return response([.discovery: [1]])
        }
        return (finished, thread)
    }

    /// Five events, a customer change and one more event: more than a ring of two holds.
    private static func trackPastTheRing(into client: SegmentsClient) {
        for index in 0..<5 { try? client.trackEvent(eventType: "e\(index)") }
        try? client.identifyCustomer(customerIds: ["registered": "engine@example.com"])
        try? client.trackEvent(eventType: "after")
    }

    private static func assertTrackedPastTheRingInOrder(
        _ events: [TrackedEvent], file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertEqual(events.map(\.eventType), ["e0", "e1", "e2", "e3", "e4", "after"], file: file, line: line)
        XCTAssertNil(events.first?.customerIds["registered"], "tracked before the change", file: file, line: line)
        XCTAssertEqual(events.last?.customerIds["registered"], "engine@example.com", "tracked after the change", file: file, line: line)
    }
}
