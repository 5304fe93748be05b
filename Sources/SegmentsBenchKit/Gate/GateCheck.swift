import Foundation

/// Compares a run with a baseline: which gated figures regressed, by how much, which broke a
/// correctness rule, which could not be judged, and which improved beyond tolerance (a hint to
/// update the baseline, never a failure). ``exitStatus`` is the verdict a CI system reads; see
/// ``ExitStatus`` for the codes and their precedence.
public struct GateCheck: Sendable {
    /// The verdict on one figure.
    public enum Verdict: String, Codable, Sendable {
        case pass
        /// Worse than the baseline beyond its tolerance: a regression (exit 2).
        case regressed
        /// Better than the baseline beyond its tolerance: passes, with a hint.
        case improved
        /// A `mustEqual` figure with another value, or an `atMost` figure above its bound: a
        /// broken correctness rule (exit 3).
        case violated
        /// In the baseline but not measured now although its scenario ran: a harness error (exit 70).
        case missing
        /// Measured now (or in the baseline) as NaN or infinite, or now in another unit than the
        /// baseline's, so no rule can judge it: a harness error (exit 70).
        case invalid
        /// Not measurable in this run (allocation counts without jemalloc): warns, does not fail.
        case skipped
        /// In the baseline but not measured because its scenario broke a correctness rule in this
        /// run, as the scenario says (``ScenarioResult/unmeasuredAfterViolation``: a check that lost
        /// a callback ends the probe before its allocation count): the ``violated`` row is the
        /// verdict (exit 3), not a harness error.
        case unmeasured
        /// Its scenario was not part of this run (`segments-bench run <one scenario>`): not checked.
        case notRun
        /// Gated against the baseline now, but the baseline has no value for it: not compared. A
        /// warning in `check`; in the `ci` gate a harness error (exit 70), since a baseline
        /// without the figure would pass anything.
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

        /// Creates a row.
        public init(name: String, unit: String, baseline: Double?, current: Double?, limit: Double?, rule: String, verdict: Verdict) {
            self.name = name
            self.unit = unit
            self.baseline = baseline
            self.current = current
            self.limit = limit
            self.rule = rule
            self.verdict = verdict
        }

        /// Relative change from the baseline, if both exist and are finite.
        public var change: Double? {
            guard let baseline, let current, baseline.isFinite, current.isFinite else { return nil }
            if baseline == 0 { return current == 0 ? 0 : nil }
            return (current - baseline) / abs(baseline)
        }
    }

    /// Where the baseline came from, as it records it.
    public struct BaselineInfo: Codable, Sendable {
        public var gitRevision: String
        public var createdAt: String
        public var command: String
        /// `nil` for a baseline written before the tool version was recorded.
        public var toolVersion: String?
        public var machine: MachineInfo
    }

    /// Every gated figure of the baseline and of the run, sorted by name (baseline figures first),
    /// then a row for each `--threshold` count the run missed limits by (judged on the run alone).
    public var rows: [Row]
    /// Why the harness could not judge, beyond what the rows show (``Verdict/missing`` and
    /// ``Verdict/invalid``): the baseline could not be read, a scenario threw, a reported figure is
    /// NaN or infinite, the run was interrupted, a baseline scenario did not run or (in `ci`) a
    /// gated figure has no baseline value. Any of these makes ``exitStatus``
    /// ``ExitStatus/harnessError``.
    public var harnessErrors: [String]
    /// What makes the comparison less meaningful without failing it: another machine,
    /// configuration or tool version; figures not measured or whose scenario did not run; in
    /// `check`, figures the baseline has no value for.
    public var warnings: [String]
    /// The baseline's origin; `nil` when it could not be read, or none was used (``init(judgingOnItsOwn:)``).
    public var baseline: BaselineInfo?

