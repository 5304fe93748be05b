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

    /// `report` in this format, with a line for each value the format cannot hold.
    /// - Throws: an `EncodingError` should a JSON format fail to encode (it holds only finite
    ///   numbers and strings).
    public func render(_ report: BenchReport) throws -> ExportedReport {
        let values = ExportedValues(report)
        var leftOut = values.leftOut
        let text: String
        switch self {
        case .influx: text = InfluxLineProtocol.render(values, leftOut: &leftOut)
        case .prometheus: text = PrometheusReportText.render(values)
        case .csv: text = ExportCSV.render(values)
        case .jsonSmallerIsBetter: text = try BenchmarkActionJSON.render(values, better: .lowerIsBetter, leftOut: &leftOut)
        case .jsonBiggerIsBetter: text = try BenchmarkActionJSON.render(values, better: .higherIsBetter, leftOut: &leftOut)
        }
        return ExportedReport(text: text, leftOut: leftOut)
    }
}

/// A report rendered in an ``ExportFormat``.
public struct ExportedReport: Sendable {
    /// The document.
    public var text: String
    /// What the document does not hold, and why, a line each: a value the format cannot write (not
    /// a number, infinite), or a second figure or latency under a name already written.
    public var leftOut: [String]
}
