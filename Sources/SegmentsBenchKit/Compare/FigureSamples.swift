/// The values of every wall-clock figure over the runs of a comparison, per build.
///
/// Fed one report per run with ``add(_:scenario:side:)``; ``validated()`` then checks that every
/// figure was measured in every run of its scenario on both builds. A value type, owned by the
/// one thread that collects the runs.
public struct FigureSamples: Sendable {
    /// One figure's values.
    public struct Series: Sendable, Hashable {
        /// The figure's name.
        public var name: String
        /// Its scenario.
        public var scenario: String
        /// Its unit (as the first report that had it says).
        public var unit: String
        /// A unit other than ``unit`` that a report gave it, and the build of that report.
        var otherUnit: UnitSeen?

        struct UnitSeen: Sendable, Hashable {
            var side: InterleavedSchedule.Side
            var unit: String
        }
        /// Which way is better.
        public var direction: WallClockFigure.Direction
        /// The baseline build's values, in run order.
        public var baseline: [Double] = []
        /// The candidate build's values, in run order.
        public var candidate: [Double] = []
        /// Runs of each build that reported the figure infinite or not a number.
        var notFinite: [InterleavedSchedule.Side: Int] = [:]
        /// The most times one run reported it, and that run's build, when more than once.
        var duplicated: Duplication?

        struct Duplication: Sendable, Hashable {
            var side: InterleavedSchedule.Side
            var times: Int
        }

        /// The values of `side`.
        public func values(_ side: InterleavedSchedule.Side) -> [Double] {
            side == .baseline ? baseline : candidate
        }
    }

    /// The figures, in the order they were first seen.
    public private(set) var series: [Series] = []
    private var position: [String: Int] = [:]
    private var runs: [String: [InterleavedSchedule.Side: Int]] = [:]
    /// The latency percentiles a figure of any run repeats (``Figure/restates``): judged as that
    /// figure, also when the other build does not mark it (one built before the mark).
    private var restated: Set<String> = []

    /// No runs yet.
    public init() {}

    /// The name under which a latency's percentile is compared: `pull.hit p50`.
    public static func latencyFigureName(scenario: String, latency: String, percentile: String) -> String {
        "\(scenario).\(latency) \(percentile)"
    }

    /// The figures of `result` that are compared: its wall-clock figures, then each latency's p50
    /// and p99 in nanoseconds (a p99 the run has too few samples for is left out, as the report
    /// leaves it out). A percentile a figure repeats (``Figure/restates``) is among them; the
    /// samples leave it out when they are validated.
    static func comparedFigures(of result: ScenarioResult) -> [Figure] {
        var figures = result.figures.filter { WallClockFigure.direction(of: $0) != nil }
        for latency in result.latencies where latency.count > 0 {
            for (label, value) in [("p50", Optional(latency.p50)), ("p99", latency.p99)] {
                guard let value else { continue }
                let name = latencyFigureName(scenario: result.scenario, latency: latency.name, percentile: label)
                figures.append(Figure(name: name, value: Double(value), unit: "ns", summary: "\(label) of \(latency.name)"))
            }
        }
        return figures
    }

    /// Adds the compared figures of one run of `scenario` on `side` (``comparedFigures(of:)``; a
    /// non-finite value is counted as such, and makes ``validated()`` throw).
    public mutating func add(_ report: BenchReport, scenario: String, side: InterleavedSchedule.Side) {
        runs[scenario, default: [:]][side, default: 0] += 1
        var timesInThisRun: [String: Int] = [:]
        for result in report.scenarios where result.scenario == scenario {
            restated.formUnion(result.figures.compactMap(\.restates))
            for figure in Self.comparedFigures(of: result) {
                guard let direction = WallClockFigure.direction(of: figure) else { continue }
                let index = position[figure.name] ?? {
                    series.append(Series(name: figure.name, scenario: scenario, unit: figure.unit, direction: direction))
                    position[figure.name] = series.count - 1
                    return series.count - 1
                }()
                let times = timesInThisRun[figure.name, default: 0] + 1
                timesInThisRun[figure.name] = times
                if times > 1, times > series[index].duplicated?.times ?? 0 { series[index].duplicated = .init(side: side, times: times) }
                if figure.unit != series[index].unit { series[index].otherUnit = .init(side: side, unit: figure.unit) }
                if !figure.value.isFinite {
                    series[index].notFinite[side, default: 0] += 1
                } else if side == .baseline {
                    series[index].baseline.append(figure.value)
                } else {
                    series[index].candidate.append(figure.value)
                }
            }
        }
    }

    /// The figures both builds measured in every run (a latency percentile a figure repeats is
    /// judged as that figure, ``Figure/restates``); the names of those that only the candidate
    /// measured in every one of its runs (new figures: listed, not judged); and the names of those
    /// measured in some runs only (a percentile a run reports only when it has the samples for
    /// it: listed, not judged).
    ///
    /// - Throws: ``CompareError/unitChanged(name:baseline:candidate:)`` for a figure whose unit is not
    ///   the same in every report; ``CompareError/figureDuplicated(name:side:times:)`` for one a run
    ///   reported more than once; ``CompareError/figureMissing(name:side:runs:expected:)`` for a
    ///   figure one build measured in every run and the other in none;
    ///   ``CompareError/figureNotFinite(name:side:runs:of:)`` for a figure a build reported
    ///   infinite or not a number in any run; ``CompareError/noWallClockFigures(scenarios:)`` when
    ///   nothing is left to compare.
    public func validated() throws -> (compared: [Series], candidateOnly: [String], incomplete: [String]) {
        var compared: [Series] = []
        var candidateOnly: [String] = []
        var incomplete: [String] = []
        for entry in series where !restated.contains(entry.name) {
            if let other = entry.otherUnit {
                let (baseline, candidate) = other.side == .baseline ? (other.unit, entry.unit) : (entry.unit, other.unit)
                throw CompareError.unitChanged(name: entry.name, baseline: baseline, candidate: candidate)
            }
            if let duplicated = entry.duplicated {
                throw CompareError.figureDuplicated(name: entry.name, side: duplicated.side, times: duplicated.times)
            }
            let expected = runs[entry.scenario] ?? [:]
            for side in InterleavedSchedule.Side.allCases {
                guard let count = entry.notFinite[side] else { continue }
                throw CompareError.figureNotFinite(name: entry.name, side: side, runs: count, of: expected[side, default: 0])
            }
            if entry.baseline.isEmpty, entry.candidate.count == expected[.candidate, default: 0] {
                candidateOnly.append(entry.name)
                continue
            }
            let counts = InterleavedSchedule.Side.allCases.map { (side: $0, runs: entry.values($0).count, of: expected[$0, default: 0]) }
            if counts.allSatisfy({ $0.runs == $0.of }) {
                compared.append(entry)
                continue
            }
            // Measured in every run of one build and in none of the other's: a figure a build
            // dropped, not one a run left out for want of samples.
            if let dropped = counts.first(where: { $0.runs == 0 }), counts.contains(where: { $0.runs == $0.of && $0.of > 0 }) {
                throw CompareError.figureMissing(name: entry.name, side: dropped.side, runs: 0, expected: dropped.of)
            }
            incomplete.append(entry.name)
        }
        guard !compared.isEmpty else {
            throw CompareError.noWallClockFigures(scenarios: runs.keys.sorted())
        }
        return (compared, candidateOnly, incomplete)
    }
}
