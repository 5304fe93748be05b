/// What `baseline update` checks before a report replaces a baseline.
extension Baseline {
    /// The figures of `report` that break a rule judged on the run alone (``GateRule/mustEqual(_:)``,
    /// ``GateRule/atMost(_:)``), each as "name = value (rule)": a run that lost events is no
    /// reference for anything else it measured.
    public static func correctnessViolations(in report: BenchReport) -> [String] {
        report.figures.compactMap { figure in
            guard let rule = figure.gate, rule.ignoresBaseline else { return nil }
            let row = GateCheck.judge(name: figure.name, unit: figure.unit, baseline: nil, current: figure.value, rule: rule)
            return row.verdict == .violated ? "\(figure.name) = \(GateCheck.format(figure.value)) (\(row.rule))" : nil
        }
    }

    /// This baseline's allocation figures that `report` lacks because its scenario ran without
    /// jemalloc, sorted: a baseline taken from `report` would stop gating them.
    public func allocationFiguresUncounted(by report: BenchReport) -> [String] {
        let uncounted = Set(report.scenarios.filter { !$0.allocationsMeasured }.map(\.scenario))
        let measured = Set(report.figures.map(\.name))
        return figures.filter { name, entry in
            !measured.contains(name) && GateCheck.needsJemalloc(name: name, unit: entry.unit)
                && uncounted.contains(String(name.prefix { $0 != "." }))
        }.keys.sorted()
    }
}