    /// The gate's verdict: every row's and the harness's, combined by ``ExitStatus/combined(_:)``.
    public var exitStatus: ExitStatus {
        ExitStatus.combined(rows.map { ExitStatus($0.verdict) } + (harnessErrors.isEmpty ? [] : [.harnessError]))
    }

    /// `true` when ``exitStatus`` is ``ExitStatus/pass``.
    public var passed: Bool { exitStatus == .pass }

    /// How many figures the gate judged: every row but those of scenarios that did not run, those
    /// this run could not measure (``Verdict/skipped``, ``Verdict/unmeasured``) and those with no
    /// baseline yet (``Verdict/new``).
    public var checkedCount: Int {
        rows.filter { ![.notRun, .skipped, .unmeasured, .new].contains($0.verdict) }.count
    }

    /// Rows worth showing (everything but passes and figures of scenarios that did not run).
    public var notable: [Row] { rows.filter { $0.verdict != .pass && $0.verdict != .notRun } }

    /// `true` for a figure only jemalloc can measure: an allocation count (unit `allocs…`), a
    /// jemalloc statistic (named for it, such as `soak.jemallocActiveGrowth`), or one of
    /// ``readFromJemalloc``. Missing from a scenario that ran without jemalloc, such a figure is
    /// ``Verdict/skipped``, not missing.
    static func needsJemalloc(name: String, unit: String) -> Bool {
        unit.hasPrefix("allocs") || name.localizedCaseInsensitiveContains("jemalloc") || readFromJemalloc.contains(name)
    }

    /// Figures read from jemalloc's statistics whose name and unit do not say so.
    static let readFromJemalloc: Set<String> = [SoakScenario.retainedBytesFigure]

    /// The suffix of the figure that counts the `--threshold` limits a run missed.
    static let thresholdsFailedSuffix = ".thresholdsFailed"

    /// The suffix of the figure that ``SuiteRunner`` reports, set to 1, for a scenario that threw.
    static let scenarioFailedSuffix = ".scenarioFailed"

    /// Compares `report` with `baseline`. With `everyScenarioMustRun` (the `ci` gate, which runs the
    /// whole suite), a baseline figure whose scenario did not run is ``Verdict/missing``, not
    /// ``Verdict/notRun``, and a figure gated against a baseline that has no value for it is a
    /// harness error: a gate does not pass on figures nobody compared. Otherwise (`check` of a
    /// run of some scenarios) both are warnings, as are figures this run could not measure.
    public init(report: BenchReport, baseline: Baseline, everyScenarioMustRun: Bool = false) {
        self.init(report: report, comparingWith: baseline, everyScenarioMustRun: everyScenarioMustRun)
    }

    /// Judges `report` with no baseline (`check --no-baseline`): the rules its figures carry that
    /// need none (correctness counts and bounds, a NaN), its `--threshold` counts and its harness
    /// errors. A figure compared only with a baseline gets no row; a warning says how many.
    public init(judgingOnItsOwn report: BenchReport) {
        self.init(report: report, comparingWith: nil, everyScenarioMustRun: false)
    }

