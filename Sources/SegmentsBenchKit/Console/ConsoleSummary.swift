import Foundation

/// The short summary printed at the end of a run: per scenario its gated figures and latencies.
public enum ConsoleSummary {
    /// Renders `report` for a terminal.
    public static func render(_ report: BenchReport) -> String {
        var lines = ["", "segments-bench \(report.gitRevision.prefix(12)) on \(report.machine.cores) cores, load \(report.machine.loadAverage), jemalloc \(report.machine.jemalloc)"]
        for scenario in report.scenarios {
            lines.append(String(format: "== %@ (%.1f s)", scenario.scenario, scenario.wallSeconds))
            for figure in scenario.figures where figure.gate != nil || figure.unit == "ops/s" {
                lines.append("  \(figure.name.padding(toLength: 52, withPad: " ", startingAt: 0)) \(ReportFormat.value(of: figure))")
            }
            for latency in scenario.latencies where latency.count > 0 {
                let percentiles = latency.percentiles.map { "\($0.label) \(ReportFormat.humanDuration(ns: Double($0.value)))" }
                    .joined(separator: "  ")
                lines.append("  \(latency.name): \(percentiles)\(latency.coordinatedOmissionCorrected ? " (CO-corrected)" : "")")
            }
            for note in scenario.notes { lines.append("  note: \(note)") }
        }
        return lines.joined(separator: "\n")
    }
}
