import Foundation
import Synchronization
import XCTest

@_spi(Benchmarks) @testable import RealtimeSegments
import RealtimeSegmentsTesting

/// Producers that find the ring full park, and the consumer wakes them in claim order once it has
/// freed their slots; nothing is lost or reordered.
final class EventRingParkingTests: XCTestCase {
    /// A claim handed to the thread that waits for it.
    private struct Claim: @unchecked Sendable {
        // @unchecked Sendable: the claimed slot belongs to whichever thread holds the claim, and
        // each claim is handed to exactly one thread (the one that waits, fills and publishes it);
        // the test thread never touches it after the hand-over.
        let slot: EventRing<Int>.ClaimedSlot
    }

    /// Parked producers are listed by the position they claimed, whatever order they parked in,
    /// and each consumer's wake-up wakes exactly those whose slots it freed, oldest first.
    func testParkedProducersAreWokenInClaimOrderOnlyOnceTheirSlotsAreFree() {
        let ring = EventRing<Int>(minimumCapacity: 4)
        for value in 0..<4 { ring.enqueue(value) { _ in XCTFail("the ring had room") } }
        // Positions 4...7, claimed here in order; none of their slots is free.
        let claims = (0..<4).map { _ in
            let (claimed, isFree) = ring.claimWithoutWaiting()
            XCTAssertFalse(isFree)
            return Claim(slot: claimed)
        }
        XCTAssertEqual(claims.map(\.slot.position), [4, 5, 6, 7])
        let woke = Locked<[Int]>([])
        let finished = DispatchGroup()
        // They park in another order than they claimed: each waits until the one before is parked.
        for index in [3, 1, 2, 0] {
            let claim = claims[index]
            finished.enter()
            Thread.detachNewThread {
                ring.waitUntilFree(claim.slot) { _ in }
                woke.withLock { $0.append(claim.slot.position) }
                claim.slot.element.initialize(to: 100 + claim.slot.position)
                ring.publish(claim.slot)
                finished.leave()
            }
            waitUntil { ring.parkedPositions.contains(claim.slot.position) }
        }
        XCTAssertEqual(ring.parkedPositions, [4, 5, 6, 7], "listed by claimed position")
        XCTAssertEqual(ring.wakeParkedProducers(), 0, "no slot was freed: nobody is woken")

        XCTAssertEqual(ring.dequeue(), 0)
        XCTAssertEqual(ring.wakeParkedProducers(), 1)
        XCTAssertEqual(ring.parkedPositions, [5, 6, 7], "only the oldest claim's slot is free")
        waitUntil { woke.withLock { $0 } == [4] }

        XCTAssertEqual(ring.dequeue(), 1)
        XCTAssertEqual(ring.dequeue(), 2)
        XCTAssertEqual(ring.wakeParkedProducers(), 2)
        XCTAssertEqual(ring.parkedPositions, [7])
        waitUntil { woke.withLock { $0.count } == 3 }
        XCTAssertEqual(Set(woke.withLock { $0 }.dropFirst()), [5, 6])

        XCTAssertEqual(ring.dequeue(), 3)
        XCTAssertEqual(ring.wakeParkedProducers(), 1)
        XCTAssertEqual(ring.parkedPositions, [])
        XCTAssertEqual(finished.wait(timeout: .now() + 10), .success)
        XCTAssertEqual((0..<4).compactMap { _ in ring.dequeue() }, [104, 105, 106, 107])
        XCTAssertTrue(ring.isEmpty)
        XCTAssertEqual(ring.parkCount, 4)
    }

    /// A producer whose slot is freed while it spins does not park.
    func testAProducerWhoseSlotIsFreedWhileItSpinsDoesNotPark() {
        let ring = EventRing<Int>(minimumCapacity: 2)
        for value in 0..<2 { ring.enqueue(value) { _ in XCTFail("the ring had room") } }
        var attempts: [Int] = []
        ring.enqueue(2) { attempt in
            attempts.append(attempt)
            if attempt == EventRing<Int>.spinsBeforeParking - 1 { XCTAssertEqual(ring.dequeue(), 0) }
        }
        XCTAssertEqual(attempts, Array(0..<EventRing<Int>.spinsBeforeParking))
        XCTAssertEqual(ring.parkCount, 0)
        XCTAssertEqual((0..<2).compactMap { _ in ring.dequeue() }, [1, 2])
    }

