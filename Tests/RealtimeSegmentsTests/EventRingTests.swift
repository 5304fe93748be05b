import Foundation
import Synchronization
import XCTest

@_spi(Benchmarks) @testable import RealtimeSegments

/// The lock-free ingestion ring: FIFO, bounded, and exact under concurrency.
final class EventRingTests: XCTestCase {
    func testElementsComeOutInOrder() {
        let ring = EventRing<Int>(minimumCapacity: 8)
        for value in 0..<5 { XCTAssertTrue(ring.tryEnqueue(value)) }
        XCTAssertEqual((0..<5).compactMap { _ in ring.dequeue() }, [0, 1, 2, 3, 4])
        XCTAssertNil(ring.dequeue())
        XCTAssertTrue(ring.isEmpty)
    }

    func testAFullRingRefusesAndAcceptsAgainOnceDrained() {
        let ring = EventRing<Int>(minimumCapacity: 4)
        XCTAssertEqual(ring.capacity, 4)
        for value in 0..<4 { XCTAssertTrue(ring.tryEnqueue(value)) }
        XCTAssertFalse(ring.tryEnqueue(99))
        XCTAssertEqual(ring.dequeue(), 0)
        XCTAssertTrue(ring.tryEnqueue(4))
        XCTAssertEqual((0..<4).compactMap { _ in ring.dequeue() }, [1, 2, 3, 4])
    }

    func testEnqueueOnAFullRingWaitsForItsSlotAndLosesNothing() {
        let ring = EventRing<Int>(minimumCapacity: 4)
        for value in 0..<4 { ring.enqueue(value) { _ in XCTFail("the ring had room") } }
        // Full: the fifth waits; each wait the consumer frees one slot, the first frees its own.
        var attempts: [Int] = []
        var consumed: [Int] = []
        ring.enqueue(4) { attempt in
            attempts.append(attempt)
            if let value = ring.dequeue() { consumed.append(value) }
        }
        XCTAssertEqual(attempts, [0])
        XCTAssertEqual(consumed, [0])
        consumed += (0..<4).compactMap { _ in ring.dequeue() }
        XCTAssertEqual(consumed, [0, 1, 2, 3, 4])
        XCTAssertTrue(ring.isEmpty)
    }

    func testAClaimedSlotIsInvisibleUntilPublishedAndKeepsItsPlaceInLine() {
        let ring = EventRing<Int>(minimumCapacity: 4)
        let claimed = ring.claim { _ in XCTFail("the ring had room") }
        ring.enqueue(1) { _ in XCTFail("the ring had room") }
        XCTAssertNil(ring.dequeue(), "the consumer waits at the claimed, unpublished position")
        XCTAssertFalse(ring.isEmpty)
        claimed.element.initialize(to: 0)
        ring.publish(claimed)
        XCTAssertEqual((0..<2).compactMap { _ in ring.dequeue() }, [0, 1])
        XCTAssertTrue(ring.isEmpty)
    }

    func testClaimOnAFullRingWaitsForItsSlot() {
        let ring = EventRing<Int>(minimumCapacity: 2)
        for value in 0..<2 { ring.enqueue(value) { _ in XCTFail("the ring had room") } }
        var attempts: [Int] = []
        let claimed = ring.claim { attempt in
            attempts.append(attempt)
            if attempt == 1 { XCTAssertEqual(ring.dequeue(), 0) }
        }
        XCTAssertEqual(attempts, [0, 1], "it waited until the consumer freed its slot")
        claimed.element.initialize(to: 2)
        ring.publish(claimed)
        XCTAssertEqual((0..<2).compactMap { _ in ring.dequeue() }, [1, 2])
    }

    func testAClaimWithoutWaitingSaysWhetherItsSlotIsFreeAndHoldsItsPlaceUntilItIs() {
        let ring = EventRing<Int>(minimumCapacity: 2)
        let (first, firstIsFree) = ring.claimWithoutWaiting()
        XCTAssertTrue(firstIsFree)
        ring.waitUntilFree(first) { _ in XCTFail("its slot was free") }
        first.element.initialize(to: 0)
        ring.publish(first)
        ring.enqueue(1) { _ in XCTFail("the ring had room") }

        let (third, thirdIsFree) = ring.claimWithoutWaiting()
        XCTAssertFalse(thirdIsFree, "the ring is full: the slot still holds the first element")
        // The position is taken all the same: a later producer queues behind it.
        let (fourth, fourthIsFree) = ring.claimWithoutWaiting()
        XCTAssertFalse(fourthIsFree)
        var attempts: [Int] = []
        ring.waitUntilFree(third) { attempt in
            attempts.append(attempt)
            if attempt == 2 { XCTAssertEqual(ring.dequeue(), 0) }
        }
        XCTAssertEqual(attempts, [0, 1, 2], "it waited until the consumer freed its slot")
        third.element.initialize(to: 2)
        ring.publish(third)
        XCTAssertEqual(ring.dequeue(), 1)
        ring.waitUntilFree(fourth) { _ in XCTFail("the consumer freed its slot") }
        fourth.element.initialize(to: 3)
        ring.publish(fourth)
        XCTAssertEqual((0..<2).compactMap { _ in ring.dequeue() }, [2, 3])
        XCTAssertTrue(ring.isEmpty)
    }

