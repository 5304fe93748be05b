import Foundation

/// A pass/fail limit on one latency of a run, k6-style: `p99(change-to-callback)<500ms`.
///
/// The form is `statistic(metric)` then `<` or `<=` then a number with a unit (`ns`, `us`, `µs`,
/// `ms`, `s`); spaces are ignored, as in `p99(fetch) < 5 ms`. The statistic is a percentile `pN`
/// (0 < N < 100: `p50`, `p99`, `p99.9`), `max` or `mean` (also `avg`). A metric with no samples fails its threshold: nothing was shown to be fast.
public struct LatencyThreshold: Sendable, Codable, Hashable, CustomStringConvertible {
    /// What is taken from the distribution.
    public enum Statistic: Sendable, Codable, Hashable {
        /// The value at this percentile (0 < p < 100).
        case percentile(Double)
        /// The largest sample.
        case max
        /// The mean.
        case mean
    }

    /// The statistic.
    public var statistic: Statistic
    /// The latency's name (`change-to-callback`, `fetch`, …).
    public var metric: String
    /// Whether the limit itself passes (`<=`) or not (`<`).
    public var inclusive: Bool
    /// The limit in nanoseconds.
    public var limitNanoseconds: Double
    /// The text it was parsed from.
    public var text: String

    /// Parses `text`; `metrics` are the names a run measures (the metric must be one of them).
    /// - Throws: ``LatencyThresholdError`` saying what is wrong.
    public static func parse(_ text: String, metrics: [String]) throws(LatencyThresholdError) -> LatencyThreshold {
        // Errors quote the text as given; parsing reads it without its spaces, and the threshold
        // keeps that compact text (one setting, however it was spaced). Spaces inside a number
        // (`5 0ms`) are not dropped: that is no limit.
        if text.contains(/[0-9.]\s+[0-9.]/) { throw .malformed(text) }
        do throws(LatencyThresholdError) {
            return try parseCompact(text.filter { !$0.isWhitespace }, metrics: metrics)
        } catch {
            throw error.quoting(text)
        }
    }

    private static func parseCompact(_ text: String, metrics: [String]) throws(LatencyThresholdError) -> LatencyThreshold {
        guard let open = text.firstIndex(of: "("), let close = text.firstIndex(of: ")"), open < close else {
            throw .malformed(text)
        }
        let statistic: Statistic
        let statisticText = text[..<open]
        switch statisticText {
        case "max": statistic = .max
        case "mean", "avg": statistic = .mean
        default:
            guard statisticText.hasPrefix("p"), let percentile = Double(statisticText.dropFirst()),
                percentile > 0, percentile < 100, statisticText.dropFirst().allSatisfy({ $0.isNumber || $0 == "." })
            else { throw .badStatistic(text: text, statistic: String(statisticText)) }
            statistic = .percentile(percentile)
        }
        let metric = String(text[text.index(after: open)..<close])
        guard metrics.contains(metric) else { throw .unknownMetric(text: text, metric: metric, known: metrics) }
        var rest = text[text.index(after: close)...]
        let inclusive: Bool
        if rest.hasPrefix("<=") {
            inclusive = true
            rest = rest.dropFirst(2)
        } else if rest.hasPrefix("<") {
            inclusive = false
            rest = rest.dropFirst()
        } else {
            throw .badComparison(text)
        }
        guard let limit = parseLimit(rest) else { throw .badLimit(text: text, limit: String(rest)) }
        // The recorder clamps samples at 60 s: a limit that a clamped sample could meet would
        // judge clamped values.
        guard inclusive ? limit < maximumLimitNanoseconds : limit <= maximumLimitNanoseconds else { throw .limitBeyondRange(text: text, limit: String(rest)) }
        return LatencyThreshold(statistic: statistic, metric: metric, inclusive: inclusive, limitNanoseconds: limit, text: text)
    }

    /// The largest limit: ``LatencyRecorder`` clamps every sample at 60 s.
    public static let maximumLimitNanoseconds = 60_000_000_000.0

    /// Nanoseconds from a non-negative number with a unit, or `nil`.
    private static func parseLimit(_ text: Substring) -> Double? {
        // Longest suffix first: `ms` before `s`.
        for (suffix, scale) in [("ns", 1.0), ("us", 1e3), ("µs", 1e3), ("ms", 1e6), ("s", 1e9)] where text.hasSuffix(suffix) {
            let number = text.dropLast(suffix.count)
            guard !number.isEmpty, number.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
                let value = Double(number), value.isFinite
            else { return nil }
            return value * scale
        }
        return nil
    }

    /// How many samples the statistic needs (a percentile's ``LatencySummary/minimumCount(forPercentile:)``).
    public var samplesNeeded: UInt64 {
        // As the report shows them: the median (and below) from one sample up.
        if case .percentile(let percentile) = statistic, percentile > 50 { return LatencySummary.minimumCount(forPercentile: percentile) }
        return 1
    }

