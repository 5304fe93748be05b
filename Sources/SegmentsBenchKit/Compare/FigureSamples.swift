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
        /// Which way is better.
        public var direction: WallClockFigure.Direction
        /// The baseline build's values, in run order.
        public var baseline: [Double] = []
        /// The candidate build's values, in run order.
        public var candidate: [Double] = []

        /// The values of `side`.
        public func values(_ side: InterleavedSchedule.Side) -> [Double] {
            side == .baseline ? baseline : candidate
        }
    }

    /// The figures, in the order they were first seen.
    public private(set) var series: [Series] = []
    private var position: [String: Int] = [:]
    private var runs: [String: [InterleavedSchedule.Side: Int]] = [:]

    /// No runs yet.
    public init() {}

    /// Adds the wall-clock figures of one run of `scenario` on `side` (non-finite values are
    /// left out, and so count as missing).
    public mutating func add(_ report: BenchReport, scenario: String, side: InterleavedSchedule.Side) {
        runs[scenario, default: [:]][side, default: 0] += 1
        for result in report.scenarios where result.scenario == scenario {
            for figure in result.figures where figure.value.isFinite {
                guard let direction = WallClockFigure.direction(of: figure) else { continue }
                let index = position[figure.name] ?? {
                    series.append(Series(name: figure.name, scenario: scenario, unit: figure.unit, direction: direction))
                    position[figure.name] = series.count - 1
                    return series.count - 1
                }()
                if side == .baseline {
                    series[index].baseline.append(figure.value)
                } else {
                    series[index].candidate.append(figure.value)
                }
            }
        }
    }

    /// The figures both builds measured in every run, and the names of those that only the
    /// candidate measured (new figures: listed, not judged).
    ///
    /// - Throws: ``CompareError/figureMissing(name:side:runs:expected:)`` for a figure the
    ///   baseline measured that is missing from a run of either build, or that the candidate
    ///   measured in some of its runs but not all; ``CompareError/noWallClockFigures(scenarios:)``
    ///   when nothing is left to compare.
    public func validated() throws -> (compared: [Series], candidateOnly: [String]) {
        var compared: [Series] = []
        var candidateOnly: [String] = []
        for entry in series {
            let expected = runs[entry.scenario] ?? [:]
            if entry.baseline.isEmpty, entry.candidate.count == expected[.candidate, default: 0] {
                candidateOnly.append(entry.name)
                continue
            }
            for side in InterleavedSchedule.Side.allCases where entry.values(side).count != expected[side, default: 0] {
                throw CompareError.figureMissing(
                    name: entry.name, side: side, runs: entry.values(side).count, expected: expected[side, default: 0])
            }
            compared.append(entry)
        }
        guard !compared.isEmpty else {
            throw CompareError.noWallClockFigures(scenarios: runs.keys.sorted())
        }
        return (compared, candidateOnly)
    }
}