    /// The gate of both: with `baseline` `nil`, the figures only a baseline could judge are left
    /// out, and there is no drift to warn of.
    private init(report: BenchReport, comparingWith baseline: Baseline?, everyScenarioMustRun: Bool) {
        let baselineFigures = baseline?.figures ?? [:]
        var baselineOnly: [String] = []
        var rows: [Row] = []
        var unitChanges: [String] = []
        let current = Dictionary(report.figures.map { ($0.name, $0) }, uniquingKeysWith: { _, last in last })
        // A scenario that failed measured nothing: its figures are missing, not skipped for want
        // of jemalloc (the costs scenario, whose allocations callgrind counts, fails without valgrind).
        let scenariosWithoutAllocations = Set(report.scenarios.filter { scenario in
            !scenario.allocationsMeasured
                && !scenario.figures.contains { $0.name.hasSuffix(Self.scenarioFailedSuffix) && $0.value != 0 }
        }.map(\.scenario))
        var scenariosNotRun: [String] = []
        for (name, entry) in baselineFigures.sorted(by: { $0.key < $1.key }) {
            guard let figure = current[name] else {
                let scenario = String(name.prefix { $0 != "." })
                let isAllocation = Self.needsJemalloc(name: name, unit: entry.unit)
                let ranScenario = report.scenarios.contains { $0.scenario == scenario }
                if !ranScenario, everyScenarioMustRun, !scenariosNotRun.contains(scenario) { scenariosNotRun.append(scenario) }
                let verdict: Verdict =
                    !ranScenario ? (everyScenarioMustRun ? .missing : .notRun)
                    : (isAllocation && scenariosWithoutAllocations.contains(scenario) ? .skipped : .missing)
                rows.append(Row(name: name, unit: entry.unit, baseline: entry.value, current: nil, limit: nil,
                                rule: Self.describe(entry.gate), verdict: verdict))
                continue
            }
            if !entry.unit.isEmpty, figure.unit != entry.unit {
                // Another unit (µs → ns, per check → per callback): the values do not compare.
                unitChanges.append("figure \(name) is in \(figure.unit) now, \(entry.unit) in the baseline: update the baseline")
                rows.append(Row(name: name, unit: figure.unit, baseline: entry.value, current: figure.value, limit: nil,
                                rule: Self.describe(entry.gate), verdict: .invalid))
                continue
            }
            rows.append(Self.judge(name: name, unit: entry.unit, baseline: entry.value, current: figure.value, rule: entry.gate))
        }
        for figure in report.figures where figure.gate != nil && baselineFigures[figure.name] == nil {
            if let rule = figure.gate, rule.ignoresBaseline || !figure.value.isFinite {
                rows.append(Self.judge(name: figure.name, unit: figure.unit, baseline: nil, current: figure.value, rule: rule))
            } else if baseline == nil {
                baselineOnly.append(figure.name)
            } else {
                rows.append(Row(name: figure.name, unit: figure.unit, baseline: nil, current: figure.value, limit: nil,
                                rule: Self.describe(figure.gate!), verdict: .new))
            }
        }
        // The run's own --threshold limits: a report that missed one is a regression here as in
        // `run`, whatever the baseline (a merged report's count is its hosts' sum, so any host's
        // miss counts: a merged percentile is never above the worst host's).
        // A row the figure has already (a rule of its own, a baseline entry) that passed would hide
        // the miss, so it gives way; one that failed already says so.
        for figure in report.figures where figure.name.hasSuffix(Self.thresholdsFailedSuffix) && figure.value > 0 {
            rows.removeAll { $0.name == figure.name && [.pass, .improved, .skipped, .new].contains($0.verdict) }
            guard !rows.contains(where: { $0.name == figure.name }) else { continue }
            // The limits missed, with what was measured, as the run's notes give them (a merged
            // report's name their host first).
            let scenario = String(figure.name.prefix { $0 != "." })
            let missed = report.scenarios.first { $0.scenario == scenario }?.notes
                .filter { $0.contains("threshold ") && $0.contains(": FAILED") } ?? []
            rows.append(Row(name: figure.name, unit: figure.unit, baseline: nil, current: figure.value, limit: 0,
                            rule: "the run's --threshold limits" + (missed.isEmpty ? "" : ": " + missed.joined(separator: "; ")),
                            verdict: .regressed))
        }
        // Only the figures a scenario names as left unmeasured by a broken rule, and only when one
        // of its rules did break: any other gap is still the harness's error.
        let violatedScenarios = Set(rows.filter { $0.verdict == .violated }.map { String($0.name.prefix { $0 != "." }) })
        let unmeasuredAfterViolation = Set(report.scenarios.filter { violatedScenarios.contains($0.scenario) }
            .flatMap(\.unmeasuredAfterViolation))
        for index in rows.indices where rows[index].verdict == .missing && unmeasuredAfterViolation.contains(rows[index].name) {
            rows[index].verdict = .unmeasured
        }
        self.rows = rows
        let uncompared = rows.filter { $0.verdict == .new }.map(\.name)
        var uncomparedLines: [String] = []
        if !uncompared.isEmpty {
            uncomparedLines.append(
                "\(uncompared.count) figure\(uncompared.count == 1 ? " is" : "s are") gated against the baseline, which has no value for \(uncompared.count == 1 ? "it" : "them"), so \(uncompared.count == 1 ? "it was" : "they were") not compared: \(Self.list(uncompared)). Write a baseline from a run of the whole suite (`segments-bench baseline update`, or `baseline update --from` a `ci` report)")
        }
        harnessErrors = Self.harnessErrors(in: report) + unitChanges
            + scenariosNotRun.map { "scenario \($0) of the baseline did not run: its gated figures were not measured" }
            + (everyScenarioMustRun ? uncomparedLines : [])
        var warnings = baseline.map { BaselineDrift.warnings(report: report, baseline: $0) } ?? []
        if !everyScenarioMustRun { warnings += uncomparedLines }
        let skipped = rows.filter { $0.verdict == .skipped }.map(\.name)
        if !skipped.isEmpty {
            warnings.append("\(skipped.count) gated figure\(skipped.count == 1 ? " was" : "s were") not measured in this run and not checked (\(Self.list(skipped))): \(AllocationProbe.unavailableNote)")
        }
        let unmeasured = rows.filter { $0.verdict == .unmeasured }.map(\.name)
        if !unmeasured.isEmpty {
            warnings.append("\(unmeasured.count) gated figure\(unmeasured.count == 1 ? " was" : "s were") not measured after \(unmeasured.count == 1 ? "its" : "their") scenario violated a rule (\(Self.list(unmeasured))): the violation is the verdict")
        }
        let notRun = rows.filter { $0.verdict == .notRun }
        if !notRun.isEmpty {
            let scenarios = notRun.map { String($0.name.prefix { $0 != "." }) }.reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
            warnings.append("\(notRun.count) baseline figures belong to scenarios that were not part of this run and were not checked: \(scenarios.joined(separator: ", "))")
        }
        if !baselineOnly.isEmpty {
            warnings.append("no baseline: \(baselineOnly.count) figure\(baselineOnly.count == 1 ? " is" : "s are") only compared with one and \(baselineOnly.count == 1 ? "was" : "were") not checked: \(Self.list(baselineOnly))")
        }
        self.warnings = warnings
        self.baseline = baseline.map {
            BaselineInfo(gitRevision: $0.gitRevision, createdAt: $0.createdAt, command: $0.command, toolVersion: $0.toolVersion, machine: $0.machine)
        }
    }

