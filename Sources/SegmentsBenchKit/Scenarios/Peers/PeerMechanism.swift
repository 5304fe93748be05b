import RealtimeSegments

/// One way of delivering the same notification to N subscribers, built once for one N and then
/// measured trial by trial, interleaved with the other mechanisms by ``PeersScenario``.
///
/// Threading contract: every method is called from the scenario's plain thread (never from a Swift
/// concurrency task), one call at a time.
protocol PeerMechanism: AnyObject {
    /// The name in figure names and on the chart (`notification-center`, ...).
    var name: String { get }
    /// What one recorded value spans, for the latency summary's definition.
    var timedSpan: String { get }
    /// The fewest notifications a trial may have.
    var minimumRounds: Int { get }
    /// Delivers one unrecorded warm-up notification and then `rounds` recorded ones, and checks that
    /// every subscriber received every one of them.
    func trial(rounds: Int) throws -> PeerTrial
    /// Releases every subscriber (observers, sinks, tasks, streams). Called once, after the last
    /// trial or after a failure; the mechanism is not used afterwards.
    func tearDown()
}

extension PeerMechanism {
    var minimumRounds: Int { 1 }
}

/// What one trial measured.
struct PeerTrial {
    /// Time per notification (delivery to all N subscribers), one value per recorded round.
    var perNotification: LatencyRecorder
    /// `nil` if every subscriber received every notification; otherwise what went missing.
    var loss: String?
    /// For a mechanism that keeps a thread spinning between notifications (the engine with a
    /// delivery spin window): that thread's spinning per notification, in ns of CPU time.
    var spinNanosecondsPerNotification: Double?
}

/// The notifications the peers deliver: the harness's ten-segment payload in two variants that
/// alternate round by round (as ``FanoutProbe/closureLoop(callbacks:rounds:)`` changes its payload
/// every round), built once so that no round pays for building one.
enum PeerPayloads {
    static let variants: [[Segment]] = [FanoutProbe.payload(variant: 0), FanoutProbe.payload(variant: 1)]
    /// Segments per notification.
    static let segmentCount = variants[0].count
}

/// The timing loop shared by the peers that deliver from the calling thread.
enum PeerRounds {
    /// How long a producer waits for one notification to reach every subscriber before it calls
    /// the notification lost (generous: a debug build under ThreadSanitizer with 10,000 tasks).
    static let waitLimitSeconds = 30

    /// What a timing loop did.
    struct Outcome {
        /// Time of each recorded round.
        var recorder: LatencyRecorder
        /// Notifications sent, the warm-up included.
        var sent: Int
        /// `true` if the loop stopped because a notification did not reach every subscriber in time.
        var gaveUp: Bool

        /// The trial, after checking that each of the `counters.count` subscribers counted every
        /// segment of every notification sent.
        func trial(counters: SubscriberCounters) -> PeerTrial {
            let expected = sent * PeerPayloads.segmentCount
            let short = counters.subscribersNotCounting(expected)
            var loss: String?
            if gaveUp {
                loss = "notification \(sent) did not reach all \(counters.count) subscribers within \(waitLimitSeconds) s "
                    + "(\(short) subscribers short)"
            } else if short > 0 {
                loss = "\(short) of \(counters.count) subscribers did not receive all \(sent) notifications"
            }
            return PeerTrial(perNotification: recorder, loss: loss)
        }
    }

    /// Calls `deliver` once unrecorded, then `rounds` times recorded, each with the next payload;
    /// `deliver` returns `false` when its notification did not reach every subscriber in time,
    /// which ends the loop.
    static func time(_ rounds: Int, _ deliver: ([Segment]) -> Bool) -> Outcome {
        var recorder = LatencyRecorder()
        for round in 0...rounds {
            let payload = PeerPayloads.variants[round & 1]
            let start = monotonicNanoseconds()
            let delivered = deliver(payload)
            let elapsed = monotonicNanoseconds() &- start
            guard delivered else { return Outcome(recorder: recorder, sent: round + 1, gaveUp: true) }
            if round > 0 { recorder.record(elapsed) }
        }
        return Outcome(recorder: recorder, sent: rounds + 1, gaveUp: false)
    }
}
