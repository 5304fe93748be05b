import Foundation

/// A ``ComparisonReport`` as text for people: ``console()`` in the style of criterion.rs, one block
/// per figure, and ``markdown()`` for `compare.md`. Deterministic: the same report gives the same text.
public struct ComparisonText: Sendable {
    /// The report rendered.
    public let report: ComparisonReport

    /// Renders `report`.
    public init(_ report: ComparisonReport) {
        self.report = report
    }

    /// One block per figure, then the summary line:
    ///
    /// ```
    /// fanout-sweep.N10000.lastCallbackP50Ns
    ///     time:   [931210 948870 969002] ns  (baseline 761040 ns)
    ///     change: [+21.03% +24.68% +28.11%] (p = 0.0004 < 0.01)
    ///     Performance has regressed. (noise threshold 5.00%, default)
    /// ```
    ///
    /// `time` (`rate`, or `ratio` for a ratio of two timings) is the candidate's median inside its
    /// 95% bootstrap interval; `change` is the median ratio's interval as a percentage.
    public func console() -> String {
        var lines: [String] = []
        for figure in report.figures {
            let label = figure.unit == "ratio" ? "ratio: " : figure.direction == .lowerIsBetter ? "time:  " : "rate:  "
            lines.append(figure.name)
            lines.append("    \(label) \(Self.interval(figure.candidate, unit: figure.unit))  (baseline \(Self.number(figure.baseline.estimate)) \(figure.unit))")
            lines.append("    change: \(Self.changeInterval(figure)) (\(Self.pText(figure)))")
            lines.append("    \(Self.sentence(figure.verdict)) (noise threshold \(Self.percent(figure.threshold.relative, signed: false)), \(figure.thresholdSource.rawValue))")
            if let zero = Self.zeroWarning(figure) { lines.append("    warning: \(zero)") }
        }
        if !report.incompleteFigures.isEmpty {
            lines.append("Measured in some runs only (not compared): \(report.incompleteFigures.joined(separator: ", "))")
        }
        if !report.candidateOnlyFigures.isEmpty {
            lines.append("New in the candidate (not compared): \(report.candidateOnlyFigures.joined(separator: ", "))")
        }
        lines.append(summary())
        return lines.joined(separator: "\n")
    }

