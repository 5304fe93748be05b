import Dispatch
import RealtimeSegments

/// libdispatch, one work item per callback: each notification submits N blocks to
/// `DispatchQueue.global()` in one `DispatchGroup` and waits for the group, which is what
/// "call every handler asynchronously" costs when each handler is its own block.
final class DispatchPerCallbackPeer: PeerMechanism {
    let name = "dispatch-per-callback"
    let timedSpan = "first async submitted → group.wait() returned after the last block"

    private let counters: SubscriberCounters
    private let callbacks: [@Sendable ([Segment]) -> Void]

    /// `callbacks` handlers, each its own block per notification.
    init(callbacks: Int) {
        let counters = SubscriberCounters(count: callbacks)
        self.callbacks = (0..<callbacks).map { index in
            { @Sendable segments in counters.add(segments.count, to: index) }
        }
        self.counters = counters
    }

    func trial(rounds: Int) -> PeerTrial {
        counters.reset()
        let callbacks = callbacks
        let queue = DispatchQueue.global()
        let group = DispatchGroup()
        return PeerRounds.time(rounds) { payload in
            for callback in callbacks {
                queue.async(group: group) { callback(payload) }
            }
            return group.wait(timeout: .now() + .seconds(PeerRounds.waitLimitSeconds)) == .success
        }.trial(counters: counters)
    }

    func tearDown() {
        // Nothing outlives a trial: every block either ran before `wait` returned or, after a
        // timeout, still holds its own reference to the counters.
    }
}
