@_spi(Benchmarks) import RealtimeSegments

/// A check's notification latency (data received → first callback) cut into its stages: the
/// probe's own clock reads at both ends, the engine's ``CheckTimeline`` stamps in between. The
/// stages of one check add up to its first-callback latency.
public struct NotificationStages: Sendable {
    /// One stage, named by what ends it.
    public enum Stage: String, CaseIterable, Sendable {
        /// Data received (the transport's fetch returned) → the engine starts applying it: the
        /// fetch's return through its task, and the check's bookkeeping.
        case resume
        /// → the result compared with the last known state and stored: the diff.
        case diff
        /// → the first delivery built: its ids spelled out.
        case spell
        /// → a delivery thread starts it: the hand-off to a spinning thread, or a wake-up.
        case handOff
        /// → the first callback runs: the delivery loads the registrations and calls the first.
        case start

        /// What the stage covers, for figure summaries.
        public var summary: String {
            switch self {
            case .resume: "data received → the engine starts applying it (the fetch's return to the engine)"
            case .diff: "applying → compared with the last known state and stored (the diff)"
            case .spell: "diffed → the first delivery built (its ids spelled out)"
            case .handOff: "built → a delivery thread starts it (the hand-off)"
            case .start: "delivery started → first callback (registrations loaded, first one called)"
            }
        }
    }

    /// Each stage's durations, one per check with every stamp.
    public private(set) var recorders: [Stage: LatencyRecorder] = [:]
    /// Checks that lacked a stamp, or whose stamps were out of order (then none of theirs is kept).
    public private(set) var unstampedChecks = 0

    public init() {}

    /// The p50 of `stage` over the recorded checks, `nil` if none was recorded.
    public func p50(of stage: Stage) -> UInt64? {
        recorders[stage].map { $0.summary("", definition: "").p50 }
    }

    /// Records one check: `received` and `firstCallback` from the probe's clock, the rest from
    /// `timeline` (stamped by that check: ``CheckTimeline/reset()`` before it).
    mutating func record(received: UInt64, timeline: CheckTimeline, firstCallback: UInt64) {
        let stamps = ([received] + CheckTimeline.Stage.allCases.map { timeline.stamp(of: $0) } + [firstCallback]).compactMap { $0 }
        // Both clocks are CLOCK_MONOTONIC (`monotonicNanoseconds()`, `DispatchTime`), so a check's
        // stamps only ever rise.
        guard stamps.count == Stage.allCases.count + 1, zip(stamps, stamps.dropFirst()).allSatisfy({ $0 <= $1 }) else {
            unstampedChecks += 1
            return
        }
        for (index, stage) in Stage.allCases.enumerated() {
            recorders[stage, default: LatencyRecorder()].record(stamps[index + 1] - stamps[index])
        }
    }
}