    /// `compare.md`: the builds and the rule, the count per verdict, and a table of every figure.
    public func markdown() -> String {
        var lines = ["# Wall-clock comparison", ""]
        lines.append("- Baseline (A): \(MarkupEscaping.markdownCode(report.baselineBinary))")
        lines.append("- Candidate (B): \(MarkupEscaping.markdownCode(report.candidateBinary))")
        lines.append("- Scenarios: \(report.scenarios.map(MarkupEscaping.markdownCode).joined(separator: ", "))\(report.quick ? " (`--quick`)" : "")")
        lines.append("- \(runsText())")
        let rule = "p < \(report.policy.alpha) (Mann-Whitney U, two-sided), the \(Self.number(report.policy.confidence * 100))% bootstrap interval of the median ratio excludes 1 (\(report.policy.resamples) resamples, seed \(report.policy.seed)), and the change of the median exceeds the figure's noise threshold"
        let thresholds = report.thresholdFile.map { "calibrated in \(MarkupEscaping.markdownCode($0)), else \(Self.percent(report.policy.defaultThreshold.relative, signed: false))" }
            ?? "\(Self.percent(report.policy.defaultThreshold.relative, signed: false)) (no threshold file)"
        lines.append("- A change counts only when \(rule); noise thresholds: \(thresholds).")
        lines += ["", "**\(summary())**", ""]
        lines.append("| Figure | Baseline median | Candidate median [95% CI] | Change [95% CI] | p | Noise | Verdict |")
        lines.append("|---|---:|---:|---:|---:|---:|---|")
        for figure in report.figures {
            let cells = [
                MarkupEscaping.markdownCode(figure.name),
                "\(Self.number(figure.baseline.estimate)) \(figure.unit)",
                Self.interval(figure.candidate, unit: figure.unit),
                Self.changeInterval(figure),
                Self.pValue(figure.test.pValue, alpha: figure.alpha),
                Self.percent(figure.threshold.relative, signed: false),
                figure.verdict == .regressed || figure.verdict == .improved ? "**\(figure.verdict.rawValue)**" : figure.verdict.rawValue,
            ]
            lines.append("| " + cells.map { $0.replacingOccurrences(of: "|", with: "\\|") }.joined(separator: " | ") + " |")
        }
        let zeros = report.figures.compactMap { figure in Self.zeroWarning(figure).map { "\(MarkupEscaping.markdownCode(figure.name)): \($0)" } }
        if !zeros.isEmpty { lines += [""] + zeros.map { "- Warning: \($0)" } }
        if !report.incompleteFigures.isEmpty {
            lines += ["", "Measured in some runs only (not compared): \(report.incompleteFigures.map(MarkupEscaping.markdownCode).joined(separator: ", "))"]
        }
        if !report.candidateOnlyFigures.isEmpty {
            lines += ["", "New in the candidate (not compared): \(report.candidateOnlyFigures.map(MarkupEscaping.markdownCode).joined(separator: ", "))"]
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `compare: 1 regressed, 0 improved, 2 within noise, 17 no change (…)`.
    public func summary() -> String {
        let counts = FigureComparison.Verdict.allCases.map { "\(report.figures($0).count) \($0.rawValue)" }
        return "compare: " + counts.joined(separator: ", ") + " — " + runsText()
    }

    private func runsText() -> String {
        "\(report.repetitions) repetitions per build, interleaved ABBA, \(report.runs.count) runs in \(String(format: "%.0f", report.wallSeconds)) s"
    }

    /// A time of 0 in a build's median measured nothing (a loop the optimizer removed, a clock
    /// that did not move): a change from or to it is no change of speed.
    static func zeroWarning(_ figure: FigureComparison) -> String? {
        guard figure.direction == .lowerIsBetter else { return nil }
        let builds = [("the baseline", figure.baseline.estimate), ("the candidate", figure.candidate.estimate)].filter { $0.1 == 0 }
        guard !builds.isEmpty else { return nil }
        return "\(builds.map(\.0).joined(separator: " and ")) read\(builds.count == 1 ? "s" : "") 0 \(figure.unit) (median): nothing was timed, so the change says nothing about speed"
    }

    /// criterion.rs's sentence for a verdict.
    static func sentence(_ verdict: FigureComparison.Verdict) -> String {
        switch verdict {
        case .noChange: "No change in performance detected."
        case .inconclusive: "Inconclusive: the interval reaches beyond the noise threshold (more --repetitions can tell)."
        case .regressed: "Performance has regressed."
        case .improved: "Performance has improved."
        case .withinNoise: "Change within noise threshold."
        }
    }

    /// `[low estimate high] unit`.
    static func interval(_ interval: ConfidenceInterval, unit: String) -> String {
        "[\(number(interval.low)) \(number(interval.estimate)) \(number(interval.high))] \(unit)"
    }

    /// `[−x% +y% +z%]` of the median ratio.
    static func changeInterval(_ figure: FigureComparison) -> String {
        let change = figure.change
        return "[\(percent(change.low)) \(percent(change.estimate)) \(percent(change.high))]"
    }

    /// `p = 0.0004 < 0.01` (or `>=`).
    static func pText(_ figure: FigureComparison) -> String {
        "p = \(pValue(figure.test.pValue, alpha: figure.alpha)) \(figure.test.pValue < figure.alpha ? "<" : ">=") \(figure.alpha)"
    }

    /// Four decimals, or scientific notation below 0.0001; more decimals where four would round
    /// `p` to the other side of `alpha` (0.00996 is not printed as 0.0100 beside "< 0.01").
    static func pValue(_ p: Double, alpha: Double) -> String {
        if p > 0 && p < 0.0001 { return String(format: "%.1e", p) }
        for decimals in 4...17 {
            let text = String(format: "%.\(decimals)f", p)
            if let printed = Double(text), (printed < alpha) == (p < alpha) { return text }
        }
        return "\(p)"
    }

    /// `+12.34%` (or `12.34%` unsigned).
    static func percent(_ fraction: Double, signed: Bool = true) -> String {
        guard fraction.isFinite else { return fraction > 0 ? (signed ? "+inf%" : "inf%") : "-inf%" }
        // Beyond a millionfold the digits say nothing (a baseline of 1e-300 printed 300 of them).
        if abs(fraction) >= 1e4 { return fraction > 0 ? (signed ? "> +1000000%" : "> 1000000%") : "< -1000000%" }
        return String(format: signed ? "%+.2f%%" : "%.2f%%", fraction * 100)
    }

    /// Four significant digits without an exponent (all the integer digits of a large value);
    /// a whole number without decimals.
    public static func number(_ value: Double) -> String {
        guard value.isFinite else { return "\(value)" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        let magnitude = Int(log10(abs(value)).rounded(.down))
        let decimals = min(max(0, 3 - magnitude), 9)
        return String(format: "%.\(decimals)f", value)
    }
}
