import Foundation
import Histogram

/// Turns a report's data into charts: the percentile distribution of a scenario's latencies, one
/// chart per `ChartSeries.chart`, and the allocation figures as bars.
struct ReportCharts {
    var style = SVGChart()

    // MARK: Percentile distribution

    /// The percentile curves of every non-empty latency of `scenario` on a log "1/(1-p)" x axis
    /// and a log time axis, or `nil` when it has no recorded latency.
    func percentiles(of scenario: ScenarioResult) -> String? {
        let recorded = scenario.latencies.filter { $0.count > 0 }
        guard !recorded.isEmpty else { return nil }
        let lines = recorded.map { latency in
            SVGChart.Line(
                label: latency.name + (latency.coordinatedOmissionCorrected ? " (CO-corrected)" : ""),
                points: Self.percentileCurve(latency.histogram), showsMarkers: false)
        }
        let points = lines.flatMap(\.points)
        // Show at least up to 99.99% (what the tables report); further only when the data goes there.
        let nines = min(max(ceil(points.map(\.x).max() ?? 0), 4), 7)
        let x = ChartAxis(
            title: "percentile (log scale of 1/(1-p))", scale: .linear, lower: 0, upper: nines,
            ticks: Self.percentileTicks(upTo: Int(nines)))
        let y = ChartAxis.logarithmic(title: "latency (log scale)", values: points.map(\.y), format: ReportFormat.compactDuration(ns:))
        return style.render(SVGChart.LineChart(
            title: "\(scenario.scenario): latency by percentile",
            subtitle: "Value at or below which each share of samples falls; the right end is the tail.",
            x: x, y: y, lines: lines, labelsPoints: false, formatY: ReportFormat.humanDuration(ns:)))
    }

    /// Points (log10(1/(1-p)), value in ns) for the percentile levels HdrHistogram iterates,
    /// 10 per half-distance to 100%. The final 100% step has no finite position, so the curve ends
    /// at the last finite level; the maximum is in the tables.
    static func percentileCurve(_ histogram: Histogram<UInt64>) -> [ChartSeries.Point] {
        var points: [ChartSeries.Point] = []
        for step in histogram.percentiles(ticksPerHalfDistance: 10) where step.percentileLevelIteratedTo < 100 {
            let x = log10(100 / (100 - step.percentileLevelIteratedTo))
            points.append(ChartSeries.Point(x: x, y: Double(step.value)))
        }
        return points
    }

    /// Ticks at 0%, 50%, 90%, 99%, … up to `nines` nines.
    static func percentileTicks(upTo nines: Int) -> [ChartAxis.Tick] {
        var ticks = [ChartAxis.Tick(value: 0, label: "0%"), ChartAxis.Tick(value: log10(2), label: "50%")]
        for position in 1...max(nines, 1) {
            let label = position == 1 ? "90" : "99" + (position > 2 ? "." + String(repeating: "9", count: position - 2) : "")
            ticks.append(ChartAxis.Tick(value: Double(position), label: label + "%"))
        }
        return ticks
    }

    // MARK: Series charts

