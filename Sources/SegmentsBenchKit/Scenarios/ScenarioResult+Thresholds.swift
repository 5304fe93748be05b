extension ScenarioResult {
    /// Judges the thresholds of `thresholds` that belong to this scenario, in order: each verdict
    /// becomes a note, and `<scenario>.thresholdsFailed` counts the missed ones (the gate fails a
    /// report where it is not 0), added to the count already there when the result was judged
    /// before (`check --threshold` of a report whose run had limits of its own) unless that is no
    /// count (``GateCheck/harnessErrors(in:)`` refuses it). Does nothing when none belongs to it.
    public mutating func judge(_ thresholds: [RunThreshold]) {
        let own = thresholds.filter { $0.scenario == scenario }
        guard !own.isEmpty else { return }
        let outcomes = own.map { $0.evaluate(self) }
        let missed = Double(outcomes.filter { !$0.passed }.count)
        let name = scenario + GateCheck.thresholdsFailedSuffix
        if let index = figures.firstIndex(where: { $0.name == name }) {
            // A value no count can be stays as it is, for the gate to refuse.
            if GateCheck.isACount(figures[index].value) { figures[index].value += missed }
        } else {
            figures.append(Figure(
                name: name, value: missed, unit: "count", summary: "--threshold limits the run missed (a missed one makes `run` exit 2)"))
        }
        let key = BenchOptionName.threshold.rawValue
        configuration[key] = ([configuration[key]].compactMap { $0 } + own.map(\.text)).joined(separator: " ")
        notes += outcomes.map(\.description)
    }
}

extension BenchReport {
    /// The `--threshold` limits the report's scenarios missed (their `….thresholdsFailed` figures).
    /// A value no count can be (negative, fractional, past 2⁵³, not a number) counts as `Int.max`:
    /// such a report is broken, and ``GateCheck/harnessErrors(in:)`` says which figure.
    public var thresholdsFailed: Int {
        let counts = scenarios.flatMap { $0.figures.filter { $0.name.hasSuffix(GateCheck.thresholdsFailedSuffix) } }.map { figure in
            GateCheck.isACount(figure.value) ? Int(figure.value) : Int.max
        }
        return counts.reduce(0) { total, count in
            let (sum, overflow) = total.addingReportingOverflow(count)
            return overflow ? .max : sum
        }
    }
}
