import Foundation

/// The short summary printed at the end of a run: per scenario its gated figures and latencies.
public enum ConsoleSummary {
    /// Renders `report` for a terminal.
    public static func render(_ report: BenchReport) -> String {
        var lines = ["", "segments-bench \(report.gitRevision.prefix(12)) on \(report.machine.cores) cores, load \(report.machine.loadAverage), jemalloc \(report.machine.jemalloc)"]
        for scenario in report.scenarios {
            lines.append(String(format: "== %@ (%.1f s)", scenario.scenario, scenario.wallSeconds))
            for figure in scenario.figures where figure.gate != nil || figure.unit == "ops/s" {
                lines.append("  \(figure.name.padding(toLength: 52, withPad: " ", startingAt: 0)) \(format(figure.value)) \(figure.unit)")
            }
            for latency in scenario.latencies where latency.count > 0 {
                let percentiles = latency.percentiles.map { "\($0.label) \(duration($0.value))" }.joined(separator: "  ")
                lines.append("  \(latency.name): \(percentiles)\(latency.coordinatedOmissionCorrected ? " (CO-corrected)" : "")")
            }
            for note in scenario.notes { lines.append("  note: \(note)") }
        }
        return lines.joined(separator: "\n")
    }

    static func format(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e12 { return String(Int64(value)) }
        return abs(value) >= 100 ? String(format: "%.1f", value) : String(format: "%.3g", value)
    }

    static func duration(_ nanoseconds: UInt64) -> String {
        let value = Double(nanoseconds)
        switch value {
        case ..<1_000: return "\(nanoseconds) ns"
        case ..<1_000_000: return String(format: "%.1f µs", value / 1e3)
        case ..<1_000_000_000: return String(format: "%.1f ms", value / 1e6)
        default: return String(format: "%.2f s", value / 1e9)
        }
    }
}
