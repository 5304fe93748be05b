/// The order in which a comparison runs two builds: interleaved in ABBA blocks, so that a drift of
/// the machine (another job starting, a thermal step) lands on both builds alike.
///
/// Repetition `r` runs every scenario once per build: the baseline first when `r` is even, the
/// candidate first when it is odd. Per scenario that reads A B B A A B B A …
public struct InterleavedSchedule: Sendable, Hashable {
    /// One of the two builds.
    public enum Side: String, Codable, Sendable, CaseIterable {
        /// The reference build ("A").
        case baseline = "A"
        /// The build under test ("B"); in a calibration, the same build again.
        case candidate = "B"
    }

    /// One run of one scenario on one build.
    public struct Run: Codable, Sendable, Hashable {
        /// Which repetition, from 0.
        public var repetition: Int
        /// The scenario's name.
        public var scenario: String
        /// Which build.
        public var side: Side
    }

    /// Every run, in order.
    public let runs: [Run]

    /// The schedule of `repetitions` repetitions of `scenarios` on both builds.
    public init(scenarios: [String], repetitions: Int) {
        var runs: [Run] = []
        for repetition in 0..<max(repetitions, 0) {
            let sides: [Side] = repetition.isMultiple(of: 2) ? [.baseline, .candidate] : [.candidate, .baseline]
            for scenario in scenarios {
                for side in sides { runs.append(Run(repetition: repetition, scenario: scenario, side: side)) }
            }
        }
        self.runs = runs
    }
}
