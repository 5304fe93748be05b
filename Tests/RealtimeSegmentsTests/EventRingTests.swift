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

    func testReferencesAreReleasedWhenTheRingIsDropped() {
        final class Token {}
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
        let producers = 4
        let perProducer = 20_000
        let ring = EventRing<Int>(minimumCapacity: 64)
        let done = Atomic<Int>(0)
        DispatchQueue.global().async {
            DispatchQueue.concurrentPerform(iterations: producers) { producer in
                for sequence in 0..<perProducer {
                    let value = producer << 32 | sequence
                    while !ring.tryEnqueue(value) { sched_yield() }
                }
            }
            done.store(1, ordering: .releasing)
        }
        var next = [Int](repeating: 0, count: producers)
        var received = 0
        while received < producers * perProducer {
            guard let value = ring.dequeue() else {
                sched_yield()
                continue
            }
            let producer = value >> 32
            XCTAssertEqual(value & 0xFFFF_FFFF, next[producer])
            next[producer] += 1
            received += 1
        }
        XCTAssertNil(ring.dequeue())
        XCTAssertEqual(next, [Int](repeating: perProducer, count: producers))
        while done.load(ordering: .acquiring) == 0 { sched_yield() }
    }
}
