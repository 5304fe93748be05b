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
        /// The start in seconds since 1970, `nil` when `startedAt` does not read as an ISO 8601
        /// time (with or without fractions of a second).
        var startSeconds: Double?

        /// The start in whole nanoseconds since 1970, `nil` without a start or past what an Int64
        /// holds (before 1677 or after 2262).
        var startNanoseconds: Int64? {
            guard let startSeconds else { return nil }
            // Whole seconds apart from the fraction (a Date keeps about a millisecond of it here):
            // their product in one Double would lose the nanoseconds' last digits.
            let whole = startSeconds.rounded(.down)
            guard let seconds = Int64(exactly: whole) else { return nil }
            let (nanoseconds, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
            guard !overflow else { return nil }
            let (stamp, past) = nanoseconds.addingReportingOverflow(Int64(((startSeconds - whole) * 1e6).rounded()) * 1_000)
            return past ? nil : stamp
        }
    }

    /// One figure.
    struct FigureValue {
        var scenario: String
        /// The report's name, `<scenario>.<what>`.
        var name: String
        var value: Double
        var unit: String
        /// Which way is better, `nil` when the figure does not say.
        var direction: WallClockFigure.Direction?
    }

    /// A statistic's value: a recorded value in whole nanoseconds, or the mean.
    enum Amount {
        case whole(UInt64)
        case fraction(Double)

        var double: Double {
            switch self {
            case .whole(let value): Double(value)
            case .fraction(let value): value
            }
        }
    }

    /// One statistic of a latency, in nanoseconds.
    struct Statistic {
        /// `min`, `p50`, `p90`, `p99`, `p99.9`, `p99.99`, `max` or `mean`, as `--threshold` spells it.
        var label: String
        var nanoseconds: Amount

        /// The quantile a percentile stands for (`0.99`), `nil` for the others.
        var quantile: String? { Self.quantiles[label] }

        private static let quantiles = ["p50": "0.5", "p90": "0.9", "p99": "0.99", "p99.9": "0.999", "p99.99": "0.9999"]
    }

    /// One latency: its samples and statistics.
    struct LatencyValue {
        var scenario: String
        /// The latency's name as its `.hgrm` file has it (``ReportFormat/slug(_:)``).
        var name: String
        var count: UInt64
        /// The mean times the count, in nanoseconds: the sum of the samples as the histogram holds
        /// them (each to three significant digits).
        var sumNanoseconds: Double
        /// In order: min, the percentiles the count supports, max, mean; none without samples.
        var statistics: [Statistic]
    }

    var run: Run
    var figures: [FigureValue] = []
    var latencies: [LatencyValue] = []
    /// A line for each figure or latency left out because its names were already taken.
    var duplicateNotes: [String] = []
    /// A line for each latency whose minimum its recorded histogram cannot give, for the formats
    /// that write latency statistics.
    var missingMinimumNotes: [String] = []

    init(_ report: BenchReport) {
        run = Run(
            host: report.machine.hostname, gitRevision: report.gitRevision, toolVersion: report.toolVersion,
            cpuModel: report.machine.cpuModel, startedAt: report.startedAt, startSeconds: Self.seconds(at: report.startedAt))
        // Each format keys a value by its names; a second value under the same names would be
        // refused by some readers and silently replace the first in others. Names compare by
        // their bytes, as the readers compare them (Swift's == takes é and e + U+0301 as one).
        var figureNames: Set<[[UInt8]]> = []
        var latencyNames: Set<[[UInt8]]> = []
        for result in report.scenarios {
            for figure in result.figures {
                guard figureNames.insert([Array(result.scenario.utf8), Array(figure.name.utf8)]).inserted else {
                    duplicateNotes.append("left out a second figure named \(figure.name) in \(result.scenario)")
                    continue
                }
                figures.append(FigureValue(
                    scenario: result.scenario, name: figure.name, value: figure.value, unit: figure.unit,
                    direction: Self.direction(of: figure)))
            }
            for latency in result.latencies {
                let name = ReportFormat.slug(latency.name)
                guard latencyNames.insert([Array(result.scenario.utf8), Array(name.utf8)]).inserted else {
                    duplicateNotes.append("left out a second latency named \(name) (\(latency.name)) in \(result.scenario)")
                    continue
                }
                latencies.append(latencyValue(latency, scenario: result.scenario, name: name))
            }
        }
    }

    /// `true` when there is no figure and no latency to write.
    var isEmpty: Bool { figures.isEmpty && latencies.isEmpty }

    /// Which way `figure` is better: its stated direction, else its unit's (a time lower, a rate
    /// higher), else its gate rule's (a bound, and a count that must be zero, are better lower).
    static func direction(of figure: Figure) -> WallClockFigure.Direction? {
        if let direction = WallClockFigure.direction(of: figure) { return direction }
        switch figure.gate {
        case .lowerIsBetter, .atMost: return .lowerIsBetter
        case .higherIsBetter: return .higherIsBetter
        case .mustEqual(let expected): return expected == 0 ? .lowerIsBetter : nil
        case nil: return nil
        }
    }

    /// `text` as seconds since 1970, read as ISO 8601 with or without fractions of a second.
    static func seconds(at text: String) -> Double? {
        let formatter = ISO8601DateFormatter()
        var date = formatter.date(from: text)
        if date == nil {
            formatter.formatOptions.insert(.withFractionalSeconds)
            date = formatter.date(from: text)
        }
        return date?.timeIntervalSince1970
    }

    private mutating func latencyValue(_ latency: LatencySummary, scenario: String, name: String) -> LatencyValue {
        var statistics: [Statistic] = []
        if latency.count > 0 {
            // The minimum is the one statistic read from the recorded histogram rather than the
            // summary; a histogram missing or short of the count (an older file) cannot give it.
            if latency.histogram.totalCount == latency.count {
                statistics.append(Statistic(label: "min", nanoseconds: .whole(latency.histogram.min)))
            } else {
                missingMinimumNotes.append("left out \(scenario).\(name) min: the report's recorded histogram holds \(latency.histogram.totalCount) of its \(latency.count) samples")
            }
            for (label, value, _) in latency.percentiles {
                guard let value else { continue }
                statistics.append(Statistic(label: label, nanoseconds: .whole(value)))
            }
            statistics.append(Statistic(label: "mean", nanoseconds: .fraction(latency.mean)))
        }
        return LatencyValue(
            scenario: scenario, name: name, count: latency.count, sumNanoseconds: latency.mean * Double(latency.count),
            statistics: statistics)
    }
}
