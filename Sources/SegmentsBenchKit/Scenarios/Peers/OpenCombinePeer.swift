import OpenCombine
import RealtimeSegments

/// OpenCombine (the open-source Combine): one `PassthroughSubject<[Segment], Never>` with N
/// `sink` subscribers; `send` delivers synchronously on the sending thread.
final class OpenCombinePeer: PeerMechanism {
    let name = "opencombine"
    let timedSpan = "send → last sink returned"

    private let subject = PassthroughSubject<[Segment], Never>()
    private let counters: SubscriberCounters
    /// The subscriptions: a sink lives as long as its `AnyCancellable`.
    private var cancellables: [AnyCancellable]

    /// A subject with `callbacks` sinks.
    init(callbacks: Int) {
        let counters = SubscriberCounters(count: callbacks)
        let subject = subject
        cancellables = (0..<callbacks).map { index in
            subject.sink { segments in counters.add(segments.count, to: index) }
        }
        self.counters = counters
    }

    func trial(rounds: Int) -> PeerTrial {
        counters.reset()
        let subject = subject
        return PeerRounds.time(rounds) { payload in
            subject.send(payload)
            return true
        }.trial(counters: counters)
    }

    func tearDown() {
        for cancellable in cancellables { cancellable.cancel() }
        cancellables = []
        subject.send(completion: .finished)
    }
}
