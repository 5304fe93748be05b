import Foundation

/// A pass/fail limit on one latency or figure of a run, k6-style: `p99(change-to-callback)<500ms`,
/// `value(tracking-storm.eventsPerSecond)>=2000000`.
///
/// The form is `statistic(metric)`, then `<`, `<=`, `>` or `>=`, then the limit; spaces are ignored,
/// as in `p99(fetch) < 5 ms`.
/// - For a latency, the statistic is a percentile `pN` (0 < N < 100: `p50`, `p99`, `p99.9`; `med`
///   is `p50`), `min`, `max` or `mean` (also `avg`); the metric is the latency's file name in the report without `.hgrm`
///   (`fleet.change-to-callback`, `pull.cache-hit`), and the limit a number with a unit (`ns`, `us`,
///   `µs`, `ms`, `s`) under 60 s, where samples are clamped.
/// - For a figure, the statistic is `value`, the metric the figure's name in the report, and the
///   limit a number in the figure's unit (`2e6`, `-0.5`), or a duration for a figure in `ns`, `µs`,
///   `ms` or `s`.
///
/// The metric may leave out its scenario's name when the run has one scenario
/// (`p99(change-to-callback)` in `run fleet`). A metric the run did not measure, and a percentile
/// with too few samples to hold it, fail the threshold: nothing was shown to meet it.
public struct RunThreshold: Sendable, Hashable, CustomStringConvertible {
    /// What is taken from the metric.
    public enum Statistic: Sendable, Hashable {
        /// A latency's value at this percentile (0 < p < 100).
        case percentile(Double)
        /// A latency's largest sample.
        case max
        /// A latency's mean.
        case mean
        /// A latency's smallest sample.
        case min
        /// A figure's value.
        case value
    }

    /// How the measured value must compare with the limit. Declared two-character operators first,
    /// the order in which a limit's text is matched (`<=` before `<`).
    public enum Comparison: String, Sendable, Hashable, CaseIterable {
        case atMost = "<="
        case atLeast = ">="
        case below = "<"
        case above = ">"

        /// Whether `measured` meets the limit.
        public func holds(_ measured: Double, limit: Double) -> Bool {
            switch self {
            case .below: measured < limit
            case .atMost: measured <= limit
            case .above: measured > limit
            case .atLeast: measured >= limit
            }
        }
    }

    /// The limit as written.
    public enum Limit: Sendable, Hashable {
        /// A duration: `mantissa` (decimal digits with at most one point) times 10^`exponent`
        /// nanoseconds, kept as written so that it converts to any unit without rounding twice.
        case duration(mantissa: String, exponent: Int)
        /// A number in the figure's own unit.
        case number(Double)

        /// The duration in the unit of 10^`exponent` nanoseconds (0: ns, 3: µs, 6: ms, 9: s), or
        /// `nil` for a number. Read as one decimal, so that `8.3ms` is exactly the double nearest
        /// 8,300,000 ns (8.3 × 10⁶ in binary is 8,300,000.000000001).
        public func duration(inUnitOf exponent: Int) -> Double? {
            guard case .duration(let mantissa, let own) = self else { return nil }
            return Double("\(mantissa)e\(own - exponent)")
        }

        /// The duration in nanoseconds, or `nil` for a number.
        public var nanoseconds: Double? { duration(inUnitOf: 0) }
    }

    /// The statistic.
    public var statistic: Statistic
    /// The scenario whose result it judges.
    public var scenario: String
    /// The metric's name within that scenario: a latency's file name without the scenario and
    /// `.hgrm` (`change-to-callback`), or a figure's name without the scenario
    /// (`producerSweep.producers1.eventsPerSecond`).
    public var metric: String
    /// How the value must compare with the limit.
    public var comparison: Comparison
    /// The limit.
    public var limit: Limit
    /// The text it was parsed from, without its spaces.
    public var text: String