    /// The verdict when the baseline could not be read (missing file, not JSON, not a baseline):
    /// no rows, a harness error saying why, and the report's own harness errors if there is one.
    public init(report: BenchReport?, unreadableBaseline reason: String) {
        rows = []
        harnessErrors = ["baseline unreadable: \(reason)"] + (report.map(Self.harnessErrors(in:)) ?? [])
        warnings = []
        baseline = nil
    }

    /// The verdict when the report to check could not be read: a harness error saying why.
    public init(unreadableReport reason: String) {
        rows = []
        harnessErrors = ["report unreadable: \(reason)"]
        warnings = []
        baseline = nil
    }

    /// Whether `value` can be a count: a whole number from 0 to 2⁵³ (past it, a Double no longer
    /// holds every whole number).
    static func isACount(_ value: Double) -> Bool {
        value >= 0 && value <= 9_007_199_254_740_992 && value == value.rounded()
    }

    /// Scenarios that threw, figures that are not numbers, gated or not (a gated one also gets
    /// an ``Verdict/invalid`` row), figure names reported more than once (by one scenario, or
    /// by two: the gate could judge only one of them), gate rules that are not well formed, and
    /// counts of missed `--threshold` limits that are no count (``isACount(_:)``).
    public static func harnessErrors(in report: BenchReport) -> [String] {
        var errors: [String] = []
        var reporters: [String: [String]] = [:]
        var order: [String] = []
        for scenario in report.scenarios {
            for figure in scenario.figures {
                if reporters[figure.name] == nil { order.append(figure.name) }
                reporters[figure.name, default: []].append(scenario.scenario)
            }
        }
        for name in order where reporters[name]!.count > 1 {
            errors.append("figure \(name) is reported \(reporters[name]!.count) times (by \(reporters[name]!.joined(separator: ", "))): each figure needs a name of its own")
        }
        for scenario in report.scenarios {
            // The gate finds a figure's scenario by the part of its name before the first dot.
            for figure in scenario.figures where !figure.name.hasPrefix(scenario.scenario + ".") {
                errors.append("figure \(figure.name) of scenario \(scenario.scenario) is not named \(scenario.scenario).<what>")
            }
            for figure in scenario.figures where figure.name.hasSuffix(scenarioFailedSuffix) && figure.value != 0 {
                errors.append("scenario \(scenario.scenario) threw: \(scenario.notes.first ?? figure.summary)")
            }
            for figure in scenario.figures where !figure.value.isFinite {
                errors.append("figure \(figure.name) is \(figure.value) (not a finite number)")
            }
            for figure in scenario.figures {
                if let rule = figure.gate, !rule.isWellFormed {
                    errors.append("figure \(figure.name) has a gate rule that is not well formed (\(rule)): it can judge nothing")
                }
                if figure.name.hasSuffix(thresholdsFailedSuffix), figure.value.isFinite, !isACount(figure.value) {
                    errors.append("figure \(figure.name) is \(String(format: "%g", figure.value)): a count of missed limits is a whole number, 0 or more")
                }
            }
            // Counted under callgrind: a negative count is a broken report, not an improvement.
            // (Elsewhere a figure may be a difference, which can dip below 0.)
            for figure in scenario.figures where scenario.scenario == "costs" && figure.value < 0 {
                errors.append("figure \(figure.name) is \(figure.value) \(figure.unit): a count is never negative")
            }
        }
        if let interrupted = report.interrupted {
            errors.append("the run was interrupted (\(interrupted)): only the scenarios that finished are in the report")
        }
        if report.scenarios.isEmpty {
            errors.append("the report holds no scenario: there is nothing to check")
        }
        return errors
    }


