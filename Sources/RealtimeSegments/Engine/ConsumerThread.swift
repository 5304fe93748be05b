import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Which thread empties an ingestion ring: the engine's own thread, or the group thread the
/// client is pinned to, while that thread runs.
///
/// A producer asks only once it found its slot still taken (``isCurrent``). On that thread, app
/// code the engine runs (a never-blocking transport's step, a log handler) must not wait for room,
/// since only that thread makes room.
///
/// Threading: ``enter()`` and ``leave()`` on the consuming thread; ``isCurrent`` from any thread.
final class ConsumerThread: Sendable {
    /// The consuming thread's `pthread_t` bits, 0 when no thread serves the ring. A thread compares
    /// it with its own identity, which it could only have read here if it stored it itself (its
    /// own earlier store), so relaxed loads and stores suffice.
    private let identity = Atomic<UInt>(0)

    /// The calling thread now empties the ring.
    func enter() { identity.store(Self.callingThread, ordering: .relaxed) }

    /// The calling thread no longer empties the ring (before it ends, so that a later thread that
    /// gets the same `pthread_t` is not taken for it). Leaves alone a thread that entered since: a
    /// group's next thread can start before the last one has ended.
    func leave() {
        _ = identity.compareExchange(expected: Self.callingThread, desired: 0, ordering: .relaxed)
    }

    /// `true` on the thread that empties the ring, while it does.
    var isCurrent: Bool { identity.load(ordering: .relaxed) == Self.callingThread }

    private static var callingThread: UInt {
        #if canImport(Glibc)
        UInt(pthread_self())
        #else
        UInt(bitPattern: pthread_self())
        #endif
    }
}
