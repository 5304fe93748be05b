import Atomics

/// A bounded lock-free multi-producer, single-consumer queue (Vyukov's bounded queue).
///
/// Producers claim a slot with one compare-and-swap on the enqueue position and publish it with a
/// release store of the slot's sequence number; the consumer reads slots in order. Nothing is
/// allocated after construction: elements are moved into and out of a preallocated buffer.
///
/// Threading: ``tryEnqueue(_:)`` from any number of threads; ``dequeue()`` from one consumer thread
/// at a time (the engine thread). ``isEmpty`` from any thread (a snapshot).
@_spi(Benchmarks)
public final class EventRing<Element>: @unchecked Sendable {
    // @unchecked Sendable: every slot is owned by exactly one thread at a time. A producer owns slot
    // `p` from its successful CAS of `enqueuePosition` until its release store of `sequence[p]`;
    // the consumer owns it from observing that store (acquire) until its own release store of
    // `sequence[p] = p + capacity`, which hands it back to producers. Elements are only touched
    // inside those windows.
    let capacity: Int
    private let mask: Int
    private let sequences: UnsafeMutablePointer<UnsafeAtomic<Int>.Storage>
    private let slots: UnsafeMutablePointer<Element>
    private let enqueuePosition = ManagedAtomic<Int>(0)
    private let dequeuePosition = ManagedAtomic<Int>(0)

    /// Creates a ring holding at least `minimumCapacity` elements (rounded up to a power of two).
    @_spi(Benchmarks)
    public init(minimumCapacity: Int) {
        var capacity = 2
        while capacity < minimumCapacity { capacity <<= 1 }
        self.capacity = capacity
        self.mask = capacity - 1
        sequences = .allocate(capacity: capacity)
        for index in 0..<capacity {
            (sequences + index).initialize(to: UnsafeAtomic<Int>.Storage(index))
        }
        slots = .allocate(capacity: capacity)
    }

    deinit {
        while dequeue() != nil {}
        sequences.deinitialize(count: capacity)
        sequences.deallocate()
        slots.deallocate()
    }

    @inline(__always)
    private func sequence(at index: Int) -> UnsafeAtomic<Int> {
        UnsafeAtomic(at: sequences + (index & mask))
    }

    /// Appends `element`, or returns `false` (leaving it with the caller) if the ring is full.
    @inline(__always)
    @_spi(Benchmarks)
    public func tryEnqueue(_ element: Element) -> Bool {
        var position = enqueuePosition.load(ordering: .relaxed)
        while true {
            let sequence = sequence(at: position).load(ordering: .acquiring)
            let lag = sequence &- position
            if lag == 0 {
                let (won, current) = enqueuePosition.weakCompareExchange(
                    expected: position, desired: position &+ 1, ordering: .relaxed)
                if won {
                    (slots + (position & mask)).initialize(to: element)
                    self.sequence(at: position).store(position &+ 1, ordering: .releasing)
                    return true
                }
                position = current
            } else if lag < 0 {
                return false
            } else {
                position = enqueuePosition.load(ordering: .relaxed)
            }
        }
    }

    /// Removes the oldest element, or returns `nil` if none is ready. Consumer thread only.
    @_spi(Benchmarks)
    public func dequeue() -> Element? {
        let position = dequeuePosition.load(ordering: .relaxed)
        let slotSequence = sequence(at: position)
        guard slotSequence.load(ordering: .acquiring) == position &+ 1 else { return nil }
        let element = (slots + (position & mask)).move()
        slotSequence.store(position &+ capacity, ordering: .releasing)
        dequeuePosition.store(position &+ 1, ordering: .releasing)
        return element
    }

    /// `true` when every claimed slot has been consumed (a snapshot; producers may be mid-enqueue).
    var isEmpty: Bool {
        let dequeued = dequeuePosition.load(ordering: .acquiring)
        return enqueuePosition.load(ordering: .acquiring) == dequeued
    }
}
