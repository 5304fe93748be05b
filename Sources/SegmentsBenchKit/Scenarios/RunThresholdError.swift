/// Why ``RunThreshold/parse(_:scenarios:known:)`` refused a `--threshold` value.
public enum RunThresholdError: Error, Equatable, CustomStringConvertible {
    /// Not `statistic(metric)…`.
    case malformed(String)
    /// The statistic is not `pN`, `med`, `min`, `max`, `mean` (`avg`) or `value`.
    case badStatistic(text: String, statistic: String)
    /// The metric names none of the run's scenarios, and the run has more than one.
    case noScenario(text: String, metric: String, scenarios: [String])
    /// The metric names a scenario other than the one this run runs.
    case notRun(text: String, scenario: String, running: String)
    /// A limit on `thresholdsFailed`, the count of missed limits itself.
    case countOfLimits(String)
    /// The metric is not a latency the scenario measures: not thrown by ``RunThreshold/parse(_:scenarios:known:)``,
    /// which cannot know a scenario's latencies; for a caller that knows them before the run
    /// (`segments-bench` knows `fleet`'s).
    case unknownMetric(text: String, metric: String, known: [String])
    /// No `<`, `<=`, `>` or `>=` after the metric.
    case badComparison(String)
    /// The limit is not a number with a unit (a latency), or a number (a figure).
    case badLimit(text: String, limit: String, forFigure: Bool)
    /// A latency limit that a sample clamped at 60 s could meet, or only one could.
    case limitBeyondRange(text: String, limit: String)

    /// The same error, quoting `text` (the threshold as the user wrote it).
    func quoting(_ text: String) -> RunThresholdError {
        switch self {
        case .malformed: .malformed(text)
        case .badStatistic(_, let statistic): .badStatistic(text: text, statistic: statistic)
        case .noScenario(_, let metric, let scenarios): .noScenario(text: text, metric: metric, scenarios: scenarios)
        case .notRun(_, let scenario, let running): .notRun(text: text, scenario: scenario, running: running)
        case .countOfLimits: .countOfLimits(text)
        case .unknownMetric(_, let metric, let known): .unknownMetric(text: text, metric: metric, known: known)
        case .badComparison: .badComparison(text)
        case .badLimit(_, let limit, let forFigure): .badLimit(text: text, limit: limit, forFigure: forFigure)
        case .limitBeyondRange(_, let limit): .limitBeyondRange(text: text, limit: limit)
        }
    }

    public var description: String {
        let form = "expected statistic(metric) then <, <=, > or >= and a limit, such as p99(change-to-callback)<500ms or value(pull.requestsPerMiss)<1"
        switch self {
        case .malformed(let text):
            return "--threshold '\(text)': \(form)"
        case .badStatistic(let text, let statistic):
            return "--threshold '\(text)': '\(statistic)' is not a statistic; use pN (0 < N < 100, such as p99 or p99.9), med, min, max or mean (avg) for a latency, value for a figure"
        case .noScenario(let text, let metric, let scenarios):
            let example = scenarios.first.map { "\($0).\(metric)" } ?? "fleet.change-to-callback"
            return "--threshold '\(text)': '\(metric)' names none of the scenarios here (\(scenarios.joined(separator: ", "))); begin it with one of them and a dot, such as \(example)"
        case .notRun(let text, let scenario, let running):
            return "--threshold '\(text)' names scenario \(scenario), and the only scenario here is \(running)"
        case .countOfLimits(let text):
            return "--threshold '\(text)': thresholdsFailed counts the limits missed; it cannot be one of them"
        case .unknownMetric(let text, let metric, let known):
            return "--threshold '\(text)': '\(metric)' is not a latency of this scenario; its latencies are \(known.joined(separator: ", "))"
        case .badComparison(let text):
            return "--threshold '\(text)': the limit must follow <, <=, > or >= (\(form))"
        case .badLimit(let text, let limit, let forFigure):
            return forFigure
                ? "--threshold '\(text)': '\(limit)' is not a limit; use a number in the figure's unit (such as 2e6 or 0.5), or a duration (500ms) for a figure in time"
                : "--threshold '\(text)': '\(limit)' is not a limit; use a number with ns, us, ms or s (such as 500ms)"
        case .limitBeyondRange(let text, let limit):
            return "--threshold '\(text)': '\(limit)' is at or beyond 60s, where latencies are clamped; use a limit under 60s (or <60s)"
        }
    }
}
