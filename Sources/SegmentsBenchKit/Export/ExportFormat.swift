/// A format another tool reads a report's figures and latencies in (`segments-bench export`).
public enum ExportFormat: String, CaseIterable, Sendable {
    /// InfluxDB line protocol, timestamps in nanoseconds: a `segments_bench_figure` point per figure
    /// and a `segments_bench_latency` point per latency, stamped with the run's start.
    case influx
    /// Prometheus' text exposition format, for a Pushgateway: figures as a gauge, latencies as a
    /// summary in seconds, the run's revision and start as gauges of their own.
    case prometheus
    /// One CSV row per figure and per latency statistic, each with the run's start, revision and host.
    case csv
    /// github-action-benchmark's `customSmallerIsBetter` JSON: every latency statistic and every
    /// figure for which lower is better.
    case jsonSmallerIsBetter = "json-smaller-is-better"
    /// github-action-benchmark's `customBiggerIsBetter` JSON: every figure for which higher is better.
    case jsonBiggerIsBetter = "json-bigger-is-better"

    /// `report` in this format, with a line for each value the document does not hold.
    /// - Throws: ``ExportError/nothingToWrite(_:)`` when the report holds nothing this format
    ///   writes (a reader would take an empty document for a broken run).
    public func render(_ report: BenchReport) throws -> ExportedReport {
        let values = ExportedValues(report)
        guard !values.isEmpty else { throw ExportError.nothingToWrite("the report holds no figure and no latency") }
        var notes = values.duplicateNotes
        if self != .jsonBiggerIsBetter { notes += values.missingMinimumNotes }
        let text: String
        switch self {
        case .influx: text = InfluxLineProtocol.render(values, notes: &notes)
        case .prometheus: text = PrometheusReportText.render(values, notes: &notes)
        case .csv: text = ReportCSV.render(values)
        case .jsonSmallerIsBetter: text = try BenchmarkActionJSON.render(values, direction: .lowerIsBetter, notes: &notes)
        case .jsonBiggerIsBetter: text = try BenchmarkActionJSON.render(values, direction: .higherIsBetter, notes: &notes)
        }
        return ExportedReport(text: text, notes: notes)
    }
}

/// A report rendered in an ``ExportFormat``.
public struct ExportedReport: Sendable {
    /// The document.
    public var text: String
    /// What the document does not hold or holds changed, and why, a line each: a value the format
    /// cannot write, a second figure or latency under a name already written, a name the format
    /// cannot carry as it is, a figure that says no better direction (the JSON formats).
    public var notes: [String]
}

/// Why a report cannot be exported.
public enum ExportError: Error, CustomStringConvertible, Equatable {
    /// The document would hold no value; the reason says which.
    case nothingToWrite(String)

    public var description: String {
        switch self {
        case .nothingToWrite(let reason): "nothing to export: \(reason)"
        }
    }
}