    /// A producer that parks after its slot was freed (the consumer freed it between the producer's
    /// last look and its listing, and found nobody parked) sees the slot free and does not sleep.
    func testAProducerListedAfterItsSlotWasFreedDoesNotSleep() {
        let ring = EventRing<Int>(minimumCapacity: 2)
        for value in 0..<2 { ring.enqueue(value) { _ in XCTFail("the ring had room") } }
        ring.enqueue(2) { attempt in
            // The last call comes after the listing: free the slot and wake nobody (the consumer's
            // look at the list raced the listing and lost). The producer's own look must catch it.
            if attempt == EventRing<Int>.spinsBeforeParking {
                XCTAssertEqual(ring.parkedPositions, [2])
                XCTAssertEqual(ring.dequeue(), 0)
            }
        }
        XCTAssertEqual(ring.parkCount, 1)
        XCTAssertEqual(ring.parkedPositions, [])
        XCTAssertEqual((0..<2).compactMap { _ in ring.dequeue() }, [1, 2])
    }

    /// Stress (also under TSan): many producers on a two-slot ring all end up parked; a consumer
    /// that wakes them once per batch gets every element exactly once, in each producer's order.
    func testManyProducersParkedOnATinyRingDeliverEveryElementExactlyOnceInOrder() {
        let ring = EventRing<Int>(minimumCapacity: 2)
        let producers = 8
        let perProducer = 3_000
        let finished = startProducers(producers) { producer in
            for sequence in 0..<perProducer { ring.enqueue(producer << 32 | sequence) { _ in } }
        }
        // Nothing is consumed yet: two producers filled the ring, and every one of them is parked
        // on its next claim.
        waitUntil { ring.parkedPositions.count == producers }
        var next = [Int](repeating: 0, count: producers)
        var received = 0
        var sinceWake = 0
        while received < producers * perProducer {
            if let value = ring.dequeue() {
                let producer = value >> 32
                XCTAssertEqual(value & 0xFFFF_FFFF, next[producer], "producer \(producer)'s elements in its order")
                next[producer] += 1
                received += 1
                sinceWake += 1
                if sinceWake == 16 {
                    ring.wakeParkedProducers()
                    sinceWake = 0
                }
            } else {
                ring.wakeParkedProducers()
                sinceWake = 0
                sched_yield()
            }
        }
        XCTAssertEqual(finished.wait(timeout: .now() + 10), .success)
        XCTAssertNil(ring.dequeue())
        XCTAssertTrue(ring.isEmpty)
        XCTAssertEqual(next, [Int](repeating: perProducer, count: producers))
        XCTAssertEqual(ring.parkedPositions, [])
        XCTAssertGreaterThanOrEqual(ring.parkCount, producers)
    }

    /// The engine's short wait between looks at the ring does not begin while a producer is parked
    /// on it: the producer's nudge may have come before the wait, and only a drain frees its slot.
    func testTheEngineDoesNotLingerWhileAProducerIsParked() {
        let channels = EngineChannels(ringCapacity: 2)
        for _ in 0..<2 { channels.ingest(.event(eventType: "e", properties: [:], timestamp: 1)) }
        let published = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            channels.ingest(.event(eventType: "parked", properties: [:], timestamp: 1))
            published.signal()
        }
        waitUntil { channels.ring.parkedPositions == [2] }
        let lingered = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            channels.linger(nanoseconds: 600_000_000_000)
            lingered.signal()
        }
        XCTAssertEqual(lingered.wait(timeout: .now() + 10), .success, "the engine waited with a producer parked")
        XCTAssertNotNil(channels.ring.dequeue())
        XCTAssertEqual(channels.ring.wakeParkedProducers(), 1)
        XCTAssertEqual(published.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(channels.producerStalls.atomic.load(ordering: .relaxed), 1)
    }

    /// Through the engine: producers tracking flat out into a four-slot ring park and are woken by
    /// the engine's drain; every event is uploaded once, in each producer's order.
    func testProducersParkedOnTheEnginesFullRingLoseNothing() throws {
        let fixture = Fixture { $0.clock = SystemClock(); $0.ingestCapacity = 4 }
        fixture.client.start()
        let producers = 6
        let perProducer = 400
        let finished = startProducers(producers) { producer in
            for sequence in 0..<perProducer {
                try? fixture.client.trackEvent(eventType: "p\(producer)", properties: ["n": .number(Double(sequence))])
            }
        }
        XCTAssertEqual(finished.wait(timeout: .now() + 30), .success)
        fixture.settle()
        var byProducer: [String: [Double]] = [:]
        for event in fixture.transport.trackedEvents {
            guard case .number(let sequence) = event.properties["n"] else { return XCTFail("an event without its number") }
            byProducer[event.eventType, default: []].append(sequence)
        }
        XCTAssertEqual(byProducer.count, producers)
        for (producer, sequences) in byProducer {
            XCTAssertEqual(sequences, (0..<perProducer).map(Double.init), "\(producer)'s events once each, in its order")
        }
    }

    /// Starts `count` producer threads, each running `body` with its number; the group is left as
    /// each ends.
    private func startProducers(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) -> DispatchGroup {
        let finished = DispatchGroup()
        for producer in 0..<count {
            finished.enter()
            Thread.detachNewThread {
                body(producer)
                finished.leave()
            }
        }
        return finished
    }
}