    func testEnqueueTakesOverItsElementAndDequeueHandsItBack() {
        final class Token: Sendable {}
        weak var weakToken: Token?
        let ring = EventRing<Token>(minimumCapacity: 4)
        do {
            let token = Token()
            weakToken = token
            ring.enqueue(token) { _ in }
        }
        XCTAssertNotNil(weakToken, "the ring holds the only reference")
        _ = ring.dequeue()
        XCTAssertNil(weakToken)
    }

    func testReferencesAreReleasedWhenTheRingIsDropped() {
        final class Token: Sendable {}
        weak var weakToken: Token?
        do {
            let ring = EventRing<Token>(minimumCapacity: 4)
            let token = Token()
            weakToken = token
            XCTAssertTrue(ring.tryEnqueue(token))
        }
        XCTAssertNil(weakToken)
    }

    /// Stress (also under TSan): several producers, one consumer; every element arrives exactly once
    /// and each producer's elements arrive in its order.
    func testConcurrentProducersDeliverEveryElementExactlyOnceInPerProducerOrder() {
        let ring = EventRing<Int>(minimumCapacity: 64)
        let received = runProducers(4, sending: 20_000, into: ring) { value in
            while !ring.tryEnqueue(value) { sched_yield() }
        }
        XCTAssertEqual(received, [Int](repeating: 20_000, count: 4))
    }

    /// Stress (also under TSan): producers that claim by fetch-add and wait on a ring that is full
    /// most of the time, mixed with ones that try and retry; every element arrives exactly once, in
    /// each producer's order, and the waiting producers did wait.
    func testWaitingAndTryingProducersOnAFullRingDeliverEveryElementExactlyOnce() {
        let ring = EventRing<Int>(minimumCapacity: 16)
        let waits = Atomic<Int>(0)
        // A slow consumer now and then, so the ring fills up.
        let received = runProducers(4, sending: 20_000, into: ring, pauseEvery: 1_000) { value in
            if (value >> 32) % 2 == 0 {
                ring.enqueue(value) { attempt in
                    if attempt == 0 { waits.add(1, ordering: .relaxed) }
                    sched_yield()
                }
            } else {
                while !ring.tryEnqueue(value) { sched_yield() }
            }
        }
        XCTAssertTrue(ring.isEmpty)
        XCTAssertEqual(received, [Int](repeating: 20_000, count: 4))
        XCTAssertGreaterThan(waits.load(ordering: .relaxed), 0, "the ring was never full: the waiting path was not exercised")
    }

    /// Runs `producers` threads that each hand `perProducer` values (`producer << 32 | sequence`) to
    /// `send`, consumes them on this thread (pausing 200 µs every `pauseEvery` values, if given),
    /// checks each producer's values arrive in its order, and returns how many arrived per producer
    /// once every producer has finished and the ring is drained.
    private func runProducers(
        _ producers: Int, sending perProducer: Int, into ring: EventRing<Int>, pauseEvery: Int? = nil,
        send: @escaping @Sendable (Int) -> Void
    ) -> [Int] {
        let done = Atomic<Int>(0)
        DispatchQueue.global().async {
            DispatchQueue.concurrentPerform(iterations: producers) { producer in
                for sequence in 0..<perProducer { send(producer << 32 | sequence) }
            }
            done.store(1, ordering: .releasing)
        }
        var next = [Int](repeating: 0, count: producers)
        var received = 0
        while received < producers * perProducer {
            guard let value = ring.dequeue() else {
                // A producer that found the ring full may be parked on a slot freed here.
                ring.wakeParkedProducers()
                sched_yield()
                continue
            }
            let producer = value >> 32
            XCTAssertEqual(value & 0xFFFF_FFFF, next[producer])
            next[producer] += 1
            received += 1
            if let pauseEvery, received % pauseEvery == 0 { usleep(200) }
        }
        while done.load(ordering: .acquiring) == 0 { sched_yield() }
        XCTAssertNil(ring.dequeue())
        return next
    }
}
