import Foundation

/// The short summary printed at the end of a run: the clock's resolution, then per scenario its
/// figures (a suite's: the gated ones and rates; one scenario's: all of them, marked when within
/// 10× of the clock's resolution) and latencies (a percentile the sample count cannot support
/// shown as `—` with the count).
public enum ConsoleSummary {
    /// `  ✗ must be 0` after a figure that breaks a rule of its own (one that needs no baseline),
    /// so that a run's console shows what `check` will fail it for.
    static func violationMark(_ figure: Figure) -> String {
        guard let rule = figure.gate, rule.ignoresBaseline else { return "" }
        let row = GateCheck.judge(name: figure.name, unit: figure.unit, baseline: nil, current: figure.value, rule: rule)
        return row.verdict == .violated || row.verdict == .invalid ? "  ✗ \(row.rule)" : ""
    }

    /// Renders `report` for a terminal.
    public static func render(_ report: BenchReport) -> String {
        var lines = ["", "segments-bench \(report.toolVersion) at \(report.gitRevision.prefix(12)) on \(report.machine.cores) cores, load \(report.machine.loadAverage), jemalloc \(report.machine.jemalloc)",
                     "clock: \(ReportFormat.clock(report.machine.clock))"]
        // One scenario run on its own is all the console shows: every figure it measured, not
        // only those a suite's summary keeps short.
        let everyFigure = report.scenarios.count == 1
        for scenario in report.scenarios {
            lines.append(String(format: "== %@ (%.1f s)", scenario.scenario, scenario.wallSeconds))
            let shown = scenario.figures.filter { everyFigure || $0.gate != nil || $0.unit == "ops/s" }
            // Values in one column after the longest name, which is never cut.
            let column = shown.map(\.name.count).max().map { max($0, 52) } ?? 52
            for figure in shown {
                lines.append("  \(figure.name.padding(toLength: column, withPad: " ", startingAt: 0)) \(ReportFormat.value(of: figure, clock: report.machine.clock))"
                    + Self.violationMark(figure))
            }
            for latency in scenario.latencies where latency.count > 0 {
                // A percentile the sample count cannot support is shown as `—` with that count.
                let percentiles = latency.percentiles.map { percentile in
                    "\(percentile.label) " + (percentile.value.map { ReportFormat.humanDuration(ns: Double($0)) } ?? "— (n=\(latency.count))")
                }.joined(separator: "  ")
                lines.append("  \(latency.name): \(percentiles)\(latency.coordinatedOmissionCorrected ? " (CO-corrected)" : "")")
            }
            for note in scenario.notes { lines.append("  note: \(note)") }
        }
        return lines.joined(separator: "\n")
    }
}
