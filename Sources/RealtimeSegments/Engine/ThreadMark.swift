import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The one thread at a time that does a job, asked from any thread whether it is the caller: the
/// thread that empties an ingestion ring (the engine's own, or the group thread the client is
/// pinned to, while that thread runs), or the thread running an upload.
///
/// App code run on such a thread (a never-blocking transport's step, a log handler, an upload's
/// transport call) must not wait for what only that thread's job can bring about: room in the
/// ring, or the engine's end. Producers ask only once they found their slot still taken
/// (``isCurrent``); `stop()` asks before it waits.
///
/// Threading: ``enter()`` and ``leave()`` on the marked thread; ``isCurrent`` from any thread.
final class ThreadMark: Sendable {
    /// The marked thread's `pthread_t` bits, 0 when none. A thread compares it with its own
    /// identity, which it could only have read here if it stored it itself (its own earlier
    /// store), so relaxed loads and stores suffice.
    private let identity = Atomic<UInt>(0)

    /// The calling thread is now the marked one.
    func enter() { identity.store(Self.callingThread, ordering: .relaxed) }

    /// The calling thread is no longer the marked one (before it ends, so that a later thread that
    /// gets the same `pthread_t` is not taken for it). Leaves alone a thread that entered since: a
    /// group's next thread can start before the last one has ended.
    func leave() {
        _ = identity.compareExchange(expected: Self.callingThread, desired: 0, ordering: .relaxed)
    }

    /// `true` on the marked thread, while it is marked.
    var isCurrent: Bool { identity.load(ordering: .relaxed) == Self.callingThread }

    private static var callingThread: UInt {
        #if canImport(Glibc)
        UInt(pthread_self())
        #else
        UInt(bitPattern: pthread_self())
        #endif
    }
}
