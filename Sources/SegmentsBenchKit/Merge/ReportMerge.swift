import Foundation
import Histogram

/// Combines the reports of the same scenarios run on several machines into one report, with the
/// same files (``ReportWriter``) and the same gate (`segments-bench check`) as a single run's.
///
/// Scenarios and, within them, figures, latencies and series are matched by name (in order of
/// first appearance). Latency histograms are added exactly (each report holds its recorded
/// buckets), and each host's per-interval histograms are kept, tagged with its host, for the
/// interval logs and time series. Figures follow ``FigureMerge``: counts and rates summed,
/// correctness counters failing when any host's fails, everything else the worst host's value
/// with every host's value and the spread in the scenario's notes, never an average.
///
/// ```swift
/// let merged = try ReportMerge.merge([(host: "ci-1", report: a), (host: "ci-2", report: b)], command: "segments-bench merge a b --out m")
/// try ReportWriter(directory: URL(fileURLWithPath: "m")).write(merged)
/// ```
public enum ReportMerge {
    /// One report and the name its host goes by in the merged report.
    public typealias Input = (host: String, report: BenchReport)

    /// Names for the hosts of `reports`: each machine's hostname, made unique with the report's
    /// directory name (`directories`, parallel) and then a number.
    public static func hostNames(of reports: [BenchReport], directories: [String]) -> [String] {
        let hostnames = reports.map(\.machine.hostname)
        var names: [String] = []
        for (index, hostname) in hostnames.enumerated() {
            var name = hostname
            if hostnames.filter({ $0 == hostname }).count > 1, index < directories.count {
                name = "\(hostname) (\(URL(fileURLWithPath: directories[index]).lastPathComponent))"
            }
            var candidate = name
            var suffix = 2
            while names.contains(candidate) {
                candidate = "\(name) #\(suffix)"
                suffix += 1
            }
            names.append(candidate)
        }
        return names
    }

    /// The options the hosts ran a scenario with differently (`scenario.option: host=value; …`),
    /// such as one host's `--quick` against another's full run: their sums and worst cases then
    /// mix different loads. Their `--threshold` limits are not among them. `merge` warns of them;
    /// `check` does too, against the baseline.
    public static func configurationDifferences(_ inputs: [Input]) -> [String] {
        var differences: [String] = []
        let scenarios = inputs.flatMap { $0.report.scenarios.map(\.scenario) }.reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        for scenario in scenarios {
            let parts = inputs.compactMap { input in
                input.report.scenarios.first { $0.scenario == scenario }.map { (host: input.host, configuration: $0.configuration) }
            }
            guard parts.count > 1 else { continue }
            // The hosts' own limits judged each host; they did not shape its load.
            let keys = Set(parts.flatMap { $0.configuration.keys }).subtracting([BenchOptionName.threshold.rawValue]).sorted()
            for key in keys where Set(parts.map { $0.configuration[key] }).count > 1 {
                differences.append("\(scenario).\(key): " + parts.map { "\($0.host)=\($0.configuration[key] ?? "—")" }.joined(separator: "; "))
            }
        }
        return differences
    }

