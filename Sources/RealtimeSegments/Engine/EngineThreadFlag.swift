#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Whether the calling thread empties ingestion rings: an engine's own thread or a group's.
///
/// App code such a thread runs (a log handler, a never-blocking transport's step) that stops
/// another client must not wait for that client's engine to end: the stopped engine's end may
/// wait for this thread (a full ring of a client it serves), and every client this thread serves
/// would stand still meanwhile. In a group, any two clients on different threads can close such
/// a cycle.
///
/// Threading: ``markCurrentThread()`` on each engine thread as it starts; ``isCurrent`` from any
/// thread. A thread-specific value: a thread reads only what it stored itself.
enum EngineThreadFlag {
    /// `nil` if the system had no thread-specific key left: calls then wait as before.
    private static let key: pthread_key_t? = {
        var key = pthread_key_t()
        return pthread_key_create(&key, nil) == 0 ? key : nil
    }()

    /// The calling thread is an engine thread, for the rest of its life.
    static func markCurrentThread() {
        guard let key else { return }
        _ = pthread_setspecific(key, UnsafeRawPointer(bitPattern: 1))
    }

    /// `true` on an engine thread.
    static var isCurrent: Bool {
        guard let key else { return false }
        return pthread_getspecific(key) != nil
    }
}
