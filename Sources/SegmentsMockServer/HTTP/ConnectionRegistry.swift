import NIOConcurrencyHelpers
import NIOCore

/// The open client connections of one server, so that ``SegmentsMockHTTPServer/stop()`` can close
/// them (which also ends every hanging request), and the answers being worked out off the event
/// loops (``track(_:)``), which it waits for: their promises must be completed while the loops run.
///
/// Threading: every method may be called from any thread (connections register from their event
/// loops, `stop()` closes from a task).
final class ConnectionRegistry: Sendable {
    private struct State {
        var channels: [ObjectIdentifier: any Channel] = [:]
        var inFlight: [Int: EventLoopFuture<Void>] = [:]
        var nextId = 0
        var closed = false
    }

    private let state = NIOLockedValueBox(State())

    /// Tracks `channel` until it closes; closes it at once if the registry is already closed.
    func add(_ channel: any Channel) {
        let id = ObjectIdentifier(channel)
        let accepted = state.withLockedValue { state in
            guard !state.closed else { return false }
            state.channels[id] = channel
            return true
        }
        guard accepted else {
            channel.close(promise: nil)
            return
        }
        channel.closeFuture.whenComplete { [weak self] _ in
            self?.state.withLockedValue { _ = $0.channels.removeValue(forKey: id) }
        }
    }

    /// Tracks `future`, an answer being worked out off its event loop, until it completes.
    func track(_ future: EventLoopFuture<Void>) {
        let id = state.withLockedValue { state in
            defer { state.nextId += 1 }
            state.inFlight[state.nextId] = future
            return state.nextId
        }
        future.whenComplete { [weak self] _ in
            self?.state.withLockedValue { _ = $0.inFlight.removeValue(forKey: id) }
        }
    }

    /// Refuses new connections, closes every open one, and returns when all are closed and every
    /// answer being worked out has completed.
    func closeAll() async {
        let channels = state.withLockedValue { state in
            state.closed = true
            return Array(state.channels.values)
        }
        for channel in channels {
            // Already closing or closed is fine: all we need is that it is closed afterwards.
            try? await channel.close()
        }
        let inFlight = state.withLockedValue { Array($0.inFlight.values) }
        for future in inFlight { try? await future.get() }
    }
}