    static func judge(name: String, unit: String, baseline: Double?, current: Double, rule: GateRule) -> Row {
        // Every comparison with NaN is false: without this, NaN would pass every rule. The same
        // holds for a baseline that is NaN (or infinite: every value is within its limit).
        guard current.isFinite, baseline?.isFinite ?? true, rule.isWellFormed else {
            return Row(name: name, unit: unit, baseline: baseline, current: current, limit: nil, rule: describe(rule), verdict: .invalid)
        }
        switch rule {
        case .mustEqual(let expected):
            return Row(name: name, unit: unit, baseline: baseline, current: current, limit: expected, rule: describe(rule),
                       verdict: current == expected ? .pass : .violated)
        case .atMost(let bound):
            return Row(name: name, unit: unit, baseline: baseline, current: current, limit: bound, rule: describe(rule),
                       verdict: current <= bound ? .pass : .violated)
        case .lowerIsBetter(let relative, let absolute):
            // The tolerance is a share of the baseline's size, so that it widens the band around a
            // negative baseline too.
            let base = baseline ?? current
            let limit = base + abs(base) * relative + absolute
            let better = base - abs(base) * relative - absolute
            let verdict: Verdict = current > limit ? .regressed : (current < better ? .improved : .pass)
            return Row(name: name, unit: unit, baseline: baseline, current: current, limit: limit, rule: describe(rule), verdict: verdict)
        case .higherIsBetter(let relative, let absolute):
            let base = baseline ?? current
            let limit = base - abs(base) * relative - absolute
            let better = base + abs(base) * relative + absolute
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

    /// `current` and `limit` as `format` writes them, with as many more digits as it takes to tell
    /// them apart when they differ but read the same (`1` against a limit of `1` for 1.0000001):
    /// a verdict must show why it failed. `—` for a missing value.
    static func apart(_ current: Double?, _ limit: Double?, format: (Double) -> String) -> (String, String) {
        let shown = (current.map(format) ?? "—", limit.map(format) ?? "—")
        guard let current, let limit, current != limit, shown.0 == shown.1, current.isFinite, limit.isFinite else { return shown }
        for digits in 6...17 {
            let pair = (String(format: "%.\(digits)g", current), String(format: "%.\(digits)g", limit))
            if pair.0 != pair.1 { return pair }
        }
        return shown
    }

    /// Up to five names, then how many more.
    static func list(_ names: [String]) -> String {
        names.count <= 5 ? names.joined(separator: ", ") : names.prefix(5).joined(separator: ", ") + " and \(names.count - 5) more"
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
        if rows.isEmpty {
            // Nothing was compared (the baseline or the report could not be read): the harness
            // errors below say why.
        } else if shown.isEmpty {
            lines.append(baseline == nil
                ? "All \(checkedCount) gated figures checked meet their own rules."
                : "All \(checkedCount) gated figures checked are within their tolerance of the baseline.")
        } else {
            let header = ["figure", "baseline", "now", "change", "limit", "rule", "verdict"]
            var table: [[String]] = [header]
            for row in shown {
                let (now, limit) = Self.apart(row.current, row.limit, format: Self.format)
                table.append([
                    row.name, row.baseline.map(Self.format) ?? "—", now,
                    row.change.map { String(format: "%+.1f%%", $0 * 100) } ?? "—", limit,
                    row.rule, row.verdict.rawValue.uppercased(),
                ])
            }
            let widths = header.indices.map { column in table.map { $0[column].count }.max() ?? 0 }
            for (index, row) in table.enumerated() {
                lines.append(zip(row, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: "  "))
                if index == 0 { lines.append(widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")) }
            }
        }
        if exitStatus == .pass, rows.contains(where: { $0.verdict == .improved }) {
            lines.append("Some figures improved beyond tolerance: to lock the gain in, write the baseline from this report (`segments-bench baseline update --from <its report.json>`) or re-measure (`swift run -c release segments-bench baseline update`), and commit Reports/baseline.json.")
        }
        for warning in warnings { lines.append("warning: \(warning)") }
        for error in harnessErrors { lines.append("harness error: \(error)") }
        lines.append(verdictLine)
        return lines.joined(separator: "\n")
    }

    /// One line with the overall verdict and the exit code: `GATE PASSED (56 figures checked)`,
    /// `GATE FAILED (exit 2, regression): 1 of 56 figures regressed`.
    public var verdictLine: String {
        let checked = checkedCount
        let status = exitStatus
        if status == .pass { return "GATE PASSED (\(checked) figures checked)" }
        let counts: [(Verdict, String)] = [(.regressed, "regressed"), (.violated, "violated their rule"), (.missing, "missing"),
                                           (.invalid, "not comparable (not a number, another unit, or a baseline rule that is not well formed, such as a negative tolerance)")]
        var parts = counts.compactMap { verdict, words -> String? in
            let count = rows.filter { $0.verdict == verdict }.count
            return count == 0 ? nil : "\(count) of \(checked) figures \(words)"
        }
        if !harnessErrors.isEmpty { parts.append("\(harnessErrors.count) harness error\(harnessErrors.count == 1 ? "" : "s")") }
        return "GATE FAILED (exit \(status.rawValue), \(status.verdict)): " + parts.joined(separator: "; ")
    }
}
