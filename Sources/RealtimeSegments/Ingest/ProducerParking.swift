import Atomics
import Dispatch

/// Where producers that found their ring slot still taken sleep until the consumer frees it.
///
/// A parked producer is listed by the ring position it claimed, the list kept in position order,
/// and sleeps on a semaphore of its own; the consumer, once per drain batch, wakes the producers
/// at the head of the list whose slots it has freed, in that order, and no others. Nothing here is
/// on the path of a producer that finds its slot free, and the consumer's look costs one fence and
/// one load while nobody is parked.
///
/// The lock is only taken by a producer about to sleep and by a consumer that has someone to
/// wake. Semaphores are kept for reuse, so parking allocates only when more producers sleep at
/// once than ever before.
///
/// Threading: ``park(at:isFree:beforeSleeping:)`` from any number of producers;
/// ``wake(claimedBelow:)`` from the ring's one consumer at a time; the rest from any thread.
final class ProducerParking: Sendable {
    /// How many producers are listed. Kept apart from the list so that the consumer's look needs
    /// no lock; changed only under the lock, by whoever lists or unlists a producer.
    private let parkedCount = ManagedAtomic<Int>(0)
    /// Times a producer parked, since creation (a statistic).
    private let parks = ManagedAtomic<Int>(0)
    private let state = Locked(State())

    private struct State: Sendable {
        /// The parked producers, by claimed position (oldest first).
        var parked: [Parked] = []
        /// Semaphores of producers no longer parked, each at zero, for the next to park.
        var idle: [DispatchSemaphore] = []

        init() {
            parked.reserveCapacity(32)
            idle.reserveCapacity(32)
        }
    }

    private struct Parked: Sendable {
        let position: Int
        let semaphore: DispatchSemaphore
    }

    /// Whether any producer is parked (a snapshot). Sequentially consistent: the engine's look
    /// before it lingers pairs with a producer's listing (see ``park(at:isFree:beforeSleeping:)``).
    var hasParked: Bool { parkedCount.load(ordering: .sequentiallyConsistent) > 0 }

    /// Times a producer parked, since creation.
    var parkCount: Int { parks.load(ordering: .relaxed) }

    /// The positions of the parked producers, oldest first (a snapshot, for tests).
    var parkedPositions: [Int] { state.withLock { $0.parked.map(\.position) } }

    /// Lists the calling producer as waiting for the slot of `position`, calls `beforeSleeping`,
    /// and sleeps unless `isFree()` says the slot is free by then; returns once the slot is free
    /// (woken by ``wake(claimedBelow:)``) or was found free.
    ///
    /// No wake-up is lost: the listing comes before the look at the slot, and the consumer frees
    /// slots before it looks for listed producers, each side with a full fence in between
    /// (Dekker's handshake), so either the look sees the slot free or the consumer sees the
    /// producer listed. `beforeSleeping` runs after the listing, for the same reason: a wake-up of
    /// the consumer it sends is not lost against a consumer that checks ``hasParked`` before it
    /// waits.
    func park(at position: Int, isFree: () -> Bool, beforeSleeping: () -> Void) {
        let semaphore = state.withLock { state in
            let semaphore = state.idle.popLast() ?? DispatchSemaphore(value: 0)
            // Producers list themselves in about the order they claimed: the place is near the end.
            var index = state.parked.endIndex
            while index > 0 && state.parked[index - 1].position &- position > 0 { index -= 1 }
            state.parked.insert(Parked(position: position, semaphore: semaphore), at: index)
            parkedCount.wrappingIncrement(ordering: .sequentiallyConsistent)
            return semaphore
        }
        parks.wrappingIncrement(ordering: .relaxed)
        atomicMemoryFence(ordering: .sequentiallyConsistent)
        beforeSleeping()
        if isFree() {
            let stillListed = state.withLock { state in
                guard let index = state.parked.firstIndex(where: { $0.position == position }) else { return false }
                state.parked.remove(at: index)
                parkedCount.wrappingDecrement(ordering: .sequentiallyConsistent)
                return true
            }
            // Unlisted by the consumer, which signals (or is about to): take that signal, so the
            // semaphore goes back to zero.
            if !stillListed { semaphore.wait() }
        } else {
            semaphore.wait()
        }
        state.withLock { $0.idle.append(semaphore) }
    }

    /// Wakes, oldest first, every parked producer whose claimed position is below `limit` (whose
    /// slot the consumer has freed), and returns how many. Consumer only, after it has freed the
    /// slots and passed a full fence (see ``park(at:isFree:beforeSleeping:)``).
    func wake(claimedBelow limit: Int) -> Int {
        guard parkedCount.load(ordering: .relaxed) > 0 else { return 0 }
        return state.withLock { state in
            var woken = 0
            while woken < state.parked.count && state.parked[woken].position &- limit < 0 {
                state.parked[woken].semaphore.signal()
                woken += 1
            }
            if woken > 0 {
                state.parked.removeFirst(woken)
                parkedCount.wrappingDecrement(by: woken, ordering: .sequentiallyConsistent)
            }
            return woken
        }
    }
}
