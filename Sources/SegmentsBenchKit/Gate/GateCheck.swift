import Foundation

/// Compares a run with a baseline: which gated figures regressed, by how much, and which improved
/// beyond tolerance (a hint to update the baseline, never a failure).
public struct GateCheck: Sendable {
    /// The verdict on one figure.
    public enum Verdict: String, Codable, Sendable {
        case pass
        /// Worse than the baseline beyond its tolerance: fails the gate.
        case regressed
        /// Better than the baseline beyond its tolerance: passes, with a hint.
        case improved
        /// A `mustEqual` figure with another value, or an `atMost` figure above its bound: fails
        /// the gate.
        case violated
        /// In the baseline but not measured now: fails the gate (unless skipped below).
        case missing
        /// Not measurable in this run (allocation counts without jemalloc): warns, does not fail.
        case skipped
        /// Its scenario was not part of this run (`segments-bench run <one scenario>`): not checked.
        case notRun
        /// Gated now but not in the baseline: reported.
        case new
    }

    /// One row of the comparison.
    public struct Row: Codable, Sendable {
        public var name: String
        public var unit: String
        public var baseline: Double?
        public var current: Double?
        /// The worst value that still passes (for `lowerIsBetter`), the best for `higherIsBetter`.
        public var limit: Double?
        public var rule: String
        public var verdict: Verdict

        /// Relative change from the baseline, if both exist.
        public var change: Double? {
            guard let baseline, let current else { return nil }
            if baseline == 0 { return current == 0 ? 0 : nil }
            return (current - baseline) / abs(baseline)
        }
    }

    public var rows: [Row]

    /// `true` when no figure regressed, violated its rule, or went missing.
    public var passed: Bool { !rows.contains { [.regressed, .violated, .missing].contains($0.verdict) } }

    /// Rows worth showing (everything but passes and figures of scenarios that did not run).
    public var notable: [Row] { rows.filter { $0.verdict != .pass && $0.verdict != .notRun } }

    /// Compares `report` with `baseline`.
    public init(report: BenchReport, baseline: Baseline) {
        var rows: [Row] = []
        let current = Dictionary(report.figures.map { ($0.name, $0) }, uniquingKeysWith: { _, last in last })
        let scenariosWithoutAllocations = Set(report.scenarios.filter { !$0.allocationsMeasured }.map(\.scenario))
        for (name, entry) in baseline.figures.sorted(by: { $0.key < $1.key }) {
            guard let figure = current[name] else {
                let scenario = String(name.prefix { $0 != "." })
                let isAllocation = entry.unit.hasPrefix("allocs")
                let ranScenario = report.scenarios.contains { $0.scenario == scenario }
                let verdict: Verdict =
                    !ranScenario ? .notRun : (isAllocation && scenariosWithoutAllocations.contains(scenario) ? .skipped : .missing)
                rows.append(Row(name: name, unit: entry.unit, baseline: entry.value, current: nil, limit: nil,
                                rule: Self.describe(entry.gate), verdict: verdict))
                continue
            }
            rows.append(Self.judge(name: name, unit: entry.unit, baseline: entry.value, current: figure.value, rule: entry.gate))
        }
        for figure in report.figures where figure.gate != nil && baseline.figures[figure.name] == nil {
            if let rule = figure.gate, rule.ignoresBaseline {
                rows.append(Self.judge(name: figure.name, unit: figure.unit, baseline: nil, current: figure.value, rule: rule))
            } else {
                rows.append(Row(name: figure.name, unit: figure.unit, baseline: nil, current: figure.value, limit: nil,
                                rule: Self.describe(figure.gate!), verdict: .new))
            }
        }
        self.rows = rows
    }

    static func judge(name: String, unit: String, baseline: Double?, current: Double, rule: GateRule) -> Row {
        switch rule {
        case .mustEqual(let expected):
            return Row(name: name, unit: unit, baseline: baseline, current: current, limit: expected, rule: describe(rule),
                       verdict: current == expected ? .pass : .violated)
        case .atMost(let bound):
            return Row(name: name, unit: unit, baseline: baseline, current: current, limit: bound, rule: describe(rule),
                       verdict: current <= bound ? .pass : .violated)
        case .lowerIsBetter(let relative, let absolute):
            let base = baseline ?? current
            let limit = base * (1 + relative) + absolute
            let better = base * (1 - relative) - absolute
            let verdict: Verdict = current > limit ? .regressed : (current < better ? .improved : .pass)
            return Row(name: name, unit: unit, baseline: baseline, current: current, limit: limit, rule: describe(rule), verdict: verdict)
        case .higherIsBetter(let relative, let absolute):
            let base = baseline ?? current
            let limit = base * (1 - relative) - absolute
            let better = base * (1 + relative) + absolute
            let verdict: Verdict = current < limit ? .regressed : (current > better ? .improved : .pass)
            return Row(name: name, unit: unit, baseline: baseline, current: current, limit: limit, rule: describe(rule), verdict: verdict)
        }
    }

    /// The rule in words.
    public static func describe(_ rule: GateRule) -> String {
        switch rule {
        case .mustEqual(let expected): "must be \(format(expected))"
        case .atMost(let bound): "at most \(format(bound))"
        case .lowerIsBetter(let relative, let absolute): "≤ baseline +\(format(relative * 100))% +\(format(absolute))"
        case .higherIsBetter(let relative, let absolute): "≥ baseline −\(format(relative * 100))% −\(format(absolute))"
        }
    }

    static func format(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        if abs(value) >= 100 { return String(format: "%.1f", value) }
        return String(format: "%.3g", value)
    }

    /// A plain-text table of the notable rows and a verdict line, for the terminal.
    public func renderTable() -> String {
        var lines: [String] = []
        let shown = notable
        if shown.isEmpty {
            lines.append("All \(rows.count) gated figures are within their tolerance of the baseline.")
        } else {
            let header = ["figure", "baseline", "now", "change", "limit", "rule", "verdict"]
            var table: [[String]] = [header]
            for row in shown {
                table.append([
                    row.name, row.baseline.map(Self.format) ?? "—", row.current.map(Self.format) ?? "—",
                    row.change.map { String(format: "%+.1f%%", $0 * 100) } ?? "—", row.limit.map(Self.format) ?? "—",
                    row.rule, row.verdict.rawValue.uppercased(),
                ])
            }
            let widths = header.indices.map { column in table.map { $0[column].count }.max() ?? 0 }
            for (index, row) in table.enumerated() {
                lines.append(zip(row, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: "  "))
                if index == 0 { lines.append(widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")) }
            }
        }
        if rows.contains(where: { $0.verdict == .improved }) {
            lines.append("Some figures improved beyond tolerance: run `swift run -c release segments-bench baseline update` and commit Reports/baseline.json to lock the gain in.")
        }
        if rows.contains(where: { $0.verdict == .skipped }) {
            lines.append("Some figures were skipped: \(AllocationProbe.unavailableNote)")
        }
        let notRun = rows.filter { $0.verdict == .notRun }.count
        if notRun > 0 {
            lines.append("\(notRun) baseline figures belong to scenarios that were not part of this run and were not checked.")
        }
        let checked = rows.count - notRun
        let failed = rows.filter { [.regressed, .violated, .missing].contains($0.verdict) }.count
        lines.append(passed ? "GATE PASSED (\(checked) figures checked)" : "GATE FAILED: \(failed) of \(checked) figures regressed, violated their rule or are missing")
        return lines.joined(separator: "\n")
    }
}
