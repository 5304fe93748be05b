import Atomics
import Dispatch
import RealtimeSegments

/// Swift concurrency, one `AsyncStream` per subscriber with a consumer `Task` each (the usual
/// "expose an AsyncStream of changes" API, one stream per listener). The producer, a plain thread
/// outside the cooperative pool, yields the notification to every stream and sleeps on a
/// semaphore until the N-th consumer has received it.
final class AsyncStreamPeer: PeerMechanism {
    let name = "asyncstream"
    let timedSpan = "first yield → producer woken by the N-th consumer"

    private let subscriberCount: Int
    private let counters: SubscriberCounters
    /// Consumers that received the current notification; the one that makes it N wakes the producer.
    private let arrivals = ManagedAtomic<Int>(0)
    private let everyoneArrived = DispatchSemaphore(value: 0)
    /// Consumers whose loop has ended; the last one signals `everyoneExited`.
    private let exits = ManagedAtomic<Int>(0)
    private let everyoneExited = DispatchSemaphore(value: 0)
    private var continuations: [AsyncStream<[Segment]>.Continuation] = []
    private var consumers: [Task<Void, Never>] = []

    /// `callbacks` streams, each with its consumer task already started.
    init(callbacks: Int) {
        subscriberCount = callbacks
        counters = SubscriberCounters(count: callbacks)
        continuations.reserveCapacity(callbacks)
        consumers.reserveCapacity(callbacks)
        let counters = counters
        let arrivals = arrivals
        let everyoneArrived = everyoneArrived
        let exits = exits
        let everyoneExited = everyoneExited
        for index in 0..<callbacks {
            let (stream, continuation) = AsyncStream<[Segment]>.makeStream()
            continuations.append(continuation)
            consumers.append(Task.detached {
                for await segments in stream {
                    counters.add(segments.count, to: index)
                    if arrivals.wrappingIncrementThenLoad(ordering: .acquiringAndReleasing) == callbacks {
                        everyoneArrived.signal()
                    }
                }
                if exits.wrappingIncrementThenLoad(ordering: .acquiringAndReleasing) == callbacks {
                    everyoneExited.signal()
                }
            })
        }
    }

    func trial(rounds: Int) -> PeerTrial {
        counters.reset()
        let continuations = continuations
        let arrivals = arrivals
        let everyoneArrived = everyoneArrived
        return PeerRounds.time(rounds) { payload in
            // The previous notification has reached every consumer (or the loop has ended), so
            // no consumer is between receiving and counting.
            arrivals.store(0, ordering: .relaxed)
            for continuation in continuations { continuation.yield(payload) }
            return everyoneArrived.wait(timeout: .now() + .seconds(PeerRounds.waitLimitSeconds)) == .success
        }.trial(counters: counters)
    }

    func tearDown() {
        // Ending every stream ends every consumer's loop; cancelling as well covers a consumer
        // that has not reached its first `next()` yet. Then wait until all have exited, so no
        // task of this peer runs during the next scenario.
        for continuation in continuations { continuation.finish() }
        for consumer in consumers { consumer.cancel() }
        if subscriberCount > 0 {
            _ = everyoneExited.wait(timeout: .now() + .seconds(PeerRounds.waitLimitSeconds))
        }
        continuations = []
        consumers = []
    }
}
