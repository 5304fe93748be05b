/// `gate-summary.md`: the gate's verdict for a pull request comment or a CI job summary
/// (GitHub-flavoured Markdown). A verdict line with the exit code, the warnings and harness
/// errors, then a table of only the figures that regressed, violated their rule, went missing,
/// are not a number or improved: baseline, now, limit, change.
enum GateSummaryMarkdown {
    /// The verdicts the table shows, in this order.
    static let shown: [GateCheck.Verdict] = [.violated, .regressed, .missing, .invalid, .improved]

    static func render(_ check: GateCheck) -> String {
        let status = check.exitStatus
        let icon = status == .pass ? "✅" : "❌"
        let checked = check.checkedCount
        var lines = ["## segments-bench gate: \(icon) \(status.verdict) (exit \(status.rawValue))", ""]
        var context = "\(checked) gated figures checked"
        if let baseline = check.baseline {
            context += " against the baseline of \(MarkupEscaping.markdownCode(String(baseline.gitRevision.prefix(12))))"
                + (baseline.createdAt.isEmpty ? "" : " (\(MarkupEscaping.markdownCell(baseline.createdAt)))")
        }
        lines.append(context + ".")
        if !check.harnessErrors.isEmpty {
            lines.append("")
            lines += check.harnessErrors.map { "- **Harness error**: \(MarkupEscaping.markdownCell($0))" }
        }
        if !check.warnings.isEmpty {
            lines.append("")
            lines += check.warnings.map { "- Warning: \(MarkupEscaping.markdownCell($0))" }
        }
        let rows = shown.flatMap { verdict in check.rows.filter { $0.verdict == verdict } }
        if !rows.isEmpty {
            lines += ["", "| Figure | Verdict | Baseline | Now | Limit | Change | Rule |", "|---|---|---:|---:|---:|---:|---|"]
            for row in rows {
                let (now, limit) = GateCheck.apart(row.current, row.limit) { MarkupEscaping.markdownCell(ReportFormat.value($0, unit: row.unit)) }
                let cells = [
                    MarkupEscaping.markdownCode(row.name), row.verdict.rawValue,
                    cell(row.baseline, unit: row.unit), now, limit,
                    row.change.map { String(format: "%+.1f%%", $0 * 100) } ?? "—", MarkupEscaping.markdownCell(row.rule),
                ]
                lines.append("| " + cells.joined(separator: " | ") + " |")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func cell(_ value: Double?, unit: String) -> String {
        guard let value else { return "—" }
        guard value.isFinite else { return "\(value)" }
        return MarkupEscaping.markdownCell(ReportFormat.value(value, unit: unit))
    }
}
