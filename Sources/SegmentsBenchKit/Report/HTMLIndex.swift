/// `index.html`: one self-contained page for the whole report (inline CSS, no scripts, nothing
/// fetched from the network), opened straight from the directory. Charts are the SVG files next to
/// it, embedded with `<img>`.
struct HTMLIndex {
    var report: BenchReport
    var layout: ReportLayout

    private static let style = """
        body { font-family: -apple-system, "Segoe UI", "DejaVu Sans", Helvetica, Arial, sans-serif; color: #222;
               background: #fff; max-width: 1100px; margin: 0 auto; padding: 1.5em; line-height: 1.45; }
        h1 { font-size: 1.6em; margin-bottom: 0.2em; }
        h2 { border-bottom: 1px solid #ddd; padding-bottom: 0.2em; margin-top: 2em; }
        h3 { margin-top: 1.4em; font-size: 1.1em; }
        table { border-collapse: collapse; margin: 0.6em 0; font-size: 0.92em; }
        th, td { border: 1px solid #ddd; padding: 0.3em 0.6em; text-align: left; vertical-align: top; }
        th { background: #f4f4f4; }
        td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
        code { font-family: "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 0.92em; background: #f4f4f4;
               padding: 0 0.2em; border-radius: 3px; }
        img.chart { display: block; max-width: 100%; height: auto; margin: 0.8em 0; border: 1px solid #eee; }
        .muted { color: #666; }
        nav ul { columns: 2; }
        """

