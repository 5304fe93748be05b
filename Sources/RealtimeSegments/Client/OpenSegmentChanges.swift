import Foundation

/// The ``SegmentChanges`` sequences of one client that have not ended, so that stopping the client
/// ends them (a `for await` loop over a stopped client would otherwise wait forever).
///
/// Threading: every method may be called from any thread. Continuations are finished outside the
/// lock, since finishing one runs its termination handler, which calls ``remove(_:)``.
final class OpenSegmentChanges: Sendable {
    private struct State {
        var open: [UUID: AsyncStream<SegmentChanges.Delivered>.Continuation] = [:]
        var ended = false
    }

    private let state = Locked(State())

    /// Adds an open sequence; returns `false` (adding nothing) once ``endAll()`` has run.
    func add(_ id: UUID, _ continuation: AsyncStream<SegmentChanges.Delivered>.Continuation) -> Bool {
        state.withLock { state in
            guard !state.ended else { return false }
            state.open[id] = continuation
            return true
        }
    }

    /// Forgets a sequence that ended.
    func remove(_ id: UUID) {
        _ = state.withLock { $0.open.removeValue(forKey: id) }
    }

    /// Ends every open sequence, and every one added later.
    func endAll() {
        let open = state.withLock { state in
            state.ended = true
            defer { state.open.removeAll() }
            return Array(state.open.values)
        }
        for continuation in open { continuation.finish() }
    }

    /// Number of sequences not ended yet.
    var count: Int { state.withLock { $0.open.count } }
}
