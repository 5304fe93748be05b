import Foundation

/// A report's values as every export format writes them: the run they come from, each figure, and
/// each latency's statistics, under the names the report's files and `--threshold` use.
struct ExportedValues {
    /// Where and when the run was made.
    struct Run {
        var host: String
        var gitRevision: String
        var toolVersion: String
        var cpuModel: String
        /// `startedAt` as the report has it (ISO 8601).
        var startedAt: String
        /// The start in nanoseconds since 1970, `nil` when `startedAt` does not read as a date.
        var startNanoseconds: Int64?
    }

    /// One figure.
    struct FigureValue {
        var scenario: String
        /// The report's name, `<scenario>.<what>`.
        var name: String
        var value: Double
        var unit: String
        /// Which way is better, `nil` when the figure does not say.
        var better: WallClockFigure.Direction?
    }

    /// One statistic of a latency, in nanoseconds.
    struct Statistic {
        /// `min`, `p50`, `p90`, `p99`, `p99.9`, `p99.99`, `max` or `mean`, as `--threshold` spells it.
        var label: String
        /// The quantile a percentile stands for (`0.99`), `nil` for the others.
        var quantile: String?
        var nanoseconds: Double
        /// `false` for the mean, the only statistic that is not a recorded value.
        var isWhole: Bool
    }

    /// One latency: its samples and statistics.
    struct LatencyValue {
        var scenario: String
        /// The latency's name as its `.hgrm` file has it (``ReportFormat/slug(_:)``).
        var name: String
        var count: UInt64
        /// The sum of the samples in nanoseconds.
        var sumNanoseconds: Double
        /// In order: min, the percentiles the count supports, max, mean; none without samples.
        var statistics: [Statistic]
    }

    var run: Run
    var figures: [FigureValue] = []
    var latencies: [LatencyValue] = []
    /// A line for each figure or latency left out because its name was already taken.
    var leftOut: [String] = []

    init(_ report: BenchReport) {
        let start = ISO8601DateFormatter().date(from: report.startedAt).map { Int64(($0.timeIntervalSince1970 * 1e9).rounded()) }
        run = Run(
            host: report.machine.hostname, gitRevision: report.gitRevision, toolVersion: report.toolVersion,
            cpuModel: report.machine.cpuModel, startedAt: report.startedAt, startNanoseconds: start)
        // Each format keys a value by its names; a second value under the same names would be
        // refused by some readers and silently replace the first in others.
        var figureNames: Set<[String]> = []
        var latencyNames: Set<[String]> = []
        for result in report.scenarios {
            for figure in result.figures {
                guard figureNames.insert([result.scenario, figure.name]).inserted else {
                    leftOut.append("\(result.scenario): a second figure named \(figure.name)")
                    continue
                }
                figures.append(FigureValue(
                    scenario: result.scenario, name: figure.name, value: figure.value, unit: figure.unit,
                    better: Self.better(figure)))
            }
            for latency in result.latencies {
                let name = ReportFormat.slug(latency.name)
                guard latencyNames.insert([result.scenario, name]).inserted else {
                    leftOut.append("\(result.scenario): a second latency named \(name) (\(latency.name))")
                    continue
                }
                latencies.append(Self.latencyValue(latency, scenario: result.scenario, name: name))
            }
        }
    }

    /// Which way `figure` is better: a time's or a rate's way, its stated direction, or its gate
    /// rule's (a bound, and a count that must be zero, are better lower).
    static func better(_ figure: Figure) -> WallClockFigure.Direction? {
        if let direction = WallClockFigure.direction(of: figure) { return direction }
        switch figure.gate {
        case .lowerIsBetter, .atMost: return .lowerIsBetter
        case .higherIsBetter: return .higherIsBetter
        case .mustEqual(let expected): return expected == 0 ? .lowerIsBetter : nil
        case nil: return nil
        }
    }

    private static func latencyValue(_ latency: LatencySummary, scenario: String, name: String) -> LatencyValue {
        var statistics: [Statistic] = []
        if latency.count > 0 {
            statistics.append(Statistic(label: "min", quantile: nil, nanoseconds: Double(latency.histogram.min), isWhole: true))
            let quantiles = ["p50": "0.5", "p90": "0.9", "p99": "0.99", "p99.9": "0.999", "p99.99": "0.9999"]
            for (label, value, _) in latency.percentiles {
                guard let value else { continue }
                statistics.append(Statistic(label: label, quantile: quantiles[label], nanoseconds: Double(value), isWhole: true))
            }
            statistics.append(Statistic(label: "mean", quantile: nil, nanoseconds: latency.mean, isWhole: false))
        }
        return LatencyValue(
            scenario: scenario, name: name, count: latency.count, sumNanoseconds: latency.mean * Double(latency.count),
            statistics: statistics)
    }
}
