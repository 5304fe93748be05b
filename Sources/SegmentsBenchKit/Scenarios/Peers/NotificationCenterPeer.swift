import Foundation
import RealtimeSegments

/// Foundation's `NotificationCenter`: a private center, N block observers with no queue (so
/// `post` calls them synchronously on the posting thread), the payload carried in `userInfo` and
/// cast back by each observer, the way apps usually pass data through notifications.
final class NotificationCenterPeer: PeerMechanism {
    let name = "notification-center"
    let timedSpan = "post (userInfo built) → last observer returned"
    private static let notificationName = Notification.Name("RealtimeSegments.peers.segmentsChanged")
    private static let payloadKey = "segments"

    private let center = NotificationCenter()
    private let counters: SubscriberCounters
    private var observers: [any NSObjectProtocol]

    /// A private center with `callbacks` observers.
    init(callbacks: Int) {
        let counters = SubscriberCounters(count: callbacks)
        let center = center
        observers = (0..<callbacks).map { index in
            center.addObserver(forName: Self.notificationName, object: nil, queue: nil) { notification in
                // A failed cast counts as a missed notification (the counter stays short).
                guard let segments = notification.userInfo?[Self.payloadKey] as? [Segment] else { return }
                counters.add(segments.count, to: index)
            }
        }
        self.counters = counters
    }

    func trial(rounds: Int) -> PeerTrial {
        counters.reset()
        let center = center
        return PeerRounds.time(rounds) { payload in
            center.post(name: Self.notificationName, object: nil, userInfo: [Self.payloadKey: payload])
            return true
        }.trial(counters: counters)
    }

    func tearDown() {
        for observer in observers { center.removeObserver(observer) }
        observers = []
    }
}
