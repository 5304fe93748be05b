import Atomics

/// The least work an ordered, lock-free enqueue of one event can do, for `tracking-storm` to time
/// beside `trackEvent` and a fetch-add.
///
/// `trackEvent` must give the events of every thread one order: it claims its slot with one atomic
/// read-modify-write on a position shared by all producers. On x86-64 that instruction is a full
/// barrier, so each claim also waits for the previous event's stores to reach the cache, which a
/// loop of bare fetch-adds never does. This model does only that unavoidable work, with nothing of
/// the engine's: read an open flag, claim with a fetch-add, check that the slot is free, store an
/// event's five words, publish the slot, read the consumer's sleeping flag. Its slots are freed by
/// the thread that timed it, between batches, so they are in its cache: a floor, not a rival ring.
///
/// Not thread-safe: one thread enqueues and drains.
final class OrderedEnqueueFloor {
    /// Slots: as many as the engine's default ring, a cache line each (its sequence word first).
    static let capacity = 4_096
    private static let slotBytes = 64

    private let slots: UnsafeMutableRawPointer
    /// The enqueue position and the two flags, each on a cache line of its own.
    private let words: UnsafeMutableRawPointer
    private var position: UnsafeAtomic<Int> { UnsafeAtomic(at: words.assumingMemoryBound(to: UnsafeAtomic<Int>.Storage.self)) }
    private var open: UnsafeAtomic<Bool> {
        UnsafeAtomic(at: (words + Self.slotBytes).assumingMemoryBound(to: UnsafeAtomic<Bool>.Storage.self))
    }
    private var consumerSleeping: UnsafeAtomic<Bool> {
        UnsafeAtomic(at: (words + 2 * Self.slotBytes).assumingMemoryBound(to: UnsafeAtomic<Bool>.Storage.self))
    }
    /// Where the next drain starts.
    private var drained = 0

    init() {
        slots = .allocate(byteCount: Self.capacity * Self.slotBytes, alignment: Self.slotBytes)
        words = .allocate(byteCount: 3 * Self.slotBytes, alignment: Self.slotBytes)
        words.initializeMemory(as: UInt8.self, repeating: 0, count: 3 * Self.slotBytes)
        for index in 0..<Self.capacity {
            let slot = slots + index * Self.slotBytes
            slot.initializeMemory(as: UInt8.self, repeating: 0, count: Self.slotBytes)
            slot.storeBytes(of: index, as: Int.self)
        }
        open.store(true, ordering: .relaxed)
    }

    deinit {
        slots.deallocate()
        words.deallocate()
    }

    /// Enqueues one event of four words and a tag, as `trackEvent` stores a bare event. A call of
    /// its own, as `trackEvent` is to an app. Traps if the ring is full or closed: a batch must fit
    /// in ``capacity`` and be drained after.
    @inline(never)
    func enqueue(_ word0: UInt, _ word1: UInt, _ word2: UInt, _ word3: UInt) {
        guard _fastPath(open.load(ordering: .relaxed)) else { preconditionFailure("the floor ring is closed") }
        let position = self.position.loadThenWrappingIncrement(ordering: .sequentiallyConsistent)
        let slot = slots + (position & (Self.capacity - 1)) * Self.slotBytes
        let sequence = UnsafeAtomic<Int>(at: slot.assumingMemoryBound(to: UnsafeAtomic<Int>.Storage.self))
        guard _fastPath(sequence.load(ordering: .acquiring) == position) else { preconditionFailure("the floor ring is full") }
        slot.storeBytes(of: word0, toByteOffset: 8, as: UInt.self)
        slot.storeBytes(of: word1, toByteOffset: 16, as: UInt.self)
        slot.storeBytes(of: word2, toByteOffset: 24, as: UInt.self)
        slot.storeBytes(of: word3, toByteOffset: 32, as: UInt.self)
        slot.storeBytes(of: 0, toByteOffset: 40, as: UInt8.self)
        sequence.store(position &+ 1, ordering: .releasing)
        if _slowPath(consumerSleeping.load(ordering: .sequentiallyConsistent)) { preconditionFailure("no consumer sleeps here") }
    }

    /// Frees every published slot, as a consumer would after taking its event.
    func drain() {
        let end = position.load(ordering: .relaxed)
        while drained < end {
            let slot = slots + (drained & (Self.capacity - 1)) * Self.slotBytes
            UnsafeAtomic<Int>(at: slot.assumingMemoryBound(to: UnsafeAtomic<Int>.Storage.self))
                .store(drained &+ Self.capacity, ordering: .releasing)
            drained += 1
        }
    }

    /// Ns per ``enqueue(_:_:_:_:)``, timed as one batch of `iterations` (at most ``capacity``),
    /// then drained.
    func batch(iterations: Int) -> Double {
        precondition(iterations <= Self.capacity, "a floor batch must fit in the ring")
        let start = monotonicNanoseconds()
        for index in 0..<iterations { enqueue(UInt(bitPattern: index), 0x1F, 0x2F, 0x3F) }
        let elapsed = monotonicNanoseconds() - start
        drain()
        return Double(elapsed) / Double(iterations)
    }
}