    /// The merged report of `inputs` (at least one), made by `command`.
    ///
    /// A gated figure that a host which ran its scenario did not report is merged as NaN, which the
    /// gate cannot pass (an allocation count is excused on a host that ran without jemalloc).
    ///
    /// - Throws: ``MergeError/noReports`` for none, ``MergeError/toolVersionsDiffer(_:)`` for
    ///   reports of different versions, ``MergeError/sameRunTwice(_:)`` for one run given twice,
    ///   ``MergeError/histogramMissing(host:scenario:latency:)``, ``MergeError/duplicated(host:what:times:)``
    ///   for a report holding a scenario, figure or latency twice, ``MergeError/latencyOutOfRange(scenario:latency:)``.
    public static func merge(_ inputs: [Input], command: String) throws -> BenchReport {
        guard let first = inputs.first else { throw MergeError.noReports }
        if Set(inputs.map(\.report.toolVersion)).count > 1 {
            throw MergeError.toolVersionsDiffer(inputs.map { "\($0.host): \($0.report.toolVersion)" })
        }
        // The same run given twice, alone or inside a merged report, would count its events and
        // samples twice.
        let runs = inputs.map { RunIdentity.runs(of: $0.report) }
        for (index, input) in inputs.enumerated() {
            if let earlier = inputs.indices.first(where: { $0 < index && !Set(runs[$0]).isDisjoint(with: runs[index]) }) {
                throw MergeError.sameRunTwice([inputs[earlier].host, input.host])
            }
        }
        for input in inputs { try refuseDuplicates(in: input) }
        for input in inputs {
            for scenario in input.report.scenarios {
                for latency in scenario.latencies where latency.histogram.totalCount != latency.count {
                    guard latency.histogram.totalCount == 0 else {
                        throw MergeError.histogramCountDiffers(
                            host: input.host, scenario: scenario.scenario, latency: latency.name, count: latency.count,
                            recorded: latency.histogram.totalCount)
                    }
                    throw MergeError.histogramMissing(host: input.host, scenario: scenario.scenario, latency: latency.name)
                }
            }
        }
        // Each latency's samples over the hosts, by scenario and latency name.
        var samples: [String: [String: [(value: UInt64, count: UInt64)]]] = [:]
        for input in inputs {
            for scenario in input.report.scenarios {
                for latency in scenario.latencies {
                    samples[scenario.scenario, default: [:]][latency.name, default: []] +=
                        latency.histogram.recordedValues().map { ($0.value, $0.count) }
                }
            }
        }
        for (scenario, latencies) in samples.sorted(by: { $0.key < $1.key }) {
            for (latency, values) in latencies.sorted(by: { $0.key < $1.key }) where !LatencySummary.fitsAHistogram(values) {
                throw MergeError.latencyOutOfRange(scenario: scenario, latency: latency)
            }
        }
        // One figure in two units cannot become one value (the gate refuses the same mismatch
        // against a baseline).
        var units: [String: [(host: String, unit: String)]] = [:]
        for input in inputs {
            for scenario in input.report.scenarios {
                for figure in scenario.figures { units[figure.name, default: []].append((input.host, figure.unit)) }
            }
        }
        for name in units.keys.sorted() {
            let measured = units[name]!
            if Set(measured.map(\.unit)).count > 1 {
                throw MergeError.unitsDiffer(figure: name, units: measured.map { "\($0.host): \($0.unit)" })
            }
        }
        let reports = inputs.map(\.report)
        var scenarioNames: [String] = []
        for report in reports {
            for scenario in report.scenarios where !scenarioNames.contains(scenario.scenario) {
                scenarioNames.append(scenario.scenario)
            }
        }
        let scenarios = scenarioNames.map { name in
            mergeScenario(inputs.compactMap { input in
                input.report.scenarios.first { $0.scenario == name }.map { (host: input.host, result: $0) }
            }, hostCount: inputs.count)
        }
        let startedAt = reports.map(\.startedAt).filter { !$0.isEmpty }.min() ?? first.report.startedAt
        var merged = BenchReport(
            machine: mergeMachines(inputs), gitRevision: distinct(reports.map(\.gitRevision)), startedAt: Date(),
            command: command, scenarios: scenarios, toolVersion: distinct(reports.map(\.toolVersion)))
        merged.startedAt = startedAt
        merged.mergedFrom = runs.flatMap { $0 }
        // A host that did not finish makes the whole merge unfinished: the gate refuses it.
        let interrupted = inputs.compactMap { input in input.report.interrupted.map { "\(input.host): \($0)" } }
        merged.interrupted = interrupted.isEmpty ? nil : interrupted.joined(separator: "; ")
        return merged
    }