    /// Parses `text` for a run of `scenarios` (their names, in run order). A metric that starts with
    /// one of their names and a dot belongs to that scenario (the longest such name); any other
    /// belongs to the only scenario of a one-scenario run, unless it starts with the name of
    /// another scenario of `known` (the registry's) and a dot.
    /// - Throws: ``RunThresholdError`` saying what is wrong, quoting `text`.
    public static func parse(_ text: String, scenarios: [String], known: [String] = []) throws(RunThresholdError) -> RunThreshold {
        // Errors quote the text as given; parsing reads it without its spaces, and the threshold
        // keeps that compact text (one setting, however it was spaced). Spaces inside a number
        // (`5 0ms`) or a metric (`cache hit`, whose file name is `cache-hit`) are not dropped.
        if text.contains(/[0-9.]\s+[0-9.]/) || text.contains(/\([^)]*[^\s(]\s+[^\s)][^)]*\)/) { throw .malformed(text) }
        do throws(RunThresholdError) {
            return try parseCompact(text.filter { !$0.isWhitespace }, scenarios: scenarios, known: known)
        } catch {
            throw error.quoting(text)
        }
    }

    private static func parseCompact(_ text: String, scenarios: [String], known: [String]) throws(RunThresholdError) -> RunThreshold {
        guard let open = text.firstIndex(of: "("), let close = text.firstIndex(of: ")"), open < close else {
            throw .malformed(text)
        }
        let statistic: Statistic
        let statisticText = text[..<open]
        switch statisticText {
        case "max": statistic = .max
        case "min": statistic = .min
        case "med": statistic = .percentile(50)
        case "mean", "avg": statistic = .mean
        case "value": statistic = .value
        default:
            guard statisticText.wholeMatch(of: /p[0-9]+(\.[0-9]+)?/) != nil, let percentile = Double(statisticText.dropFirst()),
                percentile > 0, percentile < 100
            else { throw .badStatistic(text: text, statistic: String(statisticText)) }
            statistic = .percentile(percentile)
        }
        let named = String(text[text.index(after: open)..<close])
        guard !named.isEmpty else { throw .malformed(text) }
        let scenario: String
        let metric: String
        func prefixes(_ name: String) -> Bool { named.hasPrefix(name + ".") && named.count > name.count + 1 }
        if let owner = scenarios.filter(prefixes).max(by: { $0.count < $1.count }) {
            scenario = owner
            metric = String(named.dropFirst(owner.count + 1))
        } else if scenarios.count == 1 {
            if let other = known.filter(prefixes).max(by: { $0.count < $1.count }) {
                throw .notRun(text: text, scenario: other, running: scenarios[0])
            }
            scenario = scenarios[0]
            metric = named
        } else {
            throw .noScenario(text: text, metric: named, scenarios: scenarios)
        }
        // The count of missed limits is made by judging them.
        if statistic == .value && metric == String(GateCheck.thresholdsFailedSuffix.dropFirst()) { throw .countOfLimits(text) }
        var rest = text[text.index(after: close)...]
        guard let comparison = Comparison.allCases.first(where: { rest.hasPrefix($0.rawValue) }) else { throw .badComparison(text) }
        rest = rest.dropFirst(comparison.rawValue.count)
        let limit: Limit
        if statistic == .value {
            guard let parsed = parseDuration(rest) ?? parseNumber(rest).map(Limit.number) else {
                throw .badLimit(text: text, limit: String(rest), forFigure: true)
            }
            limit = parsed
        } else {
            guard let duration = parseDuration(rest), let nanoseconds = duration.nanoseconds else {
                throw .badLimit(text: text, limit: String(rest), forFigure: false)
            }
            // The recorder clamps samples at 60 s: a limit that a clamped sample could meet, or that
            // only one could, would judge clamped values.
            let usable: Bool
            switch comparison {
            case .below: usable = nanoseconds <= maximumLimitNanoseconds
            case .atMost, .above, .atLeast: usable = nanoseconds < maximumLimitNanoseconds
            }
            guard usable else { throw .limitBeyondRange(text: text, limit: String(rest)) }
            limit = duration
        }
        return RunThreshold(statistic: statistic, scenario: scenario, metric: metric, comparison: comparison, limit: limit, text: text)
    }

    /// The largest latency limit: ``LatencyRecorder`` clamps every sample at 60 s.
    public static let maximumLimitNanoseconds = 60_000_000_000.0

    /// A duration from a non-negative decimal with a unit, or `nil`.
    private static func parseDuration(_ text: Substring) -> Limit? {
        // Longest suffix first: `ms` before `s`.
        for (suffix, exponent) in durationUnits where text.hasSuffix(suffix) {
            let number = text.dropLast(suffix.count)
            guard number.wholeMatch(of: /[0-9]*\.?[0-9]*/) != nil, number.contains(where: \.isNumber),
                let value = Double(number), value.isFinite
            else { return nil }
            return .duration(mantissa: String(number), exponent: exponent)
        }
        return nil
    }

    /// The duration units, longest first, with the power of ten of nanoseconds each is.
    private static let durationUnits: [(unit: String, exponent: Int)] = [("ns", 0), ("us", 3), ("µs", 3), ("ms", 6), ("s", 9)]

    /// A finite decimal number (`2e6`, `-0.5`), or `nil`: no `inf`, `nan` or hexadecimal.
    private static func parseNumber(_ text: Substring) -> Double? {
        guard !text.isEmpty, text.allSatisfy({ $0.isASCII && ($0.isNumber || "+-.eE".contains($0)) }),
            let value = Double(text), value.isFinite
        else { return nil }
        return value
    }

    /// How many samples the latency statistic needs (a percentile's ``LatencySummary/minimumCount(forPercentile:)``).
    public var samplesNeeded: UInt64 {
        // As the report shows them: the median (and below) from one sample up.
        if case .percentile(let percentile) = statistic, percentile > 50 { return LatencySummary.minimumCount(forPercentile: percentile) }
        return 1
    }

    /// Judges `result`, the result of ``scenario``.
    public func evaluate(_ result: ScenarioResult) -> Outcome {
        if statistic == .value {
            guard let figure = result.figure(scenario + "." + metric) else {
                return failure("not measured: \(scenario) reported no figure \(scenario).\(metric)")
            }
            guard figure.value.isFinite else { return failure("not measured: \(figure.name) is not a number") }
            let limitValue: Double
            switch limit {
            case .number(let number): limitValue = number
            case .duration:
                guard let exponent = Self.durationUnits.first(where: { $0.unit == figure.unit })?.exponent,
                    let converted = limit.duration(inUnitOf: exponent)
                else {
                    return failure("\(figure.name) is in \(figure.unit.isEmpty ? "no unit" : "'\(figure.unit)'"), not time: give its limit as a plain number")
                }
                limitValue = converted
            }
            let shown = Self.significant(figure.value) + (figure.unit.isEmpty ? "" : " " + figure.unit)
            return Outcome(threshold: self, passed: comparison.holds(figure.value, limit: limitValue), measured: "measured \(shown)")
        }
        let slugs = result.latencies.map { ReportFormat.slug($0.name) }
        let named = result.latencies.indices.filter { slugs[$0] == metric }
        guard let index = named.first else {
            let known = slugs.isEmpty ? "none" : slugs.joined(separator: ", ")
            return failure("not measured: \(scenario) reported no latency \(metric) (its latencies: \(known))")
        }
        // Two latencies whose names read alike would be judged by whichever came first.
        guard named.count == 1 else { return failure("not measured: \(scenario) reported more than one latency named \(metric)") }
        guard let limitNanoseconds = limit.nanoseconds else { return failure("a latency's limit is a duration, such as 500ms") }
        let histogram = result.latencies[index].histogram
        guard histogram.totalCount > 0 else { return failure("no samples") }
        guard histogram.totalCount >= samplesNeeded else {
            return failure("too few samples: \(histogram.totalCount) of the \(samplesNeeded) it needs")
        }
        let value: Double
        switch statistic {
        case .percentile(let percentile): value = Double(histogram.valueAtPercentile(percentile))
        // The largest sample itself (kept exactly), not the top of its bucket.
        case .max: value = Double(histogram.maxRecorded)
        case .min: value = Double(histogram.min)
        case .mean: value = histogram.mean
        case .value: return failure("a figure's value is judged by value(…), not on a latency")
        }
        // Four significant digits, so that a value just past a round limit does not read as the limit.
        return Outcome(
            threshold: self, passed: comparison.holds(value, limit: limitNanoseconds),
            measured: "measured \(ReportFormat.humanDuration(ns: value, digits: 4))")
    }

    private func failure(_ reason: String) -> Outcome { Outcome(threshold: self, passed: false, measured: reason) }

    /// A figure's value next to a limit: whole numbers grouped, others to six significant digits.
    private static func significant(_ value: Double) -> String {
        value == value.rounded() || abs(value) >= 1000 ? ReportFormat.number(value) : String(format: "%.6g", value)
    }

    public var description: String { text }

    /// A threshold's verdict in one run.
    public struct Outcome: Sendable, Hashable, CustomStringConvertible {
        /// The threshold judged.
        public var threshold: RunThreshold
        /// Whether the run met the threshold.
        public var passed: Bool
        /// What was measured (`measured 1.234 ms`), or why nothing could be (`no samples`).
        public var measured: String

        /// `threshold p99(fetch)<5ms: passed (measured 1.234 ms)`.
        public var description: String { "threshold \(threshold.text): \(passed ? "passed" : "FAILED") (\(measured))" }
    }
}
