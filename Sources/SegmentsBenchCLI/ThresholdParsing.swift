import ArgumentParser
import SegmentsBenchKit

/// Parses the `--threshold` values for a run of `scenarios` (against `target`, when given): `nil`
/// for none, as ``BenchOptions/thresholds`` takes it.
/// - Throws: a usage error for a malformed value, one that names none of the scenarios when
///   several run, and one that names a latency `fleet` does not measure (at all, or against a
///   target); other scenarios' latencies are known only once they ran, where a name they lack
///   fails its threshold.
func parseThresholds(_ texts: [String], for scenarios: [any Scenario], target: String?) throws -> [RunThreshold]? {
    var parsed: [RunThreshold] = []
    for text in texts {
        let threshold: RunThreshold
        do throws(RunThresholdError) {
            threshold = try RunThreshold.parse(text, scenarios: scenarios.map(\.name), known: SegmentsBenchCLI.registry.names)
        } catch {
            throw ValidationError(error.description)
        }
        parsed.append(threshold)
        guard threshold.statistic != .value, scenarios.first(where: { $0.name == threshold.scenario }) is FleetScenario else {
            continue
        }
        guard FleetScenario.latencyMetrics.contains(threshold.metric) else {
            throw ValidationError(RunThresholdError.unknownMetric(
                text: text, metric: threshold.metric, known: FleetScenario.latencyMetrics).description)
        }
        if let target, FleetScenario.mockOnlyLatencyMetrics.contains(threshold.metric) {
            throw ValidationError(FleetScenarioError.notMeasuredAgainstTarget(threshold: text, target: target).description)
        }
    }
    return parsed.isEmpty ? nil : parsed
}