    /// Throws ``MergeError/duplicated(host:what:times:)`` for the first scenario, figure or latency
    /// that `input` holds more than once: merging matches them by name, and would keep one.
    private static func refuseDuplicates(in input: Input) throws {
        func first(_ names: [String]) -> (name: String, times: Int)? {
            var counts: [String: Int] = [:]
            for name in names { counts[name, default: 0] += 1 }
            return names.first { counts[$0]! > 1 }.map { ($0, counts[$0]!) }
        }
        let scenarios = input.report.scenarios
        if let twice = first(scenarios.map(\.scenario)) {
            throw MergeError.duplicated(host: input.host, what: "scenario \(twice.name)", times: twice.times)
        }
        for scenario in scenarios {
            if let twice = first(scenario.figures.map(\.name)) {
                throw MergeError.duplicated(host: input.host, what: "figure \(twice.name)", times: twice.times)
            }
            if let twice = first(scenario.latencies.map(\.name)) {
                throw MergeError.duplicated(host: input.host, what: "\(scenario.scenario) latency '\(twice.name)'", times: twice.times)
            }
        }
    }

    private static func mergeScenario(_ parts: [(host: String, result: ScenarioResult)], hostCount: Int) -> ScenarioResult {
        let first = parts[0].result
        let hosts = parts.map(\.host)
        let several = parts.count > 1
        var notes: [String] = []
        if hostCount > 1 {
            notes.append("Merged from \(parts.count) host\(parts.count == 1 ? "" : "s") (\(hosts.joined(separator: ", "))): "
                + "histograms added exactly, counts and rates summed, correctness counters fail when any host's does, "
                + "other figures the worst host's value, never an average.")
        }
        if parts.count < hostCount {
            notes.append("Only \(hosts.joined(separator: ", ")) ran this scenario.")
        }

        var figureNames: [String] = []
        for part in parts { for figure in part.result.figures where !figureNames.contains(figure.name) { figureNames.append(figure.name) } }
        var figures: [Figure] = []
        for name in figureNames {
            let measured = parts.compactMap { part in part.result.figure(name).map { (host: part.host, figure: $0) } }
            var (figure, note) = FigureMerge.merge(measured)
            if let note { notes.append(note) }
            let lacking = parts.filter { $0.result.figure(name) == nil }
            if several, !lacking.isEmpty {
                let hosts = lacking.map(\.host).joined(separator: ", ")
                // Not measurable there (no jemalloc), or left unmeasured by a rule the host broke,
                // whose violation the merged gate reports.
                let excused = lacking.allSatisfy {
                    (!$0.result.allocationsMeasured && GateCheck.needsJemalloc(name: name, unit: figure.unit))
                        || $0.result.unmeasuredAfterViolation.contains(name)
                }
                if figure.gate != nil, !excused {
                    figure.value = .nan
                    notes.append("`\(name)` is missing on \(hosts), which ran this scenario: merged as not a number, so the gate cannot pass on the other hosts' values.")
                } else {
                    notes.append("`\(name)` is missing on \(hosts).")
                }
            }
            figures.append(figure)
        }

        var latencyNames: [String] = []
        for part in parts { for latency in part.result.latencies where !latencyNames.contains(latency.name) { latencyNames.append(latency.name) } }
        let latencies = latencyNames.map { name in
            mergeLatency(parts.compactMap { part in
                part.result.latencies.first { $0.name == name }.map { (host: part.host, latency: $0) }
            }, several: hostCount > 1)
        }

        var series: [ChartSeries] = []
        for part in parts {
            for var line in part.result.series {
                if several { line.label = "\(part.host): \(line.label)" }
                series.append(line)
            }
        }

        var configuration: [String: String] = [:]
        let keys = Set(parts.flatMap { $0.result.configuration.keys })
        for key in keys {
            let values = parts.map { ($0.host, $0.result.configuration[key]) }
            if Set(values.map(\.1)).count == 1, let value = values[0].1 {
                configuration[key] = value
            } else {
                configuration[key] = values.map { "\($0.0)=\($0.1 ?? "—")" }.joined(separator: "; ")
            }
        }

        var hostNotes: [String] = []
        for part in parts {
            for note in part.result.notes {
                let everywhere = parts.allSatisfy { $0.result.notes.contains(note) }
                let text = everywhere || !several ? note : "\(part.host): \(note)"
                if !hostNotes.contains(text) { hostNotes.append(text) }
            }
        }
        return ScenarioResult(
            scenario: first.scenario, summary: first.summary, configuration: configuration, figures: figures,
            latencies: latencies, series: series, allocationsMeasured: parts.allSatisfy(\.result.allocationsMeasured),
            notes: hostNotes + notes, wallSeconds: parts.map(\.result.wallSeconds).max() ?? 0,
            unmeasuredAfterViolation: parts.flatMap(\.result.unmeasuredAfterViolation).reduce(into: []) { names, name in
                if !names.contains(name) { names.append(name) }
            })
    }