    func render() -> String {
        var html: [String] = []
        html.append("<!DOCTYPE html>")
        html.append("<html lang=\"en\">")
        html.append("<head>")
        html.append("<meta charset=\"utf-8\">")
        html.append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">")
        html.append("<title>segments-bench report \(e(report.startedAt))</title>")
        html.append("<style>\n\(Self.style)</style>")
        html.append("</head>")
        html.append("<body>")
        html.append("<h1>segments-bench report</h1>")
        html += header()
        html += contents()
        if let chart = layout.allocationsChart {
            html.append("<section id=\"allocations\">")
            html.append("<h2>Allocations</h2>")
            html.append(image(chart, alt: "Allocations"))
            html.append("</section>")
        }
        for (index, scenario) in report.scenarios.enumerated() {
            html += section(scenario, files: layout.scenarios[index], anchor: anchor(index))
        }
        html.append("</body>")
        html.append("</html>")
        return html.joined(separator: "\n") + "\n"
    }

    private func header() -> [String] {
        let machine = report.machine
        let rows: [(String, String)] = [
            ("Machine", "\(e(machine.hostname)), \(machine.cores) cores, \(e(machine.cpuModel))"),
            ("Memory", e(ReportFormat.bytes(Double(machine.memoryBytes)))),
            ("Kernel", e(machine.kernel)),
            ("Load average", "\(e(machine.loadAverage)) <span class=\"muted\">(1, 5, 15 min, at start)</span>"),
            ("jemalloc", e(machine.jemalloc)),
            ("Swift", e(machine.swiftVersion)),
            ("Clock", e(ReportFormat.clock(machine.clock))),
            ("segments-bench", e(report.toolVersion)),
            ("Git revision", "<code>\(e(report.gitRevision))</code>"),
            ("Started", e(report.startedAt)),
            ("Command", "<code>\(e(report.command))</code>"),
        ]
        var html = ["<table class=\"machine\">"]
        html += rows.map { "<tr><th>\($0.0)</th><td>\($0.1)</td></tr>" }
        if let interrupted = report.interrupted {
            html.append("<tr><th>Interrupted</th><td><strong>\(e(interrupted))</strong>: only the scenarios below finished</td></tr>")
        }
        html.append("</table>")
        html.append("<p>Data: <a href=\"\(e(ReportLayout.reportJSON))\">\(e(ReportLayout.reportJSON))</a> · "
            + "<a href=\"\(e(ReportLayout.summary))\">\(e(ReportLayout.summary))</a>. "
            + "<span class=\"muted\">The machine is shared: read latencies against the floors measured in the same run.</span></p>")
        return html
    }

    private func contents() -> [String] {
        var html = ["<nav>", "<h2>Scenarios</h2>", "<ul>"]
        if layout.allocationsChart != nil { html.append("<li><a href=\"#allocations\">Allocations</a></li>") }
        for (index, scenario) in report.scenarios.enumerated() {
            html.append("<li><a href=\"#\(anchor(index))\">\(e(scenario.scenario))</a></li>")
        }
        html += ["</ul>", "</nav>"]
        return html
    }

    /// Scenario names are free text; anchors come from the (unique) file names instead.
    private func anchor(_ index: Int) -> String {
        "scenario-" + layout.scenarios[index].json.replacingOccurrences(of: ".json", with: "")
    }

    private func section(_ scenario: ScenarioResult, files: ReportLayout.ScenarioFiles, anchor: String) -> [String] {
        var html = ["<section id=\"\(anchor)\">", "<h2>\(e(scenario.scenario))</h2>"]
        html.append("<p>\(MarkupEscaping.htmlProse(scenario.summary))</p>")
        html.append("<p class=\"muted\">Wall time \(e(ReportFormat.number(scenario.wallSeconds))) s · allocations measured: "
            + (scenario.allocationsMeasured ? "yes" : "no") + " · data: \(link(files.json))</p>")

        if !scenario.configuration.isEmpty {
            html += ["<h3>Configuration</h3>", "<table>", "<tr><th>Option</th><th>Value</th></tr>"]
            for key in scenario.configuration.keys.sorted() {
                html.append("<tr><td><code>\(e(key))</code></td><td>\(e(scenario.configuration[key]!))</td></tr>")
            }
            html.append("</table>")
        }

        if !scenario.figures.isEmpty {
            html += ["<h3>Figures</h3>", "<table>", "<tr><th>Figure</th><th>Value</th><th>Gate</th><th>What it is</th></tr>"]
            for figure in scenario.figures {
                html.append("<tr><td><code>\(e(figure.name))</code></td><td class=\"num\">\(e(ReportFormat.value(of: figure, clock: report.machine.clock)))</td>"
                    + "<td>\(e(ReportFormat.describe(figure.gate, unit: figure.unit)))</td>"
                    + "<td>\(MarkupEscaping.htmlProse(figure.summary))</td></tr>")
            }
            html.append("</table>")
        }

        if !scenario.latencies.isEmpty {
            html += ["<h3>Latencies</h3>", "<table>"]
            html.append("<tr><th>Latency</th><th>Count</th><th>p50</th><th>p90</th><th>p99</th><th>p99.9</th><th>p99.99</th>"
                + "<th>max</th><th>mean</th><th>Histogram</th></tr>")
            for (index, (latency, histogram)) in zip(scenario.latencies, files.histograms).enumerated() {
                let log = files.intervalLogs.indices.contains(index) ? files.intervalLogs[index] : nil
                let mark = latency.coordinatedOmissionCorrected ? " <span title=\"corrected for coordinated omission\">†</span>" : ""
                let values = latency.percentiles.map { "<td class=\"num\">\(e(ReportFormat.percentile($0.value)))</td>" }
                html.append("<tr><td title=\"\(e(latency.definition))\">\(e(latency.name))\(mark)</td>"
                    + "<td class=\"num\">\(ReportFormat.grouped(latency.count))</td>" + values.joined()
                    + "<td class=\"num\">\(e(latency.count > 0 ? ReportFormat.humanDuration(ns: latency.mean) : "—"))</td><td>\(link(histogram))"
                    + (log.map { "<br>\(link($0))" } ?? "") + "</td></tr>")
            }
            html.append("</table>")
            if scenario.latencies.contains(where: \.coordinatedOmissionCorrected) {
                html.append("<p class=\"muted\">† Corrected for coordinated omission: includes the samples a stalled load generator would have taken.</p>")
            }
            if scenario.latencies.contains(where: { $0.percentiles.contains { $0.value == nil } }) {
                html.append("<p class=\"muted\">\(e(ReportFormat.omittedPercentileNote))</p>")
            }
            html.append("<ul>")
            for latency in scenario.latencies {
                html.append("<li><strong>\(e(latency.name))</strong>: \(MarkupEscaping.htmlProse(latency.definition))</li>")
            }
            html.append("</ul>")
            html.append("<p class=\"muted\">Histograms are HdrHistogram percentile distributions with values in µs; "
                + "<code>.hlog</code> files are HdrHistogram interval logs, one histogram per interval (1 s, longer for phases over 300 s; each line gives its length).</p>")
        }

        let charts = [files.percentilesChart.map { ("\(scenario.scenario): latency by percentile", $0) }].compactMap { $0 }
            + files.timelines.flatMap { timeline -> [(String, String)] in
                let name = scenario.latencies[timeline.latency].name
                return [("\(name): throughput over time", timeline.throughput), ("\(name): p50 and p99 over time", timeline.percentiles)]
            }
            + files.charts.map { ($0.name, $0.file) }
        if !charts.isEmpty {
            html.append("<h3>Charts</h3>")
            html += charts.map { image($0.1, alt: $0.0) }
        }

        if !scenario.notes.isEmpty {
            html += ["<h3>Notes</h3>", "<ul>"]
            html += scenario.notes.map { "<li>\(MarkupEscaping.htmlProse($0))</li>" }
            html.append("</ul>")
        }
        html.append("</section>")
        return html
    }

    private func image(_ file: String, alt: String) -> String {
        "<a href=\"\(e(file))\"><img class=\"chart\" src=\"\(e(file))\" alt=\"\(e(alt))\"></a>"
    }

    private func link(_ file: String) -> String {
        "<a href=\"\(e(file))\">\(e(file))</a>"
    }

    private func e(_ text: String) -> String { MarkupEscaping.xml(text) }
}