    /// The chart named `name` from every series with that name, each paired with the scenario that
    /// measured it. Labels name the scenario when series come from more than one.
    ///
    /// When every series is a single point it draws bars (one per series), which read better
    /// than isolated markers. Otherwise lines with markers; an axis is logarithmic when its values
    /// span more than two decades (each axis on its own, so that "latency vs callback count" with
    /// counts 1 to 10,000 and a flat latency keeps a readable linear latency axis). With at most
    /// eight distinct x values the ticks sit at those values and points carry their values.
    func seriesChart(named name: String, series: [(scenario: String, series: ChartSeries)]) -> String {
        let scenarios = Set(series.map(\.scenario))
        let xLabel = Self.joinedDistinct(series.map(\.series.xLabel))
        let yLabel = Self.joinedDistinct(series.map(\.series.yLabel))
        let formatX = Self.formatters(forAxisLabel: xLabel).tick
        let (formatYTick, formatY) = Self.formatters(forAxisLabel: yLabel)
        let labels = series.map { scenarios.count > 1 ? "\($0.scenario): \($0.series.label)" : $0.series.label }
        let scenarioList = scenarios.sorted().joined(separator: ", ")
        let points = series.flatMap(\.series.points).filter { $0.x.isFinite && $0.y.isFinite }
        let distinctX = Set(points.map(\.x))

        if !points.isEmpty && series.allSatisfy({ $0.series.points.count <= 1 }) {
            let bars = series.indices.map { index -> SVGChart.Bar in
                let point = series[index].series.points.first
                var label = labels[index]
                if distinctX.count > 1, let point { label += " (\(xLabel) \(formatX(point.x)))" }
                let value = point?.y ?? .nan
                return SVGChart.Bar(label: label, value: value, valueText: value.isFinite ? formatY(value) : "n/a", colorIndex: index)
            }
            let subtitle = distinctX.count == 1 ? "\(xLabel): \(formatX(distinctX.first!)) · \(scenarioList)" : scenarioList
            return style.render(SVGChart.BarChart(
                title: name, subtitle: subtitle,
                valueAxis: .linear(title: yLabel, values: bars.map(\.value), includeZero: true, format: formatYTick),
                bars: bars, legend: bars.map { ($0.label, $0.colorIndex) }))
        }

        let xValues = points.map(\.x)
        let yValues = points.map(\.y)
        let xScale: ChartAxis.Scale = ChartAxis.spansMoreThanTwoDecades(xValues) ? .logarithmic : .linear
        let yScale: ChartAxis.Scale = ChartAxis.spansMoreThanTwoDecades(yValues) ? .logarithmic : .linear
        let fewX = distinctX.count <= 8
        let x: ChartAxis
        if fewX {
            x = .atValues(title: xLabel, values: xValues, scale: xScale, format: formatX)
        } else if xScale == .logarithmic {
            x = .logarithmic(title: xLabel, values: xValues, format: formatX)
        } else {
            x = .linear(title: xLabel, values: xValues, includeZero: false, format: formatX)
        }
        let labelsPoints = fewX && series.count <= 4 && points.count <= 40
        let y: ChartAxis = yScale == .logarithmic
            ? .logarithmic(title: yLabel, values: yValues, format: formatYTick)
            : .linear(title: yLabel, values: yValues, includeZero: true, format: formatYTick)
        let scales = [xScale == .logarithmic ? "log x" : nil, yScale == .logarithmic ? "log y" : nil].compactMap { $0 }
        let lines = series.indices.map {
            SVGChart.Line(label: labels[$0], points: series[$0].series.points, showsMarkers: true)
        }
        return style.render(SVGChart.LineChart(
            title: name, subtitle: "\(yLabel) vs \(xLabel)" + (scales.isEmpty ? "" : " (\(scales.joined(separator: ", ")))") + " · \(scenarioList)",
            x: x, y: y, lines: lines, labelsPoints: labelsPoints, formatY: formatY))
    }

    /// How an axis labelled `label` prints ticks and values: nanosecond axes (labels such as
    /// `latency (ns)`) in human units, anything else as numbers (compact for ticks, where space is
    /// short; grouped for values next to points and bars).
    static func formatters(forAxisLabel label: String) -> (tick: (Double) -> String, value: (Double) -> String) {
        let lowered = label.lowercased()
        if lowered.contains("(ns)") || lowered.contains("[ns]") || lowered.hasSuffix(" ns") || lowered == "ns" {
            return (ReportFormat.compactDuration(ns:), ReportFormat.humanDuration(ns:))
        }
        return (ReportFormat.compact, ReportFormat.number)
    }

    private static func joinedDistinct(_ labels: [String]) -> String {
        var seen: [String] = []
        for label in labels where !seen.contains(label) { seen.append(label) }
        return seen.joined(separator: " / ")
    }

    // MARK: Allocations

    /// A bar per figure whose unit starts with `allocs`, colored by scenario, or `nil` when the
    /// report has none (jemalloc missing, or no scenario counts allocations).
    func allocations(in report: BenchReport) -> String? {
        var bars: [SVGChart.Bar] = []
        var legend: [(label: String, colorIndex: Int)] = []
        var units: [String] = []
        for scenario in report.scenarios {
            let figures = scenario.figures.filter { $0.unit.hasPrefix("allocs") }
            guard !figures.isEmpty else { continue }
            let colorIndex = legend.count
            legend.append((scenario.scenario, colorIndex))
            for figure in figures {
                if !units.contains(figure.unit) { units.append(figure.unit) }
                bars.append(SVGChart.Bar(
                    label: figure.name, value: figure.value, valueText: ReportFormat.value(of: figure), colorIndex: colorIndex))
            }
        }
        guard !bars.isEmpty else { return nil }
        return style.render(SVGChart.BarChart(
            title: "Allocations", subtitle: "malloc calls, counted by jemalloc (by callgrind in the costs scenario); lower is better",
            valueAxis: .linear(title: units.joined(separator: ", "), values: bars.map(\.value), includeZero: true, format: ReportFormat.compact),
            bars: bars, legend: legend))
    }
}