    /// The hosts' histograms added exactly, with each host's intervals tagged with its host.
    private static func mergeLatency(_ parts: [(host: String, latency: LatencySummary)], several: Bool) -> LatencySummary {
        var total = LatencyRecorder()
        var intervals: [LatencyIntervals] = []
        for part in parts {
            total.merge(recorder(of: part.latency.histogram))
            for var series in part.latency.intervals {
                if several, series.host == nil { series.host = part.host }
                intervals.append(series)
            }
        }
        let first = parts[0].latency
        return LatencySummary(
            name: first.name, definition: first.definition, histogram: total.histogram,
            corrected: parts.allSatisfy(\.latency.coordinatedOmissionCorrected), intervals: intervals)
    }

    /// `histogram` as a ``LatencyRecorder``'s: added as it is when the layouts match, else value
    /// by value (clamped to the recorder's range).
    private static func recorder(of histogram: Histogram<UInt64>) -> LatencyRecorder {
        var recorder = LatencyRecorder()
        if histogram.lowestDiscernibleValue == recorder.histogram.lowestDiscernibleValue,
           histogram.numberOfSignificantValueDigits == recorder.histogram.numberOfSignificantValueDigits,
           histogram.max <= recorder.histogram.highestTrackableValue {
            recorder.merge(LatencyRecorder(histogram: histogram, intervals: nil))
            return recorder
        }
        for step in histogram.recordedValues() { recorder.record(step.value, count: step.count) }
        return recorder
    }

    private static func mergeMachines(_ inputs: [Input]) -> MachineInfo {
        let machines = inputs.map(\.report.machine)
        guard machines.count > 1 else { return machines[0] }
        return MachineInfo(
            hostname: inputs.map(\.host).joined(separator: " + "), cores: machines.reduce(0) { saturatingSum($0, $1.cores) },
            memoryBytes: machines.reduce(0) { saturatingSum($0, $1.memoryBytes) }, cpuModel: distinct(machines.map(\.cpuModel)),
            kernel: distinct(machines.map(\.kernel)), swiftVersion: distinct(machines.map(\.swiftVersion)),
            loadAverage: zip(inputs.map(\.host), machines).map { "\($0): \($1.loadAverage)" }.joined(separator: "; "),
            jemalloc: distinct(machines.map(\.jemalloc)),
            clock: machines.compactMap(\.clock).max { $0.resolutionNs < $1.resolutionNs })
    }

    /// `a + b`, or the largest value where that passes it (a file's fields are not trusted).
    private static func saturatingSum<Value: FixedWidthInteger>(_ a: Value, _ b: Value) -> Value {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? (b < 0 ? .min : .max) : sum
    }

    /// The values, each once, in order, joined with ` / `.
    private static func distinct(_ values: [String]) -> String {
        var seen: [String] = []
        for value in values where !seen.contains(value) { seen.append(value) }
        return seen.joined(separator: " / ")
    }
}
