/// Resumes one awaiting `getSegments` call exactly once: with the engine's result, or with
/// ``SegmentsError/cancelled`` if the awaiting task is cancelled first. Whichever comes second is
/// ignored, so a cancelled caller returns at once while the engine's fetch goes on (and its result,
/// still delivered to this box, is dropped here).
///
/// Threading: ``install(_:)``, ``resolve(_:)`` may be called from any thread, in any order;
/// the continuation is resumed outside the lock.
/// Generic over the outcome: `fetchQualifiedSegments` waits for its flight through one as well.
final class PullResumer<Outcome: Sendable>: Sendable {

    private enum State: Sendable {
        /// Neither the continuation nor an outcome is here yet.
        case empty
        /// The caller is suspended; the first outcome resumes it.
        case waiting(CheckedContinuation<Outcome, Never>)
        /// An outcome (a cancellation that ran before the caller suspended) waits for the caller.
        case resolved(Outcome)
        /// The caller has been resumed.
        case finished
    }

    private let state = Locked<State>(.empty)

    /// Hands over the suspended caller's continuation. Returns `false` (having resumed it) if an
    /// outcome came first: the caller was cancelled, so no work should be started for it.
    func install(_ continuation: CheckedContinuation<Outcome, Never>) -> Bool {
        let early: Outcome? = state.withLock { state in
            switch state {
            case .empty:
                state = .waiting(continuation)
                return nil
            case .resolved(let outcome):
                state = .finished
                return outcome
            case .waiting, .finished:
                preconditionFailure("PullResumer.install called twice")
            }
        }
        guard let early else { return true }
        continuation.resume(returning: early)
        return false
    }

    /// Resumes the caller with `outcome` if nothing has yet; later outcomes are ignored.
    func resolve(_ outcome: Outcome) {
        let continuation: CheckedContinuation<Outcome, Never>? = state.withLock { state in
            switch state {
            case .empty:
                state = .resolved(outcome)
                return nil
            case .waiting(let continuation):
                state = .finished
                return continuation
            case .resolved, .finished:
                return nil
            }
        }
        continuation?.resume(returning: outcome)
    }
}
