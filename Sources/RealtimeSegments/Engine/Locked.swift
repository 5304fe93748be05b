import Foundation

/// A value behind a lock, for the few places off the hot path that need one (writer
/// serialization, test doubles, the control inbox). Package-level for the testing module's doubles.
///
/// Built on `NSLock` (a pthread mutex) rather than `Synchronization.Mutex`: on Linux the latter
/// is implemented with raw futex calls that ThreadSanitizer cannot see, so every access behind it
/// is reported as a race, and our stress tests must run clean under TSan.
package final class Locked<Value: Sendable>: @unchecked Sendable {
    // @unchecked Sendable: `value` is only read or written inside `withLock`, which holds `lock`,
    // so no two threads touch it at once; and `Value: Sendable`, so a value handed in by one thread
    // (`init`, a write in `withLock`) and out to another (a result of `withLock`) may cross
    // threads. Without that constraint a non-Sendable value (a class with unsynchronized state)
    // could leak out of the lock to two threads.
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) { self.value = value }

    /// Runs `body` with exclusive access to the value. Never call user code inside `body`.
    @inline(__always)
    package func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
