/// A report in Prometheus' text exposition format (0.0.4), for pushing to a Pushgateway as the
/// result of a batch job (`curl -X PUT --data-binary @- http://gateway:9091/metrics/job/segments-bench`,
/// a `PUT` so that the push replaces the group's last one whole):
///
/// - `segments_bench_report_figure{scenario,figure,unit}`: every figure, in its own unit;
/// - `segments_bench_report_latency_seconds{scenario,latency}`: every latency as a summary (the
///   quantiles its count supports, `_sum`, `_count`), and `…_latency_min_seconds` and
///   `…_latency_max_seconds` its smallest and largest samples;
/// - `segments_bench_report_info{git_revision,tool_version,host,cpu_model}` (1) and
///   `segments_bench_report_start_time_seconds`.
///
/// The names differ from the live metrics' (`segments_bench_latency_seconds`, a histogram), so a
/// Prometheus that scrapes both keeps them apart.
enum PrometheusReportText {
    static func render(_ values: ExportedValues, notes: inout [String]) -> String {
        var text = ""
        family(
            "segments_bench_report_figure", type: "gauge",
            help: "A figure of a segments-bench report, in the unit its label names.", into: &text)
        for figure in values.figures {
            sample(
                "segments_bench_report_figure", [("scenario", figure.scenario), ("figure", figure.name), ("unit", figure.unit)],
                figure.value, into: &text)
        }
        let latency = "segments_bench_report_latency_seconds"
        family(latency, type: "summary", help: "A latency of a segments-bench report: the percentiles its samples support.", into: &text)
        for value in values.latencies {
            let labels = [("scenario", value.scenario), ("latency", value.name)]
            for statistic in value.statistics {
                guard let quantile = statistic.quantile else { continue }
                sample(latency, labels + [("quantile", quantile)], statistic.nanoseconds.double / 1e9, into: &text)
            }
            sample(latency + "_sum", labels, value.sumNanoseconds / 1e9, into: &text)
            sample(latency + "_count", labels, Double(value.count), into: &text)
        }
        for (label, which) in [("min", "smallest"), ("max", "largest")] {
            let name = "segments_bench_report_latency_\(label)_seconds"
            family(name, type: "gauge", help: "The \(which) sample of a latency of a segments-bench report.", into: &text)
            for value in values.latencies {
                guard let statistic = value.statistics.first(where: { $0.label == label }) else { continue }
                sample(name, [("scenario", value.scenario), ("latency", value.name)], statistic.nanoseconds.double / 1e9, into: &text)
            }
        }
        family("segments_bench_report_info", type: "gauge", help: "The run a segments-bench report comes from.", into: &text)
        let run = values.run
        sample(
            "segments_bench_report_info",
            [("git_revision", run.gitRevision), ("tool_version", run.toolVersion), ("host", run.host), ("cpu_model", run.cpuModel)],
            1, into: &text)
        if let start = run.startSeconds {
            family(
                "segments_bench_report_start_time_seconds", type: "gauge",
                help: "When the run of a segments-bench report began, in seconds since 1970.", into: &text)
            sample("segments_bench_report_start_time_seconds", [], start, into: &text)
        } else {
            notes.append("left out segments_bench_report_start_time_seconds: the report's start '\(run.startedAt)' is not an ISO 8601 time")
        }
        return text
    }

    private static func family(_ name: String, type: String, help: String, into text: inout String) {
        text += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
    }

    /// One sample line, its labels in the order given.
    private static func sample(_ name: String, _ labels: [(String, String)], _ value: Double, into text: inout String) {
        let pairs = labels.map { "\($0.0)=\"\(PrometheusText.escapedLabelValue($0.1))\"" }
        text += name + (pairs.isEmpty ? "" : "{\(pairs.joined(separator: ","))}") + " " + PrometheusText.number(value) + "\n"
    }
}
