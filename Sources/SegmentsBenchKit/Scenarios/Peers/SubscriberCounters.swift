import Atomics

/// One counter per subscriber, each on its own cache line, advanced with a relaxed atomic add.
///
/// Every peer's subscriber does this same minimal work: add the notification's segment count to
/// its own counter. It is atomic, not a plain add, because the Dispatch and AsyncStream subscribers
/// run on other threads and the producer reads the counts after waiting on a `DispatchGroup` or
/// `DispatchSemaphore`, an ordering ThreadSanitizer cannot see on Linux; the same atomic in every
/// peer keeps their per-callback work equal (and equal to the engine probe's relaxed increment).
final class SubscriberCounters: @unchecked Sendable {
    // @unchecked Sendable: after `init` and before `deinit` (which no other thread can overlap,
    // both being ends of the object's lifetime) the storage is only touched by atomic operations.

    /// Slots between two subscribers: 8 × 8 bytes puts each counter on its own 64-byte line, so
    /// subscribers on different threads never share one.
    private static let spacing = 8

    /// Subscribers counted.
    let count: Int
    private let storage: UnsafeMutablePointer<UnsafeAtomic<Int>.Storage>

    /// Creates `count` counters at zero.
    init(count: Int) {
        self.count = count
        storage = .allocate(capacity: max(count, 1) * Self.spacing)
        storage.initialize(repeating: UnsafeAtomic<Int>.Storage(0), count: max(count, 1) * Self.spacing)
    }

    deinit {
        storage.deinitialize(count: max(count, 1) * Self.spacing)
        storage.deallocate()
    }

    /// Adds `value` to subscriber `index`'s counter.
    @inline(__always)
    func add(_ value: Int, to index: Int) {
        UnsafeAtomic<Int>(at: storage + index &* Self.spacing).wrappingIncrement(by: value, ordering: .relaxed)
    }

    /// Sets every counter to zero.
    func reset() {
        for index in 0..<count {
            UnsafeAtomic<Int>(at: storage + index * Self.spacing).store(0, ordering: .relaxed)
        }
    }

    /// The number of subscribers whose counter is not `expected`.
    func subscribersNotCounting(_ expected: Int) -> Int {
        var short = 0
        for index in 0..<count where UnsafeAtomic<Int>(at: storage + index * Self.spacing).load(ordering: .relaxed) != expected {
            short += 1
        }
        return short
    }
}
