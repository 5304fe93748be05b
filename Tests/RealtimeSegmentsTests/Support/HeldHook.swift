import Dispatch
@testable import RealtimeSegments

/// A gate for a `…ForTesting` hook: once armed, the next call of ``hold()`` signals that it was
/// reached and waits for ``release()``. Later calls pass. Forces one interleaving of two threads.
final class HeldHook: Sendable {
    private let armed: Locked<Bool>
    private let reached = DispatchSemaphore(value: 0)
    private let released = DispatchSemaphore(value: 0)

    /// A gate armed from the start (`armed`), or from ``arm()`` on.
    init(armed: Bool = true) { self.armed = Locked(armed) }

    /// Holds the next call of ``hold()``.
    func arm() { armed.withLock { $0 = true } }

    /// The hook's body: holds the calling thread if armed, once.
    func hold() {
        guard armed.withLock({ hold in defer { hold = false }; return hold }) else { return }
        reached.signal()
        released.wait()
    }

    /// Waits until a call is held.
    func waitUntilHeld(timeout: DispatchTime) -> DispatchTimeoutResult { reached.wait(timeout: timeout) }

    /// Lets the held call go on.
    func release() { released.signal() }
}
