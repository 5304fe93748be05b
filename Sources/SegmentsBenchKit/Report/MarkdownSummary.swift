/// `summary.md`: the report for people, readable as plain text and rendered on GitHub.
///
/// Scenario text (summaries, notes, definitions) may use Markdown, in particular `code` spans, and
/// is kept as written except for `<`, `>` and `&`; names and values are escaped for tables.
struct MarkdownSummary {
    var report: BenchReport
    var layout: ReportLayout

    func render() -> String {
        var lines: [String] = []
        lines.append("# segments-bench report")
        lines.append("")
        lines += header()
        if let chart = layout.allocationsChart {
            lines += ["", "## Allocations", "", "![Allocations](\(chart))"]
        }
        for (scenario, files) in zip(report.scenarios, layout.scenarios) {
            lines.append("")
            lines += section(scenario, files: files)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private func header() -> [String] {
        let machine = report.machine
        let rows: [(String, String)] = [
            ("Machine", "\(MarkupEscaping.markdownCell(machine.hostname)), \(machine.cores) cores, \(MarkupEscaping.markdownCell(machine.cpuModel))"),
            ("Memory", ReportFormat.bytes(Double(machine.memoryBytes))),
            ("Kernel", MarkupEscaping.markdownCell(machine.kernel)),
            ("Load average", MarkupEscaping.markdownCell(machine.loadAverage) + " (1, 5, 15 min, at start)"),
            ("jemalloc", MarkupEscaping.markdownCell(machine.jemalloc)),
            ("Swift", MarkupEscaping.markdownCell(machine.swiftVersion)),
            ("Clock", MarkupEscaping.markdownCell(ReportFormat.clock(machine.clock))),
            ("segments-bench", MarkupEscaping.markdownCell(report.toolVersion)),
            ("Git revision", MarkupEscaping.markdownCode(report.gitRevision)),
            ("Started", MarkupEscaping.markdownCell(report.startedAt)),
            ("Command", MarkupEscaping.markdownCode(report.command)),
        ]
        var lines = ["| | |", "|---|---|"]
        lines += rows.map { "| \($0.0) | \($0.1) |" }
        if let interrupted = report.interrupted {
            lines.append("| **Interrupted** | \(MarkupEscaping.markdownCell(interrupted)): only the scenarios below finished |")
        }
        lines.append("")
        lines.append("Data: [report.json](\(ReportLayout.reportJSON)) · page: [index.html](\(ReportLayout.index)). "
            + "The machine is shared: read latencies against the floors measured in the same run.")
        return lines
    }

    private func section(_ scenario: ScenarioResult, files: ReportLayout.ScenarioFiles) -> [String] {
        var lines = ["## \(MarkupEscaping.markdownCell(scenario.scenario))", ""]
        lines.append(MarkupEscaping.markdownProse(scenario.summary))
        lines.append("")
        lines.append("Wall time: \(ReportFormat.number(scenario.wallSeconds)) s · allocations measured: "
            + (scenario.allocationsMeasured ? "yes" : "no") + " · data: [\(files.json)](\(files.json))")

        if !scenario.configuration.isEmpty {
            lines += ["", "### Configuration", "", "| Option | Value |", "|---|---|"]
            for key in scenario.configuration.keys.sorted() {
                lines.append("| \(MarkupEscaping.markdownCode(key)) | \(MarkupEscaping.markdownCell(scenario.configuration[key]!)) |")
            }
        }

        if !scenario.figures.isEmpty {
            lines += ["", "### Figures", "", "| Figure | Value | Gate | What it is |", "|---|---:|---|---|"]
            for figure in scenario.figures {
                lines.append("| \(MarkupEscaping.markdownCode(figure.name)) | \(MarkupEscaping.markdownCell(ReportFormat.value(of: figure, clock: report.machine.clock))) | "
                    + "\(MarkupEscaping.markdownCell(ReportFormat.describe(figure.gate, unit: figure.unit))) | "
                    + "\(MarkupEscaping.markdownCell(figure.summary)) |")
            }
        }

        if !scenario.latencies.isEmpty {
            lines += ["", "### Latencies", ""]
            lines.append("| Latency | Count | p50 | p90 | p99 | p99.9 | p99.99 | max |")
            lines.append("|---|---:|---:|---:|---:|---:|---:|---:|")
            for latency in scenario.latencies {
                let name = MarkupEscaping.markdownCell(latency.name) + (latency.coordinatedOmissionCorrected ? " †" : "")
                let values = latency.percentiles.map { ReportFormat.percentile($0.value) }
                lines.append("| \(name) | \(ReportFormat.grouped(latency.count)) | " + values.joined(separator: " | ") + " |")
            }
            if scenario.latencies.contains(where: \.coordinatedOmissionCorrected) {
                lines += ["", "† Corrected for coordinated omission: includes the samples a stalled load generator would have taken."]
            }
            if scenario.latencies.contains(where: { $0.percentiles.contains { $0.value == nil } }) {
                lines += ["", ReportFormat.omittedPercentileNote]
            }
            lines.append("")
            for (index, (latency, histogram)) in zip(scenario.latencies, files.histograms).enumerated() {
                let log = files.intervalLogs.indices.contains(index) ? files.intervalLogs[index] : nil
                lines.append("- **\(MarkupEscaping.markdownProse(latency.name))**: \(MarkupEscaping.markdownProse(latency.definition)) "
                    + "(mean \(latency.count > 0 ? ReportFormat.humanDuration(ns: latency.mean) : "—"); histogram [\(histogram)](\(histogram)), values in µs"
                    + (log.map { "; per \(ReportFormat.number(latency.intervals.first?.intervalSeconds ?? 1)) s [\($0)](\($0))" } ?? "") + ")")
            }
        }

        let charts = [files.percentilesChart.map { ("Latency by percentile", $0) }].compactMap { $0 }
            + files.timelines.flatMap { timeline -> [(String, String)] in
                let name = scenario.latencies[timeline.latency].name
                return [("\(name): throughput over time", timeline.throughput), ("\(name): p50 and p99 over time", timeline.percentiles)]
            }
            + files.charts.map { ($0.name, $0.file) }
        if !charts.isEmpty {
            lines += ["", "### Charts", ""]
            for (title, file) in charts {
                lines.append("![\(MarkupEscaping.markdownCell(title).replacingOccurrences(of: "]", with: "\\]"))](\(file))")
                lines.append("")
            }
            lines.removeLast()
        }

        if !scenario.notes.isEmpty {
            lines += ["", "### Notes", ""]
            lines += scenario.notes.map { "- " + MarkupEscaping.markdownProse($0).replacingOccurrences(of: "\n", with: "\n  ") }
        }
        return lines
    }
}