    /// The statistic of `recorder`, in nanoseconds, or `nil` with fewer samples than it needs (a
    /// percentile of fewer would be their maximum under another name).
    public func measured(_ recorder: LatencyRecorder) -> Double? {
        guard recorder.count > 0, recorder.count >= samplesNeeded else { return nil }
        switch statistic {
        case .percentile(let percentile): return Double(recorder.histogram.valueAtPercentile(percentile))
        // The largest sample itself (kept exactly), not the top of its bucket.
        case .max: return Double(recorder.histogram.maxRecorded)
        case .mean: return recorder.histogram.mean
        }
    }

    /// Judges `recorder` (the metric's samples, `nil` when it was not measured at all).
    public func evaluate(_ recorder: LatencyRecorder?) -> Outcome {
        guard let recorder, let value = measured(recorder) else {
            return Outcome(threshold: self, measuredNanoseconds: nil, passed: false, samples: recorder?.count ?? 0)
        }
        let passed = inclusive ? value <= limitNanoseconds : value < limitNanoseconds
        return Outcome(threshold: self, measuredNanoseconds: value, passed: passed)
    }

    public var description: String { text }

    /// A threshold's verdict in one run.
    public struct Outcome: Sendable, Hashable, CustomStringConvertible {
        /// The threshold judged.
        public var threshold: LatencyThreshold
        /// The statistic measured, in nanoseconds; `nil` when the metric had no samples, or too
        /// few to hold the statistic (see ``samples``).
        public var measuredNanoseconds: Double?
        /// Whether the run met the threshold.
        public var passed: Bool
        /// The metric's samples, when too few to measure the statistic (else not used).
        public var samples: UInt64 = 0

        /// `threshold p99(fetch)<5ms: passed (measured 1.234 ms)`: four significant digits, so that
        /// a value just past a round limit does not read as the limit.
        public var description: String {
            let measured = measuredNanoseconds.map { "measured \(ReportFormat.humanDuration(ns: $0, digits: 4))" }
                ?? (samples == 0 ? "no samples" : "too few samples: \(samples) of the \(threshold.samplesNeeded) it needs")
            return "threshold \(threshold.text): \(passed ? "passed" : "FAILED") (\(measured))"
        }
    }
}

/// Why ``LatencyThreshold/parse(_:metrics:)`` refused a `--threshold` value.
public enum LatencyThresholdError: Error, Equatable, CustomStringConvertible {
    /// Not `statistic(metric)…`.
    case malformed(String)
    /// The statistic is not `pN`, `max` or `mean`.
    case badStatistic(text: String, statistic: String)
    /// The metric is not one the run measures.
    case unknownMetric(text: String, metric: String, known: [String])
    /// No `<` or `<=` after the metric.
    case badComparison(String)
    /// The limit is not a number with a unit.
    case badLimit(text: String, limit: String)
    /// The limit is one a sample clamped at 60 s could meet (above 60 s, or `<=60s`).
    case limitBeyondRange(text: String, limit: String)

    /// The same error, quoting `text` (the threshold as the user wrote it).
    func quoting(_ text: String) -> LatencyThresholdError {
        switch self {
        case .malformed: .malformed(text)
        case .badStatistic(_, let statistic): .badStatistic(text: text, statistic: statistic)
        case .unknownMetric(_, let metric, let known): .unknownMetric(text: text, metric: metric, known: known)
        case .badComparison: .badComparison(text)
        case .badLimit(_, let limit): .badLimit(text: text, limit: limit)
        case .limitBeyondRange(_, let limit): .limitBeyondRange(text: text, limit: limit)
        }
    }

    public var description: String {
        let form = "expected statistic(metric)<limit, such as p99(change-to-callback)<500ms"
        switch self {
        case .malformed(let text):
            return "--threshold '\(text)': \(form)"
        case .badStatistic(let text, let statistic):
            return "--threshold '\(text)': '\(statistic)' is not a statistic; use pN (0 < N < 100, such as p99 or p99.9), max or mean (avg)"
        case .unknownMetric(let text, let metric, let known):
            return "--threshold '\(text)': '\(metric)' is not a latency --threshold can name: it applies to the fleet scenario, whose latencies are \(known.joined(separator: ", ")) (other scenarios' figures are gated with `check`, or compared with `compare`)"
        case .badComparison(let text):
            return "--threshold '\(text)': the limit must follow < or <= (\(form))"
        case .badLimit(let text, let limit):
            return "--threshold '\(text)': '\(limit)' is not a limit; use a number with ns, us, ms or s (such as 500ms)"
        case .limitBeyondRange(let text, let limit):
            return "--threshold '\(text)': '\(limit)' is beyond 60s, where latencies are clamped; use a limit under 60s (or <60s)"
        }
    }
}
