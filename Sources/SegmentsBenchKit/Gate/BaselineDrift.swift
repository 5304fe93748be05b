/// What differs between a run and the run its baseline was taken from, besides the figures: the
/// machine (``MachineInfo/identity``), each scenario's configuration, and the tool version. Any
/// of these can move figures without a change to the engine, so `check` warns about each (a
/// warning never fails the gate).
enum BaselineDrift {
    /// One line per difference, in a stable order: machine, tool version, configuration.
    static func warnings(report: BenchReport, baseline: Baseline) -> [String] {
        var warnings: [String] = []
        let baselineMachine = Dictionary(baseline.machine.identity.map { ($0.field, $0.value) }, uniquingKeysWith: { first, _ in first })
        let machineChanges = report.machine.identity.compactMap { field, value -> String? in
            guard let old = baselineMachine[field], old != value else { return nil }
            return "\(field) \(quoted(old)) → \(quoted(value))"
        }
        if !machineChanges.isEmpty {
            warnings.append("machine differs from the baseline's: " + machineChanges.joined(separator: ", "))
        }

        if let version = baseline.toolVersion {
            if version != report.toolVersion {
                warnings.append("tool version differs from the baseline's: \(quoted(version)) → \(quoted(report.toolVersion))")
            }
        } else {
            warnings.append("the baseline records no tool version (written before it was recorded); this run is \(quoted(report.toolVersion))")
        }

        if let configurations = baseline.configuration {
            for scenario in report.scenarios {
                guard let old = configurations[scenario.scenario] else { continue }
                // The run's own limits judge it; they do not shape what it measures.
                let keys = Set(old.keys).union(scenario.configuration.keys).subtracting([BenchOptionName.threshold.rawValue]).sorted()
                let changes = keys.compactMap { key -> String? in
                    let before = old[key], after = scenario.configuration[key]
                    guard before != after else { return nil }
                    return "\(key) \(before.map(quoted) ?? "unset") → \(after.map(quoted) ?? "unset")"
                }
                if !changes.isEmpty {
                    warnings.append("configuration of \(scenario.scenario) differs from the baseline's: " + changes.joined(separator: ", "))
                }
            }
        } else {
            warnings.append("the baseline records no scenario configuration (written before it was recorded)")
        }
        return warnings
    }

    private static func quoted(_ text: String) -> String { "\"\(text)\"" }
}
