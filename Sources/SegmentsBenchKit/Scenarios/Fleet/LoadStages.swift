import Foundation

/// A target arrival rate over time, k6-style: stages of `duration:target` that ramp the rate
/// linearly from the previous stage's target (the first from ``startRate``) to their own.
///
/// `--stages 10s:2000,30s:2000,10s:0` ramps from 0 to 2,000 events/s over 10 s, holds 2,000 for
/// 30 s, and ramps down to 0 over 10 s. A constant rate is one stage that starts at its target
/// (``constant(rate:seconds:)``).
public struct LoadStages: Sendable, Codable, Hashable, CustomStringConvertible {
    /// One stage: how long it lasts and the rate it reaches at its end.
    public struct Stage: Sendable, Codable, Hashable {
        /// Seconds, > 0.
        public var seconds: Double
        /// Arrivals per second reached at the stage's end, ≥ 0.
        public var targetRate: Double

        /// Creates a stage.
        public init(seconds: Double, targetRate: Double) {
            self.seconds = seconds
            self.targetRate = targetRate
        }
    }

    /// The rate at time 0.
    public var startRate: Double
    /// The stages, in order; never empty.
    public var stages: [Stage]

    /// A flat `rate` for `seconds`.
    public static func constant(rate: Double, seconds: Double) -> LoadStages {
        LoadStages(startRate: rate, stages: [Stage(seconds: seconds, targetRate: rate)])
    }

    /// The highest target rate a stage may have (what `--rate` accepts): above it the run would
    /// never end, each Poisson gap falling under the schedule clock's resolution.
    public static let maximumRate = 1_000_000_000.0
    /// The longest schedule, in seconds (30 days, what `--duration` accepts): a longer one would
    /// overflow the nanosecond clock arithmetic of the run.
    public static let maximumSeconds = 2_592_000.0

    /// Parses `duration:target` pairs separated by commas, ramping from 0 (k6's `stages`).
    /// A duration is a number with `ms`, `s` or `m` (`500ms`, `10s`, `1.5m`); a target is a
    /// number of arrivals per second. Whitespace around a pair is allowed, nothing else.
    /// - Throws: ``LoadStagesError`` naming the pair and what is wrong with it.
    public static func parse(_ text: String) throws(LoadStagesError) -> LoadStages {
        let pairs = text.split(separator: ",", omittingEmptySubsequences: false)
        guard !text.trimmingCharacters(in: .whitespaces).isEmpty else { throw .empty }
        var stages: [Stage] = []
        for raw in pairs {
            let pair = raw.trimmingCharacters(in: .whitespaces)
            let parts = pair.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2 else { throw .malformedPair(pair) }
            guard let seconds = parseDuration(String(parts[0])), seconds > 0 else {
                throw .badDuration(pair: pair, duration: String(parts[0]))
            }
            guard let target = Double(parts[1]), target.isFinite, target >= 0, target <= maximumRate, isPlainNumber(parts[1]) else {
                throw .badTarget(pair: pair, target: String(parts[1]))
            }
            stages.append(Stage(seconds: seconds, targetRate: target))
        }
        let total = stages.reduce(0) { $0 + $1.seconds }
        guard total <= maximumSeconds else { throw .tooLong(seconds: total) }
        return LoadStages(startRate: 0, stages: stages)
    }

    /// Seconds from a number with a unit `ms`, `s` or `m`, or `nil`.
    static func parseDuration(_ text: String) -> Double? {
        for (suffix, scale) in [("ms", 0.001), ("s", 1.0), ("m", 60.0)] where text.hasSuffix(suffix) {
            let number = text.dropLast(suffix.count)
            guard isPlainNumber(number), let value = Double(number), value.isFinite else { return nil }
            return value * scale
        }
        return nil
    }

    /// Digits with at most one decimal point: no sign, exponent, `nan` or `inf`.
    private static func isPlainNumber(_ text: Substring) -> Bool {
        !text.isEmpty && text.allSatisfy { $0.isASCII && ($0.isNumber || $0 == ".") } && text.filter { $0 == "." }.count <= 1
            && text != "."
    }

    /// The total length in seconds.
    public var totalSeconds: Double { stages.reduce(0) { $0 + $1.seconds } }

    /// The highest rate reached at any time.
    public var peakRate: Double { stages.reduce(startRate) { max($0, $1.targetRate) } }

    /// The target rate `seconds` after the start: linear within a stage; 0 after the last.
    public func rate(at seconds: Double) -> Double {
        var from = startRate
        var begin = 0.0
        for stage in stages {
            let end = begin + stage.seconds
            if seconds < end {
                let fraction = max(0, seconds - begin) / stage.seconds
                return from + (stage.targetRate - from) * fraction
            }
            from = stage.targetRate
            begin = end
        }
        return 0
    }

    /// The arrivals expected from `seconds` after the start to the schedule's end (the area under
    /// the rate from there).
    public func expectedArrivals(after seconds: Double) -> Double {
        var from = startRate
        var begin = 0.0
        var total = 0.0
        for stage in stages {
            let end = begin + stage.seconds
            if end > seconds {
                let cut = max(begin, seconds)
                let rateAtCut = from + (stage.targetRate - from) * (cut - begin) / stage.seconds
                total += (rateAtCut + stage.targetRate) / 2 * (end - cut)
            }
            from = stage.targetRate
            begin = end
        }
        return total
    }

    /// The arrivals expected over the whole schedule (the area under the rate).
    public var expectedArrivals: Double { expectedArrivals(after: 0) }

    /// `10s:2000,30s:2000,10s:0` (a constant rate reads `=2000 for 20s`).
    public var description: String {
        if stages.count == 1, startRate == stages[0].targetRate {
            return "=\(Self.format(startRate))/s for \(Self.format(stages[0].seconds))s"
        }
        return stages.map { "\(Self.format($0.seconds))s:\(Self.format($0.targetRate))" }.joined(separator: ",")
    }

    private static func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}

/// Why ``LoadStages/parse(_:)`` refused a `--stages` value.
public enum LoadStagesError: Error, Equatable, CustomStringConvertible {
    /// Nothing was given.
    case empty
    /// A pair is not `duration:target`.
    case malformedPair(String)
    /// A pair's duration is not a positive number with `ms`, `s` or `m`.
    case badDuration(pair: String, duration: String)
    /// A pair's target is not a number from 0 to ``LoadStages/maximumRate``.
    case badTarget(pair: String, target: String)
    /// The stages last longer than ``LoadStages/maximumSeconds`` in all.
    case tooLong(seconds: Double)

    public var description: String {
        let form = "expected duration:target pairs separated by commas, such as 10s:2000,30s:2000,10s:0"
        switch self {
        case .empty:
            return "--stages is empty; \(form)"
        case .malformedPair(let pair):
            return "--stages: '\(pair)' is not a duration:target pair; \(form)"
        case .badDuration(let pair, let duration):
            return "--stages: in '\(pair)', '\(duration)' is not a positive duration with a unit ms, s or m (such as 10s)"
        case .badTarget(let pair, let target):
            return "--stages: in '\(pair)', '\(target)' is not a target rate (a number of arrivals per second, 0 to 1000000000)"
        case .tooLong(let seconds):
            return "--stages: the stages last \(seconds) s in all; at most 2592000 s (30 days), as --duration"
        }
    }
}
