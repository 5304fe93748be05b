/// The file names of one report, decided once so that the files, `summary.md` and `index.html`
/// agree on them.
///
/// Names are slugs of scenario, latency and chart names (so no name can leave the directory or
/// need quoting in a link) and are unique: when two names would collide (scenarios whose names
/// differ only in punctuation, a scenario called `report`, a chart called `allocations`) the later
/// one gets `-2`, `-3`, … The fixed names always win.
struct ReportLayout {
    /// The files of one scenario.
    struct ScenarioFiles {
        /// `<scenario>.json`: the scenario's result with the run's context.
        var json: String
        /// `<scenario>.percentiles.svg`, when the scenario recorded any latency.
        var percentilesChart: String?
        /// `<scenario>.<latency>.hgrm`, one per entry of `ScenarioResult.latencies`, in order.
        var histograms: [String]
        /// The series charts this scenario contributes to, in order of first appearance.
        var charts: [SeriesChart]
        /// `<scenario>.<latency>.hlog`, parallel to `ScenarioResult.latencies`: the HdrHistogram
        /// interval log of each latency recorded by interval, `nil` for the others.
        var intervalLogs: [String?] = []
        /// The time series of each latency recorded by interval, in the order of the latencies.
        var timelines: [Timeline] = []
    }

    /// The two charts of a latency recorded by interval.
    struct Timeline {
        /// Index into `ScenarioResult.latencies`.
        var latency: Int
        /// `<scenario>.<latency>.throughput.svg`: operations per second over time.
        var throughput: String
        /// `<scenario>.<latency>.over-time.svg`: p50 and p99 per interval over time.
        var percentiles: String
    }

    /// A chart drawn from every `ChartSeries` with the same `chart` name.
    struct SeriesChart {
        var name: String
        var file: String
    }

    static let reportJSON = "report.json"
    static let summary = "summary.md"
    static let index = "index.html"
    static let allocationsBaseName = "allocations"

    /// One entry per scenario of the report, in order.
    var scenarios: [ScenarioFiles]
    /// Every distinct chart name, in order of first appearance across scenarios.
    var charts: [SeriesChart]
    /// `allocations.svg`, when some figure's unit starts with `allocs`.
    var allocationsChart: String?

    init(_ report: BenchReport) {
        var names = UniqueNames(reserved: [Self.reportJSON, Self.summary, Self.index])
        let hasAllocations = report.figures.contains { $0.unit.hasPrefix("allocs") }
        allocationsChart = hasAllocations ? names.claim(Self.allocationsBaseName, extension: "svg") : nil

        var scenarioFiles: [ScenarioFiles] = []
        for scenario in report.scenarios {
            let base = ReportFormat.slug(scenario.scenario)
            let json = names.claim(base, extension: "json")
            let percentiles = scenario.latencies.contains { $0.count > 0 }
                ? names.claim(base + ".percentiles", extension: "svg") : nil
            let histograms = scenario.latencies.map {
                names.claim(base + "." + ReportFormat.slug($0.name), extension: "hgrm")
            }
            var files = ScenarioFiles(json: json, percentilesChart: percentiles, histograms: histograms, charts: [])
            for (index, latency) in scenario.latencies.enumerated() {
                guard latency.intervals.contains(where: { !$0.histograms.isEmpty }) else {
                    files.intervalLogs.append(nil)
                    continue
                }
                let latencyBase = base + "." + ReportFormat.slug(latency.name)
                files.intervalLogs.append(names.claim(latencyBase, extension: "hlog"))
                files.timelines.append(Timeline(
                    latency: index, throughput: names.claim(latencyBase + ".throughput", extension: "svg"),
                    percentiles: names.claim(latencyBase + ".over-time", extension: "svg")))
            }
            scenarioFiles.append(files)
        }

        // Chart files come after scenario files, so that adding a chart never renames a scenario's file.
        var charts: [SeriesChart] = []
        for (index, scenario) in report.scenarios.enumerated() {
            for series in scenario.series {
                let chart: SeriesChart
                if let existing = charts.first(where: { $0.name == series.chart }) {
                    chart = existing
                } else {
                    chart = SeriesChart(name: series.chart, file: names.claim(ReportFormat.slug(series.chart), extension: "svg"))
                    charts.append(chart)
                }
                if !scenarioFiles[index].charts.contains(where: { $0.name == chart.name }) {
                    scenarioFiles[index].charts.append(chart)
                }
            }
        }
        self.scenarios = scenarioFiles
        self.charts = charts
    }

    /// Every file name of the report.
    var allFiles: [String] {
        var files = [Self.reportJSON]
        for scenario in scenarios {
            files.append(scenario.json)
            files += scenario.histograms
            files += scenario.intervalLogs.compactMap { $0 }
            if let chart = scenario.percentilesChart { files.append(chart) }
            files += scenario.timelines.flatMap { [$0.throughput, $0.percentiles] }
        }
        files += charts.map(\.file)
        if let allocationsChart { files.append(allocationsChart) }
        return files + [Self.summary, Self.index]
    }

    /// Hands out file names, each once.
    private struct UniqueNames {
        private var used: Set<String>

        init(reserved: Set<String>) { used = reserved }

        mutating func claim(_ base: String, extension fileExtension: String) -> String {
            var candidate = "\(base).\(fileExtension)"
            var suffix = 2
            while used.contains(candidate) {
                candidate = "\(base)-\(suffix).\(fileExtension)"
                suffix += 1
            }
            used.insert(candidate)
            return candidate
        }
    }
}
