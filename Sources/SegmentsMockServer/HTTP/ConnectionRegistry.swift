import NIOConcurrencyHelpers
import NIOCore

/// The open client connections of one server, so that ``SegmentsMockHTTPServer/stop()`` can close
/// them (which also ends every hanging request).
///
/// Threading: every method may be called from any thread (connections register from their event
/// loops, `stop()` closes from a task).
final class ConnectionRegistry: Sendable {
    private struct State {
        var channels: [ObjectIdentifier: any Channel] = [:]
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

    /// Refuses new connections and closes every open one; returns when all are closed.
    func closeAll() async {
        let channels = state.withLockedValue { state in
            state.closed = true
            return Array(state.channels.values)
        }
        for channel in channels {
            // Already closing or closed is fine: all we need is that it is closed afterwards.
            try? await channel.close()
        }
    }
}
